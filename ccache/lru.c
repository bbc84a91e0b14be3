// SPDX-License-Identifier: GPL-2.0
/*
 * The pool's limit: what may be stored when the pool is full (admission),
 * the LRU eviction that makes room, and the shrinker and out-of-memory
 * notifier that give memory back when the system needs it.
 *
 * The LRU itself (ccache_lru) is the store's: entries join it when they are
 * published and leave it when they are unlinked, under ccache_lock
 * (store.h).  It holds stored entries oldest first.  Kept entries (served,
 * their pages in the page cache: store.h) are on ccache_kept instead, and
 * every eviction takes them first: losing one costs only a compression
 * when its page is evicted again, and leaves no ghost.  Every new entry gets
 * a second chance, and one captured from a page the kernel had marked
 * workingset (it had come back from eviction before) a third: each time
 * the LRU's old end reaches an entry with a chance left, it uses one and
 * moves to the young end instead of being evicted (capture.c says why new
 * entries get one).
 *
 * Everything here runs in process context without ccache_lock except where
 * a function says otherwise: evicting frees pool objects, and zsmalloc may
 * not be called under it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/nodemask.h>
#include <linux/oom.h>
#include <linux/shrinker.h>
#include <linux/slab.h>

#include "ccache.h"
#include "store.h"
#include "trace.h"
#include "../include/compat.h"

/*
 * The pool yields memory to the shrinker only once the page cache's file
 * LRU has shrunk below 1/CCACHE_SHRINK_FILE_SHARE of RAM.  Reclaim of
 * streaming file I/O calls shrinkers in step with the very evictions that
 * fill the pool: answering every call empties most of the pool as fast as
 * it fills (Documentation/design.rst), although evicting an uncompressed
 * file page into the pool frees more memory than dropping a compressed
 * one.  Once other memory has pushed the page cache that far down,
 * reclaim finds little else to free, and the pool gives memory back like
 * any cache.  max_pool_percent bounds it the rest of the time.
 * Nor does it give anything back while more than 1/CCACHE_SHRINK_FREE_SHARE
 * of RAM is free: drop_slab() ("echo 2 > drop_caches") calls every
 * shrinker whether memory is short or not, and the pool must survive the
 * inode cache being dropped (its keys outlive the inodes).
 */
#define CCACHE_SHRINK_FILE_SHARE 16
#define CCACHE_SHRINK_FREE_SHARE 16

/*
 * Memory the pool may hold beyond its goal, or in holes that freed objects
 * left, before it evicts or compacts for it: 1/CCACHE_SLACK_SHARE of the
 * limit.  Compaction looks at every object, so it waits for that much to
 * give back; and a zspage that one new object opened is no reason to
 * evict entries.
 */
#define CCACHE_SLACK_SHARE 64

static unsigned long ccache_pool_slack(void)
{
	return ccache_param_max_pool_bytes() / CCACHE_SLACK_SHARE;
}

static struct shrinker *ccache_shrinker;
/* pages the full pool refused (ccache_pool_admit()) */
static u32 *ccache_refused;		/* ccache_page_tag()s, 0: none */
static unsigned long ccache_refused_mask;	/* slots - 1, a power of 2 */

/**
 * ccache_pool_used() - Return: memory the pool and the store's metadata
 * take, the bytes that count against max_pool_percent.  Capture's own
 * memory does not (ccache_staging_bytes()): staging buffers, and the
 * entries that are not stored (pending, in the reserve, or on their way
 * to the graveyard), which come and go with the captures in flight.
 * Counted here, a burst of captures that the full pool then refused
 * evicted stored entries to make room for the burst's entries.
 */
unsigned long ccache_pool_used(void)
{
	return ccache_pool_bytes() +
	       ccache_stat_read(stored_pages) * sizeof(struct ccache_entry) +
	       ccache_stat_read(inodes) * sizeof(struct ccache_inode) +
	       (ccache_refused_mask + 1) * sizeof(*ccache_refused) +
	       ccache_sizing_bytes();
}

/* An entry leaves for lack of room (for the shrinker if @shrinker). */
static void ccache_evicted(struct ccache_entry *e, unsigned long shrinker)
{
	trace_ccache_evict(&e->ci->key, e->index, shrinker);
	ccache_ghost_record(ccache_page_tag(&e->ci->key, e->index), false);
}

