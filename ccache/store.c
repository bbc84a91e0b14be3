// SPDX-License-Identifier: GPL-2.0
/*
 * The index of stored pages and its coherence rules, and every step of an
 * entry's life: ccache_entry_alloc(), ccache_entry_insert(),
 * ccache_entry_publish(), ccache_unlink_entry() and ccache_entry_free().
 * See store.h for the locking order, the entry lifetime and why each rule
 * keeps data fresh.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/delay.h>
#include <linux/hash.h>
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/llist.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/task_work.h>
#include <linux/workqueue.h>

#include "ccache.h"
#include "store.h"
#include "trace.h"

DEFINE_SPINLOCK(ccache_lock);
/* Stored entries, oldest first; under ccache_lock (lru.c evicts from it). */
LIST_HEAD(ccache_lru);
/*
 * Kept entries (struct ccache_entry, step 3a), the longest kept first;
 * under ccache_lock.  Their pages are in the page cache: lru.c evicts
 * them before any entry of ccache_lru.
 */
LIST_HEAD(ccache_kept);

/*
 * Per-file records, by superblock and inode number; under ccache_lock.
 * The capture probe searches a chain with interrupts off, so the table
 * grows with the records (a record lives as long as its entries, its
 * poison or an invalidation in flight, so their number follows the files
 * touched, not RAM).  Sized at load at one bucket per CCACHE_INODE_SHARE
 * pages of RAM, at least CCACHE_INODE_MIN_BUCKETS, it is replaced by one
 * 2^CCACHE_INODE_GROWTH_BITS times as large once the records outnumber
 * its buckets CCACHE_INODE_LOAD times, up to 2^CCACHE_INODE_MAX_BITS
 * buckets (ccache_inodes_grow_work()).  Records are added to the new
 * table at once; the old one's chains move over one struct ccache_hold
 * at a time, and until the last has moved a lookup searches both.
 * Nothing moves while a drop walks the records (ccache_dropping): a walk
 * meets every record once.  The table never shrinks; unload frees it.
 */
#define CCACHE_INODE_SHARE 64UL
#define CCACHE_INODE_MIN_BUCKETS 4096UL
#define CCACHE_INODE_LOAD 2UL
#define CCACHE_INODE_GROWTH_BITS 2
#define CCACHE_INODE_MAX_BITS 22

struct ccache_inode_table {
	struct hlist_head *heads;
	unsigned int bits;
};

static struct ccache_inode_table ccache_inodes;	/* where records go */
static struct ccache_inode_table ccache_inodes_old;	/* moving out, or none */
static unsigned long ccache_inodes_moved;	/* its buckets below are empty */
/* records (ccache_stats.inodes) above which the table grows */
static unsigned long ccache_inodes_grow_at;
static void ccache_inodes_grow_work(struct work_struct *work);
static DECLARE_WORK(ccache_inodes_grower, ccache_inodes_grow_work);

/*
 * Records that lost their place to a new generation of their inode
 * (ccache_inode_regenerate()), with the entries they still hold: off the
 * hash, where no lookup finds them, and on this list through ->hash, so
 * that ccache_inode_tidy() unlinks one as it unlinks any record once its
 * last entry goes.  The zombie worker erases them one struct ccache_hold
 * at a time, and so does every walk of all records
 * (ccache_drop_walk()).  Under ccache_lock.
 */
static HLIST_HEAD(ccache_zombies);
static void ccache_zombie_work(struct work_struct *work);
static DECLARE_WORK(ccache_zombie_worker, ccache_zombie_work);

/*
 * Drops of many files in progress (ccache_drop_matching()); under
 * ccache_lock.  While there is one, nothing is captured or served
 * (ccache_store_dropping()): a drop that stands in for a lost invalidation
 * must not let a reader at an entry it has not reached yet, and no capture
 * may add one behind it.
 */
static unsigned int ccache_dropping;
/*
 * The record found last, or NULL; under ccache_lock.  Reclaim evicts a
 * file's pages in runs, so the capture probe mostly asks for it again.
 */
static struct ccache_inode *ccache_inode_last;

static struct kmem_cache *ccache_entry_cache;
static_assert(sizeof(struct ccache_entry) <= 64);
/* ->order is 4 bits */
static_assert(ilog2(CCACHE_MAX_FOLIO_PAGES) < 16);
static struct kmem_cache *ccache_inode_cache;

/*
 * Entries whose last reference is gone.  They are freed in a worker:
 * the last reference may be dropped with interrupts off under the page
 * cache's locks, where zsmalloc must not be called.
 */
static LLIST_HEAD(ccache_graveyard);
static void ccache_graveyard_work(struct work_struct *work);
static DECLARE_WORK(ccache_graveyard_worker, ccache_graveyard_work);

/*
 * Entries and file records kept ready for the capture probe, each kind in
 * a stack under ccache_lock.  A slab allocation in the probe (GFP_NOWAIT,
 * interrupts off) is costly beside copying the page there
 * (Documentation/design.rst), and it fails whenever free memory is below
 * the watermark, which is when reclaim runs the probe: then the page is
 * not kept.  The probe holds ccache_lock anyway, so taking an object from
 * a reserve is a pop.  The publish worker tops the reserves up in process
 * context (ccache_reserves_fill()), and freed objects go back to them; the
 * probe falls back to the slab when one is empty.
 *
 * Each capture takes a staging buffer and an entry, so the entries'
 * reserve is as deep as the staging buffers are many: a burst of reclaim
 * runs out of buffers before it runs out of entries.  A record serves all
 * of a file's pages; 256 of them cover the files a burst meets.
 * Reserved entries count in the "entries" statistic (memory ccache
 * holds); reserved records count nowhere until they are used ("inodes").
 */
struct ccache_reserve {
	struct kmem_cache *cache;
	atomic_long_t *held;	/* counts each object from the slab, or NULL */
	void **objs;		/* a stack of len objects */
	unsigned int len;
	unsigned int max;
};

#define CCACHE_INODE_RESERVE 256U
static void *ccache_inode_spares[CCACHE_INODE_RESERVE];
static struct ccache_reserve ccache_entry_reserve = {
	.held = &ccache_stats.entries,
};

static struct ccache_reserve ccache_inode_reserve = {
	.objs = ccache_inode_spares,
	.max = CCACHE_INODE_RESERVE,
};

/*
 * Staging buffers: preallocated pages the capture probe copies evicted
 * pages into, since it may not allocate more than GFP_NOWAIT.  A stack
 * under ccache_lock; when it is empty, captures are skipped and counted.
 * They absorb bursts of reclaim while the compression worker catches up:
 * 1/32 of RAM, at least 256 and at most 16384 pages.
 */
#define CCACHE_STAGING_MIN 256UL
#define CCACHE_STAGING_MAX 16384UL
static struct ccache_stage *ccache_stages;	/* all of them */
static struct ccache_stage **ccache_staging;	/* the free ones, a stack */
static unsigned int ccache_staging_free, ccache_staging_total;

/*
 * An object of @r's kind: from @r, or from the slab with GFP_NOWAIT.
 * Context: ccache_lock held.  Return: NULL when neither has one.
 */
