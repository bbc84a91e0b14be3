// SPDX-License-Identifier: GPL-2.0
/*
 * The offload backends' counters: PARENT/offload/NAME/ (PARENT is
 * /sys/kernel/mm/ccache/), one file per counter of struct kspu_stats,
 * readable by root only (their times and counts follow other users'
 * evictions, as the core's statistics do), for every backend whether it
 * is the current one or not.
 * Every file is documented in Documentation/ABI/testing/
 * sysfs-kernel-mm-ccache.
 *
 * Each NAME/ directory is the kobject embedded in its struct kspu_backend;
 * a file is a struct kspu_attr that says which counter it shows.
 *
 * Lifetime: from kspu_sysfs_init() to kspu_sysfs_exit(), which waits until
 * every backend's kobject is released: its files are gone and no show()
 * runs any more, so the backends' memory may go with the module.
 */
#include <linux/completion.h>
#include <linux/kobject.h>
#include <linux/minmax.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "kspu.h"

/**
 * struct kspu_attr - one file of a backend's directory
 * @attr: its name and mode
 * @offset: the counter it shows, into struct kspu_stats
 * @derive: or NULL; the value it shows, computed from the counters
 */
struct kspu_attr {
	struct attribute attr;
	size_t offset;
	long (*derive)(struct kspu_stats *s);
};

/* Jobs accepted: finished or still queued (a sum, to spare an atomic). */
static long kspu_submitted(struct kspu_stats *s)
{
	return atomic_long_read(&s->completed) + atomic_long_read(&s->queued);
}

/* The file called @_file, as an entry of kspu_attrs[]. */
#define KSPU_ATTR(_file, _offset, _derive)				\
	(&((struct kspu_attr){						\
		.attr = { .name = (_file), .mode = 0400 },		\
		.offset = (_offset),					\
		.derive = (_derive),					\
	}).attr)

/* The file that shows counter @_name of struct kspu_stats. */
#define KSPU_COUNTER(_name)						\
	KSPU_ATTR(#_name, offsetof(struct kspu_stats, _name), NULL)

/* The file that shows the value kspu_@_name() derives. */
#define KSPU_DERIVED(_name)	KSPU_ATTR(#_name, 0, kspu_##_name)

/* The files of each backend's directory: its statistics. */
static struct attribute *kspu_attrs[] = {
	KSPU_DERIVED(submitted),
	KSPU_COUNTER(completed),
	KSPU_COUNTER(dropped),
	KSPU_COUNTER(failed),
	KSPU_COUNTER(queued),
	KSPU_COUNTER(max_queue_depth),
	KSPU_COUNTER(compress_ns),
	KSPU_COUNTER(decompress_ns),
	NULL,
};
ATTRIBUTE_GROUPS(kspu);

static ssize_t kspu_attr_show(struct kobject *kobj, struct attribute *attr,
			      char *buf)
{
	struct kspu_backend *b = container_of(kobj, struct kspu_backend, kobj);
	struct kspu_attr *a = container_of(attr, struct kspu_attr, attr);
	long v;

	if (a->derive)
		v = a->derive(&b->stats);
	else
		v = atomic_long_read((atomic_long_t *)((char *)&b->stats +
						       a->offset));
	return sysfs_emit(buf, "%ld\n", max(v, 0L));
}

static const struct sysfs_ops kspu_sysfs_ops = {
	.show = kspu_attr_show,
};

static void kspu_kobj_release(struct kobject *kobj)
{
	struct kspu_backend *b = container_of(kobj, struct kspu_backend, kobj);

	complete(&b->kobj_released);
}

static const struct kobj_type kspu_ktype = {
	.release = kspu_kobj_release,
	.sysfs_ops = &kspu_sysfs_ops,
	.default_groups = kspu_groups,
};

/* offload/, and how many backends have a directory in it (from the first) */
static struct kobject *kspu_offload_kobj;
static unsigned int kspu_sysfs_nr;

/**
 * kspu_sysfs_init() - create offload/ and a directory per backend in it
 * @parent: the directory offload/ goes into
 *
 * On failure, kspu_sysfs_exit() removes what was created.
 *
 * Context: process context; may sleep.
 * Return: 0 or a negative errno.
 */
int kspu_sysfs_init(struct kobject *parent)
{
	struct kspu_backend *b;
	int err;

	kspu_offload_kobj = kobject_create_and_add("offload", parent);
	if (!kspu_offload_kobj)
		return -ENOMEM;
	while ((b = kspu_backend_at(kspu_sysfs_nr))) {
		memset(&b->kobj, 0, sizeof(b->kobj));
		init_completion(&b->kobj_released);
		err = kobject_init_and_add(&b->kobj, &kspu_ktype,
					   kspu_offload_kobj, "%s", b->name);
		kspu_sysfs_nr++;	/* to be put even when this failed */
		if (err)
			return err;
	}
	return 0;
}

/**
 * kspu_sysfs_exit() - remove offload/ and the backends' directories
 *
 * Waits until no show() runs and the backends' kobjects are released.
 *
 * Context: process context; may sleep.
 */
void kspu_sysfs_exit(void)
{
	struct kspu_backend *b;

	while (kspu_sysfs_nr) {
		b = kspu_backend_at(--kspu_sysfs_nr);
		kobject_put(&b->kobj);
		wait_for_completion(&b->kobj_released);
	}
	kobject_put(kspu_offload_kobj);
	kspu_offload_kobj = NULL;
}
