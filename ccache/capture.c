// SPDX-License-Identifier: GPL-2.0
/*
 * H1, capture: pages leaving the page cache through reclaim are copied into
 * staging buffers by a probe on the mm_filemap_delete_from_page_cache
 * tracepoint, and compressed into the pool by a worker.
 *
 * The probe runs with the page cache's i_lock and i_pages locks held and
 * interrupts off (see store.h for what it may do there).  It also erases
 * whatever the store holds for the pages leaving, on every firing, so that
 * the store never keeps a copy older than what the page cache last held.
 *
 * A page is captured only when all of these hold:
 *   - its reference count is 0 (only __remove_mapping() freezes it so; a
 *     truncated or invalidated page keeps a reference, and its data must
 *     never be kept: truncation may drop data that was never written);
 *   - the task is reclaiming (PF_MEMALLOC): drop_caches and
 *     fadvise(DONTNEED) also free pages with a zero count, and users
 *     expect those to really drop;
 *   - it is uptodate, clean, not under writeback, not hardware-poisoned,
 *     and at most CCACHE_MAX_FOLIO_PAGES pages (each page of a large
 *     folio becomes an entry of its own);
 *   - it belongs to a regular file on an allowed, active filesystem, that
 *     is not DAX, fs-verity or encrypted (serving would bypass their
 *     checks), whose mapping is not being torn down;
 *   - no invalidation is in flight on the file and it is not poisoned.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/pagemap.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>

#include "ccache.h"
#include "store.h"

#define CCACHE_CAPTURE_TP "mm_filemap_delete_from_page_cache"

static struct tracepoint *ccache_capture_tp;

/* Entries waiting for compression, oldest first; under ccache_lock. */
static LIST_HEAD(ccache_pending);

static struct workqueue_struct *ccache_wq;
static void ccache_compress_work(struct work_struct *work);
static DECLARE_WORK(ccache_compress_worker, ccache_compress_work);

/* The worker's output buffer: compressors may overrun a page on bad input. */
static u8 *ccache_compress_buf;

static const char * const ccache_fs_type_names[CCACHE_FS_COUNT] = {
	[CCACHE_FS_EXT4] = "ext4",
	[CCACHE_FS_XFS] = "xfs",
};

/**
 * ccache_fs_allowed() - may pages of this file be cached at all?
 * @inode: the file
 *
 * Return: true for a regular file on an active filesystem listed in the
 * "filesystems" knob that is neither DAX, fs-verity nor encrypted.
 */
bool ccache_fs_allowed(struct inode *inode)
{
	struct super_block *sb = inode->i_sb;
	unsigned long allowed = ccache_param_filesystems();
	int fs;

	if (!S_ISREG(inode->i_mode) || IS_DAX(inode) || IS_VERITY(inode) ||
	    IS_ENCRYPTED(inode) || !(sb->s_flags & SB_ACTIVE))
		return false;
	for_each_set_bit(fs, &allowed, CCACHE_FS_COUNT)
		if (!strcmp(sb->s_type->name, ccache_fs_type_names[fs]))
			return true;
	return false;
}

/* Is this a page that reclaim is evicting (not truncation, not a drop)? */
static bool ccache_is_reclaim(struct folio *folio)
{
	return folio_ref_count(folio) == 0 && (current->flags & PF_MEMALLOC);
}

/* Is the folio's content exactly what the file holds on disk? */
static bool ccache_folio_capturable(struct folio *folio)
{
	return folio_test_uptodate(folio) && !folio_test_dirty(folio) &&
	       !folio_test_writeback(folio) && !folio_test_hwpoison(folio) &&
	       folio_nr_pages(folio) <= CCACHE_MAX_FOLIO_PAGES &&
	       !mapping_exiting(folio->mapping);
}

/*
 * Capture page @i of @folio into @ci.  Return: the rejection counter to
 * bump, or NULL when the page was captured.
 */
static atomic_long_t *ccache_capture_page(struct ccache_inode *ci,
					  struct folio *folio, unsigned int i)
{
	struct ccache_entry *e;
	void *buf, *src;

