// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module: allocates 64 bytes on load and forgets them, so the
 * harness's own test can prove that on a kernel with kmemleak a leak by a
 * module of ours fails the test that caused it.  Never load it outside a
 * disposable guest.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>

static int __init ccache_test_leak_init(void)
{
	void *p = kmalloc(64, GFP_KERNEL);

	pr_info("leaking %p on purpose\n", p);
	return 0;
}
module_init(ccache_test_leak_init);

static void __exit ccache_test_leak_exit(void)
{
}
module_exit(ccache_test_leak_exit);

MODULE_DESCRIPTION("ccache selftest: leak on load");
MODULE_LICENSE("GPL");
