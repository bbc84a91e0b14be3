// SPDX-License-Identifier: GPL-2.0
/*
 * H1, capture: pages leaving the page cache through reclaim are copied into
 * staging buffers by a probe on the mm_filemap_delete_from_page_cache
 * tracepoint and handed to the offload shim (spu-offload/kspu.h) as
 * compress jobs; when a job is done, the publish worker moves its result
 * into the pool and makes the entry visible to readers.
 *
 * The probe runs with the page cache's i_lock and i_pages locks held and
 * interrupts off (see store.h for what it may do there).  It also erases
 * whatever the store holds for the pages leaving, on every firing, so that
 * the store never keeps a copy older than what the page cache last held
 * (a captured page's new entry replaces the old one in the same step).
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
 *     checks), whose mapping is not being torn down; or to an allowed
 *     block device, marked as holding what the disk holds (blockdev.c);
 *   - no invalidation is in flight on the file and it is not poisoned.
 *
 * A page served from an entry that was kept (store.h, struct ccache_entry,
 * step 3a) is not compressed again when it leaves: the probe copies it as
 * usual, and the publish worker compares the copy with the kept entry's
 * data (ccache_publish_verify()), a decompression and a memcmp() instead
 * of a compression and an allocation in the pool.  The comparison, not a
 * hook on every way a page can change, is what makes the kept entry the
 * page's copy: a page written while cached fails it and is captured
 * from the copy as any other page, only later.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/llist.h>
#include <linux/percpu.h>
#include <linux/timex.h>
#include <linux/pagemap.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>

#include "ccache.h"
#include "store.h"
#include "trace.h"

static struct tracepoint *ccache_capture_tp;

/* Stages whose job is done, waiting for the publish worker. */
static LLIST_HEAD(ccache_done_stages);
/* Set on the way out: the publish worker drops what it would store. */
static bool ccache_capture_stopping;

static struct workqueue_struct *ccache_wq;
/* The publish worker's, for ccache_publish_verify(): a page, a buffer. */
static struct page *ccache_verify_page;
static void *ccache_verify_buf;
static void ccache_publish_work(struct work_struct *work);
static DECLARE_DELAYED_WORK(ccache_publish_worker, ccache_publish_work);

/*
 * Stages the pool had no memory for, oldest first, and when to try them
 * again (ccache_publish_alloc()): the publish worker's own.
 */
static LIST_HEAD(ccache_retry_stages);
static unsigned long ccache_retry_at;

/*
 * How many times a page is offered to the pool, a jiffy apart, before it
 * is dropped.  The pool never reclaims (ccache_pool_alloc()), so it fails
 * whenever free memory is below the watermark; the failure woke kswapd,
 * which has usually caught up a jiffy later.
 */
#define CCACHE_ALLOC_TRIES 8

/* One folio's jobs, gathered by the probe (interrupts off: ours alone). */
struct ccache_capture_batch {
	struct kspu_job *jobs[CCACHE_MAX_FOLIO_PAGES];
};

static DEFINE_PER_CPU(struct ccache_capture_batch, ccache_capture_batch);

/* ccache_capture_done() for jobs refused by the offload shim. */
#define CCACHE_ERR_REFUSED EBUSY

/* @sb's filesystem as enum ccache_fs, or CCACHE_FS_COUNT: none ccache knows */
static int ccache_fs_of(struct super_block *sb)
{
	int fs;

	for (fs = 0; fs < CCACHE_FS_COUNT; fs++)
		if (!strcmp(sb->s_type->name, ccache_fs_names[fs]))
			break;
	return fs;
}

/**
 * ccache_sb_cacheable() - may the store ever hold pages of this filesystem?
 * @sb: its superblock
 *
 * True for every filesystem type the "filesystems" knob can name, listed
 * now or not: the hooks (hooks.c) track changes to the files of all of
 * them, so that entries stored before the knob took a type out are never
 * served stale when it puts the type back; every other filesystem (tmpfs,
 * NFS, FUSE, procfs...) has no entries, and its truncations and inode
 * evictions are none of ccache's business.
 *
 * Context: any.
 */