/* A kept entry leaves for lack of room: its page is cached, no ghost. */
static void ccache_kept_evicted(struct ccache_entry *e, unsigned long shrinker)
{
	trace_ccache_evict(&e->ci->key, e->index, shrinker);
}

/*
 * How ccache_lru_evict() evicts: for the shrinker; only idle entries; only
 * kept ones.
 */
#define CCACHE_EVICT_SHRINKER	BIT(0)
#define CCACHE_EVICT_IDLE	BIT(1)
#define CCACHE_EVICT_KEPT	BIT(2)

/*
 * Evict up to @nr entries, kept ones first (with CCACHE_EVICT_KEPT in @how
 * only those), then from the LRU's old end, looking at no more than
 * @budget entries: one with a second chance left (->referenced) loses it
 * and goes back to the young end instead; the other pages of an evicted
 * entry's folio go with it.  With CCACHE_EVICT_IDLE in @how it stops at
 * the first entry that is not idle (ccache_sizing_idle()), and evicts an
 * idle one whatever its chances: they were given for reads that did not
 * come.  Frees their memory before returning; CCACHE_EVICT_SHRINKER says
 * for whom (the tracepoint tells).  Holds ccache_lock one struct
 * ccache_hold at a time.  Return: how many were evicted; *@looked: how
 * many entries were looked at, 0 only when the LRU is empty.
 */
static unsigned long ccache_lru_evict(unsigned long nr, unsigned long budget,
				      unsigned long *looked, unsigned int how)
{
	unsigned long shrinker = !!(how & CCACHE_EVICT_SHRINKER);
	unsigned long evicted = 0, seen = 0;
	struct ccache_inode *ci;
	struct ccache_entry *e;
	struct ccache_hold hold;
	unsigned long flags;

	/* a shrinker's call may ask for hundreds: one bounded hold at a time */
	do {
		ccache_hold_begin(&hold);
		spin_lock_irqsave(&ccache_lock, flags);
		while (!hold.ended && evicted < nr && seen < budget &&
		       !list_empty(&ccache_kept)) {
			seen++;
			e = list_first_entry(&ccache_kept, struct ccache_entry,
					     list);
			ci = e->ci;
			evicted += ccache_erase_folio(e, ccache_kept_evicted,
						      shrinker);
			ccache_inode_tidy(ci);
			ccache_hold_step(&hold);
		}
		if (!hold.ended && (how & CCACHE_EVICT_KEPT))
			budget = seen;
		while (!hold.ended && evicted < nr && seen < budget &&
		       !list_empty(&ccache_lru)) {
			seen++;
			ccache_hold_step(&hold);
			e = list_first_entry(&ccache_lru, struct ccache_entry,
					     list);
			if (how & CCACHE_EVICT_IDLE) {
				if (!ccache_sizing_idle(e->gen)) {
					nr = evicted;	/* the rest is younger */
					break;
				}
			} else if (e->referenced) {
				e->referenced--;
				list_move_tail(&e->list, &ccache_lru);
				continue;
			}
			ci = e->ci;
			evicted += ccache_erase_folio(e, ccache_evicted,
						      shrinker);
			ccache_inode_tidy(ci);
		}
		spin_unlock_irqrestore(&ccache_lock, flags);
	} while (hold.ended);
	ccache_graveyard_drain();
	if (looked)
		*looked = seen;
	return evicted;
}

