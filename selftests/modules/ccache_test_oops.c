// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module: oopses on load with a NULL pointer dereference, so the
 * harness's own test can prove that a guest oops fails the test that
 * caused it.  Never load it outside a disposable guest.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

/* a parameter, so the compiler cannot see that it is NULL */
static unsigned long address;
module_param(address, ulong, 0);
MODULE_PARM_DESC(address, "Address to read on load (default 0: NULL)");

static int __init ccache_test_oops_init(void)
{
	pr_info("reading address %#lx on purpose\n", address);
	return *(int *)address;
}
module_init(ccache_test_oops_init);

MODULE_DESCRIPTION("ccache selftest: oops on load");
MODULE_LICENSE("GPL");