bool ccache_sb_cacheable(struct super_block *sb)
{
	return ccache_fs_of(sb) < CCACHE_FS_COUNT;
}

/**
 * ccache_sb_allowed() - may pages of this filesystem be kept now?
 * @sb: its superblock
 *
 * A filesystem on a DAX-capable device (persistent memory) is left out
 * whole: a file can be switched to DAX and back while it lives (ext4 and
 * xfs, "-o dax=inode" and chattr +x), and DAX writes invalidate nothing,
 * so pages stored before a switch could outlive writes made after it.
 *
 * Context: any; for a superblock that may be going away, under
 * rcu_read_lock().
 * Return: true for an active filesystem listed in the "filesystems" knob,
 * on a device without DAX.
 */
bool ccache_sb_allowed(struct super_block *sb)
{
	return (READ_ONCE(sb->s_flags) & SB_ACTIVE) &&
	       !(sb->s_bdev && blk_queue_dax(bdev_get_queue(sb->s_bdev))) &&
	       (ccache_param_filesystems() & BIT(ccache_fs_of(sb)));
}

/**
 * ccache_fs_allowed() - may pages of this file be cached at all?
 * @inode: the file
 *
 * Not a quota file while quota is on (S_NOQUOTA): ext4 writes it through
 * the block device's buffers (ext4_quota_write()), past the file's page
 * cache and ccache's hooks, so a copy of its pages taken before would
 * outlive the writes.  Quota off truncates its page cache, which the hooks
 * see.
 *
 * Return: true for a regular file, neither DAX, fs-verity, encrypted nor
 * a quota file in use, on a filesystem ccache_sb_allowed().
 */
bool ccache_fs_allowed(struct inode *inode)
{
	if (!S_ISREG(inode->i_mode) || IS_DAX(inode) || IS_VERITY(inode) ||
	    IS_ENCRYPTED(inode) || IS_NOQUOTA(inode))
		return false;
	return ccache_sb_allowed(inode->i_sb);
}

/**
 * ccache_mapping_allowed() - may pages of this page cache be kept?
 * @host: a page cache's owner: a file, or a block device (blockdev.c)
 *
 * Context: any.
 */
bool ccache_mapping_allowed(struct inode *host)
{
	return ccache_inode_is_bdev(host) ? ccache_bdev_allowed(host) :
					    ccache_fs_allowed(host);
}

/**
 * ccache_folio_reclaimed() - is reclaim evicting this folio (not
 * truncation, not a drop)?
 * @folio: a folio leaving the page cache
 *
 * Context: the mm_filemap_delete_from_page_cache tracepoint.
 */
bool ccache_folio_reclaimed(struct folio *folio)
{
	return folio_ref_count(folio) == 0 && (current->flags & PF_MEMALLOC);
}

/*
 * Is a page of @folio hardware-poisoned?  memory_failure() marks the page
 * it hit, a tail page of a large folio included, and the head only when
 * the head was hit (folio_test_hwpoison() reads the head's flag alone).
 * Copying a poisoned page, with interrupts off, takes a machine check
 * where the kernel on its own would simply free the folio.  (A guest
 * cannot put a poisoned page in front of capture: memory_failure() splits
 * or truncates a clean page-cache folio.  The test-only "hwpoison" fault
 * site poisons a large folio's last page instead.)
 */
static bool ccache_folio_poisoned(struct folio *folio)
{
	long i, nr = folio_nr_pages(folio);

	for (i = 0; i < nr; i++)
		if (PageHWPoison(folio_page(folio, i)) ||
		    (i && i == nr - 1 && ccache_fault(CCACHE_FAULT_HWPOISON)))
			return true;
	return false;
}

