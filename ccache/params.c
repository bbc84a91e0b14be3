// SPDX-License-Identifier: GPL-2.0
/*
 * The knobs of ccache: module parameters under /sys/module/ccache/parameters/,
 * settable with "modprobe ccache knob=value" and at runtime.
 *
 * Every knob is validated before it changes.  A bad value at load time makes
 * the load fail; a bad value written at runtime returns -EINVAL and leaves
 * the knob as it was.  Rejections are logged at warning level, rate limited,
 * with the offending input escaped and truncated.  The parsers knobs share
 * (booleans, numbers, lists) are in param_ops.c; the cpu offload backend's
 * settings are kept by the backend (spu-offload/cpu.c), whose interface the
 * offload_* knobs call.
 *
 * Locking: the kernel serialises every set and get of a module parameter
 * with kernel_param_lock(THIS_MODULE) (load-time parsing runs before any
 * other code of the module).  Numeric knobs are single words: writers use
 * WRITE_ONCE(), readers the ccache_param_*() accessors with READ_ONCE().
 * String knobs are copied out under kernel_param_lock().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/crypto.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "ccache.h"
#include "../crypto/comp.h"
#include "param_ops.h"
#include "store.h"
#include "../spu-offload/kspu.h"

/* ---- compressor: a crypto API compression algorithm ---- */

static char ccache_compressor[CRYPTO_MAX_ALG_NAME] = "lzo";
static char ccache_offload[16] = "cpu";

static int ccache_compressor_set(const char *val, const struct kernel_param *kp)
{
	char name[CRYPTO_MAX_ALG_NAME];

	int err;

	if (ccache_parse_word(val, name, sizeof(name)))
		return ccache_reject(kp, val, "expected a name such as lzo or zstd");
	if (!strcmp(ccache_offload, "inline") &&
	    !ccache_comp_atomic_capable(name))
		return ccache_reject(kp, val, "offload=inline works with lzo and lzo-rle only");
	err = ccache_comp_select(name);
	if (err == -ENOENT)
		return ccache_reject(kp, val, "the crypto API has no such compression algorithm");
	if (err == -ENOSPC)
		return ccache_reject(kp, val, "too many compressors used since load");
	if (err)
		return ccache_reject(kp, val, "cannot set up this compressor");
	strscpy(ccache_compressor, name, sizeof(ccache_compressor));
	return 0;
}

static int ccache_compressor_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", ccache_compressor);
}

static const struct kernel_param_ops ccache_compressor_ops = {
	.set = ccache_compressor_set,
	.get = ccache_compressor_get,
};

/* ---- offload: where compression runs (spu-offload/kspu.h) ---- */

static int ccache_offload_set(const char *val, const struct kernel_param *kp)
{
	char name[sizeof(ccache_offload)];
	int err;

	if (ccache_parse_word(val, name, sizeof(name)) ||
	    !kspu_backend_exists(name))
		return ccache_reject(kp, val, "expected inline, cpu or acomp-async");
	if (!strcmp(name, "inline") &&
	    !ccache_comp_atomic_capable(ccache_compressor))
		return ccache_reject(kp, val, "inline needs compressor lzo or lzo-rle");
	err = kspu_select(name);
	if (err)
		return ccache_reject(kp, val, "cannot start this backend");
	strscpy(ccache_offload, name, sizeof(ccache_offload));
	return 0;
}

static int ccache_offload_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", ccache_offload);
}

static const struct kernel_param_ops ccache_offload_ops = {
	.set = ccache_offload_set,
	.get = ccache_offload_get,
};

/*
 * ---- The cpu backend's settings: its CPUs, the jobs a thread takes at a
 * time, and its scheduling policy ----
 *
 * spu-offload/cpu.c keeps them and applies them together; each knob reads
 * the other two back from it.
 */

/*
 * Apply the cpu backend's settings with @batch and @sched_idle, keeping its
 * CPUs.  Return: 0 or a negative errno (kspu_cpu_configure()).
 */
static int ccache_offload_reconfigure(unsigned int batch, bool sched_idle)
{
	struct cpumask *mask = kzalloc(cpumask_size(), GFP_KERNEL);
	int err;

	if (!mask)
		return -ENOMEM;
	err = kspu_cpu_configure(kspu_cpu_get_cpus(mask) ? NULL : mask, batch,
				 sched_idle);
	kfree(mask);
	return err;
}

