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
 *   many pages the pool let go".  Pages dropped because compression had
 *   no time for them (staging full, offload busy) are "slow" ghosts: a
 *   larger pool would not have kept them, so they do not raise the
 *   target; they raise compression's priority instead (below).  Once it
 *   can have no more CPU (offload_boost_percent at 0, the default, or
 *   its budget spent), those within the horizon (below) count as other
 *   refaults: the page cache would have kept them with the pool's
 *   memory, and the pool could not.  Nor do
 *   ghost hits within the horizon (below, near_ghost_hits), and they do
 *   not lower it either: a page cache with the pool's memory would have
 *   kept those pages, and so would a pool of this size holding what the
 *   workload reads now instead of what it read before.  They show the
 *   pool holds the wrong pages, not too few; ccache_sizing_replacing()
 *   acts on that.
 * - other refaults: pages that reclaim evicted, that were read from the
 *   disk again, and that came back soon enough that a page cache larger
 *   by the pool's memory would have kept them: the filesystems' metadata,
 *   files of other filesystems, and data of cached filesystems that the
 *   pool did not keep (it left no ghost: poor compression, a policy
 *   refusal, or a ghost overwritten).  ARC's other ghost list, measured as
 *   mm/workingset.c measures refault distances: an eviction clock counts
 *   the pages reclaim evicts; each evicted page leaves its tag and the
 *   clock in a second direct-mapped table; when the page comes back (the
 *   page cache's add tracepoint; for a cached filesystem's data, serve.c
 *   when it goes to the disk), the clock's advance since its eviction is
 *   its distance, and a distance within what the pool holds (in pages of
 *   page cache) is a page the pool's memory would have kept.  So the pool
 *   is charged only for the page cache it takes: an empty pool is charged
 *   nothing, and refaults from far beyond it (a test's sweep of its whole
 *   disk) are not counted.  A page written after its eviction comes back
 *   too without a read, so the count of pages other than a cached
 *   filesystem's data is capped by the disk reads that are not such data
 *   (PGPGIN, every block device, less those data pages).
 *
 * The pool's own hits are weighed the same way: a hit within the horizon
 * (near_hits) is a page the page cache would have served with the pool's
 * memory.  It saves no disk read, and it costs a decompression and, when
 * the page leaves the page cache again, a capture and a compression: what
 * the pool adds beyond the page cache's memory is CPU time, which the
 * servers that read such pages most are short of.  So a near hit counts
 * against the pool as an other refault does: a pool that mostly serves
 * near hits gives its memory back to the page cache, and the hits it has
 * left are far ones (Documentation/design.rst, "Sizing", "Near hits").
 *
 * Pages are not the only price: a hit's decompression runs in the reading
 * task and takes CPU time, and a disk read it saves is worth something
 * only if the CPUs would have waited for it with nothing else to run.
 * Wilson, Kaplan and Smaragdakis weigh disk time saved against
 * (de)compression time spent; a server with many connections overlaps
 * its disk reads with other requests' work, so what a saved read is worth
 * depends on whether the CPUs or the disk are the bottleneck.  So each
 * period also compares the time the pool's decompressions took with the
 * CPU time nobody wanted (idle and iowait, and what the SCHED_IDLE
 * compression threads ran, which no other task wanted either).  When the
 * decompressions took more (cpu_bound_periods), the CPUs were the
 * bottleneck: the disk reads the pool saved were not waited for, and the
 * decompressions came out of the workload's time.  Such a period counts
 * every hit against the pool as a near hit, and no ghost hit for it: a
 * server whose CPUs are saturated gives the pool's memory back to the page
 * cache, whose hits cost no decompression.  A task reading alone (a
 * streaming re-read) leaves the other CPUs idle or compressing, so its
 * periods are not CPU-bound (Documentation/design.rst, "CPU-bound
 * periods").
 *
 * The kernel's own refault counter (WORKINGSET_REFAULT_FILE) cannot serve:
 * it counts every refault whatever its distance, and a first version that
 * took it (less hits and data reads) emptied the pool in a coherence test
 * whose memory pressure re-reads its disk while the pool served well
 * (Documentation/design.rst, "Sizing").
 *
 * Every CCACHE_SIZING_PERIOD the target moves by one page of memory per
 * other refault or near hit (towards the page cache) and by PAGE_SIZE / b
 * pages per ghost hit beyond the horizon (towards the pool), hits and
 * ghost hits counted as above in a CPU-bound period: each side
 * gains in proportion to the disk reads it would have saved per byte, so
 * the target settles where a byte saves as much in either cache.  It stays within [0,
 * max_pool_percent], starts at the top (today's fixed pool: a first pass
 * over data that will be read again has nothing to show yet), and the pool
 * gives back what it holds above the target at once (lru.c).
 *
 * What the pool holds matters as much as how much: see "Idle entries"
 * below for the pages a full pool lets go of.
 *
 * pool_sizing=fixed keeps the target at max_pool_percent (the policy
 * before this one).  Only the sizing worker (lru.c) updates the target;
 * readers and the publish worker read it with READ_ONCE().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blk_types.h>
#include <linux/jiffies.h>
#include <linux/kernel_stat.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/tick.h>
#include <linux/tracepoint.h>
#include <linux/vmstat.h>

#include "ccache.h"
#include "store.h"
#include "trace.h"
#include "../spu-offload/kspu.h"

#define CCACHE_GHOST_SHARE 1
#define CCACHE_GHOST_MIN 4096UL

static u32 *ccache_ghosts;		/* ccache_page_tag()s, 0: none */
static unsigned long ccache_ghosts_mask;	/* slots - 1, a power of 2 */

/*
 * The page cache's ghosts: tag << 32 | the eviction clock's low 32 bits,
 * 0: none.  One slot per two pages of RAM: 4 bytes a page, as the pool's.
 */
#define CCACHE_CACHE_GHOST_SHARE 2
static u64 *ccache_cache_ghosts;
static unsigned long ccache_cache_ghosts_mask;

/* The eviction clock: pages reclaim evicted from the page cache. */
static atomic_long_t ccache_evictions = ATOMIC_LONG_INIT(0);

/* Pages of page cache the pool's memory would be: the refaults' horizon. */
static unsigned long ccache_horizon;

/*
 * Page-cache ghosts that came back within the horizon: pages of other
 * filesystems and metadata (counted when they come back), and pages of
 * cached filesystems read from the disk (counted by serve.c).
 */
static atomic_long_t ccache_cache_refaults = ATOMIC_LONG_INIT(0);
static atomic_long_t ccache_data_refaults = ATOMIC_LONG_INIT(0);

/*
 * Slow ghost hits within the horizon: pages the pool's memory as page
 * cache would have kept, dropped because compression had no time for them.
 */
static atomic_long_t ccache_slow_near_hits = ATOMIC_LONG_INIT(0);

/* Ghost hits neither slow nor near: what a larger pool would have saved. */
static atomic_long_t ccache_far_ghost_hits = ATOMIC_LONG_INIT(0);
/*
 * Ghost hits near but not slow: pages the pool's memory as page cache
 * would have kept, refused for what the pool held instead.
 */
static atomic_long_t ccache_stale_ghost_hits = ATOMIC_LONG_INIT(0);

static struct tracepoint *ccache_delete_tp, *ccache_add_tp;

static unsigned long ccache_target;	/* bytes; ULONG_MAX: not set yet */
static bool ccache_replacing;		/* ccache_sizing_replacing() */
/*
 * Its inputs, averaged, and whether the last period was already auto's:
 * ccache_sizing_replace_update().
 */
static struct {
	unsigned long stale, hits;
	bool auto_seen;
} ccache_replace_avg;

/*
 * Idle entries.  A full pool refuses new pages rather than evicting its
 * oldest (lru.c): a pass over more data than it holds then keeps its first
 * pages, which the next pass reads first.  But a pool filled by one
 * workload keeps that workload's pages when the next one comes (a server
 * moving to another data set): its entries are then never read again while
 * the new pages it refuses are.  The two look alike while the new pages
 * stream in; they differ in which entries the hits go to.  So each entry
 * carries its generation, the eviction clock at its capture in units of
 * 1/CCACHE_GEN_SHARE of RAM (a byte: 256 generations are about
 * 256/CCACHE_GEN_SHARE RAMs of evictions; older entries look young again,
 * and are then kept as before), and each hit counts for its entry's
 * generation.  The counts halve every generation, so they show which
 * generations the workload reads now.  Entries older than a RAM of
 * evictions whose generations, together with every older one, drew at
 * most 1/CCACHE_IDLE_SHARE of the recent hits are idle, and so are all
 * entries older than a RAM while the pool serves fewer than one page per
 * CCACHE_IDLE_SHARE evictions and as few of the pages it let go come
 * back (ghost hits, less the slow ones): a full pool gives their place to
 * new pages (ccache_sizing_idle(), lru.c).  A first pass that has no hits
 * yet leaves its entries younger than a RAM alone; older ones go, and the
 * pool then holds the pass's last pages.  The second pass's first pages
 * come back as ghost hits, and from then on the pool refuses again and
 * serves the pages it kept when the pass reaches them, as it does each
 * pass after (Documentation/design.rst, "Idle entries").
 * pool_sizing=fixed calls no entry idle.
 */
#define CCACHE_GEN_SHARE 16
#define CCACHE_IDLE_SHARE 64
#define CCACHE_GENS 256

static atomic_long_t ccache_gen_hits[CCACHE_GENS];	/* by generation */
static atomic_long_t ccache_gen_ghosts;	/* ghost hits, less the slow ones */
static unsigned int ccache_gen_shift;	/* log2 of a generation's evictions */
static unsigned int ccache_gen_ram;	/* generations in a RAM of evictions */
/*
 * The youngest idle generation, as a count of generations since the clock
 * started: entries of it and older are idle.  Absolute, not an age: the
 * clock moves between two updates, and an age found at the last update
 * would then call idle the generation the hits go to now (in a loop, the
 * LRU's old end is where the next reads are).  Idle from an age of
 * ccache_gens() - ccache_idle_gen; CCACHE_GENS or more: none.
 */
static unsigned long ccache_idle_gen;
static unsigned long ccache_decay_gen;	/* clock >> shift at the last halving */

/* Pages of files ccache caches that were read from the disk. */
static atomic_long_t ccache_data_reads = ATOMIC_LONG_INIT(0);

/* The counters as the last update saw them. */
static struct {
	unsigned long cache_refaults, data_refaults, hits, near_hits;
	unsigned long stale_ghost_hits, far_ghost_hits, slow_near_hits;
	unsigned long data_reads, disk_reads;
	unsigned long spare_ns, idle_class_ns, decompress_ns;
} ccache_sizing_seen;

static bool ccache_boost_may_rise(void);

/*
 * Pages read from every block device (PGPGIN counts 512-byte sectors).
 * Context: process context; the sizing worker, or init before it starts
 * (the buffer is shared).
 */
static unsigned long ccache_disk_reads(void)
{
	static unsigned long events[NR_VM_EVENT_ITEMS];

	all_vm_events(events);
	return events[PGPGIN] >> (PAGE_SHIFT - SECTOR_SHIFT);
}

/* @delta, counted since the last update, and the new last value in @seen */
static unsigned long ccache_since(unsigned long now, unsigned long *seen)
{
	unsigned long delta = now - *seen;

	*seen = now;
	return delta;
}

/*
 * CPU time no task wanted, in ns since boot, over every possible CPU (an
 * offline one's does not move): idle, and idle while a task waited for
 * I/O.  With the tick running (nohz=off) the tick's accounting, as
 * /proc/stat.  Context: process context.
 */
static unsigned long ccache_spare_ns(void)
{
	unsigned long sum = 0;
	u64 idle, iowait;
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		idle = get_cpu_idle_time_us(cpu, NULL);
		iowait = get_cpu_iowait_time_us(cpu, NULL);
		if (idle == -1ULL || iowait == -1ULL)
			sum += kcpustat_cpu(cpu).cpustat[CPUTIME_IDLE] +
			       kcpustat_cpu(cpu).cpustat[CPUTIME_IOWAIT];
		else
			sum += (idle + iowait) * NSEC_PER_USEC;
	}
	return sum;
}

