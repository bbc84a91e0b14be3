// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module: measures what one 4 KiB page copy costs in this
 * kernel, the yardstick tools/offload-bench.sh compares ccache's capture
 * cost with.  At load it copies CCACHE_MEMCPY_PAGES pages between
 * directly mapped pages, as the capture probe does (an evicted page-cache
 * page into a staging page), with interrupts off as in the probe, and
 * keeps the best of CCACHE_MEMCPY_ROUNDS rounds:
 *
 *   cold_ns  mean per page, each copy from a page and into a page not
 *            touched since the last round (8 MiB each way, more than the
 *            caches hold: the probe's case)
 *   hot_ns   mean per page copying one page into one page again and again
 *
 * Read them from /sys/module/ccache_test_memcpy/parameters/.  Never load
 * it outside a disposable guest.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/irqflags.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched/clock.h>
#include <linux/string.h>

#define CCACHE_MEMCPY_PAGES 2048
#define CCACHE_MEMCPY_ROUNDS 25

static ulong cold_ns, hot_ns;
module_param(cold_ns, ulong, 0444);
MODULE_PARM_DESC(cold_ns, "Mean ns to copy a page not in the CPU caches");
module_param(hot_ns, ulong, 0444);
MODULE_PARM_DESC(hot_ns, "Mean ns to copy a page already in the caches");

static void *ccache_memcpy_src[CCACHE_MEMCPY_PAGES];
static void *ccache_memcpy_dst[CCACHE_MEMCPY_PAGES];

/* Mean ns per page of one round; @walk false copies page 0 to page 0. */
static u64 ccache_memcpy_round(bool walk)
{
	unsigned long flags;
	u64 start, ns;
	int i;

	local_irq_save(flags);
	start = local_clock();
	for (i = 0; i < CCACHE_MEMCPY_PAGES; i++)
		memcpy(ccache_memcpy_dst[walk ? i : 0],
		       ccache_memcpy_src[walk ? i : 0], PAGE_SIZE);
	ns = local_clock() - start;
	local_irq_restore(flags);
	return ns / CCACHE_MEMCPY_PAGES;
}

static void ccache_memcpy_free(void)
{
	int i;

	for (i = 0; i < CCACHE_MEMCPY_PAGES; i++) {
		free_page((unsigned long)ccache_memcpy_src[i]);
		free_page((unsigned long)ccache_memcpy_dst[i]);
	}
}

static int __init ccache_test_memcpy_init(void)
{
	u64 cold = U64_MAX, hot = U64_MAX;
	int i;

	for (i = 0; i < CCACHE_MEMCPY_PAGES; i++) {
		ccache_memcpy_src[i] = (void *)get_zeroed_page(GFP_KERNEL);
		ccache_memcpy_dst[i] = (void *)get_zeroed_page(GFP_KERNEL);
		if (!ccache_memcpy_src[i] || !ccache_memcpy_dst[i]) {
			ccache_memcpy_free();
			return -ENOMEM;
		}
	}
	for (i = 0; i < CCACHE_MEMCPY_ROUNDS; i++) {
		cold = min(cold, ccache_memcpy_round(true));
		hot = min(hot, ccache_memcpy_round(false));
	}
	cold_ns = cold;
	hot_ns = hot;
	pr_info("4 KiB copy: %lu ns cold, %lu ns hot\n", cold_ns, hot_ns);
	ccache_memcpy_free();
	return 0;
}
module_init(ccache_test_memcpy_init);

static void __exit ccache_test_memcpy_exit(void)
{
}
module_exit(ccache_test_memcpy_exit);

MODULE_DESCRIPTION("ccache selftest: cost of a 4 KiB memcpy");
MODULE_LICENSE("GPL");