static int ccache_offload_cpus_set(const char *val,
				   const struct kernel_param *kp)
{
	struct cpumask *mask;
	char list[128];
	bool all;
	int err;

	if (strlen(val) >= sizeof(list))
		return ccache_reject(kp, val, "list too long");
	strscpy(list, val, sizeof(list));
	all = sysfs_streq(list, "all");
	mask = kzalloc(cpumask_size(), GFP_KERNEL);
	if (!mask)
		return -ENOMEM;
	err = all ? 0 : cpulist_parse(strim(list), mask);
	if (!err && !all && (cpumask_empty(mask) ||
			     !cpumask_subset(mask, cpu_possible_mask)))
		err = -EINVAL;
	if (!err)
		err = kspu_cpu_configure(all ? NULL : mask, kspu_cpu_get_batch(),
					 kspu_cpu_get_sched_idle());
	kfree(mask);
	if (err)
		return ccache_reject(kp, val, "expected all or online CPUs such as 0-1,3");
	return 0;
}

static int ccache_offload_cpus_get(char *buf, const struct kernel_param *kp)
{
	struct cpumask *mask = kzalloc(cpumask_size(), GFP_KERNEL);
	int len;

	if (!mask)
		return -ENOMEM;
	if (kspu_cpu_get_cpus(mask))
		len = sysfs_emit(buf, "all\n");
	else
		len = sysfs_emit(buf, "%*pbl\n", cpumask_pr_args(mask));
	kfree(mask);
	return len;
}

static const struct kernel_param_ops ccache_offload_cpus_ops = {
	.set = ccache_offload_cpus_set,
	.get = ccache_offload_cpus_get,
};

static int ccache_offload_batch_apply(unsigned int batch)
{
	return ccache_offload_reconfigure(batch, kspu_cpu_get_sched_idle());
}

static const char * const ccache_sched_names[] = { "nice", "idle" };

static int ccache_offload_sched_apply(unsigned int idle)
{
	return ccache_offload_reconfigure(kspu_cpu_get_batch(), idle);
}

static unsigned int ccache_offload_sched_get(void)
{
	return kspu_cpu_get_sched_idle();
}

/* The names of enum ccache_fs, as the "filesystems" knob lists them. */
const char * const ccache_fs_names[CCACHE_FS_COUNT] = {
	[CCACHE_FS_EXT4] = "ext4",
	[CCACHE_FS_XFS] = "xfs",
	[CCACHE_FS_BDEV] = "bdev",
};

static unsigned long ccache_filesystems = BIT(CCACHE_FS_EXT4) | BIT(CCACHE_FS_XFS) |
					  BIT(CCACHE_FS_BDEV);

/* ---- The knobs ---- */

static bool ccache_enabled = true;
module_param_cb(enabled, &ccache_bool_ops, &ccache_enabled, 0644);
MODULE_PARM_DESC(enabled, "Capture evicted pages and serve re-reads (default Y)");

module_param_cb(compressor, &ccache_compressor_ops, NULL, 0644);
MODULE_PARM_DESC(compressor, "Crypto API compression algorithm (default lzo)");

static unsigned int ccache_max_pool_percent = 60;
static struct ccache_uint_knob ccache_max_pool_percent_knob = {
	.val = &ccache_max_pool_percent, .min = 1, .max = 90,
};
module_param_cb(max_pool_percent, &ccache_uint_ops,
		&ccache_max_pool_percent_knob, 0644);
MODULE_PARM_DESC(max_pool_percent,
		 "Largest compressed pool, in percent of RAM (1-90, default 60)");

/* pool_sizing: sizing.c's target (auto), or max_pool_percent (fixed) */
static const char * const ccache_sizing_names[] = { "fixed", "auto" };
static unsigned int ccache_pool_sizing = 1;
static struct ccache_choice_knob ccache_pool_sizing_knob = {
	.val = &ccache_pool_sizing, .names = ccache_sizing_names,
	.nr = ARRAY_SIZE(ccache_sizing_names), .why = "expected auto or fixed",
};
module_param_cb(pool_sizing, &ccache_choice_ops, &ccache_pool_sizing_knob,
		0644);
MODULE_PARM_DESC(pool_sizing,
		 "How much the pool holds: auto (what saves the most disk reads, up to max_pool_percent) or fixed (max_pool_percent) (default auto)");

static unsigned int ccache_accept_threshold_percent = 100;
static struct ccache_uint_knob ccache_accept_threshold_percent_knob = {
	.val = &ccache_accept_threshold_percent, .min = 0, .max = 100,
};
module_param_cb(accept_threshold_percent, &ccache_uint_ops,
		&ccache_accept_threshold_percent_knob, 0644);
MODULE_PARM_DESC(accept_threshold_percent,
		 "After the pool fills, accept new pages again below this percent of the limit (0-100, default 100)");