/*
 * Is the folio's content exactly what the file holds on disk?  Not when a
 * writeback of the file failed: the kernel leaves such a folio clean and
 * uptodate, holding data the disk never got (mapping_set_error() records
 * it in wb_err, which keeps it for good, beside AS_EIO, which a sync
 * clears).  Not while direct I/O is in flight (i_dio_count): a
 * direct write may be about to change the blocks behind the folio, and
 * the kernel's invalidation after it skips a file with no pages cached.
 * A block device's folio read through buffer heads is not uptodate, only
 * its buffers were: its marks say, and its bytes (ccache_bdev_verify()).
 */
static bool ccache_folio_capturable(struct folio *folio, bool bdev)
{
	struct address_space *mapping = folio->mapping;

	return (bdev || folio_test_uptodate(folio)) &&
	       !folio_test_dirty(folio) &&
	       !folio_test_writeback(folio) &&
	       folio_nr_pages(folio) <= CCACHE_MAX_FOLIO_PAGES &&
	       !mapping_exiting(mapping) && !READ_ONCE(mapping->wb_err) &&
	       !atomic_read(&mapping->host->i_dio_count) &&
	       !ccache_folio_poisoned(folio);
}

/*
 * May a change that ccache never saw be under way on @inode?  Its first
 * capture, the one that makes its record, is refused while its i_rwsem
 * is held.  A truncate, hole punch or direct write that began before the
 * hooks were registered (the module was loading) is never seen, and
 * pages of its range captured while it runs could be served after their
 * blocks were freed.  Every such change on ext4 and xfs holds the file's
 * i_rwsem (exclusive, or shared for a direct write) from before it
 * touches the page cache until it is done, so once the lock is seen free
 * no unseen change is left on the file: any later one is seen by the
 * hooks.  A record, once made, has seen the lock free.  (Readers that
 * hold it shared, xfs's buffered reads, only delay a file's first
 * capture to the next eviction.)
 */
static bool ccache_inode_busy(struct inode *inode)
{
	return rwsem_is_locked(&inode->i_rwsem);
}

static void ccache_capture_done(struct kspu_job *job);
static void ccache_stage_done(struct ccache_stage *stage);

/*
 * Count @nr pages of @key from @index on as not kept, for @why.  Pages the
 * pool had no room or time for leave ghosts (sizing.c): a read of one
 * from the disk is one a larger or faster pool would have saved (those
 * compression had no time for are marked "slow": sizing.c gives
 * compression more CPU when they are hit).  Pages
 * that do not compress, or that no pool could keep, leave none.
 */
static void ccache_reject(const struct ccache_key *key, pgoff_t index,
			  unsigned int nr, enum ccache_reject why)
{
	unsigned int i;
	bool slow;

	atomic_long_add(nr, &ccache_stats.reject[why]);
	trace_ccache_reject(key, index, nr, why);
	if (why == CCACHE_REJECT_POOR_COMPRESSION ||
	    why == CCACHE_REJECT_POLICY || why == CCACHE_REJECT_CGROUP_LIMIT)
		return;
	slow = why == CCACHE_REJECT_STAGING_FULL || why == CCACHE_REJECT_OFFLOAD;
	for (i = 0; i < nr; i++)
		ccache_ghost_record(ccache_page_tag(key, index + i), slow);
}

/* Copy page @i of @folio into @stage. */
static void ccache_stage_copy(struct ccache_stage *stage, struct folio *folio,
			      unsigned int i)
{
	void *src = kmap_local_folio(folio, i * PAGE_SIZE);

	memcpy(stage->page, src, PAGE_SIZE);
	kunmap_local(src);
}

/*
 * Put @e, a new pending entry holding @stage, which holds a copy of page
 * @index of @ci, into @ci, replacing any older entry for that index; its
 * compress job goes to @job.  @referenced, @order: see below.  Return:
 * true, else false with @e freed, and @stage with it.
 * Context: ccache_lock held.
 */
