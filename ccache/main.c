// SPDX-License-Identifier: GPL-2.0
/*
 * ccache: a compressed tier for the page cache.
 *
 * Load and unload.  Parts start in dependency order and stop in the
 * reverse order; a failure at any step undoes the steps before it, so a
 * failed load leaves nothing behind.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/crypto.h>
#include <linux/module.h>

#include "ccache.h"

static int __init ccache_init(void)
{
	char comp[CRYPTO_MAX_ALG_NAME];
	int err;

	/* The default algorithm is checked here: only set values are. */
	ccache_param_compressor(comp, sizeof(comp));
	if (!ccache_comp_available(comp)) {
		pr_err("compressor %s is not available in this kernel's crypto API\n",
		       comp);
		return -ENOENT;
	}

	err = ccache_sysfs_init();
	if (err) {
		pr_err("cannot create /sys/kernel/mm/ccache: %d\n", err);
		return err;
	}

	pr_info("version %s loaded: compressor %s, max_pool_percent %u, %s\n",
		CCACHE_VERSION, comp, ccache_param_max_pool_percent(),
		ccache_param_enabled() ? "enabled" : "disabled");
	return 0;
}

static void __exit ccache_exit(void)
{
	ccache_sysfs_exit();
	pr_info("unloaded\n");
}

module_init(ccache_init);
module_exit(ccache_exit);

MODULE_DESCRIPTION("Compressed tier for the page cache");
MODULE_LICENSE("GPL");
MODULE_VERSION(CCACHE_VERSION);