/*
 * Admission when the pool is full, zswap-style: once the pool reaches its
 * goal (max_pool_percent, or below it the target sizing.c chose) it is
 * "full" and new pages are rejected until it has fallen below
 * accept_threshold_percent of the goal again (hits take entries out, and
 * so do invalidations, the shrinker and the sizing worker; the default,
 * 100, accepts again as soon as it is below the goal: zswap's hysteresis
 * made a pool read in passes refuse the pages each pass pushes out of the
 * page cache into the room its hits free).  Every entry
 * evicted, and every page refused (capture.c), leaves a ghost for
 * sizing.c.  Rejecting the new rather than evicting the old keeps a
 * sequential re-read of a set larger than the cache from missing every
 * page, as plain LRU would: the pages evicted first are the ones read
 * again first.  So that a full pool still turns over for a changing
 * working set, one page in every CCACHE_FULL_TURNOVER it would reject
 * takes the place of the LRU's oldest entry.
 *
 * That turnover is slow: a pool filled by one pass over cold data (a
 * backup, a crawler, a benchmark's prefill) stays full of it while the
 * pages a server reads all the time are refused (Documentation/design.rst
 * has the figures).  So a page that shows it is read again takes the
 * place of the LRU's oldest entry, one for one, the pool's size
 * unchanged.  Two signs count, both of which one pass over a set larger
 * than the cache never gives:
 *
 * - the kernel marked the page workingset (it was read again while
 *   cached, or soon after an eviction);
 * - the pool refused the same page before: it was read from disk again
 *   since, and evicted again.  Refused pages are remembered by their
 *   ccache_page_tag() in a direct-mapped table, one slot per
 *   CCACHE_REFUSED_SHARE pages of RAM: a newer refusal overwrites an
 *   older one in its slot, so the table remembers about the last that
 *   many refusals, and the kernel's workingset detection (which only
 *   looks as far back as the page cache is large, and a full pool leaves
 *   the page cache small) none of them.
 *
 * And while the pool's ghosts show that the pages it refuses come back
 * soon, more of them than it serves, every new page takes the oldest
 * entry's place (ccache_sizing_replacing(), sizing.c): the pool then
 * holds data the workload no longer reads.  And whatever the new page,
 * an oldest entry that is idle (sizing.c, "Idle entries": old, and its
 * generation no longer read) gives it its place.
 *
 * A large folio is admitted or refused as one unit.  Its first page to
 * come decides: refused, it takes the rest of its folio with it, and the
 * table remembers those pages too (ccache_pool_refused()), so when the
 * folio comes back its first page may take an old entry's place;
 * admitted, the other pages follow it in (ccache_folio_follows(),
 * ccache_pool_admit_follower()), each making room for itself as a page
 * of an admitted folio.  The decision weighs as much as the folio's pages
 * would one by one: as many attempts to make room, and its pages count
 * towards the turnover, which lets a folio in once the pages refused
 * since the last one reach CCACHE_FULL_TURNOVER times its own (deciding
 * for each page of a folio of n pages with n pages' weight let nearly
 * every page of a folio of 8 pages or more in).  Evictions take a large
 * folio's pages together (ccache_erase_folio()), so one eviction may free
 * many pages: what it frees beyond the page that asked for it is credit,
 * which later pages that may take a place use up before evicting again.
 *
 * The state is only used by the compression worker, which runs one
 * instance at a time.
 */
#define CCACHE_FULL_TURNOVER 8
/*
 * How many entries a page that replaces one looks at.  Each entry passed
 * with a chance left loses it and moves to the young end, so over all
 * replacements looking costs at most one look per chance given; in a pool
 * whose entries all still hold their first chance (the LRU's old end was
 * never reached), replacing starts after stored_pages /
 * CCACHE_REPLACE_LOOK attempts.  Bounds the time under ccache_lock.
 */
#define CCACHE_REPLACE_LOOK 1024
#define CCACHE_REFUSED_SHARE 4
#define CCACHE_REFUSED_MIN 4096UL
static bool ccache_pool_full;
static unsigned long ccache_pool_rejected;	/* pages, toward a turnover */
/*
 * Room made and not yet taken, in pages: @any for any page (what idle
 * entries' evictions freed beyond the page that asked, and what pages of
 * an admitted folio that was dropped had made, ccache_pool_refund()), and
 * @other only for pages that may take an old entry's place (what the
 * other evictions freed beyond the page that asked).  See
 * ccache_pool_make_room().
 */
static struct {
	unsigned long any, other;
} ccache_pool_credit;

/* Return: whether @tag was refused before; forgets it.  Else records it. */
static bool ccache_refused_again(u32 tag)
{
	u32 *slot = &ccache_refused[tag & ccache_refused_mask];

	if (*slot == tag) {
		*slot = 0;
		return true;
	}
	*slot = tag;
	return false;
}

/**
 * ccache_pool_refused() - remember a page refused with the rest of its folio
 * @tag: ccache_page_tag() of the page
 *
 * Context: the publish worker only.
 */