static void *ccache_reserve_get(struct ccache_reserve *r)
{
	void *obj;

	lockdep_assert_held(&ccache_lock);
	if (r->len)
		return r->objs[--r->len];
	obj = kmem_cache_alloc(r->cache, GFP_NOWAIT | __GFP_NOWARN |
			       __GFP_NOMEMALLOC);
	if (obj && r->held)
		atomic_long_inc(r->held);
	return obj;
}

/*
 * Keep @obj, of @r's kind, in @r if it has room.  Context: ccache_lock
 * held.  Return: false when it had none (ccache_reserve_free() it).
 */
static bool ccache_reserve_keep(struct ccache_reserve *r, void *obj)
{
	lockdep_assert_held(&ccache_lock);
	if (r->len == r->max)
		return false;
	r->objs[r->len++] = obj;
	return true;
}

/* Give @obj, of @r's kind, back to the slab. */
static void ccache_reserve_free(struct ccache_reserve *r, void *obj)
{
	kmem_cache_free(r->cache, obj);
	if (r->held)
		atomic_long_dec(r->held);
}

/*
 * Top @r up, a batch under each hold of ccache_lock.  It runs while
 * reclaim is busy, so it takes only memory that is free (GFP_NOWAIT) and
 * stops at the first failure: direct reclaim here would stall the publish
 * worker and, through it, module unload.  Context: process context, no
 * ccache_lock.
 */
static void ccache_reserve_fill(struct ccache_reserve *r)
{
	void *batch[32];
	unsigned int want, n, i;
	unsigned long flags;

	do {
		want = min_t(unsigned int, r->max - READ_ONCE(r->len),
			     ARRAY_SIZE(batch));
		for (n = 0; n < want; n++) {
			batch[n] = kmem_cache_alloc(r->cache, GFP_NOWAIT |
						    __GFP_NOWARN);
			if (!batch[n])
				break;
			if (r->held)
				atomic_long_inc(r->held);
		}
		spin_lock_irqsave(&ccache_lock, flags);
		for (i = 0; i < n && ccache_reserve_keep(r, batch[i]); i++)
			;
		spin_unlock_irqrestore(&ccache_lock, flags);
		while (i < n)	/* freed objects filled it meanwhile */
			ccache_reserve_free(r, batch[i++]);
	} while (want && n == want);
}

/* Free what @r holds.  Context: no capture can run any more. */
static void ccache_reserve_empty(struct ccache_reserve *r)
{
	while (r->len)
		ccache_reserve_free(r, r->objs[--r->len]);
}

static u32 ccache_inode_hash(const struct ccache_key *key)
{
	return hash_ptr(key->sb, 32) ^ hash_long(key->ino, 32);
}

/* The bucket of @key's record in @t. */
static struct hlist_head *ccache_inode_bucket(const struct ccache_inode_table *t,
					      const struct ccache_key *key)
{
	return &t->heads[hash_32(ccache_inode_hash(key), t->bits)];
}

static u32 ccache_key_hash(const struct ccache_key *key)
{
	return ccache_inode_hash(key) ^ key->generation;
}

/**
 * ccache_page_tag() - a hash of one page of one file, never 0
 * @key: the file
 * @index: the page's index in it
 *
 * Return: 32 bits that tell pages apart with high probability (pool.c
 * remembers refused pages by them; a collision only costs a cache slot).
 */
u32 ccache_page_tag(const struct ccache_key *key, pgoff_t index)
{
	return hash_32(ccache_key_hash(key) ^ hash_long(index, 32), 32) | 1;
}

static bool ccache_same_inode(const struct ccache_key *a,
			      const struct ccache_key *b)
{
	return a->sb == b->sb && a->ino == b->ino;
}

/**
 * ccache_key_of() - the store's key for a file
 * @inode: the file's inode
 * @key: filled in
 */
void ccache_key_of(struct inode *inode, struct ccache_key *key)
{
	key->sb = inode->i_sb;
	key->ino = inode->i_ino;
	/* a block device's: its disk's, which a new disk or medium changes */
	key->generation = ccache_inode_is_bdev(inode) ?
			  (u32)I_BDEV(inode)->bd_disk->diskseq :
			  inode->i_generation;
}

/*
 * A new record for @key, counted but in no list: from the reserve, or
 * allocated with GFP_NOWAIT (fault site "inode").  Return: the record, or
 * NULL when none could be had.
 */
static struct ccache_inode *ccache_inode_new(const struct ccache_key *key)
{
	struct ccache_inode *ci;

	ci = ccache_fault(CCACHE_FAULT_INODE) ? NULL :
	     ccache_reserve_get(&ccache_inode_reserve);
	if (!ci)
		return NULL;
	*ci = (struct ccache_inode) { .key = *key };
	xa_init(&ci->entries);
	ccache_stat_inc(inodes);
	return ci;
}

/*
 * @ci was last used under another generation: a past file of that inode
 * number, or this file before its generation changed (a block device's:
 * a new disk or medium).  Its pages may differ from this file's.  A new
 * record for @key takes its place in the hash and its state (poison,
 * invalidations in flight, a bumped epoch), and @ci goes to
 * ccache_zombies with its entries, where no lookup finds them: erasing a
 * large file's here, in one hold of ccache_lock, would keep interrupts
 * off for as long as that takes.  @ci's epoch moves too, so that its
 * pending entries are dropped when compressed.  Without a record to
 * spare, or with nothing to erase, @ci is emptied here and becomes
 * @key's.  Return: the record for @key.
 */
static struct ccache_inode *ccache_inode_regenerate(struct ccache_inode *ci,
						    const struct ccache_key *key)
{
	struct ccache_inode *fresh = NULL;
	unsigned long n = ci->nr_entries;

	if (n)
		fresh = ccache_inode_new(key);
	trace_ccache_invalidate(&ci->key, 0, ULONG_MAX, n);
	ccache_stat_add(invalidations, n);
	if (!fresh) {
		ccache_erase_range(ci, 0, ULONG_MAX);
		ci->key.generation = key->generation;
		ci->epoch++;
		return ci;
	}
	fresh->epoch = ci->epoch + 1;
	fresh->invalidating = ci->invalidating;
	fresh->poisoned = ci->poisoned;
	hlist_add_before(&fresh->hash, &ci->hash);
	hlist_del(&ci->hash);
	ci->epoch++;
	ci->invalidating = 0;
	ci->poisoned = false;
	hlist_add_head(&ci->hash, &ccache_zombies);
	schedule_work(&ccache_zombie_worker);
	return fresh;
}

/* @key's record in @t, or NULL.  Context: ccache_lock held. */
static struct ccache_inode *ccache_inode_find(const struct ccache_inode_table *t,
					      const struct ccache_key *key)
{
	struct ccache_inode *ci;

	hlist_for_each_entry(ci, ccache_inode_bucket(t, key), hash)
		if (ccache_same_inode(&ci->key, key))
			return ci;
	return NULL;
}

/**
 * ccache_inode_lookup() - find a file's record
 * @key: the file
 *
 * A record of the same inode number under another generation gives its
 * place to a new one for @key, and its entries are erased without ever
 * being served (ccache_inode_regenerate(); store.h, "Coherence").
 *
 * Context: ccache_lock held.
 * Return: the record, or NULL.
 */
struct ccache_inode *ccache_inode_lookup(const struct ccache_key *key)
{
	struct ccache_inode *ci = ccache_inode_last;

