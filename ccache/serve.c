// SPDX-License-Identifier: GPL-2.0
/*
 * H2, serve: every readahead into fresh folios goes through the static
 * function read_pages() in mm/readahead.c (read(2), sendfile/splice, mmap
 * fault readahead, readahead(2)).  An ftrace callback with IPMODIFY
 * redirects it to ccache_read_pages(), which fills the folios the store
 * holds and calls the original read_pages() for each run of misses.
 *
 * Why this is safe: the folios handed to read_pages() were just added to the
 * page cache, locked and not uptodate, so nobody has seen their contents;
 * and the caller holds the mapping's invalidate_lock shared, so truncation
 * and hole punching cannot run until they are filled.  A hit takes the
 * entry out of the store before using it (exclusive get), or marks it
 * kept (a regular file's page, keep_served): either way it is never
 * served again while its page is in the page cache, and a page is never
 * served from an older copy (store.h, struct ccache_entry, step 3a).
 *
 * The call to the original goes through ftrace again; the callback sees
 * that it comes from this module (parent_ip) and lets it through.  It must
 * not be compiled as a tail call, or parent_ip would be the caller's.
 *
 * Unload: after the ftrace ops are unregistered (which waits for RCU
 * tasks), tasks may still be inside ccache_read_pages(), asleep in the
 * original read_pages(): ccache_serve_exit() waits for them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/highmem.h>
#include <linux/module.h>
#include <linux/pagemap.h>
#include <linux/slab.h>

#include "ccache.h"
#include "store.h"
#include "trace.h"
#include "../include/compat.h"

static void (*ccache_orig_read_pages)(struct readahead_control *rac);
static struct ftrace_ops ccache_serve_ops;
static atomic_t ccache_serve_inflight = ATOMIC_INIT(0);
static unsigned long ccache_missed_seen;

/* Read @nr pages from @index with the original read_pages(). */
static noinline void ccache_read_run(struct readahead_control *rac,
				     pgoff_t index, unsigned int nr)
{
	rac->_index = index;
	rac->_nr_pages = nr;
	rac->_batch_count = 0;
	ccache_orig_read_pages(rac);
	barrier();	/* no tail call: see the comment at the top */
}

/*
 * Take the entries for pages @index to @index + @nr - 1 out of the store,
 * or mark them kept if @keep, all of them or none: a folio is filled
 * whole or read from the disk.  Return: true with the entries in @e,
 * each with a reference the caller drops.
 */
static bool ccache_take(const struct ccache_key *key, pgoff_t index,
			unsigned int nr, bool keep, struct ccache_entry **e)
{
	struct ccache_inode *ci;
	unsigned long flags;
	unsigned int i;
	bool found;

	spin_lock_irqsave(&ccache_lock, flags);
	ci = ccache_inode_lookup(key);
	found = ci && !ci->poisoned && !ci->invalidating &&
		!ccache_store_dropping();
	for (i = 0; found && i < nr; i++) {
		e[i] = xa_load(&ci->entries, index + i);
		found = e[i] && e[i]->state != CCACHE_PENDING &&
			!e[i]->kept && !e[i]->verifying;
	}
	for (i = 0; found && i < nr; i++) {
		kref_get(&e[i]->ref);
		if (keep)
			ccache_entry_keep(e[i]);
		else
			ccache_erase_entry(e[i]);
	}
	if (ci)
		ccache_inode_tidy(ci);
	spin_unlock_irqrestore(&ccache_lock, flags);
	return found;
}

/* The checksum of @page's data, as entries keep it: kspu_page_sum(). */
static u32 ccache_page_sum(struct page *page)
{
	void *data = kmap_local_page(page);
	u32 sum = kspu_page_sum(data);

	kunmap_local(data);
	return sum;
}

/* Does @page's data match the checksum @e was stored with? */
static bool ccache_sum_ok(struct ccache_entry *e, struct page *page)
{
	return !e->has_sum || ccache_page_sum(page) == e->sum;
}