static bool ccache_capture_stage(struct ccache_inode *ci,
				 struct ccache_stage *stage,
				 struct ccache_entry *e, pgoff_t index,
				 u8 referenced, u8 order, struct kspu_job **job)
{
	stage->tag = ccache_page_tag(&ci->key, index);
	stage->tries = 0;
	stage->verify = false;
	e->referenced = referenced;
	e->order = order;
	if (!ccache_entry_insert(ci, e, index))
		return false;
	kref_get(&e->ref);		/* the job's */
	stage->job = (struct kspu_job) {
		.op = KSPU_COMPRESS,
		.src = stage->page,
		.src_len = PAGE_SIZE,
		.want_sum = ccache_param_checksum(),
		.done = ccache_capture_done,
		.priv = e,
	};
	*job = &stage->job;
	ccache_stat_inc(captures);
	return true;
}

/*
 * Capture page @i of @folio into @ci as a pending entry, replacing any
 * older entry for that index; its compress job goes to @job.  Return:
 * true when the page was captured, else false with the reason in @why.
 */
static bool ccache_capture_page(struct ccache_inode *ci, struct folio *folio,
				unsigned int i, u16 memcg, struct kspu_job **job,
				enum ccache_reject *why)
{
	struct ccache_stage *stage;
	struct ccache_entry *e;

	*why = CCACHE_REJECT_ALLOC_FAILURE;
	stage = ccache_staging_get();
	if (!stage) {
		*why = CCACHE_REJECT_STAGING_FULL;
		return false;
	}
	e = ccache_entry_alloc(stage, memcg);
	if (!e) {
		__ccache_staging_put(stage);
		return false;
	}
	ccache_stage_copy(stage, folio, i);
	/*
	 * A new entry gets a second chance against the shrinker and LRU
	 * eviction, as zswap gives its new entries (6.8 on): reclaim calls
	 * shrinkers right after the LRU scan that filled the pool, and
	 * without one offload=inline, which stores while that reclaim runs,
	 * loses most of what it has just stored (Documentation/design.rst).
	 * A page of the working set gets a second one.
	 */
	return ccache_capture_stage(ci, stage, e, folio->index + i,
				    1 + folio_test_workingset(folio),
				    folio_order(folio), job);
}

/*
 * @folio leaves again with the entries it was served from still kept in
 * @ci (ccache_serve_folio()), under the cgroup record @memcg: copy its
 * pages for the publish worker to compare (ccache_publish_verify())
 * instead of capturing them, all of them or none, as it was served.
 * Return: how many stages, their jobs in @jobs, to hand to the worker
 * once ccache_lock is dropped; 0: capture it.
 * Context: ccache_lock held.
 */
static unsigned int ccache_capture_kept(struct ccache_inode *ci,
					struct folio *folio, int memcg,
					struct kspu_job **jobs)
{
	unsigned int i, nr = folio_nr_pages(folio);
	struct ccache_stage *stage;
	struct ccache_entry *e;

	for (i = 0; i < nr; i++) {
		e = xa_load(&ci->entries, folio->index + i);
		if (!e || !e->kept || e->memcg != memcg)
			return 0;
	}
	for (i = 0; i < nr; i++) {
		stage = ccache_staging_get();
		if (!stage)
			break;
		jobs[i] = &stage->job;
	}
	if (i < nr) {		/* back in the order they were taken */
		while (i--)
			__ccache_staging_put(container_of(jobs[i],
							  struct ccache_stage,
							  job));
		return 0;
	}
	for (i = 0; i < nr; i++) {
		stage = container_of(jobs[i], struct ccache_stage, job);
		e = xa_load(&ci->entries, folio->index + i);
		ccache_stage_copy(stage, folio, i);
		stage->tag = ccache_page_tag(&ci->key, folio->index + i);
		stage->tries = 0;
		stage->verify = true;
		stage->epoch = ci->epoch;
		stage->job = (struct kspu_job) { .priv = e };
		kref_get(&e->ref);		/* the stage's */
		ccache_kept_verify(e, 1 + folio_test_workingset(folio));
	}
	return nr;
}