	lockdep_assert_held(&ccache_lock);
	if (!ci || !ccache_same_inode(&ci->key, key)) {
		ci = ccache_inode_find(&ccache_inodes, key);
		if (!ci && ccache_inodes_old.heads)
			ci = ccache_inode_find(&ccache_inodes_old, key);
		if (!ci)
			return NULL;
		ccache_inode_last = ci;
	}
	if (unlikely(ci->key.generation != key->generation)) {
		ci = ccache_inode_regenerate(ci, key);
		ccache_inode_last = ci;
	}
	return ci;
}

/**
 * ccache_inode_get_or_create() - find or make a file's record
 * @key: the file
 *
 * Context: ccache_lock held; takes a record from the reserve, or
 * allocates one with GFP_NOWAIT.
 * Return: the record, or NULL when it could not be allocated.
 */
struct ccache_inode *ccache_inode_get_or_create(const struct ccache_key *key)
{
	struct ccache_inode *ci = ccache_inode_lookup(key);

	if (ci)
		return ci;
	ci = ccache_inode_new(key);
	if (!ci)
		return NULL;
	hlist_add_head(&ci->hash, ccache_inode_bucket(&ccache_inodes, key));
	if (unlikely(ccache_stat_read(inodes) > ccache_inodes_grow_at))
		schedule_work(&ccache_inodes_grower);
	return ci;
}

/* The records above which a table of 2^@bits buckets grows. */
static unsigned long ccache_inodes_limit(unsigned int bits)
{
	return bits < CCACHE_INODE_MAX_BITS ? CCACHE_INODE_LOAD << bits :
	       ULONG_MAX;
}

/*
 * Move the old table's records into the new one from bucket
 * ccache_inodes_moved on, until @hold ends, CCACHE_INODE_MOVE_LOOK
 * buckets were looked at (records freed since it grew leave empty ones)
 * or the old table is empty.  Return: true when it is.  Context:
 * ccache_lock held, no drop walking.
 */
#define CCACHE_INODE_MOVE_LOOK 512
static bool ccache_inodes_move(struct ccache_hold *hold)
{
	unsigned int looked = 0;
	struct hlist_head *head;
	struct ccache_inode *ci;
	struct hlist_node *tmp;

	for (; ccache_inodes_moved < 1UL << ccache_inodes_old.bits;
	     ccache_inodes_moved++) {
		if (looked++ == CCACHE_INODE_MOVE_LOOK)
			return false;
		head = &ccache_inodes_old.heads[ccache_inodes_moved];
		hlist_for_each_entry_safe(ci, tmp, head, hash) {
			hlist_del(&ci->hash);
			hlist_add_head(&ci->hash,
				       ccache_inode_bucket(&ccache_inodes,
							   &ci->key));
			if (ccache_hold_step(hold))
				return false;	/* @head may have more */
		}
	}
	return true;
}

/*
 * Take ccache_lock once no drop walks the records (ccache_dropping).
 * Context: process context.  Return: the flags spin_lock_irqsave() saved.
 */
static unsigned long ccache_lock_undropping(void)
	__acquires(&ccache_lock)
{
	unsigned long flags;

	for (;;) {
		spin_lock_irqsave(&ccache_lock, flags);
		if (!ccache_dropping)
			return flags;
		spin_unlock_irqrestore(&ccache_lock, flags);
		msleep(20);
	}
}

/*
 * Grow the record table (see ccache_inodes): allocate the larger one
 * outside ccache_lock, put it in place, then move the old one's chains,
 * one hold at a time, and free it.  An allocation that fails is tried
 * again once the records have doubled.
 */
static void ccache_inodes_grow_work(struct work_struct *work)
{
	unsigned int bits = min(ccache_inodes.bits + CCACHE_INODE_GROWTH_BITS,
				CCACHE_INODE_MAX_BITS);
	struct hlist_head *heads, *old;
	struct ccache_hold hold;
	unsigned long flags;
	bool done;

	if (ccache_stat_read(inodes) <= READ_ONCE(ccache_inodes_grow_at))
		return;
	heads = kvcalloc(1UL << bits, sizeof(*heads),
			 GFP_KERNEL | __GFP_NOWARN);
	flags = ccache_lock_undropping();
	if (!heads) {
		ccache_inodes_grow_at = 2 * ccache_stat_read(inodes);
		spin_unlock_irqrestore(&ccache_lock, flags);
		return;
	}
	ccache_inodes_old = ccache_inodes;
	ccache_inodes = (struct ccache_inode_table){ heads, bits };
	ccache_inodes_moved = 0;
	ccache_inodes_grow_at = ccache_inodes_limit(bits);
	spin_unlock_irqrestore(&ccache_lock, flags);
	trace_ccache_inodes_grow(1UL << bits, ccache_stat_read(inodes));
	do {
		ccache_hold_begin(&hold);
		flags = ccache_lock_undropping();
		done = ccache_inodes_move(&hold);
		old = ccache_inodes_old.heads;
		if (done)
			ccache_inodes_old.heads = NULL;
		spin_unlock_irqrestore(&ccache_lock, flags);
		cond_resched();
	} while (!done);
	kvfree(old);
}

/**
 * ccache_inode_buckets() - Return: the buckets of the record table.
 */
unsigned long ccache_inode_buckets(void)
{
	return 1UL << READ_ONCE(ccache_inodes.bits);
}

/**
 * ccache_inode_tidy() - free a record that holds nothing worth remembering
 * @ci: the record; it must not be used after this call
 *
 * Context: ccache_lock held.
 */
void ccache_inode_tidy(struct ccache_inode *ci)
{
	if (ci->nr_entries || ci->invalidating || ci->poisoned)
		return;
	if (ccache_inode_last == ci)
		ccache_inode_last = NULL;
	hlist_del(&ci->hash);
	xa_destroy(&ci->entries);
	if (!ccache_reserve_keep(&ccache_inode_reserve, ci))
		ccache_reserve_free(&ccache_inode_reserve, ci);
	ccache_stat_dec(inodes);
}

static void ccache_entry_release(struct kref *ref)
{
	struct ccache_entry *e = container_of(ref, struct ccache_entry, ref);

	if (llist_add(&e->free, &ccache_graveyard))
		schedule_work(&ccache_graveyard_worker);
}

/**
 * ccache_entry_put() - drop a reference to an entry
 * @e: the entry
 *
 * Any context.  The last reference frees the entry from a worker.
 */
void ccache_entry_put(struct ccache_entry *e)
{
	kref_put(&e->ref, ccache_entry_release);
}

/* Give @list's entries to the reserve while it has room; free the rest. */
static void ccache_entry_reserve_put(struct list_head *list)
{
	struct ccache_entry *e, *tmp;
	unsigned long flags;

	spin_lock_irqsave(&ccache_lock, flags);
	list_for_each_entry_safe(e, tmp, list, list) {
		if (!ccache_reserve_keep(&ccache_entry_reserve, e))
			break;
		list_del(&e->list);
	}
	spin_unlock_irqrestore(&ccache_lock, flags);
	list_for_each_entry_safe(e, tmp, list, list)
		ccache_reserve_free(&ccache_entry_reserve, e);
}

/*
 * The end of an entry's life, and the only place where what an entry holds
 * is released: its staging buffer (it died pending) or its pool object
 * (compressed), then the entry itself, back to the reserve or to the slab
 * (the "entries" statistic goes down there).  @dead: entries whose last
 * reference is gone, linked by their free field; one batch, so that the
 * reserve takes them under one hold of ccache_lock.
 *
 * Context: process context, no ccache_lock (zsmalloc).
 */
