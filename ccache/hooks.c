// SPDX-License-Identifier: GPL-2.0
/*
 * H3 and H4: the kernel functions that change or tear down file data, and
 * what ccache does at their entry (ftrace, which never misses) and at their
 * return (a kretprobe, which can miss when out of instances).
 *
 *   truncate_inode_pages_range()    truncate, hole punch, zero/collapse/insert
 *                                   range, reflink: erase the range at entry
 *                                   and return, no capture or hit between
 *   invalidate_inode_pages2_range() direct I/O writes: the same, and poison
 *                                   the file (its post-write invalidation is
 *                                   skipped when no page is cached)
 *   truncate_inode_pages_final()    inode eviction: a deleted file's entries
 *                                   go; a live file's stay (keys survive the
 *                                   inode), unless it was poisoned
 *   drop_pagecache_sb()             drop_caches: empty that filesystem, its
 *                                   files' poison and marks kept
 *   generic_shutdown_super()        unmount: empty it at entry and return
 *
 * A missed return probe must never leave stale data: the file stays marked
 * "invalidation in flight" (no capture, no hit) until its inode is evicted,
 * and serve.c drops the whole store when it sees a new miss count.
 *
 * This file also finds kernel functions and tracepoints by name
 * (ccache_symbol_address(), ccache_tracepoint()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/pagemap.h>
#include <linux/ptrace.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/utsname.h>

#include "ccache.h"
#include "store.h"

/* The x86-64 ENDBR64 instruction, f3 0f 1e fa, read as a little-endian u32. */
#define CCACHE_ENDBR64 0xfa1e0ff3U

/**
 * ccache_symbol_address() - address of a kernel function, static ones too
 * @name: the function's name
 *
 * kallsyms_lookup_name() is not exported; a kprobe resolves the name for
 * us.  On kernels with IBT the kprobe address is past the ENDBR64 that
 * starts the function: step back over it so the result can be called.
 *
 * Context: process context.
 * Return: the function's address, or NULL when it is not found or cannot
 * be probed.
 */
void *ccache_symbol_address(const char *name)
{
	struct kprobe kp = { .symbol_name = name };
	u32 insn;
	u8 *addr;

	if (register_kprobe(&kp))
		return NULL;
	addr = (u8 *)kp.addr;
	unregister_kprobe(&kp);
	if (!copy_from_kernel_nofault(&insn, addr - sizeof(insn), sizeof(insn)) &&
	    insn == CCACHE_ENDBR64)
		addr -= sizeof(insn);
	return addr;
}

/**
 * ccache_ftrace_start() - call @func at the entry of some kernel functions
 * @ops: an unused ftrace_ops
 * @func: the callback
 * @ipmodify: @func may send the call elsewhere (ccache_ftrace_set_ip())
 * @ips: the functions, from ccache_symbol_address()
 * @n: how many
 *
 * Context: process context.
 * Return: 0, or a negative errno (logged by the caller; @ops left unused).
 */
int ccache_ftrace_start(struct ftrace_ops *ops, ftrace_func_t func,
			bool ipmodify, const unsigned long *ips, unsigned int n)
{
	unsigned int i;
	int err = 0;

	ops->func = func;
	ops->flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_RECURSION |
		     (ipmodify ? FTRACE_OPS_FL_IPMODIFY : 0);
	for (i = 0; !err && i < n; i++)
		err = ftrace_set_filter_ip(ops, ips[i], 0, 0);
	if (!err)
		err = register_ftrace_function(ops);
	if (err)
		ftrace_free_filter(ops);
	return err;
}

struct ccache_tp_search {
	const char *name;
	struct tracepoint *tp;
};

static void ccache_tp_match(struct tracepoint *tp, void *priv)
{
	struct ccache_tp_search *search = priv;

	if (!strcmp(tp->name, search->name))
		search->tp = tp;
}

/**
 * ccache_tracepoint() - a kernel tracepoint, by name
 * @name: the tracepoint's name
 *
 * Context: process context.
 * Return: the tracepoint, or NULL (logged, see ccache_hook_missing()).
 */
