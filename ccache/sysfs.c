// SPDX-License-Identifier: GPL-2.0
/*
 * The tree /sys/kernel/mm/ccache/: one read-only value per file, and
 * write-only control files that each run one action, every file
 * documented in Documentation/ABI/testing/sysfs-kernel-mm-ccache.
 *
 * /sys/kernel/mm/ccache/offload/BACKEND/ holds each offload backend's
 * counters (struct kspu_stats), whether it is the current one or not:
 * spu-offload/sysfs.c creates and shows them.
 *
 * Lifetime: the directories exist from ccache_sysfs_init() until
 * ccache_sysfs_exit(); kobject_put() there waits for no reader, so every
 * show() handler must only read data that outlives the module's own exit
 * path up to that call.  Removing the files does wait for store() handlers
 * in progress (kernfs drains them), and the store they act on is torn down
 * after sysfs (ccache/main.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernfs.h>
#include <linux/math64.h>
#include <linux/kobject.h>
#include <linux/mm.h>
#include <linux/sysfs.h>

#include "ccache.h"
#include "store.h"
#include "../spu-offload/kspu.h"

#include <asm/tsc.h>

static ssize_t version_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%s\n", CCACHE_VERSION);
}

static struct kobj_attribute ccache_attr_version = __ATTR_RO(version);

/* Values derived from the counters. */
static unsigned long ccache_original_bytes(void)
{
	return ccache_stat_read(stored_pages) * PAGE_SIZE;
}

static unsigned long ccache_mem_used_bytes(void)
{
	return ccache_pool_used() + ccache_staging_bytes();
}

/*
 * Captures per second, over the last whole second: sampled by a delayed
 * work item from ccache_sysfs_init() to ccache_sysfs_exit().
 */
static unsigned long ccache_capture_rate, ccache_capture_last;
static void ccache_rate_work(struct work_struct *work);
static DECLARE_DELAYED_WORK(ccache_rate_worker, ccache_rate_work);

static void ccache_rate_work(struct work_struct *work)
{
	unsigned long now = ccache_stat_read(captures);

	WRITE_ONCE(ccache_capture_rate, now - ccache_capture_last);
	ccache_capture_last = now;
	schedule_delayed_work(&ccache_rate_worker, HZ);
}

static unsigned long ccache_captures_per_sec(void)
{
	return READ_ONCE(ccache_capture_rate);
}

/* The capture probe counts TSC cycles: local_clock() costs it more. */
static unsigned long ccache_capture_ns(void)
{
	return tsc_khz ? mul_u64_u32_div(ccache_stat_read(capture_cycles),
					 USEC_PER_SEC, tsc_khz) : 0;
}

static unsigned long ccache_compression_ratio_permille(void)
{
	unsigned long orig = ccache_original_bytes();

	return orig ? ccache_stat_read(compressed_bytes) * 1000 / orig : 0;
}

/*
 * The statistics: each file shows one counter of struct ccache_stats, or
 * one derived value, to root only (mode 0400).  Exact counts of other
 * users' pages are a side channel: compressed_bytes before and after a
 * page an unprivileged user can partly write is evicted tells how well
 * the rest of it compresses (a compression-length oracle, as CRIME and
 * BREACH are over TLS), and hits and misses show when others read their
 * files.  Documentation/admin-guide/ccache.rst, "Security".
 */
struct ccache_stat_attr {
	struct kobj_attribute attr;
	size_t offset;				/* into ccache_stats */
	unsigned long (*derive)(void);		/* or this */
};

static ssize_t ccache_stat_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	struct ccache_stat_attr *a = container_of(attr, struct ccache_stat_attr,
						  attr);
	long v;

	if (a->derive)
		v = a->derive();
	else
		v = atomic_long_read((atomic_long_t *)((char *)&ccache_stats +
						       a->offset));
	return sysfs_emit(buf, "%ld\n", max(v, 0L));
}

/* The statistic's file called @_file, as an entry of ccache_attrs[]. */
#define CCACHE_STAT(_file, _offset, _derive)				\
	(&((struct ccache_stat_attr){					\
		.attr = {						\
			.attr = { .name = (_file), .mode = 0400 },	\
			.show = ccache_stat_show,			\
		},							\
		.offset = (_offset),					\
		.derive = (_derive),					\
	}).attr.attr)