void ccache_pool_refused(u32 tag)
{
	ccache_refused[tag & ccache_refused_mask] = tag;
}

/*
 * Make room for one page that may take an old entry's place: use up the
 * credit, or evict the LRU's oldest entry (and its folio), looking at no
 * more than @budget entries; with CCACHE_EVICT_IDLE in @how, only while
 * entries may be idle, and evict only an idle one.  The credit goes only
 * to pages that may take a place: given to any page, a large folio's
 * eviction on one page's turn let the next hundreds in whatever the rule.
 * So a page that may take only an idle entry's place (CCACHE_EVICT_IDLE)
 * uses only the credit for any page: the other credit, used so, let
 * every folio's first page in while entries merely might be idle, and
 * its followers' evictions made the next folio's credit.
 * Return: whether there is room.
 */
static bool ccache_pool_make_room(unsigned long budget, unsigned int how)
{
	bool idle = how & CCACHE_EVICT_IDLE;
	unsigned long n;

	if (ccache_pool_credit.any) {
		ccache_pool_credit.any--;
		return true;
	}
	/* nothing can be idle: no lock to take */
	if (idle && !ccache_sizing_some_idle())
		return false;
	if (!idle && ccache_pool_credit.other) {
		ccache_pool_credit.other--;
		return true;
	}
	n = ccache_lru_evict(1, budget, NULL, how);
	ccache_stat_add(lru_evictions, n);
	if (idle)
		ccache_stat_add(idle_evictions, n);
	if (!n)
		return false;
	if (idle)
		ccache_pool_credit.any += n - 1;
	else
		ccache_pool_credit.other += n - 1;
	return true;
}

/*
 * Evict what the pool holds above @goal bytes, @used now: the coldest
 * entries, as many as the excess holds at the bytes an entry takes on
 * average (one eviction may take a whole folio, and the freed objects'
 * memory only goes back once compacted, so the pool's size cannot tell
 * when to stop), CCACHE_LOCK_BATCH at a time with interrupts on and a
 * chance to reschedule in between; then compact.  Entries with second
 * chances left keep them: it looks at no more than twice the entries it
 * evicts.  An excess of less than ccache_pool_slack() stays: storing one
 * more object may take a new zspage of a few pages, and evicting for that
 * throws away entries whose memory compaction soon gives back anyway.
 */
static void ccache_pool_trim(unsigned long used, unsigned long goal)
{
	unsigned long stored = ccache_stat_read(stored_pages), nr, n, looked;

	if (used <= goal + ccache_pool_slack() || !stored)
		return;
	nr = DIV_ROUND_UP(used - goal, max(used / stored, 1UL));
	while (nr) {
		n = min(nr, CCACHE_LOCK_BATCH);
		n = ccache_lru_evict(n, 2 * n, &looked, 0);
		ccache_stat_add(lru_evictions, n);
		if (!looked)
			break;
		nr -= min(nr, max(n, 1UL));
		cond_resched();
	}
	ccache_pool_compact();
}

/**
 * ccache_pool_admit() - may another page be stored in the pool now?
 * @tag: ccache_page_tag() of the page
 * @workingset: the kernel had marked the page workingset
 * @nr: pages of the folio it was captured from (a refusal takes them all)
 *
 * Follows the admission policy above; a page read again may take an old
 * entry's place (evicted before this returns).
 *
 * Context: the publish worker only; process context, no ccache_lock.
 * Return: false when the pool has no room for the page (the caller counts
 * it as refused for the pool limit).
 */
