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
#include <linux/sysfs.h>

#include "ccache.h"

static ssize_t version_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%s\n", CCACHE_VERSION);
}

static struct kobj_attribute ccache_attr_version = __ATTR_RO(version);

static struct attribute *ccache_attrs[] = {
	&ccache_attr_version.attr,
	NULL,
};

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
	int err;

	if (!mm) {
		pr_err("/sys/kernel/mm not found\n");
		return -ENOENT;
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