/*
 * Were the CPUs the bottleneck over the last period (see the top of this
 * file)?  Did the pool's decompressions take more CPU time than nobody
 * wanted: idle, iowait, and the SCHED_IDLE compression threads' time?
 * Context: the sizing worker.
 */
static bool ccache_sizing_cpu_bound(void)
{
	unsigned long spare, dec;

	spare = ccache_since(ccache_spare_ns(), &ccache_sizing_seen.spare_ns);
	spare += ccache_since(kspu_cpu_idle_ns(),
			      &ccache_sizing_seen.idle_class_ns);
	dec = ccache_since(kspu_decompress_ns(),
			   &ccache_sizing_seen.decompress_ns);
	return dec > spare;
}

/* The tag of @folio's first page. */
static u32 ccache_folio_tag(struct folio *folio)
{
	struct ccache_key key;

	ccache_key_of(folio->mapping->host, &key);
	return ccache_page_tag(&key, folio->index);
}

/*
 * A folio leaves the page cache: when reclaim evicts it, tick the clock
 * and leave a ghost.  A cacheable filesystem's data is looked up page by
 * page (ccache_ghost_hit(), ccache_sizing_served()) and may come back in
 * folios of another size (7.x ext4 reads files into large folios), so
 * each of its pages leaves a ghost; other files are looked up by their
 * folio's first page (added below), which alone leaves one.
 */