static void ccache_capture_probe(void *data, struct folio *folio)
{
	struct kspu_job **jobs = this_cpu_ptr(&ccache_capture_batch)->jobs;
	struct address_space *mapping = folio->mapping;
	unsigned int taken, captured = 0, dropped = 0, nr = folio_nr_pages(folio);
	unsigned int kept = 0;
	enum ccache_reject why = CCACHE_REJECT_POLICY;
	struct ccache_inode *ci;
	bool reject, bdev;
	struct ccache_key key;
	unsigned long flags;
	int memcg = 0;
	bool capture;
	cycles_t start;

	if (!mapping || !mapping->host)
		return;
	bdev = ccache_inode_is_bdev(mapping->host);
	if (!bdev && !S_ISREG(mapping->host->i_mode))
		return;
	/* a block device's pages are none of ccache's business unless "bdev" */
	capture = ccache_folio_reclaimed(folio) && ccache_param_enabled() &&
		  (!bdev || ccache_bdev_allowed(mapping->host));
	if (capture && !(ccache_folio_capturable(folio, bdev) &&
			 (bdev || ccache_fs_allowed(mapping->host)))) {
		ccache_key_of(mapping->host, &key);
		ccache_reject(&key, folio->index, nr, CCACHE_REJECT_POLICY);
		capture = false;
	}
	/* Nothing stored and nothing to store: the common case stays cheap. */
	if (!capture && !ccache_stat_read(inodes)) {
		if (bdev)	/* its marks go, whatever happens */
			ccache_bdev_evicted(folio);
		return;
	}

	start = get_cycles();	/* cheaper than local_clock() here */
	ccache_key_of(mapping->host, &key);
	if (bdev && capture)
		ccache_bdev_verify(folio);
	spin_lock_irqsave(&ccache_lock, flags);
	/* under ccache_lock, so that a write's erase comes after (blockdev.c) */
	if (bdev && !ccache_bdev_evicted(folio) && capture) {
		ccache_stat_add(bdev_unmarked, nr);
		capture = false;
	}
	/* again, now that an unmount's erase comes before or after us */
	if (bdev && capture && !ccache_bdev_allowed(mapping->host))
		capture = false;
	ci = ccache_inode_lookup(&key);
	if (!ci && capture && (bdev || !ccache_inode_busy(mapping->host))) {
		ci = ccache_inode_get_or_create(&key);
		if (!ci)
			why = CCACHE_REJECT_ALLOC_FAILURE;
	}
	reject = capture && !ci;	/* busy (policy), or no memory */
	if (ci) {
		reject = capture && (ci->poisoned || ci->invalidating ||
				     ccache_store_dropping());
		if (capture && !reject) {
			memcg = ccache_memcg_get(folio, &why);
			reject = memcg < 0;
		}
		if (capture && !reject && ccache_stat_read(kept_pages))
			kept = ccache_capture_kept(ci, folio, memcg, jobs);
		while (capture && !reject && !kept && captured < nr) {
			reject = !ccache_capture_page(ci, folio, captured,
						      memcg, &jobs[captured],
						      &why);
			if (!reject)
				captured++;
		}
		if (memcg > 0)
			ccache_memcg_put(memcg);
		/*
		 * A folio is kept whole or not at all: it is read back whole
		 * (ccache_erase_folio()).  Older copies of the pages not
		 * captured must go too.
		 */
		if (!kept && captured < nr) {
			ccache_erase_range(ci, folio->index,
					   folio->index + nr - 1);
			dropped = captured;
			captured = 0;
		}
		ccache_inode_tidy(ci);
	}
	spin_unlock_irqrestore(&ccache_lock, flags);

	if (kept) {
		for (taken = 0; taken < kept; taken++)
			ccache_stage_done(container_of(jobs[taken],
						       struct ccache_stage,
						       job));
		return;
	}
	if (reject)		/* the pages not captured, or erased */
		ccache_reject(&key, folio->index, nr, why);
	/* the jobs of erased pages end at once, their entries gone */
	taken = captured ? kspu_submit(jobs, captured) : 0;
	while (taken < captured + dropped) {
		jobs[taken]->err = -CCACHE_ERR_REFUSED;
		ccache_capture_done(jobs[taken++]);
	}
	if (!captured)
		return;
	ccache_stat_add(capture_cycles, get_cycles() - start);
}