bool ccache_pool_admit(u32 tag, bool workingset, unsigned int nr)
{
	unsigned long limit = ccache_param_max_pool_bytes();
	unsigned long goal = ccache_sizing_goal(limit);
	unsigned long slack = ccache_pool_slack();
	unsigned long used = ccache_pool_used(), held;
	unsigned int i;

	/*
	 * Hits and evictions leave holes in zsmalloc's pages: new objects
	 * fill them before the pool grows, and compaction gives them back
	 * once they add up to the slack.  Counted as used, they made a full
	 * pool whose entries are served refuse the very pages the reads
	 * push out of the page cache, although its objects took less and
	 * less room.  So admission weighs the pool less its holes (at most
	 * the slack, which the limit allows).
	 */
	if (used >= goal && ccache_pool_compact_holes(slack))
		used = ccache_pool_used();
	held = used - min3(used, ccache_pool_holes(), slack);
	/*
	 * An empty store is never full, whatever the threshold (0 included).
	 * Memory a folio's eviction freed beyond one page is credit, not
	 * room: the pool is still full until it is used up.
	 */
	if (ccache_pool_full &&
	    (!ccache_stat_read(stored_pages) ||
	     (!ccache_pool_credit.any && !ccache_pool_credit.other &&
	      held <= goal / 100 * ccache_param_accept_threshold_percent()))) {
		ccache_pool_full = false;
		memset(&ccache_pool_credit, 0, sizeof(ccache_pool_credit));
	}
	if (!ccache_pool_full && held < goal)
		return true;
	ccache_pool_full = true;
	/*
	 * A lowered limit, or holes that evictions left and compaction has
	 * not yet given back: give back what is over it now.  Credit is no
	 * room then.
	 */
	if (used > limit) {
		memset(&ccache_pool_credit, 0, sizeof(ccache_pool_credit));
		ccache_pool_trim(used, limit);
	}
	/* a kept entry's room first: its page is in the page cache */
	if (ccache_stat_read(kept_pages) &&
	    ccache_lru_evict(1, 1, NULL, CCACHE_EVICT_KEPT)) {
		ccache_stat_inc(lru_evictions);
		return true;
	}
	/*
	 * The oldest entries idle: the new page takes their place, whatever
	 * it is.  Tried first: the oldest entry is then evicted as idle even
	 * where a rule below would have evicted it too (it would have spent
	 * a second chance nobody will use), and idle_evictions counts it.
	 */
	for (i = 0; i < nr; i++)
		if (ccache_pool_make_room(1, CCACHE_EVICT_IDLE))
			return true;
	/* evaluated first: a refused page is remembered either way */
	if (ccache_refused_again(tag) || workingset ||
	    ccache_sizing_replacing()) {
		for (i = 0; i < nr; i++)
			if (ccache_pool_make_room(CCACHE_REPLACE_LOOK, 0))
				return true;
	}
	/*
	 * One page in CCACHE_FULL_TURNOVER takes the oldest entry's place,
	 * counted in pages (a folio's come in together).  Evicting without
	 * admitting drained the pool: the freed objects' memory goes back
	 * only with compaction, so a full pool held ever fewer pages in the
	 * same memory.
	 */
	ccache_pool_rejected += nr;
	if (ccache_pool_rejected < CCACHE_FULL_TURNOVER * nr)
		return false;
	/* since the last turn: refusals of large folios make no burst */
	ccache_pool_rejected = 0;
	return ccache_pool_make_room(2, 0);
}

/**
 * ccache_pool_admit_follower() - make room for a page whose folio the pool
 * admitted (ccache_folio_follows())
 *
 * The decision was made for the whole folio: this only makes room, as a
 * page the pool admits in an old entry's place would (the pool may go over
 * its goal by what it cannot evict, which the next admissions see).
 *
 * Context: the publish worker only; process context, no ccache_lock.
 */
void ccache_pool_admit_follower(void)
{
	/* idle entries first, as in ccache_pool_admit() */
	if (ccache_pool_full && !ccache_pool_make_room(1, CCACHE_EVICT_IDLE))
		ccache_pool_make_room(CCACHE_REPLACE_LOOK, 0);
}

/**
 * ccache_pool_refund() - pages of an admitted folio were dropped after they
 * made room (a page of the folio could not be stored)
 * @nr: how many of them had made room
 *
 * Each made room for itself as it came, evicting an old entry or using
 * credit; dropped with the folio, they leave that room empty.  It becomes
 * credit any page may take: else a pool that stays full
 * (accept_threshold_percent below 100, or other credit left) held ever
 * fewer pages (Documentation/design.rst, "Sizing").
 *
 * Context: the publish worker only; process context, no ccache_lock.
 */
void ccache_pool_refund(unsigned int nr)
{
	if (ccache_pool_full)
		ccache_pool_credit.any += nr;
}

/*
 * The sizing worker: every CCACHE_SIZING_PERIOD it asks sizing.c for the
 * pool's target and evicts what the pool holds above it
 * (ccache_pool_trim()), so that the page cache gets the memory back at
 * once.
 */