static void ccache_entry_free(struct llist_node *dead)
{
	struct ccache_entry *e, *next;
	unsigned long n = 0;
	LIST_HEAD(freed);

	llist_for_each_entry_safe(e, next, dead, free) {
		if (e->state == CCACHE_PENDING)
			ccache_staging_put(e->stage);
		else if (e->state == CCACHE_COMPRESSED)
			ccache_pool_free(e->handle, e->length);
		list_add(&e->list, &freed);
		/* a drop of the whole store can leave millions here */
		if (++n % CCACHE_LOCK_BATCH == 0) {
			ccache_entry_reserve_put(&freed);
			INIT_LIST_HEAD(&freed);
			cond_resched();
		}
	}
	ccache_entry_reserve_put(&freed);
}

/**
 * ccache_graveyard_drain() - free the entries whose last reference is gone
 *
 * Called by the graveyard worker, and directly by whoever evicts entries
 * to free memory now.
 *
 * Context: process context, no ccache_lock.
 */
void ccache_graveyard_drain(void)
{
	ccache_entry_free(llist_del_all(&ccache_graveyard));
}

/**
 * ccache_reserves_fill() - top up the entries and file records kept for
 * the probe, with memory that is free now
 *
 * Context: process context, no ccache_lock.
 */
void ccache_reserves_fill(void)
{
	ccache_reserve_fill(&ccache_entry_reserve);
	ccache_reserve_fill(&ccache_inode_reserve);
}

static void ccache_graveyard_work(struct work_struct *work)
{
	ccache_graveyard_drain();
}

/**
 * ccache_entry_alloc() - a new pending entry holding a staging buffer
 * @stage: the raw copy of the page
 * @memcg: the id of its cgroup's record (ccache_memcg_get()), or 0
 *
 * Takes an entry from the reserve, or allocates one with GFP_NOWAIT.
 *
 * Context: ccache_lock held.
 * Return: the entry with one reference, or NULL.
 */
struct ccache_entry *ccache_entry_alloc(struct ccache_stage *stage, u16 memcg)
{
	struct ccache_entry *e;

	lockdep_assert_held(&ccache_lock);
	if (ccache_fault(CCACHE_FAULT_ENTRY))
		return NULL;
	e = ccache_reserve_get(&ccache_entry_reserve);
	if (!e)
		return NULL;
	memset(e, 0, sizeof(*e));
	kref_init(&e->ref);
	INIT_LIST_HEAD(&e->list);
	e->state = CCACHE_PENDING;
	e->stage = stage;
	e->memcg = memcg;
	e->gen = ccache_sizing_gen();
	return e;
}

/*
 * What an entry takes from its cgroup's share (memcg.c): a pending one
 * counts as a whole page, the most it can take once stored, so that
 * captures in flight cannot carry a share past its bound.
 */
static long ccache_entry_bytes(const struct ccache_entry *e)
{
	return (e->state == CCACHE_PENDING ? PAGE_SIZE : e->length) +
	       sizeof(*e);
}

/*
 * The only way out of the store: @e's slot in its file's index no longer
 * points to it (erased, or replaced by a newer capture).  Takes it off the
 * LRU, undoes what ccache_entry_publish() counted, and drops the store's
 * reference, or with @held moves it there (by ->free, free once off the
 * LRU) for ccache_entries_put() after ccache_lock is dropped: the last
 * put wakes the graveyard worker, which a bulk erase need not do with
 * interrupts off (Documentation/design.rst has the measurement).
 *
 * Context: ccache_lock held.
 */
static void ccache_unlink_entry(struct ccache_entry *e,
				struct llist_head *held)
{
	struct ccache_inode *ci = e->ci;

	lockdep_assert_held(&ccache_lock);
	list_del_init(&e->list);
	if (e->kept)
		ccache_stat_dec(kept_pages);
	if (e->state != CCACHE_PENDING) {
		ccache_stat_dec(stored_pages);
		ccache_stat_sub(compressed_bytes, e->length);
		if (e->state == CCACHE_SAME_FILLED)
			ccache_stat_dec(same_filled_pages);
	}
	ccache_memcg_count(e->memcg, -ccache_entry_bytes(e));
	ccache_memcg_put(e->memcg);
	e->ci = NULL;
	ci->nr_entries--;
	if (held)
		llist_add(&e->free, held);
	else
		ccache_entry_put(e);
}

/* Drop the store's references that ccache_unlink_entry() held on @first. */
static void ccache_entries_put(struct llist_node *first)
{
	struct ccache_entry *e, *next;

	llist_for_each_entry_safe(e, next, first, free)
		ccache_entry_put(e);
}

/**
 * ccache_entry_insert() - put a new pending entry in its file's index
 * @ci: the file's record
 * @e: from ccache_entry_alloc(); its reference becomes the store's
 * @index: the page's index in the file
 *
 * An older entry at @index is unlinked: a page's newer copy always
 * replaces an older one.  On failure @e is freed, with its staging buffer.
 *
 * Context: ccache_lock held.
 * Return: true when @e is in the store.
 */
bool ccache_entry_insert(struct ccache_inode *ci, struct ccache_entry *e,
			 pgoff_t index)
{
	struct ccache_entry *old;

	lockdep_assert_held(&ccache_lock);
	e->ci = ci;
	e->index = index;
	e->epoch = ci->epoch;
	/* one walk of the index stores the new entry and finds an old one */
	old = xa_store(&ci->entries, index, e,
		       GFP_NOWAIT | __GFP_NOWARN | __GFP_NOMEMALLOC);
	if (xa_is_err(old)) {
		e->ci = NULL;
		ccache_entry_put(e);
		return false;
	}
	/* before @old's could free the record */
	ccache_memcg_hold(e->memcg);
	ccache_memcg_count(e->memcg, ccache_entry_bytes(e));
	if (old)
		ccache_unlink_entry(old, NULL);
	ci->nr_entries++;
	return true;
}

/**
 * ccache_entry_publish() - make a pending entry's compressed form visible
 * @e: a pending entry, on which the caller holds a reference
 * @state: CCACHE_COMPRESSED or CCACHE_SAME_FILLED
 * @value: the pool handle, or the word the page repeats
 * @len: the compressed length (0 for a same-filled page)
 * @alg: the compressor's id
 *
 * The entry is published only if the file did not change since the
 * capture: @e must still be in its slot (an erased entry has no ci), the
 * epoch unchanged, and no invalidation in flight.  Otherwise it is erased,
 * and the pool object @value goes with it.  Either way the staging buffer
 * is given back and @e holds @value from now on: ccache_entry_free()
 * releases it.  The only place where an entry joins the LRU and the
 * stored statistics go up.
 *
 * Context: process context; takes ccache_lock.
 */
