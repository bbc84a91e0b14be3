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

#include <linux/ktime.h>
#include <linux/module.h>

#include "ccache.h"
#include "store.h"
#include "../crypto/comp.h"

struct ccache_stats ccache_stats;

struct ccache_part {
	const char *name;
	int (*init)(void);
	void (*exit)(void);
};

static const struct ccache_part ccache_parts[] = {
	{ "pool", ccache_pool_init, ccache_pool_exit },
	{ "cgroup shares", ccache_memcg_init, ccache_memcg_exit },
	{ "store", ccache_store_init, ccache_store_exit },
	{ "sizing", ccache_sizing_init, ccache_sizing_exit },
	{ "pool limit", ccache_lru_init, ccache_lru_exit },
	{ "compressor", ccache_param_start_compressor, ccache_comp_exit },
	{ "invalidation hooks", ccache_hooks_init, ccache_hooks_exit },
	{ "capture", ccache_capture_init, ccache_capture_exit },
	{ "serving", ccache_serve_init, ccache_serve_exit },
	{ "block devices", ccache_bdev_init, ccache_bdev_exit },
	{ "sysfs", ccache_sysfs_init, ccache_sysfs_exit },
};

/* Stop the first @n parts, last first.  Return: the slowest one's index. */
static size_t ccache_stop(size_t n, s64 *slowest_ms)
{
	size_t slowest = n ? n - 1 : 0;
	ktime_t start;
	s64 ms;

	*slowest_ms = 0;
	while (n--) {
		start = ktime_get();
		ccache_parts[n].exit();
		ms = ktime_ms_delta(ktime_get(), start);
		if (ms > *slowest_ms) {
			*slowest_ms = ms;
			slowest = n;
		}
	}
	return slowest;
}

static int __init ccache_init(void)
{
	char knobs[160];
	size_t i;
	int err;
	s64 ms;

	for (i = 0; i < ARRAY_SIZE(ccache_parts); i++) {
		err = ccache_parts[i].init();
		if (err) {
			pr_err("cannot start %s (%d): not loaded\n",
			       ccache_parts[i].name, err);
			ccache_stop(i, &ms);
			return err;
		}
	}
	ccache_param_describe(knobs, sizeof(knobs));
	pr_info("version %s loaded: %s; hooked the page cache deletion tracepoint, read_pages(), submit_bio_noacct() and %u invalidation points\n",
		CCACHE_VERSION, knobs, ccache_hooks_nr());
	return 0;
}

static void __exit ccache_exit(void)
{
	long pages = ccache_stat_read(stored_pages);
	unsigned long pool = ccache_pool_bytes();
	ktime_t start = ktime_get();
	size_t slowest;
	s64 ms;

	slowest = ccache_stop(ARRAY_SIZE(ccache_parts), &ms);
	pr_info("unloaded in %lld ms (slowest part: %s, %lld ms); freed %ld stored pages and %lu KiB of pool\n",
		ktime_ms_delta(ktime_get(), start), ccache_parts[slowest].name,
		ms, pages, pool >> 10);
}

module_init(ccache_init);
module_exit(ccache_exit);

MODULE_DESCRIPTION("Compressed tier for the page cache");
MODULE_LICENSE("GPL");
MODULE_VERSION(CCACHE_VERSION);
