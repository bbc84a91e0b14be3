// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module: oopses on load with a NULL pointer dereference, so the
 * harness's own test can prove that a guest oops fails the test that
 * caused it.  Never load it outside a disposable guest.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

static int __init ccache_test_oops_init(void)
{
	int *volatile nowhere = NULL;

	pr_info("dereferencing NULL on purpose\n");
	return *nowhere;
}
module_init(ccache_test_oops_init);

MODULE_DESCRIPTION("ccache selftest: oops on load");
MODULE_LICENSE("GPL");