struct tracepoint *ccache_tracepoint(const char *name)
{
	struct ccache_tp_search search = { .name = name };

	for_each_kernel_tracepoint(ccache_tp_match, &search);
	if (!search.tp)
		ccache_hook_missing("tracepoint", name);
	return search.tp;
}

/* What a hook learns from its function's arguments, kept until it returns. */
struct ccache_inval {
	struct ccache_key key;
	pgoff_t first, last;
	bool deleted;		/* truncate_inode_pages_final(): nlink is 0 */
};

struct ccache_hook {
	const char *symbol;
	/* read the arguments; false when the call is none of ccache's business */
	bool (*args)(struct pt_regs *regs, struct ccache_inval *inv);
	void (*begin)(struct ccache_inval *inv);	/* at entry */
	void (*end)(struct ccache_inval *inv);	/* at return, or NULL */
	unsigned long addr;			/* the function, once found */
	struct kretprobe rp;
	bool rp_registered;
};

/*
 * One ftrace_ops serves every hook's entry: unregistering an ftrace_ops
 * waits for RCU-tasks grace periods, which a busy machine makes long, so
 * unload waits once, not once per hook.
 */
static struct ftrace_ops ccache_hooks_ops;
static bool ccache_hooks_ops_registered;

/*
 * Could the store hold pages of @mapping?  Calls for other files return at
 * once: no ccache_lock, no record, whatever tmpfs, NFS or FUSE do.
 */
static bool ccache_tracked(struct address_space *mapping)
{
	return mapping && mapping->host && S_ISREG(mapping->host->i_mode) &&
	       ccache_sb_cacheable(mapping->host->i_sb);
}

/* Fill @inv for an invalidation of @mapping's pages @first..@last. */
static bool ccache_inval_of(struct address_space *mapping, pgoff_t first,
			    pgoff_t last, struct ccache_inval *inv)
{
	/* an exiting mapping is inode eviction: truncate_inode_pages_final() */
	if (!ccache_tracked(mapping) || mapping_exiting(mapping))
		return false;
	ccache_key_of(mapping->host, &inv->key);
	inv->first = first;
	inv->last = last;
	return true;
}

/* truncate_inode_pages_range(mapping, lstart, lend): bytes, lend inclusive */
static bool ccache_truncate_args(struct pt_regs *regs, struct ccache_inval *inv)
{
	loff_t lstart = regs_get_kernel_argument(regs, 1);
	loff_t lend = regs_get_kernel_argument(regs, 2);

	return ccache_inval_of((void *)regs_get_kernel_argument(regs, 0),
			       lstart >> PAGE_SHIFT,
			       lend < 0 ? ULONG_MAX : lend >> PAGE_SHIFT, inv);
}

/* invalidate_inode_pages2_range(mapping, start, end): page indices */
static bool ccache_invalidate2_args(struct pt_regs *regs,
				    struct ccache_inval *inv)
{
	return ccache_inval_of((void *)regs_get_kernel_argument(regs, 0),
			       regs_get_kernel_argument(regs, 1),
			       regs_get_kernel_argument(regs, 2), inv);
}

static void ccache_truncate_begin(struct ccache_inval *inv)
{
	ccache_invalidate_begin(&inv->key, inv->first, inv->last, false);
}

static void ccache_direct_write_begin(struct ccache_inval *inv)
{
	ccache_invalidate_begin(&inv->key, inv->first, inv->last, true);
}

static void ccache_inval_end(struct ccache_inval *inv)
{
	ccache_invalidate_end(&inv->key, inv->first, inv->last);
}

/* truncate_inode_pages_final(mapping): the inode is being evicted */
static bool ccache_final_args(struct pt_regs *regs, struct ccache_inval *inv)
{
	struct address_space *mapping = (void *)regs_get_kernel_argument(regs, 0);

	if (!ccache_tracked(mapping))
		return false;
	ccache_key_of(mapping->host, &inv->key);
	inv->deleted = !mapping->host->i_nlink;
	return true;
}