/*
 * A job is done (any context, possibly the probe itself): keep what it
 * produced in its stage, and leave the rest to the publish worker.
 */
static void ccache_capture_done(struct kspu_job *job)
{
	struct ccache_stage *stage = container_of(job, struct ccache_stage, job);

	if (!job->err && job->result == KSPU_COMPRESSED &&
	    job->out_len <= PAGE_SIZE)
		memcpy(stage->page, job->out, job->out_len);
	ccache_stage_done(stage);
}

/* Hand @stage to the publish worker (any context). */
static void ccache_stage_done(struct ccache_stage *stage)
{
	if (llist_add(&stage->done, &ccache_done_stages))
		mod_delayed_work(ccache_wq, &ccache_publish_worker, 0);
}

/* what ccache_discard() drops: why, and how many pages had made room */
struct ccache_discard {
	enum ccache_reject why;
	unsigned int made_room;
};

static void ccache_discarded(struct ccache_entry *e, unsigned long arg)
{
	struct ccache_discard *d = (struct ccache_discard *)arg;

	/* published siblings of an admitted folio made room as they came */
	if (e->state == CCACHE_COMPRESSED)
		d->made_room++;
	if (d->why < CCACHE_REJECT_NR)
		ccache_reject(&e->ci->key, e->index, 1, d->why);
	if (d->why == CCACHE_REJECT_POOL_LIMIT)
		ccache_pool_refused(ccache_page_tag(&e->ci->key, e->index));
}

/*
 * Drop a pending entry that will not be stored, and the other pages of
 * its folio (ccache_erase_folio()); @why it is not kept, or
 * CCACHE_REJECT_NR when that is no rejection (the module is unloading).
 * The room the folio's pages had made goes back (ccache_pool_refund()):
 * its stored pages', and the entry's own when it failed after its
 * admission (CCACHE_REJECT_ALLOC_FAILURE, ccache_publish_stage()).
 */
static void ccache_discard(struct ccache_entry *e, enum ccache_reject why)
{
	struct ccache_discard d = {
		.why = why,
		.made_room = why == CCACHE_REJECT_ALLOC_FAILURE,
	};
	struct ccache_inode *ci;
	unsigned long flags;

	spin_lock_irqsave(&ccache_lock, flags);
	ci = e->ci;
	if (ci) {
		ccache_erase_folio(e, ccache_discarded, (unsigned long)&d);
		ccache_inode_tidy(ci);
	}
	spin_unlock_irqrestore(&ccache_lock, flags);
	if (ci)
		ccache_pool_refund(d.made_room);
}

/*
 * Store @stage's compressed page in the pool, which admitted it.  When
 * the pool has no memory now, the page stays pending (no reader serves
 * it) for another try a jiffy later, at most CCACHE_ALLOC_TRIES in all:
 * the stage holds it meanwhile.  Return: false when it is to be tried
 * again.
 */
static bool ccache_publish_alloc(struct ccache_stage *stage)
{
	struct kspu_job *job = &stage->job;
	struct ccache_entry *e = job->priv;
	unsigned long handle = 0;

	if (!stage->tries && ccache_fault(CCACHE_FAULT_POOL))
		stage->tries = CCACHE_ALLOC_TRIES - 1;	/* fails for good */
	else if (stage->tries || !ccache_fault(CCACHE_FAULT_POOL_BUSY))
		handle = ccache_pool_alloc(stage->page, job->out_len);
	if (handle) {
		ccache_entry_publish(e, CCACHE_COMPRESSED, handle, job->out_len,
				     job->alg);
		return true;
	}
	if (++stage->tries < CCACHE_ALLOC_TRIES) {
		ccache_stat_inc(alloc_retries);
		return false;
	}
	ccache_discard(e, CCACHE_REJECT_ALLOC_FAILURE);
	return true;
}

/*
 * Store what @stage's job produced for its entry, or drop the entry.
 * Return: false when the pool is to be tried again (ccache_publish_alloc()).
 */