/**
 * ccache_fill() - decompress an entry into a page
 * @e: a published entry, on which the caller holds a reference
 * @page: where its data goes
 * @buf: PAGE_SIZE bytes of working memory (struct ccache_serve_buf)
 *
 * Context: may sleep.
 * Return: true when @page holds @e's data, checked against its checksum;
 * on false its contents are garbage (counted as a decompression error).
 */
bool ccache_fill(struct ccache_entry *e, struct page *page, void *buf)
{
	struct kspu_job job;
	void *dst;

	if (e->state == CCACHE_SAME_FILLED) {
		dst = kmap_local_page(page);
		memset_l(dst, e->value, PAGE_SIZE / sizeof(unsigned long));
		kunmap_local(dst);
		return true;
	}
	job = (struct kspu_job) {
		.op = KSPU_DECOMPRESS,
		.alg = e->alg,
		.src = buf,
		.src_len = e->length,
		.dst = page,
	};
	ccache_pool_load(e, buf);
	if (kspu_run_sync(&job) || ccache_fault(CCACHE_FAULT_DECOMPRESS)) {
		ccache_stat_inc(decompress_errors);
		return false;
	}
	if (!ccache_sum_ok(e, page)) {
		ccache_stat_inc(decompress_errors);
		ccache_stat_inc(checksum_errors);
		pr_warn_ratelimited("a stored page failed its checksum: read from the disk instead\n");
		return false;
	}
	return true;
}

/**
 * ccache_serve_buf_get() - working memory for serving reads
 *
 * Context: may sleep (GFP_NOIO).
 * Return: a buffer for kfree(), or NULL: read from the disk.
 */
struct ccache_serve_buf *ccache_serve_buf_get(void)
{
	if (ccache_fault(CCACHE_FAULT_SERVE))
		return NULL;
	return kmalloc(sizeof(struct ccache_serve_buf),
		       GFP_NOIO | __GFP_NOWARN);
}

/* Pages @index.. @index + @nr - 1 go to the disk: count the ghosts hit. */
static void ccache_count_ghosts(const struct ccache_key *key, pgoff_t index,
				unsigned long nr)
{
	while (nr--)
		ccache_ghost_hit(ccache_page_tag(key, index++));
}

/**
 * ccache_serve_folio() - fill a folio from the store, all of it or nothing
 * @key: its file
 * @folio: locked, not uptodate, nobody has seen its contents
 * @sb: working memory (ccache_serve_buf_get())
 *
 * Counts the hits, or the misses and the ghosts they hit.  The caller
 * completes the read: readahead here, the bio in blockdev.c.
 *
 * Context: may sleep.
 * Return: true when every page was filled.
 */
bool ccache_serve_folio(const struct ccache_key *key, struct folio *folio,
			struct ccache_serve_buf *sb)
{
	unsigned long missed = ccache_hooks_missed();
	struct ccache_entry **e = sb->e;
	unsigned int i, nr = folio_nr_pages(folio);
	bool ok = true, keep;

	/*
	 * A lost return probe may have left stale entries (an invalidation's
	 * end, an unmount's): drop them all before anything is served, here
	 * where every read the store fills passes.
	 */
	if (unlikely(missed != READ_ONCE(ccache_missed_seen))) {
		pr_warn_ratelimited("a return probe was missed: dropping all entries\n");
		/* first the drop, so that no reader serves what it drops */
		ccache_flush();
		WRITE_ONCE(ccache_missed_seen, missed);
	}
	/* a regular file's folio: see ccache_capture_kept() */
	keep = ccache_param_keep_served() &&
	       !ccache_inode_is_bdev(folio->mapping->host);
	if (nr > CCACHE_MAX_FOLIO_PAGES ||
	    !ccache_take(key, folio->index, nr, keep, e)) {
		ccache_stat_add(misses, nr);
		ccache_count_ghosts(key, folio->index, nr);
		trace_ccache_load_miss(key, folio->index, nr);
		return false;
	}
	for (i = 0; i < nr; i++)
		ok = ok && ccache_fill(e[i], folio_page(folio, i), sb->data);
	for (i = 0; i < nr; i++) {
		if (ok)	/* a hit for its generation: sizing.c */
			ccache_sizing_hit(e[i]->gen);
		else if (keep)	/* the page comes from the disk */
			ccache_kept_drop(e[i]);
		ccache_entry_put(e[i]);
	}
	if (!ok) {
		trace_ccache_load_miss(key, folio->index, nr);
		return false;
	}
	ccache_stat_add(hits, nr);
	ccache_sizing_served(key, folio->index, nr);
	trace_ccache_load_hit(key, folio->index, nr);
	return true;
}