void ccache_entry_publish(struct ccache_entry *e, u8 state,
			  unsigned long value, unsigned int len, u8 alg)
{
	struct ccache_stage *stage;
	struct ccache_inode *ci;
	unsigned long flags;
	bool stored;

	spin_lock_irqsave(&ccache_lock, flags);
	ci = e->ci;
	stored = ci && e->epoch == ci->epoch && !ci->poisoned &&
		 !ci->invalidating;
	if (ci && !stored) {
		/* while pending: nothing of it was counted as stored */
		ccache_erase_entry(e);
		ccache_inode_tidy(ci);
	}
	stage = e->stage;
	if (stored)	/* from a whole page to what it takes */
		ccache_memcg_count(e->memcg, -ccache_entry_bytes(e));
	e->state = state;
	e->value = value;	/* or the handle: same word */
	e->length = len;
	e->alg = alg;
	if (stored) {
		list_add_tail(&e->list, &ccache_lru);
		ccache_stat_inc(stored_pages);
		ccache_stat_add(compressed_bytes, len);
		if (state == CCACHE_SAME_FILLED)
			ccache_stat_inc(same_filled_pages);
		ccache_memcg_count(e->memcg, ccache_entry_bytes(e));
		trace_ccache_store(&ci->key, e->index, len);
	}
	spin_unlock_irqrestore(&ccache_lock, flags);
	ccache_staging_put(stage);
}

/**
 * ccache_entry_keep() - keep a served entry while its page is cached
 * @e: a published entry, neither kept nor verifying, just served
 *
 * Context: ccache_lock held.
 */
void ccache_entry_keep(struct ccache_entry *e)
{
	lockdep_assert_held(&ccache_lock);
	e->kept = 1;
	list_move_tail(&e->list, &ccache_kept);
	ccache_stat_inc(kept_pages);
}

/**
 * ccache_kept_verify() - a kept entry's page is being evicted again
 * @e: the kept entry
 * @referenced: the LRU chances a new capture of the page would get
 *
 * It joins the LRU's young end as a new entry would, but no reader
 * serves it until the publish worker finds it holds the page's bytes
 * (ccache_publish_verify() in capture.c).
 *
 * Context: ccache_lock held (the capture probe).
 */
void ccache_kept_verify(struct ccache_entry *e, u8 referenced)
{
	lockdep_assert_held(&ccache_lock);
	e->kept = 0;
	e->verifying = 1;
	e->referenced = referenced;
	e->gen = ccache_sizing_gen();
	list_move_tail(&e->list, &ccache_lru);
	ccache_stat_dec(kept_pages);
}

/**
 * ccache_kept_drop() - erase an entry kept for a read that failed
 * @e: the entry, on which the caller holds a reference
 *
 * Context: takes ccache_lock.
 */
void ccache_kept_drop(struct ccache_entry *e)
{
	struct ccache_inode *ci;
	unsigned long flags;

	spin_lock_irqsave(&ccache_lock, flags);
	ci = e->ci;
	if (ci && e->kept) {
		ccache_erase_entry(e);
		ccache_inode_tidy(ci);
	}
	spin_unlock_irqrestore(&ccache_lock, flags);
}

/*
 * Take @e out of its file's index and unlink it, its reference to @held
 * unless it is NULL (ccache_unlink_entry()).  Context: ccache_lock held.
 */
static void ccache_erase_held(struct ccache_entry *e, struct llist_head *held)
{
	lockdep_assert_held(&ccache_lock);
	xa_erase(&e->ci->entries, e->index);
	ccache_unlink_entry(e, held);
}

/**
 * ccache_erase_entry() - take an entry out of the store
 * @e: an entry still in the store (e->ci set)
 *
 * Removes @e from its file's index and from the LRU, and drops the
 * store's reference.  The file's record stays; callers end with
 * ccache_inode_tidy().
 *
 * Context: ccache_lock held.
 */
void ccache_erase_entry(struct ccache_entry *e)
{
	ccache_erase_held(e, NULL);
}

/*
 * The indices of the folio @e was captured from, @first to @last: the
 * page cache aligns a folio's index to its size.
 */
static void ccache_folio_span(const struct ccache_entry *e, pgoff_t *first,
			      pgoff_t *last)
{
	*first = round_down(e->index, 1UL << e->order);
	*last = *first + (1UL << e->order) - 1;
}

/**
 * ccache_erase_folio() - erase an entry and the rest of its folio
 * @e: an entry still in the store
 * @gone: called for each entry just before it is erased, @e included
 * @arg: passed to @gone
 *
 * The kernel reads a large folio from the disk whole unless every one of
 * its pages is stored (serve.c), so the other pages of a folio that lost
 * one are dead weight.  The pages captured from one folio are let go as
 * one: @e and every entry at the indices of its folio
 * (ccache_folio_span()) captured from a folio of the same order.  At
 * most CCACHE_MAX_FOLIO_PAGES entries.
 *
 * Context: ccache_lock held.
 * Return: how many entries were erased.
 */
unsigned int ccache_erase_folio(struct ccache_entry *e,
				void (*gone)(struct ccache_entry *e,
					     unsigned long arg),
				unsigned long arg)
{
	struct ccache_inode *ci = e->ci;
	unsigned int order = e->order, n = 1;
	pgoff_t first, last, index;
	struct ccache_entry *s;

	lockdep_assert_held(&ccache_lock);
	ccache_folio_span(e, &first, &last);
	gone(e, arg);
	ccache_erase_entry(e);
	if (!order)
		return n;
	xa_for_each_range(&ci->entries, index, s, first, last) {
		if (s->order != order)
			continue;
		gone(s, arg);
		ccache_erase_entry(s);
		n++;
	}
	return n;
}

/**
 * ccache_folio_follows() - the pool admitted @e: the other pages of its
 * folio follow it in
 * @e: a pending entry, captured from a large folio
 *
 * Marks the other pending entries captured from @e's folio (as
 * ccache_erase_folio() finds them) with ->follows: the pool decided for
 * the whole folio when it admitted @e (lru.c, ccache_pool_admit()).
 *
 * Context: the publish worker; takes ccache_lock.
 */
void ccache_folio_follows(struct ccache_entry *e)
{
	pgoff_t first, last, index;
	struct ccache_entry *s;
	unsigned long flags;

	ccache_folio_span(e, &first, &last);
	spin_lock_irqsave(&ccache_lock, flags);
	/* erased meanwhile: its folio went with it */
	if (e->ci)
		xa_for_each_range(&e->ci->entries, index, s, first, last)
			if (s->order == e->order && s->state == CCACHE_PENDING)
				s->follows = 1;
	spin_unlock_irqrestore(&ccache_lock, flags);
}

/*
 * Erase @ci's entries in @first..@last, until @hold ends if it is not NULL,
 * their references to @held (ccache_unlink_entry()) unless it is NULL.
 * Return: how many.
 */
static unsigned long ccache_erase_some(struct ccache_inode *ci, pgoff_t first,
				       pgoff_t last, struct ccache_hold *hold,
				       struct llist_head *held)
{
	struct ccache_entry *e;
	unsigned long index, n = 0;

	xa_for_each_range(&ci->entries, index, e, first, last) {
		ccache_erase_held(e, held);
		n++;
		if (hold && ccache_hold_step(hold))
			break;
	}
	return n;
}

/**
 * ccache_erase_range() - erase a file's entries for pages @first to @last
 * @ci: the file's record
 * @first: first page index
 * @last: last page index, inclusive
 *
 * Context: ccache_lock held.
 * Return: how many entries were erased.
 */
unsigned long ccache_erase_range(struct ccache_inode *ci, pgoff_t first,
				 pgoff_t last)
{
	struct ccache_entry *e;

	lockdep_assert_held(&ccache_lock);
	if (first == last) {		/* one page: one lookup, not a walk */
		e = xa_load(&ci->entries, first);
		if (e)
			ccache_erase_entry(e);
		return !!e;
	}
	return ccache_erase_some(ci, first, last, NULL, NULL);
}

