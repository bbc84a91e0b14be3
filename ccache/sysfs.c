// SPDX-License-Identifier: GPL-2.0
/*
 * The read-only tree /sys/kernel/mm/ccache/: one value per file, each file
 * documented in Documentation/ABI/testing/sysfs-kernel-mm-ccache.
 *
 * Lifetime: the directory exists from ccache_sysfs_init() until
 * ccache_sysfs_exit(); kobject_put() there waits for no reader, so every
 * show() handler must only read data that outlives the module's own exit
 * path up to that call.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernfs.h>
#include <linux/kobject.h>
#include <linux/mm.h>
#include <linux/sysfs.h>

#include "ccache.h"
#include "store.h"

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
	return ccache_pool_bytes() + ccache_staging_bytes() +
	       ccache_stat_read(entries) * sizeof(struct ccache_entry) +
	       ccache_stat_read(inodes) * sizeof(struct ccache_inode);
}

static unsigned long ccache_compression_ratio_permille(void)
{
	unsigned long orig = ccache_original_bytes();

	return orig ? ccache_stat_read(compressed_bytes) * 1000 / orig : 0;
}

/*
 * The statistics: each file shows one counter of struct ccache_stats, or
 * one derived value.
 */
struct ccache_stat_attr {
	const char *name;
	size_t offset;				/* into ccache_stats */
	unsigned long (*derive)(void);		/* or this */
	struct kobj_attribute attr;		/* set up at init */
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

#define CCACHE_COUNTER(name) { #name, offsetof(struct ccache_stats, name) }
#define CCACHE_DERIVED(name) { #name, 0, ccache_##name }

static struct ccache_stat_attr ccache_stat_attrs[] = {
	CCACHE_COUNTER(stored_pages),
	CCACHE_DERIVED(original_bytes),
	CCACHE_COUNTER(compressed_bytes),
	CCACHE_DERIVED(mem_used_bytes),
	CCACHE_COUNTER(hits),
	CCACHE_COUNTER(misses),
	CCACHE_COUNTER(captures),
	CCACHE_COUNTER(reject_poor_compression),
	CCACHE_COUNTER(reject_staging_full),
	CCACHE_COUNTER(reject_pool_limit),
	CCACHE_COUNTER(reject_alloc_failure),
	CCACHE_COUNTER(reject_policy),
	CCACHE_COUNTER(invalidations),
	CCACHE_COUNTER(lru_evictions),
	CCACHE_COUNTER(shrinker_frees),
	CCACHE_COUNTER(same_filled_pages),
	CCACHE_COUNTER(decompress_errors),
	CCACHE_DERIVED(compression_ratio_permille),
};

/* version, the statistics, NULL */
static struct attribute *ccache_attrs[ARRAY_SIZE(ccache_stat_attrs) + 2];

static const struct attribute_group ccache_attr_group = {
	.attrs = ccache_attrs,
};

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
	size_t i;
	int err;

	if (!mm) {
		pr_err("/sys/kernel/mm not found\n");
		return -ENOENT;
	}
	ccache_attrs[0] = &ccache_attr_version.attr;
	for (i = 0; i < ARRAY_SIZE(ccache_stat_attrs); i++) {
		struct kobj_attribute *attr = &ccache_stat_attrs[i].attr;

		sysfs_attr_init(&attr->attr);
		attr->attr.name = ccache_stat_attrs[i].name;
		attr->attr.mode = 0444;
		attr->show = ccache_stat_show;
		ccache_attrs[i + 1] = &attr->attr;
	}
	ccache_kobj = kobject_create_and_add(KBUILD_MODNAME, mm);
	if (!ccache_kobj)
		return -ENOMEM;
	err = sysfs_create_group(ccache_kobj, &ccache_attr_group);
	if (err) {
		kobject_put(ccache_kobj);
		ccache_kobj = NULL;
	}
	return err;
}

/**
 * ccache_sysfs_exit() - remove /sys/kernel/mm/ccache/
 */
void ccache_sysfs_exit(void)
{
	kobject_put(ccache_kobj);
	ccache_kobj = NULL;
}