static void ccache_sizing_work(struct work_struct *work);
static DECLARE_DELAYED_WORK(ccache_sizing_worker, ccache_sizing_work);

static void ccache_sizing_work(struct work_struct *work)
{
	unsigned long limit = ccache_param_max_pool_bytes();
	unsigned long used = ccache_pool_used();
	unsigned long stored = ccache_stat_read(stored_pages);
	unsigned long target;

	target = ccache_sizing_update(limit, used, stored);
	ccache_sizing_offload();
	/*
	 * Evicted and served entries leave holes in zsmalloc's pages, which
	 * only compaction gives back: a full pool that turns over would
	 * otherwise hold ever fewer pages in the same memory.
	 */
	if (ccache_pool_compact_holes(ccache_pool_slack()))
		used = ccache_pool_used();
	ccache_pool_trim(used, target);
	schedule_delayed_work(&ccache_sizing_worker, CCACHE_SIZING_PERIOD);
}

/*
 * Free memory at which reclaim has what it needs: every zone's high
 * watermark (with its boost), where kswapd stops.  Reclaim sets how much
 * a shrinker frees before it calls it, from its priority alone; after a
 * high-order allocation fails (fork's order-1 page tables, network
 * buffers) kswapd keeps lowering that priority while order-0 pages are
 * plentiful, and asks for up to half the pool in one call.
 */
static unsigned long ccache_free_enough(void)
{
	unsigned long pages = 0;
	int nid, z;

	for_each_online_node(nid) {
		for (z = 0; z < MAX_NR_ZONES; z++) {
			struct zone *zone = &NODE_DATA(nid)->node_zones[z];

			if (zone_managed_pages(zone))
				pages += high_wmark_pages(zone);
		}
	}
	return pages;
}

/* Pages the pool has taken from the system. */
static unsigned long ccache_pool_pages(void)
{
	return ccache_pool_bytes() >> PAGE_SHIFT;
}

/* Pages the pool gave back since it had @before. */
static unsigned long ccache_pool_gone(unsigned long before)
{
	return before - min(before, ccache_pool_pages());
}

/*
 * The shrinker works in pages of memory, not in entries: an entry holds a
 * fraction of a page, so reporting entries would make the pool shrink
 * faster, per byte, than the page cache it extends (zswap scales its count
 * the same way).  Entries are evicted until about nr_to_scan pages' worth
 * of compressed data is gone.
 */
static unsigned long ccache_shrink_count(struct shrinker *s,
					 struct shrink_control *sc)
{
	unsigned long n = ccache_stat_read(compressed_bytes) >> PAGE_SHIFT;
	unsigned long file = global_node_page_state(NR_ACTIVE_FILE) +
			     global_node_page_state(NR_INACTIVE_FILE);

	if (!n || ccache_fault(CCACHE_FAULT_SHRINKER) ||
	    file > totalram_pages() / CCACHE_SHRINK_FILE_SHARE ||
	    global_zone_page_state(NR_FREE_PAGES) >
	    totalram_pages() / CCACHE_SHRINK_FREE_SHARE)
		return SHRINK_EMPTY;
	return n;
}

static unsigned long ccache_shrink_scan(struct shrinker *s,
					struct shrink_control *sc)
{
	unsigned long stored = ccache_stat_read(stored_pages);
	unsigned long bytes = ccache_stat_read(compressed_bytes);
	unsigned long before, nr, n, looked;

