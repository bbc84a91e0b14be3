// SPDX-License-Identifier: GPL-2.0
/*
 * Sizing: how much memory the pool should hold, decided from what the
 * memory it takes would do in either cache.
 *
 * Every byte the pool holds is a byte the page cache lacks.  A byte in the
 * pool holds PAGE_SIZE / b pages' worth of data (b: the bytes a stored
 * page takes, its compressed object and metadata); a byte of page cache
 * holds 1 / PAGE_SIZE of a page, but of any page: the filesystems'
 * metadata, files ccache does not cache, and data that does not compress,
 * none of which the pool can keep.  Which use is worth more depends on
 * the workload, and changes with it, so no fixed max_pool_percent is right
 * for all: a streaming re-read needs the pool to hold on, a server of many
 * small files needs the page cache to keep its metadata.
 *
 * The policy weighs the two by the disk reads each would have saved, as
 * the adaptive compressed caches of Wilson, Kaplan and Smaragdakis (USENIX
 * ATC 1999) and ARC's ghost lists do, with the signals a module has:
 *
 * - ghost hits: reads from the disk of pages the pool refused or evicted
 *   recently.  A larger pool would have served them.  The pages are
 *   remembered by their ccache_page_tag() in a direct-mapped table (one
 *   slot per CCACHE_GHOST_SHARE pages of RAM; a newer ghost overwrites an
 *   older one), so a ghost hit means "evicted within about the last that
 *   many pages the pool let go".
 * - other refaults: the kernel counts every file page read again after
 *   its eviction (WORKINGSET_REFAULT_FILE, metadata included).  Less the
 *   pages the pool served (hits) and every page of a cached filesystem
 *   read from the disk (serve.c sees them all), what is left are refaults
 *   of pages the pool cannot hold at all: the filesystems' metadata, files
 *   of other filesystems.  Only a larger page cache saves those.  Data
 *   pages read again long after the pool let them go (beyond the ghosts'
 *   memory) count on neither side: the pool holds more of them per byte
 *   than the page cache, and a first version that counted them against
 *   the pool emptied it in make bench-web's random fio job, whose re-reads
 *   the fixed pool served.
 *
 * Every CCACHE_SIZING_PERIOD the target moves by one page of memory per
 * other refault (towards the page cache) and by PAGE_SIZE / b pages per
 * ghost hit (towards the pool): each side gains in proportion to the disk
 * reads it would have saved per byte, so the target settles where a byte
 * saves as much in either cache.  It stays within [0, max_pool_percent],
 * starts at the top (today's fixed pool: a first pass over data that will
 * be read again has nothing to show yet), and the pool gives back what it
 * holds above the target at once (lru.c).
 *
 * The count of other refaults is low when files are read for the first
 * time (those reads are subtracted although they are no refaults), so a
 * pool takes the memory of the page cache's metadata only while ghost
 * hits show it earns it.
 *
 * pool_sizing=fixed keeps the target at max_pool_percent (the policy
 * before this one).  Only the sizing worker (lru.c) updates the target;
 * readers and the publish worker read it with READ_ONCE().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/slab.h>
#include <linux/vmstat.h>

#include "ccache.h"
#include "store.h"
#include "trace.h"

#define CCACHE_GHOST_SHARE 1
#define CCACHE_GHOST_MIN 4096UL

static u32 *ccache_ghosts;		/* ccache_page_tag()s, 0: none */
static unsigned long ccache_ghosts_mask;	/* slots - 1, a power of 2 */

static unsigned long ccache_target;	/* bytes; ULONG_MAX: not set yet */

/* Pages of files ccache caches that were read from the disk. */
static atomic_long_t ccache_data_reads = ATOMIC_LONG_INIT(0);

/* The counters as the last update saw them. */
static struct {
	unsigned long refaults, hits, ghost_hits, data_reads;
} ccache_sizing_seen;

static unsigned long ccache_refaults(void)
{
	return global_node_page_state(WORKINGSET_REFAULT_FILE);
}

/**
 * ccache_ghost_record() - remember a page the pool refused or evicted
 * @tag: its ccache_page_tag()
 *
 * Context: any; no lock needed (a racing update loses one ghost).
 */
void ccache_ghost_record(u32 tag)
{
	WRITE_ONCE(ccache_ghosts[tag & ccache_ghosts_mask], tag);
}

/**
 * ccache_ghost_hit() - count a read from the disk of a page ccache could
 * have held, and whether the pool let it go recently
 * @tag: ccache_page_tag() of a page of a cached filesystem that the store
 *	did not serve
 *
 * A ghost counts once: it is forgotten when it is hit.
 *
 * Context: any; no lock needed.
 */