	buf = ccache_staging_get();
	if (!buf)
		return &ccache_stats.reject_staging_full;
	e = ccache_entry_alloc(buf);
	if (!e) {
		__ccache_staging_put(buf);
		return &ccache_stats.reject_alloc_failure;
	}
	src = kmap_local_folio(folio, i * PAGE_SIZE);
	memcpy(buf, src, PAGE_SIZE);
	kunmap_local(src);

	e->ci = ci;
	e->index = folio->index + i;
	e->epoch = ci->epoch;
	e->referenced = folio_test_workingset(folio);
	if (xa_err(xa_store(&ci->entries, e->index, e,
			    GFP_NOWAIT | __GFP_NOWARN | __GFP_NOMEMALLOC))) {
		e->ci = NULL;
		ccache_entry_put(e);
		return &ccache_stats.reject_alloc_failure;
	}
	ci->nr_entries++;
	list_add_tail(&e->list, &ccache_pending);
	ccache_stat_inc(captures);
	return NULL;
}

static void ccache_capture_probe(void *data, struct folio *folio)
{
	struct address_space *mapping = folio->mapping;
	unsigned int captured = 0, nr = folio_nr_pages(folio);
	atomic_long_t *reject = NULL;
	struct ccache_inode *ci;
	struct ccache_key key;
	unsigned long flags;
	bool capture;

	if (!mapping || !mapping->host || !S_ISREG(mapping->host->i_mode))
		return;
	capture = ccache_is_reclaim(folio) && ccache_param_enabled();
	if (capture && !(ccache_folio_capturable(folio) &&
			 ccache_fs_allowed(mapping->host))) {
		ccache_stat_add(reject_policy, nr);
		capture = false;
	}
	/* Nothing stored and nothing to store: the common case stays cheap. */
	if (!capture && !ccache_stat_read(inodes))
		return;

	ccache_key_of(mapping->host, &key);
	spin_lock_irqsave(&ccache_lock, flags);
	ci = capture ? ccache_inode_get_or_create(&key) : ccache_inode_lookup(&key);
	if (ci) {
		ccache_erase_range(ci, folio->index, folio->index + nr - 1);
		if (capture && (ci->poisoned || ci->invalidating))
			reject = &ccache_stats.reject_policy;
		while (capture && !reject && captured < nr) {
			reject = ccache_capture_page(ci, folio, captured);
			if (!reject)
				captured++;
		}
		ccache_inode_tidy(ci);
	} else if (capture) {
		reject = &ccache_stats.reject_alloc_failure;
	}
	spin_unlock_irqrestore(&ccache_lock, flags);

	if (reject)		/* the pages not captured */
		atomic_long_add(nr - captured, reject);
	if (captured)
		queue_work(ccache_wq, &ccache_compress_worker);
}

/* A page of one repeated machine word is kept as that word. */
static bool ccache_same_filled(const void *page, unsigned long *value)
{
	const unsigned long *word = page;
	unsigned int i;

	for (i = 1; i < PAGE_SIZE / sizeof(*word); i++)
		if (word[i] != word[0])
			return false;
	*value = word[0];
	return true;
}

/*
 * Publish the compressed form of @e, unless the file changed since the
 * capture: @e must still be in its slot, the epoch unchanged, and no
 * invalidation in flight.  Return: true when published.
 */
static bool ccache_publish(struct ccache_entry *e, u8 state,
			   unsigned long value, unsigned int len, u8 alg)
{
	struct ccache_inode *ci;
	unsigned long flags;
	void *staging = NULL;

	spin_lock_irqsave(&ccache_lock, flags);
	ci = e->ci;
	if (ci && e->epoch == ci->epoch && !ci->poisoned && !ci->invalidating) {
		staging = e->staging;
		e->state = state;
		e->value = value;	/* or the handle: same word */
		e->length = len;
		e->alg = alg;
		list_add_tail(&e->list, &ccache_lru);
		ccache_stat_inc(stored_pages);
		ccache_stat_add(compressed_bytes, len);
		if (state == CCACHE_SAME_FILLED)
			ccache_stat_inc(same_filled_pages);
	} else if (ci) {
		ccache_erase_entry(e);
		ccache_inode_tidy(ci);
	}
	spin_unlock_irqrestore(&ccache_lock, flags);
	if (staging)
		ccache_staging_put(staging);
	return staging;
}