module_param_cb(offload, &ccache_offload_ops, NULL, 0644);
MODULE_PARM_DESC(offload,
		 "Where compression runs: inline (in reclaim), cpu (idle cores) or acomp-async (default cpu)");

module_param_cb(offload_cpus, &ccache_offload_cpus_ops, NULL, 0644);
MODULE_PARM_DESC(offload_cpus,
		 "CPUs the cpu backend's threads may use: all or a list such as 0-1,3 (default all)");

static struct ccache_uint_knob ccache_offload_batch_knob = {
	.min = 1, .max = 1024,
	.apply = ccache_offload_batch_apply, .get = kspu_cpu_get_batch,
};
module_param_cb(offload_batch, &ccache_uint_ops, &ccache_offload_batch_knob,
		0644);
MODULE_PARM_DESC(offload_batch,
		 "Jobs a cpu backend thread takes at a time (1-1024, default 16)");

static struct ccache_choice_knob ccache_offload_sched_knob = {
	.names = ccache_sched_names, .nr = ARRAY_SIZE(ccache_sched_names),
	.why = "expected idle or nice",
	.apply = ccache_offload_sched_apply,
	.apply_why = "cannot restart the offload threads",
	.get = ccache_offload_sched_get,
};
module_param_cb(offload_sched, &ccache_choice_ops, &ccache_offload_sched_knob,
		0644);
MODULE_PARM_DESC(offload_sched,
		 "Priority of the cpu backend's threads: idle (SCHED_IDLE) or nice (nice 19) (default idle)");

static unsigned int ccache_offload_boost_percent;
static struct ccache_uint_knob ccache_offload_boost_percent_knob = {
	.val = &ccache_offload_boost_percent, .min = 0, .max = 100,
};
module_param_cb(offload_boost_percent, &ccache_uint_ops,
		&ccache_offload_boost_percent_knob, 0644);
MODULE_PARM_DESC(offload_boost_percent,
		 "CPU, in percent of one CPU, the cpu backend's threads may take raised (nice 19, 10, 0) when pages dropped for want of compression time are read again (0-100, default 0: never)");

static struct ccache_list_knob ccache_filesystems_knob = {
	.mask = &ccache_filesystems, .names = ccache_fs_names,
	.nr = CCACHE_FS_COUNT,
	.why = "expected a list of ext4, xfs and bdev, or none",
};
module_param_cb(filesystems, &ccache_list_ops, &ccache_filesystems_knob, 0644);
MODULE_PARM_DESC(filesystems,
		 "Comma-separated filesystems to cache: ext4, xfs, bdev (block devices' own pages: filesystem metadata), or none (default ext4,xfs,bdev)");

static bool ccache_keep_served;
module_param_cb(keep_served, &ccache_bool_ops, &ccache_keep_served, 0644);
MODULE_PARM_DESC(keep_served,
		 "Keep a served page's compressed copy while the page is cached, so that its next eviction need not compress it again (default N)");

static bool ccache_checksum = true;
module_param_cb(checksum, &ccache_bool_ops, &ccache_checksum, 0644);
MODULE_PARM_DESC(checksum,
		 "Keep a checksum of each compressed page and check it on every hit (default Y)");

#ifdef CCACHE_FAULT_INJECT
/* Test-only (fault.c), in test builds only (Kbuild). */
static struct ccache_list_knob ccache_fault_knob = {
	.mask = &ccache_fault_mask, .names = ccache_fault_names,
	.nr = CCACHE_FAULT_NR, .test_only = true,
	.why = "expected a list of sites (see the admin guide), or none",
};
module_param_cb(fault_inject, &ccache_list_ops, &ccache_fault_knob, 0644);
MODULE_PARM_DESC(fault_inject,
		 "TEST ONLY: sites where faults are injected, comma-separated (default none)");

static struct ccache_uint_knob ccache_fault_every_knob = {
	.val = &ccache_fault_every, .min = 1, .max = 1000000,
};
module_param_cb(fault_every, &ccache_uint_ops, &ccache_fault_every_knob,
		0644);
MODULE_PARM_DESC(fault_every,
		 "TEST ONLY: every Nth pass through a fault_inject site fails (1-1000000, default 1)");

static struct ccache_uint_knob ccache_submit_delay_knob = {
	.val = &kspu_cpu_test_delay_ms, .min = 0, .max = 1000,
};
module_param_cb(fault_submit_delay_ms, &ccache_uint_ops,
		&ccache_submit_delay_knob, 0644);
MODULE_PARM_DESC(fault_submit_delay_ms,
		 "TEST ONLY: milliseconds the cpu backend's submitter spins before arming its timer (0-1000, default 0)");

static int ccache_staging_dirty_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%u\n", ccache_staging_dirty());
}