/*
 * Forget @ci's state: only once the inode is gone (eviction, unmount,
 * unload).  While it lives a direct-I/O write or an invalidation may be in
 * flight, and a page read and evicted meanwhile holds the old data: the
 * poison and the in-flight mark are what keep it out (drop_caches must
 * not lift them).  Context: ccache_lock held.
 */
static void ccache_inode_forget(struct ccache_inode *ci)
{
	ci->poisoned = false;
	ci->invalidating = 0;
}

/*
 * ccache_erase_file(), rescheduling between batches if @resched (the
 * caller may sleep).
 */
static unsigned long __ccache_erase_file(const struct ccache_key *key,
					 pgoff_t first, pgoff_t last,
					 bool resched)
{
	struct ccache_inode *ci;
	struct ccache_hold hold;
	unsigned long flags, total = 0;
	LLIST_HEAD(held);

	do {
		ccache_hold_begin(&hold);
		spin_lock_irqsave(&ccache_lock, flags);
		ci = ccache_inode_lookup(key);
		if (ci)
			total += ccache_erase_some(ci, first, last, &hold,
						   &held);
		spin_unlock_irqrestore(&ccache_lock, flags);
		ccache_entries_put(llist_del_all(&held));
		if (resched)
			cond_resched();
	} while (hold.ended);
	return total;
}

/**
 * ccache_erase_file() - erase a file's entries for pages @first to @last
 * @key: the file
 * @first: first page index
 * @last: last page index, inclusive
 *
 * One struct ccache_hold at a time, looking the record up again for each
 * (it may go in between).  The caller keeps the file's pages from being
 * captured or served meanwhile (an invalidation in flight, an inode on its
 * way out, a block device's marks erased first).
 *
 * Context: any; takes ccache_lock.
 * Return: how many were erased.
 */
unsigned long ccache_erase_file(const struct ccache_key *key,
				pgoff_t first, pgoff_t last)
{
	return __ccache_erase_file(key, first, last, false);
}

/**
 * ccache_invalidate_begin() - the file is about to change in @first..@last
 * @key: the file
 * @first: first page index
 * @last: last page index, inclusive
 * @poison: never cache this file again (direct I/O write)
 *
 * Bumps the epoch, marks an invalidation in flight (captures and hits of
 * the file stop until ccache_invalidate_end()) and erases the range.  If
 * the record cannot be allocated, everything is dropped instead.
 *
 * Context: any; takes ccache_lock.
 */
void ccache_invalidate_begin(const struct ccache_key *key, pgoff_t first,
			     pgoff_t last, bool poison)
{
	struct ccache_inode *ci;
	unsigned long flags, n;

	spin_lock_irqsave(&ccache_lock, flags);
	ci = ccache_inode_get_or_create(key);
	if (ci) {
		ci->epoch++;
		ci->invalidating++;
		ci->poisoned |= poison;
	}
	spin_unlock_irqrestore(&ccache_lock, flags);
	if (!ci) {
		pr_warn_ratelimited("no memory to track an invalidation: dropping all entries\n");
		ccache_drop_all();
		return;
	}
	/* the mark keeps the file out of capture and serve from here on */
	n = ccache_erase_file(key, first, last);
	ccache_stat_add(invalidations, n);
	trace_ccache_invalidate(key, first, last, n);
}

/**
 * ccache_invalidate_end() - the change announced by ccache_invalidate_begin() is done
 * @key: the file
 * @first: first page index
 * @last: last page index, inclusive
 *
 * Bumps the epoch, erases the range again (pages evicted while the change
 * ran may have been captured) and then ends the in-flight mark.
 *
 * Context: any; takes ccache_lock.
 */
void ccache_invalidate_end(const struct ccache_key *key, pgoff_t first,
			   pgoff_t last)
{
	struct ccache_inode *ci;
	unsigned long flags, n;

	spin_lock_irqsave(&ccache_lock, flags);
	ci = ccache_inode_lookup(key);
	if (ci)
		ci->epoch++;
	spin_unlock_irqrestore(&ccache_lock, flags);
	if (!ci)
		return;
	n = ccache_erase_file(key, first, last);
	ccache_stat_add(invalidations, n);
	trace_ccache_invalidate(key, first, last, n);
	spin_lock_irqsave(&ccache_lock, flags);
	ci = ccache_inode_lookup(key);
	if (ci) {
		if (ci->invalidating)
			ci->invalidating--;
		ccache_inode_tidy(ci);
	}
	spin_unlock_irqrestore(&ccache_lock, flags);
}

/**
 * ccache_drop_inode() - forget everything about one file
 * @key: the file, whose inode is being evicted (no page of it is captured
 *	 any more: mapping_exiting())
 *
 * Context: any; takes ccache_lock.
 */
void ccache_drop_inode(const struct ccache_key *key)
{
	struct ccache_inode *ci;
	unsigned long flags;

	ccache_erase_file(key, 0, ULONG_MAX);
	spin_lock_irqsave(&ccache_lock, flags);
	ci = ccache_inode_lookup(key);
	if (ci) {
		ccache_inode_forget(ci);
		ccache_erase_range(ci, 0, ULONG_MAX);
		ccache_inode_tidy(ci);
	}
	spin_unlock_irqrestore(&ccache_lock, flags);
}

/**
 * ccache_store_dropping() - is a drop of many files in progress?
 *
 * Nothing is captured or served until it ends (see ccache_dropping).
 *
 * Context: ccache_lock held.
 */
bool ccache_store_dropping(void)
{
	lockdep_assert_held(&ccache_lock);
	return ccache_dropping;
}

/* Stop captures and hits until ccache_drop_release(): see ccache_dropping. */
static void ccache_drop_hold(void)
{
	unsigned long flags;

	spin_lock_irqsave(&ccache_lock, flags);
	ccache_dropping++;
	spin_unlock_irqrestore(&ccache_lock, flags);
}

static void ccache_drop_release(void)
{
	unsigned long flags;

	spin_lock_irqsave(&ccache_lock, flags);
	ccache_dropping--;
	spin_unlock_irqrestore(&ccache_lock, flags);
}

/* What ccache_drop_walk() does to each record it meets. */
#define CCACHE_DROP_ERASE	BIT(0)	/* erase its entries */
#define CCACHE_DROP_FORGET	BIT(1)	/* forget its state: the inode is gone */
#define CCACHE_DROP_RESCHED	BIT(2)	/* reschedule between batches */

/*
 * Do what @how says (CCACHE_DROP_*) to the records on @head of @sb, or of
 * every superblock when @sb is NULL, one struct ccache_hold of
 * ccache_lock at a time.  Return: how many entries were erased.
 */
static unsigned long ccache_drop_list(struct hlist_head *head,
				      struct super_block *sb, unsigned int how)
{
	unsigned long flags, erased = 0;
	struct ccache_inode *ci;
	struct ccache_hold hold;
	struct hlist_node *tmp;
	LLIST_HEAD(held);