static void ccache_final_begin(struct ccache_inval *inv)
{
	struct ccache_inode *ci;
	unsigned long flags;
	bool drop = inv->deleted;

	if (!drop) {
		/* a poisoned or stuck record is only cleared by eviction */
		spin_lock_irqsave(&ccache_lock, flags);
		ci = ccache_inode_lookup(&inv->key);
		drop = ci && (ci->poisoned || ci->invalidating);
		spin_unlock_irqrestore(&ccache_lock, flags);
	}
	if (drop)
		ccache_drop_inode(&inv->key);
}

/* a deleted file's pages evicted while the hook ran: drop them too */
static void ccache_final_end(struct ccache_inval *inv)
{
	if (inv->deleted)
		ccache_drop_inode(&inv->key);
}

/* drop_pagecache_sb(sb, unused), generic_shutdown_super(sb) */
static bool ccache_sb_args(struct pt_regs *regs, struct ccache_inval *inv)
{
	inv->key.sb = (void *)regs_get_kernel_argument(regs, 0);
	return ccache_sb_cacheable(inv->key.sb);
}

/* drop_caches: the inodes live on, and so do their poison and marks */
static void ccache_sb_empty(struct ccache_inval *inv)
{
	ccache_drop_sb(inv->key.sb, false, NULL);
}

/* unmount: its inodes are gone, and its device is no longer ours */
static void ccache_sb_forget(struct ccache_inval *inv)
{
	struct ccache_key dev;

	ccache_drop_sb(inv->key.sb, true,
		       ccache_bdev_unmounted(inv->key.sb, &dev) ? &dev : NULL);
}

static struct ccache_hook ccache_hooks[] = {
	{ "truncate_inode_pages_range", ccache_truncate_args,
	  ccache_truncate_begin, ccache_inval_end },
	{ "invalidate_inode_pages2_range", ccache_invalidate2_args,
	  ccache_direct_write_begin, ccache_inval_end },
	{ "truncate_inode_pages_final", ccache_final_args,
	  ccache_final_begin, ccache_final_end },
	{ "drop_pagecache_sb", ccache_sb_args, ccache_sb_empty, NULL },
	{ "generic_shutdown_super", ccache_sb_args, ccache_sb_forget,
	  ccache_sb_forget },
};

/*
 * The hook whose function @ip is in: ftrace reports the address of the
 * function's call to it, at most an ENDBR64 past the function's start.
 */
static struct ccache_hook *ccache_hook_at(unsigned long ip)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ccache_hooks); i++)
		if (ip - ccache_hooks[i].addr < CCACHE_HOOK_SLACK)
			return &ccache_hooks[i];
	return NULL;
}

static void notrace ccache_hook_entry(unsigned long ip, unsigned long parent_ip,
				      struct ftrace_ops *ops,
				      struct ftrace_regs *fregs)
{
	struct ccache_hook *hook = ccache_hook_at(ip);
	struct pt_regs *regs = ftrace_get_regs(fregs);
	struct ccache_inval inv = {};

	if (hook && regs && hook->args(regs, &inv))
		hook->begin(&inv);
}

/*
 * The kretprobe's own entry handler only records the arguments for the
 * return handler: the work at entry is done by the ftrace callback above,
 * which cannot miss.  A call that is none of ccache's business gives its
 * instance back at once (a non-zero return: no return handler, no miss
 * counted), so that a flood of them on other filesystems cannot use up
 * the instances, miss a return and make serve.c drop the whole store.
 */
static int ccache_hook_rp_entry(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	struct ccache_hook *hook = container_of(get_kretprobe(ri),
						struct ccache_hook, rp);
	struct ccache_inval *inv = (struct ccache_inval *)ri->data;

	memset(inv, 0, sizeof(*inv));
	return !hook->args(regs, inv);
}

static int ccache_hook_rp_return(struct kretprobe_instance *ri,
				 struct pt_regs *regs)
{
	struct ccache_hook *hook = container_of(get_kretprobe(ri),
						struct ccache_hook, rp);
	struct ccache_inval *inv = (struct ccache_inval *)ri->data;

	hook->end(inv);
	return 0;
}

/**
 * ccache_hooks_missed() - Return: how many return probes have missed so far.
 */