static const struct kernel_param_ops ccache_staging_dirty_ops = {
	.get = ccache_staging_dirty_get,
};

module_param_cb(staging_dirty, &ccache_staging_dirty_ops, NULL, 0444);
MODULE_PARM_DESC(staging_dirty,
		 "TEST ONLY: free staging buffers that still hold a page's bytes (read only)");
#endif

/* ---- Accessors for the rest of the module ---- */

/**
 * ccache_param_describe() - the knobs in force, for the log
 * @buf: where to write them, as one line without a newline
 * @size: its size
 */
void ccache_param_describe(char *buf, size_t size)
{
	char fs[32];

	ccache_list_emit(fs, sizeof(fs), ccache_param_filesystems(),
			 ccache_fs_names, CCACHE_FS_COUNT);
	kernel_param_lock(THIS_MODULE);
	scnprintf(buf, size,
		  "compressor %s, offload %s, max_pool_percent %u (%lu MiB), filesystems %s, %s",
		  ccache_compressor, ccache_offload,
		  ccache_param_max_pool_percent(),
		  ccache_param_max_pool_bytes() >> 20, fs,
		  ccache_param_enabled() ? "enabled" : "disabled");
	kernel_param_unlock(THIS_MODULE);
}

/** ccache_param_offload_boost_percent() - Return: that knob. */
unsigned int ccache_param_offload_boost_percent(void)
{
	return READ_ONCE(ccache_offload_boost_percent);
}

/** ccache_param_enabled() - Return: the "enabled" knob. */
bool ccache_param_enabled(void)
{
	return READ_ONCE(ccache_enabled);
}

/** ccache_param_keep_served() - Return: the "keep_served" knob. */
bool ccache_param_keep_served(void)
{
	return READ_ONCE(ccache_keep_served);
}

/** ccache_param_checksum() - Return: the "checksum" knob. */
bool ccache_param_checksum(void)
{
	return READ_ONCE(ccache_checksum);
}

/** ccache_param_max_pool_percent() - Return: the "max_pool_percent" knob. */
unsigned int ccache_param_max_pool_percent(void)
{
	return READ_ONCE(ccache_max_pool_percent);
}

/**
 * ccache_param_max_pool_bytes() - the pool's limit: max_pool_percent of RAM
 *
 * Return: the limit in bytes; the pool's metadata counts against it too.
 */
unsigned long ccache_param_max_pool_bytes(void)
{
	return (totalram_pages() * ccache_param_max_pool_percent() / 100)
	       << PAGE_SHIFT;
}

/**
 * ccache_param_accept_threshold_percent() -
 * Return: the "accept_threshold_percent" knob.
 */
unsigned int ccache_param_accept_threshold_percent(void)
{
	return READ_ONCE(ccache_accept_threshold_percent);
}

/** ccache_param_pool_sizing_auto() - Return: pool_sizing is "auto". */
bool ccache_param_pool_sizing_auto(void)
{
	return READ_ONCE(ccache_pool_sizing);
}

/**
 * ccache_param_filesystems() - the "filesystems" knob
 *
 * Return: a mask with bit i set when filesystem i of enum ccache_fs may be
 * cached.
 */
unsigned long ccache_param_filesystems(void)
{
	return READ_ONCE(ccache_filesystems);
}

/**
 * ccache_param_start_compressor() - set up the compressor the knob names
 *
 * Until this call the "compressor" knob only checks names; from then on
 * it switches the compressor.  Takes the module's parameter lock so the
 * knob cannot change meanwhile; may sleep.
 *
 * Return: 0 or a negative errno, logged.
 */
int ccache_param_start_compressor(void)
{
	int err;

	kernel_param_lock(THIS_MODULE);
	err = ccache_comp_init(ccache_compressor);
	if (err)
		pr_err("cannot set up compressor %s: %d\n", ccache_compressor, err);
	else
		pr_info("compressor %s\n", ccache_compressor);
	kernel_param_unlock(THIS_MODULE);
	return err;
}

/**
 * ccache_param_start_offload() - start the backend the "offload" knob names
 *
 * Until this call the offload knobs only check and record values; from
 * then on they switch and reconfigure backends.  Takes the module's
 * parameter lock so the knobs cannot change meanwhile; may sleep.
 *
 * Return: 0 or a negative errno, logged.
 */
int ccache_param_start_offload(void)
{
	int err;

	kernel_param_lock(THIS_MODULE);
	err = kspu_init(ccache_offload);
	if (err)
		pr_err("cannot start offload backend %s: %d\n", ccache_offload,
		       err);
	kernel_param_unlock(THIS_MODULE);
	return err;
}
