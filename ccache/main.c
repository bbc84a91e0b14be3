// SPDX-License-Identifier: GPL-2.0
/*
 * ccache: a compressed tier for the page cache.
 *
 * Load and unload.  Parts start in dependency order and stop in the
 * reverse order; a failure at any step undoes the steps before it, so a
 * failed load leaves nothing behind.  The store empties itself into the
 * pool's allocator, so it stops before the pool.  The hooks start before
 * capture and stop after it, so no change to a file can slip between them;
 * serving starts last and stops first.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "ccache.h"
#include "store.h"

struct ccache_stats ccache_stats;

struct ccache_part {
	const char *name;
	int (*init)(void);
	void (*exit)(void);
};

static const struct ccache_part ccache_parts[] = {
	{ "pool", ccache_pool_init, ccache_pool_exit },
	{ "store", ccache_store_init, ccache_store_exit },
	{ "shrinker", ccache_shrinker_init, ccache_shrinker_exit },
	{ "compressor", ccache_param_start_compressor, ccache_comp_exit },
	{ "invalidation hooks", ccache_hooks_init, ccache_hooks_exit },
	{ "capture", ccache_capture_init, ccache_capture_exit },
	{ "serving", ccache_serve_init, ccache_serve_exit },
	{ "sysfs", ccache_sysfs_init, ccache_sysfs_exit },
};

static void ccache_stop(size_t n)
{
	while (n--)
		ccache_parts[n].exit();
}

static int __init ccache_init(void)
{
	size_t i;
	int err;

	for (i = 0; i < ARRAY_SIZE(ccache_parts); i++) {
		err = ccache_parts[i].init();
		if (err) {
			pr_err("cannot start %s (%d): not loaded\n",
			       ccache_parts[i].name, err);
			ccache_stop(i);
			return err;
		}
	}
	pr_info("version %s loaded: max_pool_percent %u, filesystems mask %#lx, %s\n",
		CCACHE_VERSION, ccache_param_max_pool_percent(),
		ccache_param_filesystems(),
		ccache_param_enabled() ? "enabled" : "disabled");
	return 0;
}

static void __exit ccache_exit(void)
{
	ccache_stop(ARRAY_SIZE(ccache_parts));
	pr_info("unloaded\n");
}

module_init(ccache_init);
module_exit(ccache_exit);

MODULE_DESCRIPTION("Compressed tier for the page cache");
MODULE_LICENSE("GPL");
MODULE_VERSION(CCACHE_VERSION);