static bool ccache_publish_stage(struct ccache_stage *stage)
{
	struct kspu_job *job = &stage->job;
	struct ccache_entry *e = job->priv;

	if (!e->ci)			/* erased meanwhile */
		return true;
	if (READ_ONCE(ccache_capture_stopping)) {
		/* the store is emptied next anyway */
		ccache_discard(e, CCACHE_REJECT_NR);
		return true;
	}
	if (stage->tries)		/* admitted before */
		return ccache_publish_alloc(stage);
	if (job->err == -CCACHE_ERR_REFUSED || job->err == -ECANCELED) {
		ccache_discard(e, CCACHE_REJECT_OFFLOAD);
		return true;
	}
	if (job->err || job->out_len > ccache_pool_max_object() ||
	    ccache_fault(CCACHE_FAULT_COMPRESS)) {
		ccache_discard(e, CCACHE_REJECT_POOR_COMPRESSION);
		return true;
	}
	if (job->result == KSPU_SAME_FILLED) {
		ccache_entry_publish(e, CCACHE_SAME_FILLED, job->fill_value, 0,
				     0);
		return true;
	}
	/* pending: no reader looks at these before ccache_entry_publish() */
	e->has_sum = job->want_sum;
	e->sum = job->sum;
	if (ccache_fault(CCACHE_FAULT_CORRUPT))
		ccache_fault_corrupt(stage->page, job->out_len);
	/*
	 * The first page of a folio to come here decides for all of its
	 * pages (lru.c).  A workingset page got two chances
	 * (ccache_capture_page()).
	 */
	if (e->follows) {
		ccache_pool_admit_follower();
	} else if (!ccache_pool_admit(stage->tag, e->referenced > 1,
				      1U << e->order)) {
		ccache_discard(e, CCACHE_REJECT_POOL_LIMIT);
		return true;
	} else if (e->order) {
		ccache_folio_follows(e);
	}
	return ccache_publish_alloc(stage);
}

/*
 * @stage holds the page that a kept entry's page had when it left the
 * page cache again (ccache_capture_kept()).  If the entry's data is those
 * bytes it may be served again, as a new entry of that page would be
 * (recaptures); if the page was written meanwhile, the copy is captured
 * in its place and compressed after all (recapture_changed).  Either
 * way the file must not have changed since the copy, as
 * ccache_entry_publish() asks of a new entry; else the entry goes.
 */
static void ccache_publish_verify(struct ccache_stage *stage)
{
	bool stopping = READ_ONCE(ccache_capture_stopping), same = false;
	struct ccache_entry *e = stage->job.priv, *fresh;
	struct kspu_job *job = NULL;
	struct ccache_inode *ci;
	unsigned long flags;
	bool unchanged;
	void *data;

	if (e->ci && !stopping) {
		if (ccache_fill(e, ccache_verify_page, ccache_verify_buf)) {
			data = kmap_local_page(ccache_verify_page);
			same = !memcmp(data, stage->page, PAGE_SIZE);
			kunmap_local(data);
		}
		/* as a put stage is: no copy outlives its use (flush, unmount) */
		clear_highpage(ccache_verify_page);
		memset(ccache_verify_buf, 0, PAGE_SIZE);
	}
	spin_lock_irqsave(&ccache_lock, flags);
	ci = e->ci;
	unchanged = ci && e->verifying && ci->epoch == stage->epoch &&
		  !ci->poisoned && !ci->invalidating && !stopping;
	if (unchanged && same) {
		e->verifying = 0;
		ccache_stat_inc(recaptures);
		ci = NULL;
	} else if (unchanged) {
		fresh = ccache_entry_alloc(stage, e->memcg);
		if (fresh) {
			/* @stage is @fresh's now, freed with it on failure */
			if (ccache_capture_stage(ci, stage, fresh, e->index,
						 e->referenced, 0, &job))
				ccache_stat_inc(recapture_changed);
			stage = NULL;
		}
	}
	if (ci && e->ci) {		/* still there: nothing replaced it */
		ccache_erase_entry(e);
		ccache_inode_tidy(ci);
	}
	spin_unlock_irqrestore(&ccache_lock, flags);
	if (job && !kspu_submit(&job, 1)) {
		job->err = -CCACHE_ERR_REFUSED;
		ccache_capture_done(job);
	}
	if (stage)
		ccache_staging_put(stage);
}