static void ccache_sizing_deleted(void *data, struct folio *folio)
{
	struct address_space *mapping = folio->mapping;
	long i, nr = folio_nr_pages(folio), ghosts;
	struct ccache_key key;
	unsigned long clock;
	u32 tag;

	if (!mapping || !mapping->host || !ccache_folio_reclaimed(folio))
		return;
	clock = atomic_long_add_return(nr, &ccache_evictions);
	ghosts = nr > 1 && !ccache_sb_cacheable(mapping->host->i_sb) ? 1 : nr;
	ccache_key_of(mapping->host, &key);
	for (i = 0; i < ghosts; i++) {
		tag = ccache_page_tag(&key, folio->index + i);
		WRITE_ONCE(ccache_cache_ghosts[tag & ccache_cache_ghosts_mask],
			   (u64)tag << 32 | (u32)clock);
	}
}

/*
 * Is @tag a page-cache ghost evicted within the horizon?  It is forgotten
 * once looked up.
 */
static bool ccache_cache_ghost_near(u32 tag)
{
	u64 *slot = &ccache_cache_ghosts[tag & ccache_cache_ghosts_mask];
	u64 ghost = READ_ONCE(*slot);
	u32 distance;

	if (ghost >> 32 != tag)
		return false;
	WRITE_ONCE(*slot, 0);
	/* u32 arithmetic: the clock's wrap does not matter */
	distance = (u32)atomic_long_read(&ccache_evictions) - (u32)ghost;
	return distance <= READ_ONCE(ccache_horizon);
}