static void ccache_serve(struct readahead_control *rac)
{
	pgoff_t index = readahead_index(rac), end = index + readahead_count(rac);
	struct inode *inode = rac->mapping->host;
	pgoff_t run = index, i;
	struct ccache_key key;
	unsigned int nr;
	struct ccache_serve_buf *sb;
	unsigned long filled = 0;
	struct folio *folio;

	if (rac->_batch_count || index == end || !ccache_param_enabled() ||
	    !ccache_fs_allowed(inode)) {
		ccache_orig_read_pages(rac);
		return;
	}
	ccache_key_of(inode, &key);
	/* nothing to serve: only the ghosts the pool left count */
	if (!ccache_stat_read(stored_pages)) {
		ccache_count_ghosts(&key, index, end - index);
		ccache_orig_read_pages(rac);
		return;
	}
	sb = ccache_serve_buf_get();
	if (!sb) {
		ccache_orig_read_pages(rac);
		return;
	}
	for (i = index; i < end; i += nr) {
		folio = xa_load(&rac->mapping->i_pages, i);
		if (WARN_ON_ONCE(!folio || xa_is_value(folio)))
			break;
		nr = folio_nr_pages(folio);
		if (!ccache_serve_folio(&key, folio, sb))
			continue;
		folio_mark_uptodate(folio);
		folio_unlock(folio);
		folio_put(folio);	/* readahead's reference for read_pages() */
		filled += nr;
		if (run < i)
			ccache_read_run(rac, run, i - run);
		run = i + nr;
	}
	kfree(sb);
	if (run < end)
		ccache_read_run(rac, run, end - run);
	/*
	 * The disk counts reads, not pages: a read the store filled in part
	 * still goes to the disk (Documentation/design.rst, "Known gaps").
	 */
	if (filled == end - index)
		ccache_stat_inc(served_reads);
	else if (filled)
		ccache_stat_inc(partial_reads);
	rac->_index = end;
	rac->_nr_pages = 0;
	rac->_batch_count = 0;
}

/* What read_pages() callers now reach instead of it. */
static void ccache_read_pages(struct readahead_control *rac)
{
	atomic_inc(&ccache_serve_inflight);
	ccache_serve(rac);
	atomic_dec(&ccache_serve_inflight);
}

static void notrace ccache_serve_redirect(unsigned long ip,
					  unsigned long parent_ip,
					  struct ftrace_ops *ops,
					  struct ftrace_regs *fregs)
{
	if (!within_module(parent_ip, THIS_MODULE))
		ccache_ftrace_set_ip(fregs, (unsigned long)ccache_read_pages);
}

/**
 * ccache_serve_init() - start serving re-reads from the store
 *
 * Return: 0, or a negative errno with the reason logged.
 */
int ccache_serve_init(void)
{
	unsigned long ip;
	int err;

	ccache_orig_read_pages = ccache_symbol_address("read_pages");
	if (!ccache_orig_read_pages)
		return ccache_hook_missing("kernel function", "read_pages");
	ccache_missed_seen = ccache_hooks_missed();
	ip = (unsigned long)ccache_orig_read_pages;
	err = ccache_ftrace_start(&ccache_serve_ops, ccache_serve_redirect,
				  true, &ip, 1);
	if (err)
		pr_err("cannot redirect read_pages: %d\n", err);
	return err;
}

/**
 * ccache_serve_exit() - stop serving; returns when no task is inside
 * ccache_read_pages() any more
 */
void ccache_serve_exit(void)
{
	unregister_ftrace_function(&ccache_serve_ops);
	ftrace_free_filter(&ccache_serve_ops);
	while (atomic_read(&ccache_serve_inflight))
		msleep(20);
	/* tasks between the atomic_dec() and the return */
	synchronize_rcu_tasks();
}