unsigned long ccache_hooks_missed(void)
{
	unsigned long n = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ccache_hooks); i++)
		n += READ_ONCE(ccache_hooks[i].rp.nmissed);
	return n;
}

/**
 * ccache_hook_missing() - log that a hook point ccache needs is missing
 * @kind: "kernel function" or "tracepoint"
 * @name: its name
 *
 * Return: -ENOENT, for the caller to return.
 */
int ccache_hook_missing(const char *kind, const char *name)
{
	pr_err("%s %s not found or not probeable in kernel %s: ccache cannot load\n",
	       kind, name, init_utsname()->release);
	pr_err("it needs Debian's 6.1, 6.12 or 7.x kernels, or one with the same function and tracepoint, CONFIG_FUNCTION_TRACER, CONFIG_DYNAMIC_FTRACE_WITH_REGS and CONFIG_KPROBES (Documentation/admin-guide/ccache.rst, Troubleshooting)\n");
	return -ENOENT;
}

/** ccache_hooks_nr() - Return: how many invalidation and teardown hooks there are. */
unsigned int ccache_hooks_nr(void)
{
	return ARRAY_SIZE(ccache_hooks);
}

/* Find @hook's function. */
static int ccache_hook_find(struct ccache_hook *hook)
{
	void *addr = ccache_symbol_address(hook->symbol);

	if (!addr)
		return ccache_hook_missing("kernel function", hook->symbol);
	hook->addr = (unsigned long)addr;
	return 0;
}

/* Probe the return of @hook's function, if it has work there. */
static int ccache_hook_register_return(struct ccache_hook *hook)
{
	int err;

	if (!hook->end)
		return 0;
	hook->rp.kp.symbol_name = hook->symbol;
	hook->rp.entry_handler = ccache_hook_rp_entry;
	hook->rp.handler = ccache_hook_rp_return;
	hook->rp.data_size = sizeof(struct ccache_inval);
	hook->rp.maxactive = 64 * num_possible_cpus();
	err = register_kretprobe(&hook->rp);
	if (err) {
		pr_err("cannot probe the return of %s: %d\n", hook->symbol, err);
		return err;
	}
	hook->rp_registered = true;
	return 0;
}

/**
 * ccache_hooks_init() - attach to every invalidation and teardown point
 *
 * Return: 0, or a negative errno with the missing hook named in the log.
 */
int ccache_hooks_init(void)
{
	unsigned long ips[ARRAY_SIZE(ccache_hooks)];
	size_t i;
	int err = 0;

	for (i = 0; !err && i < ARRAY_SIZE(ccache_hooks); i++) {
		err = ccache_hook_find(&ccache_hooks[i]);
		ips[i] = ccache_hooks[i].addr;
	}
	if (!err) {
		err = ccache_ftrace_start(&ccache_hooks_ops, ccache_hook_entry,
					  false, ips, ARRAY_SIZE(ips));
		if (err)
			pr_err("cannot trace the invalidation hooks: %d\n", err);
		ccache_hooks_ops_registered = !err;
	}
	for (i = 0; !err && i < ARRAY_SIZE(ccache_hooks); i++)
		err = ccache_hook_register_return(&ccache_hooks[i]);
	if (err)
		ccache_hooks_exit();
	return err;
}

/**
 * ccache_hooks_exit() - detach; no hook runs after it returns
 */
void ccache_hooks_exit(void)
{
	struct kretprobe *rps[ARRAY_SIZE(ccache_hooks)];
	int i, n = 0;

	/* one batch: one wait for the probes' handlers, not one each */
	for (i = 0; i < ARRAY_SIZE(ccache_hooks); i++) {
		if (ccache_hooks[i].rp_registered)
			rps[n++] = &ccache_hooks[i].rp;
		ccache_hooks[i].rp_registered = false;
	}
	if (n)
		unregister_kretprobes(rps, n);
	if (ccache_hooks_ops_registered)
		unregister_ftrace_function(&ccache_hooks_ops);
	ccache_hooks_ops_registered = false;
	ftrace_free_filter(&ccache_hooks_ops);
}