/* Publish @stage, or keep it with ccache_retry_stages for another try. */
static void ccache_publish_one(struct ccache_stage *stage)
{
	struct ccache_entry *e = stage->job.priv;

	if (stage->verify) {
		ccache_publish_verify(stage);
	} else if (!ccache_publish_stage(stage)) {
		list_add_tail(&stage->retry, &ccache_retry_stages);
		return;
	}
	ccache_entry_put(e);		/* the job's reference */
	cond_resched_tasks_rcu_qs();
}

static void ccache_publish_work(struct work_struct *work)
{
	struct llist_node *done = llist_del_all(&ccache_done_stages);
	bool stopping = READ_ONCE(ccache_capture_stopping);
	struct ccache_stage *stage, *next;
	LIST_HEAD(again);
	bool due;

	/*
	 * Those the pool had no memory for are older: first, when due.  With
	 * none waiting, this run's failures set the time of the next try.
	 */
	due = stopping || list_empty(&ccache_retry_stages) ||
	      time_after_eq(jiffies, ccache_retry_at);
	if (due)
		list_splice_init(&ccache_retry_stages, &again);
	list_for_each_entry_safe(stage, next, &again, retry) {
		list_del(&stage->retry);
		ccache_publish_one(stage);
	}
	done = llist_reverse_order(done);	/* oldest first */
	llist_for_each_entry_safe(stage, next, done, done)
		ccache_publish_one(stage);
	if (!list_empty(&ccache_retry_stages)) {
		if (due)
			ccache_retry_at = jiffies + 1;
		queue_delayed_work(ccache_wq, &ccache_publish_worker,
				   max_t(long, ccache_retry_at - jiffies, 1));
	}
	if (!stopping)
		ccache_reserves_fill();
}

/**
 * ccache_capture_init() - start capturing evicted pages
 *
 * Return: 0, or a negative errno with the reason logged.
 */
int ccache_capture_init(void)
{
	int err;

	ccache_capture_tp = ccache_tracepoint(CCACHE_DELETE_TP);
	if (!ccache_capture_tp)
		return -ENOENT;
	ccache_capture_stopping = false;
	ccache_verify_page = alloc_page(GFP_KERNEL);
	ccache_verify_buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	ccache_wq = alloc_workqueue("ccache", WQ_UNBOUND, 0);
	if (!ccache_wq || !ccache_verify_page || !ccache_verify_buf) {
		err = -ENOMEM;
		goto fail_wq;
	}
	err = ccache_param_start_offload();
	if (err)
		goto fail_wq;
	err = tracepoint_probe_register(ccache_capture_tp, ccache_capture_probe,
					NULL);
	if (err) {
		pr_err("cannot attach to tracepoint %s: %d\n", CCACHE_DELETE_TP,
		       err);
		goto fail;
	}
	return 0;
fail:
	kspu_exit();
fail_wq:
	if (ccache_wq)
		destroy_workqueue(ccache_wq);
	kfree(ccache_verify_buf);
	if (ccache_verify_page)
		__free_page(ccache_verify_page);
	return err;
}

/**
 * ccache_capture_exit() - stop capturing; pending entries are stored or
 * dropped before it returns
 */
void ccache_capture_exit(void)
{
	tracepoint_probe_unregister(ccache_capture_tp, ccache_capture_probe,
				    NULL);
	tracepoint_synchronize_unregister();
	WRITE_ONCE(ccache_capture_stopping, true);
	kspu_exit();			/* every job is done */
	/* a run that began before the store above may have queued a retry */
	cancel_delayed_work_sync(&ccache_publish_worker);
	ccache_publish_work(NULL);	/* drops what is left */
	destroy_workqueue(ccache_wq);
	kfree(ccache_verify_buf);
	__free_page(ccache_verify_page);
}