	if (!stored || !bytes ||
	    global_zone_page_state(NR_FREE_PAGES) > ccache_free_enough())
		return SHRINK_STOP;
	before = ccache_pool_pages();
	/*
	 * Entries per page of compressed data.  Twice as many are looked
	 * at, second chances included, so that a scan of the whole pool,
	 * which the kernel asks for when reclaim is desperate, frees every
	 * entry that had one chance: looking at only nr_to_scan entries
	 * (list_lru_walk()'s convention) lets a pool of new entries give
	 * nothing back, and the OOM killer fire.
	 */
	nr = max(sc->nr_to_scan * stored / max(bytes >> PAGE_SHIFT, 1UL), 1UL);
	n = ccache_lru_evict(nr, 2 * nr, &looked, CCACHE_EVICT_SHRINKER);
	ccache_stat_add(shrinker_frees, n);
	/*
	 * The pages the pool gave back are reclaim's progress: reclaim
	 * counts only its LRUs' and slab's pages, and with the page cache
	 * at the floor above, a reclaimer that sees none lowers its priority
	 * until it asks for most of the pool at once.
	 */
	ccache_account_reclaimed(ccache_pool_gone(before));
	/*
	 * Entries that lost their second chance were scanned all the same:
	 * SHRINK_STOP for them would make the kernel defer the whole scan
	 * (up to twice the pool) to the next call, which then frees that
	 * much in one go.  Stop only when there is nothing left to look at.
	 */
	if (!looked)
		return SHRINK_STOP;
	return n ? max(n * bytes / stored >> PAGE_SHIFT, 1UL) : 0;
}

/*
 * The last resort: the out-of-memory killer asks its notifiers before it
 * picks a victim, and goes back to reclaim instead when they freed
 * something.  A cache must never cost a process its life, yet the
 * shrinker can decline until then (the file LRU share above counts pages
 * that reclaim could not take).  So every entry goes, second chances or
 * not, a batch at a time (each hold of the lock bounded as every
 * eviction's is) to keep interrupts on in between; marks on files stay.
 */

static int ccache_oom_notify(struct notifier_block *nb, unsigned long unused,
			     void *freed)
{
	unsigned long before = ccache_pool_pages();
	unsigned long left = ccache_stat_read(entries);
	unsigned long n, looked, total = 0, gone;

	/* no further than the entries there are now: captures go on */
	do {
		n = ccache_lru_evict(CCACHE_LOCK_BATCH, 4 * CCACHE_LOCK_BATCH,
				     &looked, CCACHE_EVICT_SHRINKER);
		total += n;
		cond_resched();
	} while (looked && total < left);
	ccache_stat_add(shrinker_frees, total);
	gone = ccache_pool_gone(before);
	*(unsigned long *)freed += gone;
	if (total)
		pr_info_ratelimited("out of memory: dropped %lu entries, %lu KiB\n",
				    total, gone << (PAGE_SHIFT - 10));
	return NOTIFY_OK;
}

static struct notifier_block ccache_oom_nb = {
	.notifier_call = ccache_oom_notify,
};

/**
 * ccache_lru_init() - start enforcing the pool's limit
 *
 * Allocates the table of refused pages, starts the sizing worker, and
 * lets the kernel ask for memory back (the shrinker and the out-of-memory
 * notifier).  They free entries, so this runs once the store exists, and
 * ccache_lru_exit() before the store goes.
 *
 * Return: 0 or -ENOMEM.
 */
int ccache_lru_init(void)
{
	unsigned long slots = max(totalram_pages() / CCACHE_REFUSED_SHARE,
				  CCACHE_REFUSED_MIN);
	int err = -ENOMEM;

	slots = roundup_pow_of_two(slots);
	ccache_refused = kvcalloc(slots, sizeof(*ccache_refused), GFP_KERNEL);
	if (!ccache_refused)
		return -ENOMEM;
	ccache_refused_mask = slots - 1;
	ccache_shrinker = ccache_shrinker_create(ccache_shrink_count,
						 ccache_shrink_scan,
						 DEFAULT_SEEKS, "ccache");
	if (!ccache_shrinker)
		goto fail;
	err = register_oom_notifier(&ccache_oom_nb);
	if (!err) {
		schedule_delayed_work(&ccache_sizing_worker,
				      CCACHE_SIZING_PERIOD);
		return 0;
	}
	ccache_shrinker_destroy(ccache_shrinker);
fail:
	kvfree(ccache_refused);
	return err;
}

/**
 * ccache_lru_exit() - stop enforcing the pool's limit: stop the sizing
 * worker, unregister the shrinker and the out-of-memory notifier, waiting
 * for running calls, and free the table of refused pages
 */
void ccache_lru_exit(void)
{
	cancel_delayed_work_sync(&ccache_sizing_worker);
	unregister_oom_notifier(&ccache_oom_nb);
	ccache_shrinker_destroy(ccache_shrinker);
	kvfree(ccache_refused);
}