/* Drop a pending entry that will not be stored. */
static void ccache_discard(struct ccache_entry *e)
{
	struct ccache_inode *ci;
	unsigned long flags;

	spin_lock_irqsave(&ccache_lock, flags);
	ci = e->ci;
	if (ci) {
		ccache_erase_entry(e);
		ccache_inode_tidy(ci);
	}
	spin_unlock_irqrestore(&ccache_lock, flags);
}

static void ccache_compress_entry(struct ccache_entry *e)
{
	unsigned long value, handle;
	unsigned int len = 2 * PAGE_SIZE;
	u8 alg;

	if (ccache_same_filled(e->staging, &value)) {
		ccache_publish(e, CCACHE_SAME_FILLED, value, 0, 0);
		return;
	}
	if (ccache_compress(e->staging, ccache_compress_buf, &len, &alg) ||
	    len > ccache_pool_max_object()) {
		ccache_stat_inc(reject_poor_compression);
		ccache_discard(e);
		return;
	}
	handle = ccache_pool_alloc(ccache_compress_buf, len);
	if (!handle) {
		ccache_discard(e);
		return;
	}
	if (!ccache_publish(e, CCACHE_COMPRESSED, handle, len, alg))
		ccache_pool_free_handle(handle);
}

static void ccache_compress_work(struct work_struct *work)
{
	struct ccache_entry *e;
	unsigned long flags;

	for (;;) {
		spin_lock_irqsave(&ccache_lock, flags);
		e = list_first_entry_or_null(&ccache_pending,
					     struct ccache_entry, list);
		if (e) {
			list_del_init(&e->list);
			kref_get(&e->ref);
		}
		spin_unlock_irqrestore(&ccache_lock, flags);
		if (!e)
			break;
		/* an entry erased meanwhile still holds its staging copy */
		if (e->ci)
			ccache_compress_entry(e);
		ccache_entry_put(e);
		cond_resched();
	}
}

static void ccache_find_tracepoint(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, CCACHE_CAPTURE_TP))
		ccache_capture_tp = tp;
}

/**
 * ccache_capture_init() - start capturing evicted pages
 *
 * Return: 0, or a negative errno with the reason logged.
 */
int ccache_capture_init(void)
{
	int err;

	for_each_kernel_tracepoint(ccache_find_tracepoint, NULL);
	if (!ccache_capture_tp) {
		pr_err("tracepoint %s not found: this kernel cannot be supported\n",
		       CCACHE_CAPTURE_TP);
		return -ENOENT;
	}
	ccache_compress_buf = kmalloc(2 * PAGE_SIZE, GFP_KERNEL);
	ccache_wq = alloc_workqueue("ccache", WQ_UNBOUND, 0);
	if (!ccache_compress_buf || !ccache_wq) {
		err = -ENOMEM;
		goto fail;
	}
	err = tracepoint_probe_register(ccache_capture_tp, ccache_capture_probe,
					NULL);
	if (err) {
		pr_err("cannot attach to tracepoint %s: %d\n", CCACHE_CAPTURE_TP,
		       err);
		goto fail;
	}
	return 0;
fail:
	if (ccache_wq)
		destroy_workqueue(ccache_wq);
	kfree(ccache_compress_buf);
	return err;
}

/**
 * ccache_capture_exit() - stop capturing; pending entries are compressed
 * or dropped before it returns
 */
void ccache_capture_exit(void)
{
	tracepoint_probe_unregister(ccache_capture_tp, ccache_capture_probe,
				    NULL);
	tracepoint_synchronize_unregister();
	destroy_workqueue(ccache_wq);	/* drains the compression worker */
	kfree(ccache_compress_buf);
}
