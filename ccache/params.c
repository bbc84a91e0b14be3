// SPDX-License-Identifier: GPL-2.0
/*
 * The knobs of ccache: module parameters under /sys/module/ccache/parameters/,
 * settable with "modprobe ccache knob=value" and at runtime.
 *
 * Every knob is validated before it changes.  A bad value at load time makes
 * the load fail; a bad value written at runtime returns -EINVAL and leaves
 * the knob as it was.  Rejections are logged at warning level, rate limited,
 * with the offending input escaped and truncated.
 *
 * Locking: the kernel serialises every set and get of a module parameter
 * with kernel_param_lock(THIS_MODULE) (load-time parsing runs before any
 * other code of the module).  Numeric knobs are single words: writers use
 * WRITE_ONCE(), readers the ccache_param_*() accessors with READ_ONCE().
 * String knobs are copied out under kernel_param_lock().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/crypto.h>
#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "ccache.h"

/* How much of a rejected value the warning shows. */
#define CCACHE_SHOWN_INPUT 32

static int ccache_reject(const struct kernel_param *kp, const char *val,
			 const char *why)
{
	pr_warn_ratelimited("%s: rejected '%*pE': %s\n", kp->name,
			    (int)min_t(size_t, strlen(val), CCACHE_SHOWN_INPUT),
			    val, why);
	return -EINVAL;
}

/*
 * Copy one word (no separators inside, optional trailing newline as written
 * by echo) into @word.  Return 0, or -EINVAL when it is empty, too long or
 * holds characters outside [a-z0-9_-].
 */
static int ccache_parse_word(const char *val, char *word, size_t size)
{
	size_t len = strcspn(val, "\n");
	size_t i;

	if (!len || len >= size || val[len + (val[len] == '\n')])
		return -EINVAL;
	for (i = 0; i < len; i++)
		if (!islower(val[i]) && !isdigit(val[i]) &&
		    val[i] != '-' && val[i] != '_')
			return -EINVAL;
	memcpy(word, val, len);
	word[len] = '\0';
	return 0;
}

/* ---- Booleans: exactly 0/1, y/n, Y/N or on/off ---- */

static const struct {
	const char *word;
	bool value;
} ccache_bool_words[] = {
	{ "1", true }, { "y", true }, { "Y", true }, { "on", true },
	{ "0", false }, { "n", false }, { "N", false }, { "off", false },
};

static int ccache_bool_set(const char *val, const struct kernel_param *kp)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ccache_bool_words); i++) {
		if (sysfs_streq(val, ccache_bool_words[i].word)) {
			WRITE_ONCE(*(bool *)kp->arg, ccache_bool_words[i].value);
			return 0;
		}
	}
	return ccache_reject(kp, val, "expected 0/1, y/n or on/off");
}

static int ccache_bool_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%c\n", READ_ONCE(*(bool *)kp->arg) ? 'Y' : 'N');
}

static const struct kernel_param_ops ccache_bool_ops = {
	.set = ccache_bool_set,
	.get = ccache_bool_get,
};

/* ---- Unsigned integers within a range ---- */

struct ccache_uint_knob {
	unsigned int *val;
	unsigned int min;
	unsigned int max;
};

static int ccache_uint_set(const char *val, const struct kernel_param *kp)
{
	const struct ccache_uint_knob *knob = kp->arg;
	unsigned int v;

	if (kstrtouint(val, 10, &v) || v < knob->min || v > knob->max) {
		pr_warn_ratelimited("%s: rejected '%*pE': expected a whole number from %u to %u\n",
				    kp->name,
				    (int)min_t(size_t, strlen(val), CCACHE_SHOWN_INPUT),
				    val, knob->min, knob->max);
		return -EINVAL;
	}
	WRITE_ONCE(*knob->val, v);
	return 0;
}

static int ccache_uint_get(char *buf, const struct kernel_param *kp)
{
	const struct ccache_uint_knob *knob = kp->arg;

	return sysfs_emit(buf, "%u\n", READ_ONCE(*knob->val));
}

static const struct kernel_param_ops ccache_uint_ops = {
	.set = ccache_uint_set,
	.get = ccache_uint_get,
};

/* ---- compressor: a crypto API compression algorithm ---- */

static char ccache_compressor[CRYPTO_MAX_ALG_NAME] = "lzo";