void ccache_ghost_hit(u32 tag)
{
	u32 *slot = &ccache_ghosts[tag & ccache_ghosts_mask];

	atomic_long_inc(&ccache_data_reads);
	if (tag && READ_ONCE(*slot) == tag) {
		WRITE_ONCE(*slot, 0);
		ccache_stat_inc(ghost_hits);
	}
}

/** ccache_sizing_bytes() - Return: the memory the ghost table takes. */
unsigned long ccache_sizing_bytes(void)
{
	return (ccache_ghosts_mask + 1) * sizeof(*ccache_ghosts);
}

/**
 * ccache_sizing_goal() - how much the pool may hold now
 * @limit: max_pool_percent of RAM, in bytes
 *
 * Return: @limit with pool_sizing=fixed, else the target within it.
 */
unsigned long ccache_sizing_goal(unsigned long limit)
{
	if (!ccache_param_pool_sizing_auto())
		return limit;
	return min(READ_ONCE(ccache_target), limit);
}

/**
 * ccache_pool_target_bytes() - Return: the target (sysfs pool_target_bytes)
 *
 * With pool_sizing=fixed, max_pool_percent of RAM.
 */
unsigned long ccache_pool_target_bytes(void)
{
	return ccache_sizing_goal(ccache_param_max_pool_bytes());
}

/* @delta, counted since the last update, and the new last value in @seen */
static unsigned long ccache_since(unsigned long now, unsigned long *seen)
{
	unsigned long delta = now - *seen;

	*seen = now;
	return delta;
}

/**
 * ccache_sizing_update() - move the target by what happened since the last
 * call (see the top of this file)
 * @limit: max_pool_percent of RAM, in bytes
 * @used: what the pool holds now (ccache_pool_used())
 * @stored: the pages it holds
 *
 * Context: the sizing worker only, every CCACHE_SIZING_PERIOD.
 * Return: the new target, in bytes.
 */
unsigned long ccache_sizing_update(unsigned long limit, unsigned long used,
				   unsigned long stored)
{
	unsigned long refaults, hits, ghost_hits, data, other, per_page, old;
	unsigned long target = READ_ONCE(ccache_target), grow;

	refaults = ccache_since(ccache_refaults(), &ccache_sizing_seen.refaults);
	hits = ccache_since(ccache_stat_read(hits), &ccache_sizing_seen.hits);
	ghost_hits = ccache_since(ccache_stat_read(ghost_hits),
				  &ccache_sizing_seen.ghost_hits);
	data = ccache_since(atomic_long_read(&ccache_data_reads),
			    &ccache_sizing_seen.data_reads);
	/* refaults of pages the pool cannot hold: neither served nor data */
	other = refaults > hits + data ? refaults - hits - data : 0;
	ccache_stat_add(other_refaults, other);

	/* fixed, or the first call: the top (fixed -> auto starts there) */
	if (!ccache_param_pool_sizing_auto() || target == ULONG_MAX)
		target = limit;
	old = target;
	/* the bytes a stored page takes; half a page until pages are stored */
	per_page = stored ? clamp(used / stored, 64UL, PAGE_SIZE) : PAGE_SIZE / 2;
	grow = ghost_hits * (PAGE_SIZE * PAGE_SIZE / per_page);
	if (grow >= other * PAGE_SIZE)
		target = min(limit, target + (grow - other * PAGE_SIZE));
	else
		target -= min(target, other * PAGE_SIZE - grow);
	target = min(target, limit);
	WRITE_ONCE(ccache_target, target);
	if (target != old || ghost_hits || other)
		trace_ccache_pool_target(old, target, used, hits, ghost_hits,
					 other);
	return target;
}

/**
 * ccache_sizing_init() - allocate the ghost table
 *
 * Return: 0 or -ENOMEM.
 */
int ccache_sizing_init(void)
{
	unsigned long slots = max(totalram_pages() / CCACHE_GHOST_SHARE,
				  CCACHE_GHOST_MIN);

	slots = roundup_pow_of_two(slots);
	ccache_ghosts = kvcalloc(slots, sizeof(*ccache_ghosts), GFP_KERNEL);
	if (!ccache_ghosts)
		return -ENOMEM;
	ccache_ghosts_mask = slots - 1;
	ccache_target = ULONG_MAX;
	ccache_sizing_seen.refaults = ccache_refaults();
	ccache_sizing_seen.hits = ccache_stat_read(hits);
	ccache_sizing_seen.ghost_hits = ccache_stat_read(ghost_hits);
	ccache_sizing_seen.data_reads = atomic_long_read(&ccache_data_reads);
	return 0;
}

/** ccache_sizing_exit() - free the ghost table; nothing may use it now */
void ccache_sizing_exit(void)
{
	kvfree(ccache_ghosts);
}