/*
 * A folio comes to the page cache.  A cached filesystem's data may yet be
 * served by the pool: serve.c looks its ghost up when it goes to the disk
 * (ccache_ghost_hit()).
 */
static void ccache_sizing_added(void *data, struct folio *folio)
{
	struct address_space *mapping = folio->mapping;
	u32 tag;

	if (!mapping || !mapping->host)
		return;
	tag = ccache_folio_tag(folio);
	/* most insertions have no ghost: look before the filesystem check */
	if (READ_ONCE(ccache_cache_ghosts[tag & ccache_cache_ghosts_mask]) >> 32
	    != tag || ccache_mapping_allowed(mapping->host))
		return;
	if (ccache_cache_ghost_near(tag))
		atomic_long_add(folio_nr_pages(folio), &ccache_cache_refaults);
}

/**
 * ccache_ghost_record() - remember a page the pool refused or evicted
 * @tag: its ccache_page_tag()
 * @slow: compression had no time for it (staging full, offload busy)
 *
 * Tags are odd: a slow page's ghost is its tag with bit 0 clear.
 *
 * Context: any; no lock needed (a racing update loses one ghost).
 */
void ccache_ghost_record(u32 tag, bool slow)
{
	WRITE_ONCE(ccache_ghosts[tag & ccache_ghosts_mask],
		   slow && tag != 1 ? tag & ~1U : tag);
}

/**
 * ccache_ghost_hit() - count a read from the disk of a page ccache could
 * have held, whether the pool let it go recently, and whether the page
 * cache would have kept it with the pool's memory
 * @tag: ccache_page_tag() of a page of a cached filesystem that the store
 *	did not serve
 *
 * A ghost counts once: it is forgotten when it is hit.
 *
 * Context: any; no lock needed.
 */
void ccache_ghost_hit(u32 tag)
{
	u32 *slot = &ccache_ghosts[tag & ccache_ghosts_mask], ghost;
	bool near = ccache_cache_ghost_near(tag);

	atomic_long_inc(&ccache_data_reads);
	ghost = READ_ONCE(*slot);
	if (!ghost || (ghost | 1) != tag) {
		if (near)
			atomic_long_inc(&ccache_data_refaults);
		return;
	}
	WRITE_ONCE(*slot, 0);
	ccache_stat_inc(ghost_hits);
	if (near)
		ccache_stat_inc(near_ghost_hits);
	if (!(ghost & 1)) {
		ccache_stat_inc(slow_ghost_hits);
		if (near)
			atomic_long_inc(&ccache_slow_near_hits);
		return;
	}
	atomic_long_inc(&ccache_gen_ghosts);
	if (near)
		atomic_long_inc(&ccache_stale_ghost_hits);
	else
		atomic_long_inc(&ccache_far_ghost_hits);
}

/**
 * ccache_sizing_served() - count pages the pool served that the page cache
 * would have kept with the pool's memory (near_hits)
 * @key: their file
 * @index: the first one's index
 * @nr: how many
 *
 * Context: any; no lock needed.
 */