/* The file that shows counter @_name of struct ccache_stats. */
#define CCACHE_COUNTER(_name)						\
	CCACHE_STAT(#_name, offsetof(struct ccache_stats, _name), NULL)

/* The file that shows the value ccache_@_name() derives. */
#define CCACHE_DERIVED(_name)	CCACHE_STAT(#_name, 0, ccache_##_name)

/* The file reject_@_name, which shows reject[CCACHE_REJECT_@_NAME]. */
#define CCACHE_REJECTS(_name, _NAME)					\
	CCACHE_STAT("reject_" #_name,					\
		    offsetof(struct ccache_stats,			\
			     reject[CCACHE_REJECT_##_NAME]), NULL)

/*
 * The control files: write-only (mode 0200), each runs one action when
 * "1" is written to it.  Anything else is refused with -EINVAL and does
 * nothing.
 */
struct ccache_ctl_attr {
	struct kobj_attribute attr;
	void (*action)(void);
};

static ssize_t ccache_ctl_store(struct kobject *kobj,
				struct kobj_attribute *attr, const char *buf,
				size_t count)
{
	struct ccache_ctl_attr *a = container_of(attr, struct ccache_ctl_attr,
						 attr);

	/* "1" as echo writes it, with or without its newline; nothing else */
	if (buf[0] != '1' || !(count == 1 || (count == 2 && buf[1] == '\n'))) {
		pr_warn_ratelimited("%s: rejected '%*pE': expected 1\n",
				    attr->attr.name,
				    (int)min_t(size_t, count, 32), buf);
		return -EINVAL;
	}
	a->action();
	return count;
}

/* The control file @_name, running @_action(), as an entry of ccache_attrs[]. */
#define CCACHE_CTL(_name, _action)					\
	(&((struct ccache_ctl_attr){					\
		.attr = __ATTR(_name, 0200, NULL, ccache_ctl_store),	\
		.action = (_action),					\
	}).attr.attr)

/* The files of /sys/kernel/mm/ccache/ (offload/ is spu-offload/sysfs.c's). */
static struct attribute *ccache_attrs[] = {
	&ccache_attr_version.attr,
	CCACHE_COUNTER(stored_pages),
	CCACHE_DERIVED(original_bytes),
	CCACHE_COUNTER(compressed_bytes),
	CCACHE_DERIVED(mem_used_bytes),
	CCACHE_COUNTER(hits),
	CCACHE_COUNTER(misses),
	CCACHE_COUNTER(captures),
	CCACHE_COUNTER(kept_pages),
	CCACHE_COUNTER(recaptures),
	CCACHE_COUNTER(recapture_changed),
	CCACHE_DERIVED(capture_ns),
	CCACHE_REJECTS(poor_compression, POOR_COMPRESSION),
	CCACHE_REJECTS(staging_full, STAGING_FULL),
	CCACHE_REJECTS(offload, OFFLOAD),
	CCACHE_REJECTS(pool_limit, POOL_LIMIT),
	CCACHE_REJECTS(alloc_failure, ALLOC_FAILURE),
	CCACHE_COUNTER(alloc_retries),
	CCACHE_REJECTS(policy, POLICY),
	CCACHE_REJECTS(cgroup_limit, CGROUP_LIMIT),
	CCACHE_COUNTER(invalidations),
	CCACHE_COUNTER(inodes),
	CCACHE_DERIVED(inode_buckets),
	CCACHE_COUNTER(lru_evictions),
	CCACHE_COUNTER(idle_evictions),
	CCACHE_COUNTER(shrinker_frees),
	CCACHE_DERIVED(pool_target_bytes),
	CCACHE_COUNTER(ghost_hits),
	CCACHE_COUNTER(other_refaults),
	CCACHE_COUNTER(slow_ghost_hits),
	CCACHE_COUNTER(near_ghost_hits),
	CCACHE_COUNTER(near_hits),
	CCACHE_COUNTER(cpu_bound_periods),
	CCACHE_COUNTER(served_reads),
	CCACHE_COUNTER(partial_reads),
	CCACHE_COUNTER(bdev_hits),
	CCACHE_COUNTER(bdev_misses),
	CCACHE_COUNTER(bdev_unmarked),
	CCACHE_COUNTER(offload_boost_secs),
	CCACHE_COUNTER(same_filled_pages),
	CCACHE_COUNTER(decompress_errors),
	CCACHE_COUNTER(checksum_errors),
	CCACHE_DERIVED(compression_ratio_permille),
	CCACHE_DERIVED(captures_per_sec),
	/* drop every stored page; poison and in-flight marks stay */
	CCACHE_CTL(flush, ccache_flush),
	NULL,
};
ATTRIBUTE_GROUPS(ccache);

static struct kobject *ccache_kobj;

/*
 * The kobject of /sys/kernel/mm.  mm_kobj itself is not exported on every
 * kernel we target (Debian's 7.x does not export it), so find it the way
 * sysfs does: a sysfs directory's kernfs node keeps its kobject in ->priv.
 * That kobject is created at boot and never released.
 */
static struct kobject *ccache_mm_kobj(void)
{
	struct kobject *kobj = NULL;
	struct kernfs_node *kn;

	kn = kernfs_find_and_get(kernel_kobj->sd, "mm");
	if (!kn)
		return NULL;
	if (kernfs_type(kn) == KERNFS_DIR)
		kobj = kn->priv;
	kernfs_put(kn);
	return kobj;
}

/**
 * ccache_sysfs_init() - create /sys/kernel/mm/ccache/ and its files
 *
 * Return: 0 or a negative errno.
 */
int ccache_sysfs_init(void)
{
	struct kobject *mm = ccache_mm_kobj();
	int err;

	if (!mm) {
		pr_err("/sys/kernel/mm not found\n");
		return -ENOENT;
	}
	ccache_kobj = kobject_create_and_add(KBUILD_MODNAME, mm);
	if (!ccache_kobj)
		return -ENOMEM;
	err = sysfs_create_groups(ccache_kobj, ccache_groups);
	if (!err)
		err = kspu_sysfs_init(ccache_kobj);
	if (err) {
		ccache_sysfs_exit();
		return err;
	}
	ccache_capture_last = ccache_stat_read(captures);
	schedule_delayed_work(&ccache_rate_worker, HZ);
	return 0;
}

/**
 * ccache_sysfs_exit() - remove /sys/kernel/mm/ccache/
 */
void ccache_sysfs_exit(void)
{
	cancel_delayed_work_sync(&ccache_rate_worker);
	kspu_sysfs_exit();
	kobject_put(ccache_kobj);
	ccache_kobj = NULL;
}