	/* nothing to drop is added meanwhile: skip an empty one unlocked */
	if (hlist_empty(head))
		return 0;
	do {
		ccache_hold_begin(&hold);
		spin_lock_irqsave(&ccache_lock, flags);
		hlist_for_each_entry_safe(ci, tmp, head, hash) {
			if (sb && ci->key.sb != sb)
				continue;
			if (how & CCACHE_DROP_ERASE)
				erased += ccache_erase_some(ci, 0, ULONG_MAX,
							    &hold, &held);
			if (hold.ended)
				break;	/* @ci may have more */
			if (how & CCACHE_DROP_FORGET)
				ccache_inode_forget(ci);
			ccache_inode_tidy(ci);
		}
		spin_unlock_irqrestore(&ccache_lock, flags);
		ccache_entries_put(llist_del_all(&held));
		if (how & CCACHE_DROP_RESCHED)
			cond_resched();
	} while (hold.ended);
	return erased;
}

/*
 * Walk the records of one superblock, or of all when @sb is NULL, one hash
 * bucket at a time (ccache_drop_list()), doing what @how says (a forget
 * forgets the files' poison and invalidations in flight,
 * ccache_inode_forget()).  The caller holds a drop (ccache_drop_hold()):
 * nothing is captured or served until it releases it, so entries of
 * buckets not reached yet are never served and none is added behind the
 * walk.  A walk of all erases the zombies too, which nobody reaches.
 * Return: how many entries were erased.
 */
static unsigned long ccache_drop_walk(struct super_block *sb, unsigned int how)
{
	unsigned long erased = 0;
	unsigned int bkt;

	for (bkt = 0; bkt < 1U << ccache_inodes.bits; bkt++)
		erased += ccache_drop_list(&ccache_inodes.heads[bkt], sb, how);
	/* the move waits for the walk: what is left there stays there */
	for (bkt = 0; ccache_inodes_old.heads &&
	     bkt < 1U << ccache_inodes_old.bits; bkt++)
		erased += ccache_drop_list(&ccache_inodes_old.heads[bkt], sb,
					   how);
	if (!sb)
		erased += ccache_drop_list(&ccache_zombies, NULL, how);
	return erased;
}

/*
 * Erase the zombies (ccache_inode_regenerate()).  No drop is held: no
 * lookup finds their entries, and no capture adds to them.
 */
static void ccache_zombie_work(struct work_struct *work)
{
	ccache_drop_list(&ccache_zombies, NULL,
			 CCACHE_DROP_ERASE | CCACHE_DROP_RESCHED);
}

/*
 * Erase @sb's entries (NULL: all), doing what @how adds, and the file
 * @also unless it is NULL, end the drop the caller holds and trace it;
 * @dev: @sb's device (@sb may be gone by now), @forgot: the files' state
 * went too, here or before.
 */
static void ccache_drop_end(struct super_block *sb, dev_t dev,
			    unsigned int how, bool forgot,
			    const struct ccache_key *also)
{
	unsigned long erased, n;

	erased = ccache_drop_walk(sb, how | CCACHE_DROP_ERASE);
	if (also) {
		n = __ccache_erase_file(also, 0, ULONG_MAX,
					how & CCACHE_DROP_RESCHED);
		ccache_stat_add(invalidations, n);
		erased += n;
	}
	ccache_drop_release();
	trace_ccache_drop(dev, forgot, erased, how & CCACHE_DROP_RESCHED);
}

/* A drop of @sb (NULL: all) now, in the caller's context. */
static void ccache_drop_matching(struct super_block *sb, unsigned int how)
{
	ccache_drop_hold();
	ccache_drop_end(sb, sb ? sb->s_dev : 0, how, how & CCACHE_DROP_FORGET,
			NULL);
}

/*
 * Drops of a whole filesystem, handed to the task that asked for them
 * (ccache_drop_sb()).  The hooks of drop_caches and unmount run with
 * preemption off, where erasing a store of millions of entries would keep
 * the CPU for seconds.  The hook takes a drop (nothing is captured or
 * served from then on), and the task erases on its way back to user space
 * (task_work), rescheduling between batches: the write to drop_caches or
 * the umount(2) still returns with the filesystem emptied, and no task
 * sees one of its entries in between.  Unload waits for the pending ones
 * (ccache_store_exit()).
 *
 * An unmount's hook first forgets its files' state (poison, invalidations
 * in flight) itself, a walk of the records without erasing an entry: once
 * the superblock is freed, a new one may take its address and with it the
 * keys of the records, and a late walk could forget a new file's
 * invalidation in flight.  Erasing a new filesystem's entries is harmless.
 */
struct ccache_sb_drop {
	struct callback_head work;
	struct super_block *sb;	/* a key only: it may be freed by then */
	dev_t dev;		/* its device, for the trace */
	bool unmount;
	struct ccache_key also;	/* another file to erase; .sb NULL: none */
};

static atomic_t ccache_sb_drops_pending = ATOMIC_INIT(0);
static bool ccache_sb_drops_used;	/* one was handed on since the load */

static void ccache_sb_drop_work(struct callback_head *work)
{
	struct ccache_sb_drop *d = container_of(work, struct ccache_sb_drop,
						 work);

	ccache_drop_end(d->sb, d->dev, CCACHE_DROP_RESCHED, d->unmount,
			d->also.sb ? &d->also : NULL);
	kfree(d);
	atomic_dec(&ccache_sb_drops_pending);
}

/*
 * Hand the erase of @sb, and the end of the drop the caller holds, to the
 * current task.  Return: false when it cannot (a kernel thread or an
 * io_uring worker may not go back to user space for long; the task is
 * past its last task_work; no memory), for the caller to erase at once.
 */
static bool ccache_drop_sb_later(struct super_block *sb, bool unmount,
				 const struct ccache_key *also)
{
	struct ccache_sb_drop *d;

	if ((current->flags & (PF_KTHREAD | PF_IO_WORKER)) ||
	    ccache_fault(CCACHE_FAULT_DROP_LATER))
		return false;
	d = kmalloc(sizeof(*d), GFP_NOWAIT | __GFP_NOWARN);
	if (!d)
		return false;
	d->sb = sb;
	d->dev = sb->s_dev;
	d->unmount = unmount;
	d->also = also ? *also : (struct ccache_key) {};
	init_task_work(&d->work, ccache_sb_drop_work);
	atomic_inc(&ccache_sb_drops_pending);
	if (!task_work_add(current, &d->work, TWA_RESUME)) {
		WRITE_ONCE(ccache_sb_drops_used, true);
		return true;
	}
	atomic_dec(&ccache_sb_drops_pending);
	kfree(d);
	return false;
}

/**
 * ccache_drop_sb() - erase every entry of one filesystem
 * @sb: its superblock
 * @forget: it is being unmounted: forget its files' state too (their
 *	    inodes are gone); false for drop_caches
 * @also: another file to erase before the drop ends (an unmount's device's
 *	  own pages, ccache_bdev_unmounted()), or NULL
 *
 * The erase runs when the calling task returns to user space, with
 * reschedules, and nothing is captured or served until then (see struct
 * ccache_sb_drop); in a kernel thread, or without memory for the request,
 * at once without them.  The state is forgotten at once.
 *
 * Context: any (the hooks: no sleeping); takes ccache_lock.
 */
void ccache_drop_sb(struct super_block *sb, bool forget,
		    const struct ccache_key *also)
{
	ccache_drop_hold();
	if (forget)
		ccache_drop_walk(sb, CCACHE_DROP_FORGET);
	if (!ccache_drop_sb_later(sb, forget, also))
		ccache_drop_end(sb, sb->s_dev, 0, forget, also);
}