static int ccache_compressor_set(const char *val, const struct kernel_param *kp)
{
	char name[CRYPTO_MAX_ALG_NAME];

	int err;

	if (ccache_parse_word(val, name, sizeof(name)))
		return ccache_reject(kp, val, "expected a name such as lzo or zstd");
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

/* ---- filesystems: comma-separated list of filesystems to cache ---- */

static const char * const ccache_fs_names[CCACHE_FS_COUNT] = {
	[CCACHE_FS_EXT4] = "ext4",
	[CCACHE_FS_XFS] = "xfs",
};

static unsigned long ccache_filesystems = BIT(CCACHE_FS_EXT4) | BIT(CCACHE_FS_XFS);

static int ccache_filesystems_set(const char *val, const struct kernel_param *kp)
{
	char list[64], word[16];
	unsigned long mask = 0;
	char *rest, *tok;
	int fs;

	if (strlen(val) >= sizeof(list))
		return ccache_reject(kp, val, "list too long");
	strscpy(list, val, sizeof(list));
	rest = strim(list);
	if (!*rest)		/* an empty list: cache no filesystem */
		rest = NULL;
	while (rest) {
		tok = strsep(&rest, ",");
		if (ccache_parse_word(tok, word, sizeof(word)))
			return ccache_reject(kp, val, "expected a list such as ext4,xfs");
		fs = match_string(ccache_fs_names, CCACHE_FS_COUNT, word);
		if (fs < 0)
			return ccache_reject(kp, val, "supported filesystems are ext4 and xfs");
		mask |= BIT(fs);
	}
	WRITE_ONCE(ccache_filesystems, mask);
	return 0;
}

static int ccache_filesystems_get(char *buf, const struct kernel_param *kp)
{
	unsigned long mask = READ_ONCE(ccache_filesystems);
	int fs, len = 0;

	for_each_set_bit(fs, &mask, CCACHE_FS_COUNT)
		len += sysfs_emit_at(buf, len, "%s%s", len ? "," : "",
				     ccache_fs_names[fs]);
	return len + sysfs_emit_at(buf, len, "\n");
}

static const struct kernel_param_ops ccache_filesystems_ops = {
	.set = ccache_filesystems_set,
	.get = ccache_filesystems_get,
};

/* ---- The knobs ---- */

static bool ccache_enabled = true;
module_param_cb(enabled, &ccache_bool_ops, &ccache_enabled, 0644);
MODULE_PARM_DESC(enabled, "Capture evicted pages and serve re-reads (default Y)");

module_param_cb(compressor, &ccache_compressor_ops, NULL, 0644);
MODULE_PARM_DESC(compressor, "Crypto API compression algorithm (default lzo)");

static unsigned int ccache_max_pool_percent = 20;
static struct ccache_uint_knob ccache_max_pool_percent_knob = {
	.val = &ccache_max_pool_percent, .min = 1, .max = 90,
};
module_param_cb(max_pool_percent, &ccache_uint_ops,
		&ccache_max_pool_percent_knob, 0644);
MODULE_PARM_DESC(max_pool_percent,
		 "Largest compressed pool, in percent of RAM (1-90, default 20)");

static unsigned int ccache_accept_threshold_percent = 90;
static struct ccache_uint_knob ccache_accept_threshold_percent_knob = {
	.val = &ccache_accept_threshold_percent, .min = 0, .max = 100,
};
module_param_cb(accept_threshold_percent, &ccache_uint_ops,
		&ccache_accept_threshold_percent_knob, 0644);
MODULE_PARM_DESC(accept_threshold_percent,
		 "After the pool fills, accept new pages again below this percent of the limit (0-100, default 90)");

module_param_cb(filesystems, &ccache_filesystems_ops, NULL, 0644);
MODULE_PARM_DESC(filesystems,
		 "Comma-separated filesystems to cache: ext4, xfs (default ext4,xfs)");

/* ---- Accessors for the rest of the module ---- */

/** ccache_param_enabled() - Return: the "enabled" knob. */
bool ccache_param_enabled(void)
{
	return READ_ONCE(ccache_enabled);
}

/** ccache_param_max_pool_percent() - Return: the "max_pool_percent" knob. */
unsigned int ccache_param_max_pool_percent(void)
{
	return READ_ONCE(ccache_max_pool_percent);
}

/**
 * ccache_param_accept_threshold_percent() -
 * Return: the "accept_threshold_percent" knob.
 */
unsigned int ccache_param_accept_threshold_percent(void)
{
	return READ_ONCE(ccache_accept_threshold_percent);
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
