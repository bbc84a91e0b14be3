// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module: holds the i_rwsem of the file named by "path" from
 * load to unload, as a truncate, hole punch or direct write holds it while
 * it runs, so that selftests/load_race.sh can load ccache while such a
 * change seems under way.  A thread of its own takes and releases the
 * lock (an rwsem is released by its owner).  Never load it outside a
 * disposable guest.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/sched.h>

static char *path;
module_param(path, charp, 0444);
MODULE_PARM_DESC(path, "The file whose i_rwsem is held");

static struct inode *ccache_test_inode;
static struct task_struct *ccache_test_holder;
static DECLARE_COMPLETION(ccache_test_locked);

static int ccache_test_hold(void *unused)
{
	inode_lock(ccache_test_inode);
	complete(&ccache_test_locked);
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	inode_unlock(ccache_test_inode);
	return 0;
}

static int __init ccache_test_lock_init(void)
{
	struct path p;
	int err;

	if (!path)
		return -EINVAL;
	err = kern_path(path, LOOKUP_FOLLOW, &p);
	if (err)
		return err;
	ccache_test_inode = igrab(d_inode(p.dentry));
	path_put(&p);
	if (!ccache_test_inode)
		return -ENOENT;
	ccache_test_holder = kthread_run(ccache_test_hold, NULL, "ccache_test_lock");
	if (IS_ERR(ccache_test_holder)) {
		iput(ccache_test_inode);
		return PTR_ERR(ccache_test_holder);
	}
	wait_for_completion(&ccache_test_locked);
	pr_info("holding the i_rwsem of %s\n", path);
	return 0;
}
module_init(ccache_test_lock_init);

static void __exit ccache_test_lock_exit(void)
{
	kthread_stop(ccache_test_holder);
	iput(ccache_test_inode);
	pr_info("released the i_rwsem of %s\n", path);
}
module_exit(ccache_test_lock_exit);

MODULE_DESCRIPTION("ccache selftest: hold a file's i_rwsem from load to unload");
MODULE_LICENSE("GPL");