/**
 * ccache_drop_all() - erase every entry
 *
 * Files that are poisoned or have an invalidation in flight stay marked.
 *
 * Context: any; takes ccache_lock.
 */
void ccache_drop_all(void)
{
	ccache_drop_matching(NULL, 0);
}

/**
 * ccache_flush() - ccache_drop_all() for a caller that may sleep
 *
 * Context: process context; takes ccache_lock.
 */
void ccache_flush(void)
{
	ccache_drop_matching(NULL, CCACHE_DROP_RESCHED);
}

/**
 * ccache_staging_get() - take a free staging buffer
 *
 * Context: ccache_lock held.
 * Return: a buffer, or NULL when all are in use.
 */
struct ccache_stage *ccache_staging_get(void)
{
	lockdep_assert_held(&ccache_lock);
	if (!ccache_staging_free || ccache_fault(CCACHE_FAULT_STAGING))
		return NULL;
	return ccache_staging[--ccache_staging_free];
}

/**
 * __ccache_staging_put() - return a staging buffer nothing was copied into
 * @stage: a buffer from ccache_staging_get()
 *
 * Context: ccache_lock held.
 */
void __ccache_staging_put(struct ccache_stage *stage)
{
	lockdep_assert_held(&ccache_lock);
	ccache_staging[ccache_staging_free++] = stage;
}

/**
 * ccache_staging_put() - clear a staging buffer and return it
 * @stage: a buffer from ccache_staging_get() that a page was copied into
 *
 * Free buffers hold no file data: a raw copy of a page must not outlive
 * its entry, which a flush or an unmount may have erased.  (The probe
 * returns a buffer it did not write with __ccache_staging_put().)
 *
 * Context: any; takes ccache_lock.
 */
void ccache_staging_put(struct ccache_stage *stage)
{
	unsigned long flags;

	clear_page(stage->page);
	spin_lock_irqsave(&ccache_lock, flags);
	__ccache_staging_put(stage);
	spin_unlock_irqrestore(&ccache_lock, flags);
}

#ifdef CCACHE_FAULT_INJECT
/**
 * ccache_staging_dirty() - count the free staging buffers holding data
 *
 * Test only (the staging_dirty knob, params.c): every free buffer should
 * be all zeros (ccache_staging_put()).  Scans them with ccache_lock held,
 * interrupts off, which a test build can afford.
 *
 * Context: process context; takes ccache_lock.
 * Return: how many free buffers have a byte that is not zero.
 */
unsigned int ccache_staging_dirty(void)
{
	unsigned int i, n = 0;
	unsigned long flags;

	spin_lock_irqsave(&ccache_lock, flags);
	for (i = 0; i < ccache_staging_free; i++)
		n += !!memchr_inv(ccache_staging[i]->page, 0, PAGE_SIZE);
	spin_unlock_irqrestore(&ccache_lock, flags);
	return n;
}
#endif

/**
 * ccache_staging_bytes() - Return: memory capture holds: the staging
 * buffers, and the entries not stored (pending, in the reserve, or
 * waiting for the graveyard worker); ccache_pool_used() has the rest.
 */
unsigned long ccache_staging_bytes(void)
{
	long unstored = ccache_stat_read(entries) -
			ccache_stat_read(stored_pages);

	return (unsigned long)ccache_staging_total * PAGE_SIZE +
	       max(unstored, 0L) * sizeof(struct ccache_entry);
}

/**
 * ccache_store_init() - allocate the caches and the staging buffers
 *
 * Return: 0 or -ENOMEM.
 */
int ccache_store_init(void)
{
	unsigned int i;

	ccache_entry_cache = KMEM_CACHE(ccache_entry, 0);
	ccache_inode_cache = KMEM_CACHE(ccache_inode, 0);
	ccache_inodes.bits = order_base_2(max(totalram_pages() / CCACHE_INODE_SHARE,
					      CCACHE_INODE_MIN_BUCKETS));
	ccache_inodes.heads = kvcalloc(1UL << ccache_inodes.bits,
				       sizeof(*ccache_inodes.heads), GFP_KERNEL);
	ccache_inodes_grow_at = ccache_inodes_limit(ccache_inodes.bits);
	ccache_staging_total = clamp(totalram_pages() / 32, CCACHE_STAGING_MIN,
				     CCACHE_STAGING_MAX);
	ccache_stages = kvcalloc(ccache_staging_total, sizeof(*ccache_stages),
				 GFP_KERNEL);
	ccache_staging = kvcalloc(ccache_staging_total, sizeof(*ccache_staging),
				  GFP_KERNEL);
	ccache_entry_reserve.objs = kvcalloc(ccache_staging_total,
					     sizeof(void *), GFP_KERNEL);
	ccache_entry_reserve.max = ccache_staging_total;
	ccache_entry_reserve.cache = ccache_entry_cache;
	ccache_inode_reserve.cache = ccache_inode_cache;
	if (!ccache_entry_cache || !ccache_inode_cache || !ccache_inodes.heads ||
	    !ccache_stages || !ccache_staging || !ccache_entry_reserve.objs)
		goto fail;
	for (i = 0; i < ccache_staging_total; i++) {
		ccache_stages[i].page = (void *)get_zeroed_page(GFP_KERNEL);
		if (!ccache_stages[i].page)
			goto fail;
		ccache_staging[ccache_staging_free++] = &ccache_stages[i];
	}
	ccache_reserves_fill();
	return 0;
fail:
	ccache_store_exit();
	return -ENOMEM;
}

/**
 * ccache_store_exit() - free everything; the store must be empty of users
 *
 * Context: no hook may run any more and no worker may be queued.
 */
void ccache_store_exit(void)
{
	unsigned int i;

	/* tasks on their way back to user space with a drop to do */
	while (atomic_read(&ccache_sb_drops_pending))
		msleep(20);
	/* tasks between the atomic_dec() and the return */
	if (READ_ONCE(ccache_sb_drops_used))
		synchronize_rcu_tasks();
	/* no lookup runs now, so no zombie or record is added after this */
	cancel_work_sync(&ccache_zombie_worker);
	cancel_work_sync(&ccache_inodes_grower);	/* it ends its move */
	if (ccache_inodes.heads)	/* forgets and frees every record */
		ccache_drop_matching(NULL, CCACHE_DROP_FORGET |
				     CCACHE_DROP_RESCHED);
	kvfree(ccache_inodes.heads);
	ccache_inodes.heads = NULL;
	flush_work(&ccache_graveyard_worker);
	ccache_graveyard_drain();
	ccache_reserve_empty(&ccache_entry_reserve);
	ccache_reserve_empty(&ccache_inode_reserve);
	kvfree(ccache_entry_reserve.objs);
	ccache_entry_reserve.objs = NULL;
	ccache_entry_reserve.max = 0;
	for (i = 0; ccache_stages && i < ccache_staging_total; i++)
		free_page((unsigned long)ccache_stages[i].page);
	kvfree(ccache_stages);
	kvfree(ccache_staging);
	ccache_stages = NULL;
	ccache_staging = NULL;
	ccache_staging_free = 0;
	kmem_cache_destroy(ccache_entry_cache);
	kmem_cache_destroy(ccache_inode_cache);
}
