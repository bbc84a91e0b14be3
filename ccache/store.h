/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The store: compressed copies of evicted page-cache pages, indexed by
 * (superblock, inode number, inode generation, page index).
 *
 * Keys do not use struct inode pointers: an inode whose pages were evicted
 * is soon evicted from the inode cache too, and its pages must outlive it.
 * The generation changes when an inode number is reused, so a new file
 * never matches an old file's entries; deletion and unmount also drop them
 * explicitly (hooks.c).
 *
 * Locking.  One IRQ-safe spinlock, ccache_lock, protects the inode hash,
 * each inode's entry xarray and its epoch and flags, the LRU and the free
 * staging buffers.  The capture probe runs under the page
 * cache's own locks with interrupts off, so the order is:
 *
 *   inode->i_lock
 *     mapping->i_pages (xa_lock_irq)      taken by the kernel, not by us
 *       ccache_lock                       always spin_lock_irqsave()
 *         ccache_inode->entries' xa_lock  taken inside the xa_*() calls
 *
 * Nothing that may sleep or that takes a lock not written above runs under
 * ccache_lock: no zsmalloc, no crypto, no allocation beyond GFP_NOWAIT.
 * Nor anything unbounded: erases of a whole file, filesystem or store
 * (truncation, deletion, drop_caches, unmount, flush, unload) and trims
 * of the pool hold it for one struct ccache_hold at a time, with
 * interrupts on in between; a drop of many files stops captures and hits
 * until it ends (ccache_store_dropping()), an invalidation those of its
 * file.
 * The hooks cannot sleep (ftrace and kretprobe handlers run with
 * preemption off): the erases of drop_caches and unmount run when the
 * calling task returns to user space (ccache_drop_sb()), and like flush
 * and unload they reschedule between batches.
 *
 * Entry lifetime: see struct ccache_entry.
 *
 * Coherence.  Every capture first erases any entry at its indices, so a
 * page's newer copy always replaces an older one.  An invalidation
 * (truncate, hole punch, direct I/O write, ...) bumps the inode's epoch and
 * erases the range at its start and again at its end, and while one is in
 * flight the inode neither captures nor serves.  The compression worker
 * publishes a result only if the xarray slot still holds the very entry it
 * compressed and the inode's epoch is the one captured; otherwise it drops
 * the result.  Any failure ends in dropping an entry, never in keeping one.
 *
 * A file's generation can change while it lives, with no invalidation
 * (ext4's EXT4_IOC_SETVERSION), and change back: so there is one record
 * per (superblock, inode number), and a lookup under another generation
 * puts a new record for the generation asked for in its place, with its
 * state; the old one's entries, which no lookup reaches any more, are
 * erased in batches by a worker.  Entries of a past file or past
 * generation are never served.
 *
 * A change already running when the module loads is never seen by the
 * hooks; capture makes no record for a file whose i_rwsem is held
 * (ccache_inode_busy() in capture.c), which every such change holds.
 */
#ifndef _CCACHE_STORE_H
#define _CCACHE_STORE_H

#include <linux/fs.h>
#include <linux/ftrace.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/magic.h>
#include <linux/sched/clock.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/xarray.h>

#include "../spu-offload/kspu.h"

extern spinlock_t ccache_lock;

/*
 * Bulk erases and evictions (a file's range, a filesystem, the whole
 * store, trims of the pool, the shrinker, the out-of-memory notifier) hold
 * ccache_lock, and so keep interrupts off, for at most CCACHE_LOCK_BATCH
 * entries at a time whatever the store holds, and end a hold early once
 * CCACHE_LOCK_HOLD_NS have passed, so that slow erases (a debug kernel's
 * first look at a lock chain, a slow machine) do not add up in one hold.
 * Between holds interrupts are on, and callers that may sleep reschedule.
 * tools/irqsoff.sh measures the sections on the debug kernel; what it
 * found is in Documentation/design.rst.
 */
#define CCACHE_LOCK_BATCH 8UL
#define CCACHE_LOCK_HOLD_NS (100 * NSEC_PER_USEC)

/**
 * struct ccache_hold - one bounded hold of ccache_lock in a bulk erase
 * @left: entries it may still look at
 * @until: local_clock() after which it ends, at the next entry
 * @ended: it ended on one of its limits: what it walked may have more
 */
struct ccache_hold {
	unsigned long left;
	u64 until;
	bool ended;
};

/* Begin a hold: before taking ccache_lock, so a wait for it counts. */
static inline void ccache_hold_begin(struct ccache_hold *h)
{
	h->left = CCACHE_LOCK_BATCH;
	h->until = local_clock() + CCACHE_LOCK_HOLD_NS;
	h->ended = false;
}

/*
 * Count one entry the hold looked at; true when the hold must end now.
 * Each hold gets at least one entry done, so a walk always progresses.
 */
static inline bool ccache_hold_step(struct ccache_hold *h)
{
	if (!--h->left || local_clock() > h->until)
		h->ended = true;
	return h->ended;
}

/* Identity of a file: what survives the eviction of its struct inode. */
struct ccache_key {
	struct super_block *sb;
	unsigned long ino;
	u32 generation;
};

/* Per-file state, created on the first capture; all fields under ccache_lock. */
struct ccache_inode {
	struct hlist_node hash;		/* in ccache_inodes, by sb and ino */
	struct ccache_key key;		/* generation: the last one looked up */
	struct xarray entries;		/* page index -> struct ccache_entry */
	unsigned long nr_entries;
	unsigned long epoch;		/* bumped by every invalidation */
	unsigned int invalidating;	/* invalidations in flight */
	bool poisoned;			/* direct I/O written: never cache again */
};

/*
 * A staging buffer: the raw copy of an evicted page, and the offload job
 * that compresses it.  Preallocated; owned by a pending entry from capture
 * until the entry is published (the page then holds the compressed bytes
 * for a moment) or freed.
 */
struct ccache_stage {
	struct kspu_job job;
	struct llist_node done;		/* compressed, waiting to be published */
	struct list_head retry;		/* waiting for the pool (capture.c) */
	void *page;
	u32 tag;			/* ccache_page_tag() of the page */
	u8 tries;			/* pool allocations that failed */
	bool verify;			/* compare, not compress (kept entries) */
	unsigned long epoch;		/* verify: the file's epoch at eviction */
};

enum ccache_entry_state {
	CCACHE_PENDING,		/* raw copy in a staging buffer, not yet compressed */
	CCACHE_COMPRESSED,	/* compressed object in the pool */
	CCACHE_SAME_FILLED,	/* page of one repeated word, kept as that word */
};

/*
 * One page of one file.  Meant to stay within 64 bytes.
 *
 * Lifetime: each step is one function of store.c.
 *
 *  1. ccache_entry_alloc() (capture probe, ccache_lock held): a pending
 *     entry holding a staging buffer, with one reference, from the reserve
 *     or the slab (the "entries" statistic counts both).
 *  2. ccache_entry_insert() (probe, ccache_lock): into its file's xarray,
 *     replacing (unlinking) an older entry at its index; the reference of
 *     step 1 is now the store's, and the entry holds one on its cgroup's
 *     record (memcg.c).  The probe takes a second one for the compress
 *     job, dropped by the publish worker when it is done.
 *  3. ccache_entry_publish() (publish worker, takes ccache_lock): if the
 *     entry is still in its slot and its file unchanged ("Coherence"
 *     above), it becomes compressed or same-filled, joins the LRU and
 *     is counted as stored, in its cgroup's share too; otherwise it is
 *     erased.  Either way its staging buffer goes back and it holds its
 *     pool object (if any) from then on.  A reader (serve.c) takes a
 *     reference, under ccache_lock, only to a published entry that is
 *     neither kept nor verifying; it then erases it, or keeps it.
 *  3a. ccache_entry_keep() (reader, ccache_lock): the entries a regular
 *     file's folio was served from stay, "kept", off the LRU on
 *     ccache_kept, where lru.c evicts first: their pages are in the page
 *     cache, which reads use, so no reader serves them.  When reclaim
 *     evicts that folio again, the capture probe copies each page to a
 *     stage, all of them or none, and each entry, "verifying", goes back
 *     to the LRU (ccache_kept_verify()); the publish worker then compares
 *     its data with the copy and clears the mark if they are the same
 *     bytes, else captures the copy in its place as a page of its own,
 *     order 0 (capture.c, ccache_publish_verify()).  Not compressing the
 *     page again is all it saves: the entry is then what a new capture
 *     of that page would have stored.
 *     Any other way out of the page cache erases it (capture.c).
 *  4. ccache_unlink_entry() (ccache_lock held): the only way out of the
 *     store, through ccache_erase_entry() or replacement in step 2.  Off
 *     the LRU, ci set to NULL, stored statistics and its cgroup's share
 *     down, its references on the cgroup's record and the store's
 *     dropped.  An erased entry is never found again.
 *  5. ccache_entry_free() (graveyard worker, or whoever drains it: process
 *     context, no ccache_lock): after the last reference, the only place
 *     the staging buffer or pool object and the entry itself are released.
 *     The last reference may be dropped under the page cache's locks with
 *     interrupts off, where zsmalloc may not run, so ccache_entry_put()
 *     queues the entry on a graveyard list for a worker.
 */
struct ccache_entry {
	struct kref ref;
	u8 state:2;		/* enum ccache_entry_state */
	u8 kept:1;		/* served, its page cached: on ccache_kept */
	u8 verifying:1;		/* kept, its page evicted: being compared */
	u8 alg;			/* compressor id (crypto/acomp.c) */
	u8 referenced:2;	/* LRU second chances left, at most 2 */
	u8 has_sum:1;		/* @sum is set: check it on a hit */
	u8 order:4;		/* of the folio it was captured from */
	u8 follows:1;		/* pending, its folio admitted (lru.c) */
	u8 gen;			/* ccache_sizing_gen() at capture */
	u16 length;		/* compressed length */
	u16 memcg;		/* its cgroup's record (memcg.c), 0: none */
	u32 sum;		/* kspu_page_sum() of the page (checksum knob) */
	union {
		struct list_head list;	/* LRU once stored, under ccache_lock */
		/* after the last reference: to be freed; off the LRU: held */
		struct llist_node free;
	};
	struct ccache_inode *ci;
	pgoff_t index;
	unsigned long epoch;	/* ci->epoch at capture */
	union {
		struct ccache_stage *stage;	/* CCACHE_PENDING */
		unsigned long handle;	/* CCACHE_COMPRESSED: zsmalloc handle */
		unsigned long value;	/* CCACHE_SAME_FILLED */
	};
};

/* store.c */
int ccache_store_init(void);
void ccache_store_exit(void);
void ccache_key_of(struct inode *inode, struct ccache_key *key);
u32 ccache_page_tag(const struct ccache_key *key, pgoff_t index);
struct ccache_inode *ccache_inode_lookup(const struct ccache_key *key);
struct ccache_inode *ccache_inode_get_or_create(const struct ccache_key *key);
void ccache_inode_tidy(struct ccache_inode *ci);
struct ccache_entry *ccache_entry_alloc(struct ccache_stage *stage, u16 memcg);
bool ccache_entry_insert(struct ccache_inode *ci, struct ccache_entry *e,
			 pgoff_t index);
void ccache_entry_publish(struct ccache_entry *e, u8 state,
			  unsigned long value, unsigned int len, u8 alg);
unsigned long ccache_erase_range(struct ccache_inode *ci, pgoff_t first,
				 pgoff_t last);
unsigned long ccache_erase_file(const struct ccache_key *key, pgoff_t first,
				pgoff_t last);
void ccache_erase_entry(struct ccache_entry *e);
unsigned int ccache_erase_folio(struct ccache_entry *e,
				void (*gone)(struct ccache_entry *e,
					     unsigned long arg),
				unsigned long arg);
void ccache_folio_follows(struct ccache_entry *e);
void ccache_entry_put(struct ccache_entry *e);
void ccache_invalidate_begin(const struct ccache_key *key, pgoff_t first,
			     pgoff_t last, bool poison);
void ccache_invalidate_end(const struct ccache_key *key, pgoff_t first,
			   pgoff_t last);
void ccache_drop_inode(const struct ccache_key *key);
void ccache_drop_sb(struct super_block *sb, bool forget,
		    const struct ccache_key *also);
void ccache_drop_all(void);
void ccache_flush(void);
bool ccache_store_dropping(void);
struct ccache_stage *ccache_staging_get(void);
void __ccache_staging_put(struct ccache_stage *stage);
void ccache_staging_put(struct ccache_stage *stage);
void ccache_graveyard_drain(void);
void ccache_reserves_fill(void);
unsigned long ccache_staging_bytes(void);
unsigned long ccache_inode_buckets(void);
#ifdef CCACHE_FAULT_INJECT
unsigned int ccache_staging_dirty(void);
#endif
extern struct list_head ccache_lru;
extern struct list_head ccache_kept;
void ccache_entry_keep(struct ccache_entry *e);
void ccache_kept_verify(struct ccache_entry *e, u8 referenced);
void ccache_kept_drop(struct ccache_entry *e);

/* pool.c: zsmalloc only, calls nothing of the store */
int ccache_pool_init(void);
void ccache_pool_exit(void);
unsigned long ccache_pool_alloc(const void *data, unsigned int len);
void ccache_pool_free(unsigned long handle, unsigned int len);
void ccache_pool_load(struct ccache_entry *e, void *buf);
size_t ccache_pool_max_object(void);
unsigned long ccache_pool_bytes(void);
void ccache_pool_compact(void);
unsigned long ccache_pool_holes(void);
bool ccache_pool_compact_holes(unsigned long slack);

/* memcg.c: each cgroup's share of the pool; all under ccache_lock */
#ifdef CONFIG_MEMCG
int ccache_memcg_get(struct folio *folio, enum ccache_reject *why);
void ccache_memcg_hold(u16 id);
void ccache_memcg_put(u16 id);
void ccache_memcg_count(u16 id, long bytes);
int ccache_memcg_init(void);
void ccache_memcg_exit(void);
#else
static inline int ccache_memcg_get(struct folio *folio,
				   enum ccache_reject *why)
{
	return 0;
}

static inline void ccache_memcg_hold(u16 id) {}
static inline void ccache_memcg_put(u16 id) {}
static inline void ccache_memcg_count(u16 id, long bytes) {}
static inline int ccache_memcg_init(void)
{
	return 0;
}

static inline void ccache_memcg_exit(void) {}
#endif

/* lru.c: the pool's limit, admission, eviction, shrinker, OOM notifier */
int ccache_lru_init(void);
void ccache_lru_exit(void);
bool ccache_pool_admit(u32 tag, bool workingset, unsigned int nr);
void ccache_pool_admit_follower(void);
void ccache_pool_refund(unsigned int nr);
void ccache_pool_refused(u32 tag);

/* The page cache's tracepoints: pages leave (capture, sizing), come back. */
#define CCACHE_DELETE_TP "mm_filemap_delete_from_page_cache"
#define CCACHE_ADD_TP "mm_filemap_add_to_page_cache"

/* sizing.c; the sizing worker (lru.c) runs it every CCACHE_SIZING_PERIOD */
#define CCACHE_SIZING_PERIOD HZ
int ccache_sizing_init(void);
void ccache_sizing_exit(void);
void ccache_ghost_record(u32 tag, bool slow);
void ccache_ghost_hit(u32 tag);
void ccache_sizing_served(const struct ccache_key *key, pgoff_t index,
			  unsigned int nr);
void ccache_sizing_offload(void);
bool ccache_sizing_replacing(void);
u8 ccache_sizing_gen(void);
void ccache_sizing_hit(u8 gen);
bool ccache_sizing_idle(u8 gen);
bool ccache_sizing_some_idle(void);
unsigned long ccache_sizing_bytes(void);
unsigned long ccache_sizing_goal(unsigned long limit);
unsigned long ccache_sizing_update(unsigned long limit, unsigned long used,
				   unsigned long stored);
unsigned long ccache_pool_target_bytes(void);
unsigned long ccache_pool_used(void);

/* capture.c: the largest folio captured; each page is an entry of its own */
#define CCACHE_MAX_FOLIO_PAGES 512
int ccache_capture_init(void);
void ccache_capture_exit(void);
bool ccache_sb_cacheable(struct super_block *sb);
bool ccache_sb_allowed(struct super_block *sb);
bool ccache_fs_allowed(struct inode *inode);
bool ccache_mapping_allowed(struct inode *host);
bool ccache_folio_reclaimed(struct folio *folio);

/* serve.c */
int ccache_serve_init(void);
void ccache_serve_exit(void);

/* Working memory of one read served: see ccache_serve_buf_get(). */
struct ccache_serve_buf {
	u8 data[PAGE_SIZE];				/* a compressed page */
	struct ccache_entry *e[CCACHE_MAX_FOLIO_PAGES];	/* one folio's entries */
};

struct ccache_serve_buf *ccache_serve_buf_get(void);
bool ccache_fill(struct ccache_entry *e, struct page *page, void *buf);
bool ccache_serve_folio(const struct ccache_key *key, struct folio *folio,
			struct ccache_serve_buf *sb);

/* blockdev.c */

/*
 * Is @inode a block device's own, whose page cache holds the device's
 * blocks?  Not a device node on a filesystem, whose i_mode says S_ISBLK
 * too but whose pages live in the device's inode.
 */
static inline bool ccache_inode_is_bdev(struct inode *inode)
{
	return S_ISBLK(inode->i_mode) && inode->i_sb->s_magic == BDEVFS_MAGIC;
}

int ccache_bdev_init(void);
void ccache_bdev_exit(void);
bool ccache_bdev_allowed(struct inode *inode);
void ccache_bdev_verify(struct folio *folio);
bool ccache_bdev_unmounted(struct super_block *sb, struct ccache_key *key);
bool ccache_bdev_evicted(struct folio *folio);

/* hooks.c; how far past a function's start ftrace may report it: ENDBR64 */
#define CCACHE_HOOK_SLACK 8
int ccache_hooks_init(void);
unsigned int ccache_hooks_nr(void);
int ccache_hook_missing(const char *kind, const char *name);
void ccache_hooks_exit(void);
void *ccache_symbol_address(const char *name);
int ccache_ftrace_start(struct ftrace_ops *ops, ftrace_func_t func,
			bool ipmodify, const unsigned long *ips, unsigned int n);
struct tracepoint *ccache_tracepoint(const char *name);
unsigned long ccache_hooks_missed(void);

#endif /* _CCACHE_STORE_H */