void ccache_sizing_served(const struct ccache_key *key, pgoff_t index,
			  unsigned int nr)
{
	while (nr--)
		if (ccache_cache_ghost_near(ccache_page_tag(key, index++)))
			ccache_stat_inc(near_hits);
}

/** ccache_sizing_bytes() - Return: the memory the ghost tables take. */
unsigned long ccache_sizing_bytes(void)
{
	return (ccache_ghosts_mask + 1) * sizeof(*ccache_ghosts) +
	       (ccache_cache_ghosts_mask + 1) * sizeof(*ccache_cache_ghosts);
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
 * ccache_sizing_replacing() - should a full pool take new pages in place
 * of its oldest entries?
 *
 * A full pool refuses new pages (lru.c): a pass over more data than it
 * holds then keeps its first pages, which are read again first, instead
 * of losing each page before it is read again.  Once the workload moves
 * on, that keeps what it no longer reads: the pool then serves few pages
 * while the pages it refused are read from the disk soon after, within
 * the horizon, where a page cache with the pool's memory would have kept
 * them.  So while more such pages are read (ghost hits within the
 * horizon, less the slow ones) than the pool serves, averaged over the
 * last few periods, new pages replace its oldest entries, as in an LRU
 * cache.  Ghost hits from beyond the horizon do not count: they are what a
 * pass over more data than the cache gives, where replacing would evict
 * each page before it is read again (Documentation/design.rst, "Sizing").
 * Once both averages have decayed to nothing the decision stands.
 *
 * Return: true while they should (pool_sizing=auto only).
 */
bool ccache_sizing_replacing(void)
{
	return READ_ONCE(ccache_replacing);
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

/*
 * ccache_sizing_replace_update() - decide ccache_sizing_replacing() from
 * the last period's @stale ghost hits and @hits (Context: the sizing
 * worker).  Each side is a moving average that halves every period, so
 * the tail of one pass (its last pages served, the next pass's ghost hits
 * not yet come) does not undo what the periods before it showed.  Once
 * both have decayed to nothing the decision stands.
 *
 * Only what auto itself saw counts.  Under pool_sizing=fixed the pool
 * never replaces, so its ghost hits say nothing of a pool that would have:
 * a switch to auto starts from clean averages and from not replacing, and
 * drops its first period, which was partly fixed's.
 */
static void ccache_sizing_replace_update(unsigned long stale,
					 unsigned long hits)
{
	if (!ccache_param_pool_sizing_auto() || !ccache_replace_avg.auto_seen) {
		ccache_replace_avg.stale = 0;
		ccache_replace_avg.hits = 0;
		ccache_replace_avg.auto_seen = ccache_param_pool_sizing_auto();
		WRITE_ONCE(ccache_replacing, false);
		return;
	}
	ccache_replace_avg.stale = ccache_replace_avg.stale / 2 + stale;
	ccache_replace_avg.hits = ccache_replace_avg.hits / 2 + hits;
	if (ccache_replace_avg.stale || ccache_replace_avg.hits)
		WRITE_ONCE(ccache_replacing,
			   ccache_replace_avg.stale > ccache_replace_avg.hits);
}

/* Generations since the clock started; an entry keeps the low byte. */
static unsigned long ccache_gens(void)
{
	return (unsigned long)atomic_long_read(&ccache_evictions) >>
	       ccache_gen_shift;
}

/**
 * ccache_sizing_gen() - Return: the generation an entry captured now gets
 *
 * Context: any.
 */
u8 ccache_sizing_gen(void)
{
	return ccache_gens();
}

/**
 * ccache_sizing_hit() - count a hit for the generation of the entry served
 * @gen: the entry's ->gen
 *
 * Context: any; no lock needed.
 */
void ccache_sizing_hit(u8 gen)
{
	atomic_long_inc(&ccache_gen_hits[gen]);
}

/**
 * ccache_sizing_idle() - is an entry of generation @gen idle (see "Idle
 * entries" above)?
 * @gen: the entry's ->gen
 *
 * Context: any.
 * Return: true if a full pool should let it go for a new page.
 */
bool ccache_sizing_idle(u8 gen)
{
	unsigned long now = ccache_gens();

	return ccache_param_pool_sizing_auto() &&
	       (u8)(now - gen) >= now - READ_ONCE(ccache_idle_gen);
}

/**
 * ccache_sizing_some_idle() - Return: whether any entry may be idle now
 * (a full pool need not look at its LRU otherwise)
 *
 * Context: any.
 */
bool ccache_sizing_some_idle(void)
{
	return ccache_param_pool_sizing_auto() &&
	       ccache_gens() - READ_ONCE(ccache_idle_gen) < CCACHE_GENS;
}

/* Halve @count @halvings times; Return: what it holds then. */
static unsigned long ccache_halve(atomic_long_t *count, unsigned int halvings)
{
	long n = atomic_long_read(count);

	if (halvings)
		atomic_long_sub(n - (n >> halvings), count);
	return n >> halvings;
}

/*
 * Halve the hit counts for each generation the clock advanced, then find
 * the age from which entries are idle.  Context: the sizing worker.
 */
static void ccache_sizing_idle_update(void)
{
	unsigned long gens = ccache_gens(), few = 2UL << ccache_gen_shift;
	unsigned long total = 0, older = 0, ghosts;
	u8 now = gens;
	unsigned int age, g, halvings;

	halvings = min(gens - ccache_decay_gen, BITS_PER_LONG - 1UL);
	if (halvings)
		ccache_decay_gen = gens;
	for (g = 0; g < CCACHE_GENS; g++)
		total += ccache_halve(&ccache_gen_hits[g], halvings);
	ghosts = ccache_halve(&ccache_gen_ghosts, halvings);
	/*
	 * The counts hold about two generations' (@few evictions') worth.  A
	 * pool barely read holds nothing the workload reads, unless the
	 * pages it let go come back: then it is between two passes of a
	 * loop, whose next one reads what it kept.
	 */
	if (total * CCACHE_IDLE_SHARE < few) {
		age = ghosts * CCACHE_IDLE_SHARE < few ? ccache_gen_ram - 1 :
							 CCACHE_GENS - 1;
	} else {
		/* from the oldest: the youngest age whose hits and older are few */
		for (age = CCACHE_GENS - 1; age >= ccache_gen_ram; age--) {
			older += atomic_long_read(&ccache_gen_hits[(u8)(now - age)]);
			if (older * CCACHE_IDLE_SHARE > total)
				break;
		}
	}
	/* pool_sizing=fixed is checked where this is read */
	WRITE_ONCE(ccache_idle_gen, gens - (age + 1));
}

/*
 * The target after a period with @far ghost hits beyond the horizon and
 * @other refaults of the page cache and near hits, from @target, within
 * @limit; @used bytes hold @stored pages.
 */
static unsigned long ccache_sizing_move(unsigned long target,
					unsigned long limit, unsigned long used,
					unsigned long stored, unsigned long far,
					unsigned long other)
{
	unsigned long per_page, grow;

	/* the bytes a stored page takes; half a page until pages are stored */
	per_page = stored ? clamp(used / stored, 64UL, PAGE_SIZE) : PAGE_SIZE / 2;
	grow = far * (PAGE_SIZE * PAGE_SIZE / per_page);
	if (grow >= other * PAGE_SIZE)
		return min(limit, target + (grow - other * PAGE_SIZE));
	return min(limit, target - min(target, other * PAGE_SIZE - grow));
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
	unsigned long hits, near, far, data, disk, other, old, stale, slow;
	unsigned long target = READ_ONCE(ccache_target), against;
	bool was_replacing = ccache_replacing;
	bool fixed = !ccache_param_pool_sizing_auto();
	bool cpu_bound = ccache_sizing_cpu_bound();

	other = ccache_since(atomic_long_read(&ccache_cache_refaults),
			     &ccache_sizing_seen.cache_refaults);
	hits = ccache_since(ccache_stat_read(hits), &ccache_sizing_seen.hits);
	near = ccache_since(ccache_stat_read(near_hits),
			    &ccache_sizing_seen.near_hits);
	far = ccache_since(atomic_long_read(&ccache_far_ghost_hits),
			   &ccache_sizing_seen.far_ghost_hits);
	stale = ccache_since(atomic_long_read(&ccache_stale_ghost_hits),
			     &ccache_sizing_seen.stale_ghost_hits);
	data = ccache_since(atomic_long_read(&ccache_data_reads),
			    &ccache_sizing_seen.data_reads);
	disk = ccache_since(ccache_disk_reads(), &ccache_sizing_seen.disk_reads);
	/* only those read from a disk: not pages written after eviction */
	other = min(other, disk > data ? disk - data : 0);
	/* data pages read from the disk that the page cache would have kept */
	other += ccache_since(atomic_long_read(&ccache_data_refaults),
			      &ccache_sizing_seen.data_refaults);
	/* and those compression had no time for, if it can have no more */
	slow = ccache_since(atomic_long_read(&ccache_slow_near_hits),
			    &ccache_sizing_seen.slow_near_hits);
	if (!ccache_boost_may_rise())
		other += slow;
	ccache_stat_add(other_refaults, other);
	/* near hits, and in a CPU-bound period every hit and no ghost hit */
	against = other + near;
	if (cpu_bound) {
		ccache_stat_inc(cpu_bound_periods);
		against = other + max(hits, near);
	}
	WRITE_ONCE(ccache_horizon, used >> PAGE_SHIFT);
	ccache_sizing_replace_update(stale, hits);
	ccache_sizing_idle_update();

	/*
	 * fixed, or the first call: the top (fixed -> auto starts there).
	 * Fixed stays there: the sizing worker evicts down to what this
	 * returns, and a fixed pool that moved with a period's refaults
	 * emptied itself under the memory pressure of its own fill.
	 */
	if (fixed || target == ULONG_MAX)
		target = limit;
	old = target;
	if (!fixed)
		target = ccache_sizing_move(target, limit, used, stored,
					    cpu_bound ? 0 : far, against);
	WRITE_ONCE(ccache_target, target);
	if (target != old || far || other || was_replacing != ccache_replacing)
		trace_ccache_pool_target(old, target, used, hits, near, far,
					 other, cpu_bound, ccache_replacing);
	return target;
}

/*
 * Compression's CPU.  The cpu backend's threads run at SCHED_IDLE: on busy
 * CPUs they may not keep up, and pages are dropped (staging full, offload
 * busy) that the pool would have kept.  When such pages are read again
 * from the disk (slow ghost hits), compression was worth more than the
 * cycles it lacked: each period with slow ghost hits raises the threads
 * one level (kspu_cpu_boost(): nice 19, 10, then 0), as long as their CPU
 * time over the period stayed within offload_boost_percent of one CPU.  A
 * period over the budget lowers them one level, and they are raised again
 * only CCACHE_BOOST_HOLD periods later: the next level's time is not known
 * until it runs, and without the wait the level would flip every period,
 * over the budget every other one.  After CCACHE_BOOST_HOLD periods
 * without a slow ghost hit they go back to their configured priority.
 * While they can be raised no further, slow ghost hits within the horizon
 * count against the pool instead (the top of this file).
 * Only the sizing worker calls ccache_sizing_offload().
 */
#define CCACHE_BOOST_HOLD 10

static struct {
	unsigned long slow_hits, busy_ns;
	unsigned int quiet;	/* periods since the last slow ghost hit */
	unsigned int cool;	/* periods since the last lowering for the budget */
	unsigned int level;	/* kspu_cpu_boost()'s */
} ccache_boost = { .quiet = CCACHE_BOOST_HOLD, .cool = CCACHE_BOOST_HOLD };

/*
 * Can compression still be given more CPU?  Not with no budget (the
 * default), at the top level, or while a lowering for the budget holds.
 */
static bool ccache_boost_may_rise(void)
{
	return ccache_param_offload_boost_percent() &&
	       ccache_boost.level < KSPU_CPU_BOOST_MAX &&
	       ccache_boost.cool >= CCACHE_BOOST_HOLD;
}

/**
 * ccache_sizing_offload() - raise or lower compression's priority by what
 * happened since the last call (see above)
 *
 * Context: the sizing worker only, every CCACHE_SIZING_PERIOD.
 */
void ccache_sizing_offload(void)
{
	unsigned long slow, busy;
	u64 budget;

	slow = ccache_since(ccache_stat_read(slow_ghost_hits),
			    &ccache_boost.slow_hits);
	busy = ccache_since(kspu_cpu_busy_ns(), &ccache_boost.busy_ns);
	budget = div_u64((u64)ccache_param_offload_boost_percent() *
			 jiffies_to_nsecs(CCACHE_SIZING_PERIOD), 100);
	if (slow)
		ccache_boost.quiet = 0;
	else if (ccache_boost.quiet < CCACHE_BOOST_HOLD)
		ccache_boost.quiet++;
	if (ccache_boost.cool < CCACHE_BOOST_HOLD)
		ccache_boost.cool++;
	if (ccache_boost.quiet >= CCACHE_BOOST_HOLD || !budget) {
		ccache_boost.level = 0;
	} else if (busy > budget) {
		if (ccache_boost.level)
			ccache_boost.level--;
		ccache_boost.cool = 0;
	} else if (slow && ccache_boost_may_rise()) {
		ccache_boost.level++;
	}
	if (kspu_cpu_boost(ccache_boost.level))
		ccache_stat_add(offload_boost_secs, CCACHE_SIZING_PERIOD / HZ);
}

/* Allocate a table of 1 << order(@slots) slots of @size bytes; *@mask. */
static void *ccache_ghost_table(unsigned long slots, size_t size,
				unsigned long *mask)
{
	slots = roundup_pow_of_two(max(slots, CCACHE_GHOST_MIN));
	*mask = slots - 1;
	return kvcalloc(slots, size, GFP_KERNEL);
}

/**
 * ccache_sizing_init() - allocate the ghost tables and start watching the
 * page cache
 *
 * Return: 0, or a negative errno with the reason logged.
 */
int ccache_sizing_init(void)
{
	int err = -ENOMEM;
	unsigned int i;

	ccache_delete_tp = ccache_tracepoint(CCACHE_DELETE_TP);
	ccache_add_tp = ccache_tracepoint(CCACHE_ADD_TP);
	if (!ccache_delete_tp || !ccache_add_tp)
		return -ENOENT;
	ccache_ghosts = ccache_ghost_table(totalram_pages() / CCACHE_GHOST_SHARE,
					   sizeof(*ccache_ghosts),
					   &ccache_ghosts_mask);
	ccache_cache_ghosts =
		ccache_ghost_table(totalram_pages() / CCACHE_CACHE_GHOST_SHARE,
				   sizeof(*ccache_cache_ghosts),
				   &ccache_cache_ghosts_mask);
	if (!ccache_ghosts || !ccache_cache_ghosts)
		goto fail;
	ccache_target = ULONG_MAX;
	ccache_horizon = 0;
	ccache_gen_shift = ilog2(max(totalram_pages() / CCACHE_GEN_SHARE, 1UL));
	ccache_gen_ram = min(DIV_ROUND_UP(totalram_pages(),
					  1UL << ccache_gen_shift),
			     CCACHE_GENS - 1UL);
	ccache_idle_gen = ccache_gens() - CCACHE_GENS;
	ccache_decay_gen = ccache_gens();
	for (i = 0; i < CCACHE_GENS; i++)
		atomic_long_set(&ccache_gen_hits[i], 0);
	atomic_long_set(&ccache_gen_ghosts, 0);
	ccache_replace_avg.stale = 0;
	ccache_replace_avg.hits = 0;
	/* counted from here on: a load with auto has no fixed period */
	ccache_replace_avg.auto_seen = ccache_param_pool_sizing_auto();
	ccache_sizing_seen.cache_refaults = atomic_long_read(&ccache_cache_refaults);
	ccache_sizing_seen.data_refaults = atomic_long_read(&ccache_data_refaults);
	ccache_sizing_seen.hits = ccache_stat_read(hits);
	ccache_sizing_seen.stale_ghost_hits =
		atomic_long_read(&ccache_stale_ghost_hits);
	ccache_sizing_seen.near_hits = ccache_stat_read(near_hits);
	ccache_sizing_seen.far_ghost_hits =
		atomic_long_read(&ccache_far_ghost_hits);
	ccache_sizing_seen.slow_near_hits =
		atomic_long_read(&ccache_slow_near_hits);
	ccache_sizing_seen.data_reads = atomic_long_read(&ccache_data_reads);
	ccache_sizing_seen.disk_reads = ccache_disk_reads();
	ccache_sizing_seen.spare_ns = ccache_spare_ns();
	ccache_sizing_seen.idle_class_ns = kspu_cpu_idle_ns();
	ccache_sizing_seen.decompress_ns = kspu_decompress_ns();
	ccache_boost.slow_hits = ccache_stat_read(slow_ghost_hits);
	ccache_boost.busy_ns = kspu_cpu_busy_ns();
	ccache_boost.quiet = CCACHE_BOOST_HOLD;
	ccache_boost.cool = CCACHE_BOOST_HOLD;
	ccache_boost.level = 0;
	err = tracepoint_probe_register(ccache_delete_tp, ccache_sizing_deleted,
					NULL);
	if (err)
		goto fail;
	err = tracepoint_probe_register(ccache_add_tp, ccache_sizing_added,
					NULL);
	if (!err)
		return 0;
	tracepoint_probe_unregister(ccache_delete_tp, ccache_sizing_deleted,
				    NULL);
	tracepoint_synchronize_unregister();
fail:
	pr_err("cannot start sizing: %d\n", err);
	kvfree(ccache_cache_ghosts);
	kvfree(ccache_ghosts);
	return err;
}

/**
 * ccache_sizing_exit() - stop watching the page cache and free the ghost
 * tables; nothing else may use them now
 */
void ccache_sizing_exit(void)
{
	tracepoint_probe_unregister(ccache_add_tp, ccache_sizing_added, NULL);
	tracepoint_probe_unregister(ccache_delete_tp, ccache_sizing_deleted,
				    NULL);
	tracepoint_synchronize_unregister();
	kvfree(ccache_cache_ghosts);
	kvfree(ccache_ghosts);
}
