/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ccache: a compressed tier for the page cache.
 *
 * Declarations shared between the files of the core (ccache/).  The
 * module has three layers, and each includes only its own headers and
 * those of the layers below it, never upward:
 *
 *   ccache/        the core: hooks, store, pool; includes the shim
 *                  (spu-offload/kspu.h) and crypto (crypto/comp.h)
 *   spu-offload/   where compression runs; includes crypto/comp.h
 *   crypto/        the compressors (comp.h); includes no other layer
 *
 * Any of them may include include/compat.h, the kernel API differences;
 * selftests/host/layers.sh keeps it so.  Each .c file owns one part:
 *
 *   ccache/main.c      module load and unload, in dependency order
 *   ccache/params.c    the knobs (module parameters) and their accessors
 *   ccache/param_ops.c the knobs' parsers and validation (param_ops.h)
 *   ccache/sysfs.c     /sys/kernel/mm/ccache/: statistics, the flush file
 *   ccache/store.c     the index of stored pages, coherence, and every step
 *                      of an entry's life (store.h)
 *   ccache/pool.c      compressed memory: the zsmalloc pool
 *   ccache/lru.c       the pool's limit: admission, LRU eviction, shrinker
 *   ccache/sizing.c    the pool's target: what the pool should hold
 *   ccache/memcg.c     each memory cgroup's share of the pool
 *   ccache/capture.c   H1: evicted pages in, compression worker
 *   ccache/serve.c     H2: re-reads served from the store
 *   ccache/hooks.c     H3/H4: invalidation and teardown hooks
 *   ccache/blockdev.c  H5: block devices' own pages (filesystem metadata)
 *   ccache/fault.c     test-only fault injection
 *   crypto/acomp.c     everything that talks to the crypto API (comp.h)
 *   crypto/lib.c       compression with interrupts off (lib/lzo)
 *   spu-offload/       where compression runs: the kspu shim (kspu.h)
 *   include/compat.h   differences between the kernels supported
 */
#ifndef _CCACHE_CCACHE_H
#define _CCACHE_CCACHE_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/types.h>

#define CCACHE_VERSION "0.1.0"

/* Filesystems ccache may be allowed to cache (bit i = ccache_fs_names[i]). */
enum ccache_fs {
	CCACHE_FS_EXT4,
	CCACHE_FS_XFS,
	CCACHE_FS_BDEV,		/* block devices' own page cache (blockdev.c) */
	CCACHE_FS_COUNT,
};

/*
 * Why pages were not kept: sysfs shows reject[CCACHE_REJECT_FOO] as
 * reject_foo, and the ccache_reject tracepoint names the reason.
 */
enum ccache_reject {
	CCACHE_REJECT_POOR_COMPRESSION,	/* compressed too poorly to keep */
	CCACHE_REJECT_STAGING_FULL,	/* no staging buffer free */
	CCACHE_REJECT_OFFLOAD,		/* offload backend full or switching */
	CCACHE_REJECT_POOL_LIMIT,	/* pool full, nothing to evict */
	CCACHE_REJECT_ALLOC_FAILURE,	/* an allocation failed */
	CCACHE_REJECT_POLICY,		/* file or state not cacheable right now */
	CCACHE_REJECT_CGROUP_LIMIT,	/* its memory cgroup's share is full */
	CCACHE_REJECT_NR
};

/*
 * Statistics, shown one per file in /sys/kernel/mm/ccache/ (sysfs.c, which
 * also derives original_bytes, mem_used_bytes and the ratio).
 */
struct ccache_stats {
	atomic_long_t stored_pages;	/* entries holding data, compressed or same-filled */
	atomic_long_t compressed_bytes;	/* sum of the compressed lengths */
	atomic_long_t entries;		/* entry metadata in use, pending ones too */
	atomic_long_t inodes;		/* per-file records in use */
	atomic_long_t hits;		/* pages served from the store */
	atomic_long_t misses;		/* lookups that found nothing to serve */
	atomic_long_t captures;		/* evicted pages taken in for compression */
	atomic_long_t kept_pages;	/* of stored_pages: served, their pages cached */
	atomic_long_t recaptures;	/* kept pages evicted again, stored without compressing */
	atomic_long_t recapture_changed;	/* kept pages evicted again, changed: compressed */
	atomic_long_t capture_cycles;	/* TSC cycles in the probe when capturing */
	atomic_long_t reject[CCACHE_REJECT_NR];	/* pages not kept, by reason */
	atomic_long_t alloc_retries;	/* pool allocations tried again later */
	atomic_long_t invalidations;	/* entries erased because the file changed */
	atomic_long_t lru_evictions;	/* entries evicted to keep the pool limit */
	atomic_long_t idle_evictions;	/* of lru_evictions: idle entries (sizing.c) */
	atomic_long_t shrinker_frees;	/* entries freed for the shrinker */
	atomic_long_t ghost_hits;	/* disk reads of pages the pool let go */
	atomic_long_t other_refaults;	/* refaults of pages the pool cannot hold */
	atomic_long_t slow_ghost_hits;	/* of ghost_hits: pages compression missed */
	atomic_long_t near_ghost_hits;	/* of ghost_hits: within the horizon */
	atomic_long_t near_hits;	/* of hits: within the horizon (sizing.c) */
	atomic_long_t cpu_bound_periods;	/* sizing periods short of CPU */
	atomic_long_t served_reads;	/* reads filled from the store alone */
	atomic_long_t partial_reads;	/* reads filled in part, the rest from disk */
	atomic_long_t bdev_hits;	/* of hits: block devices' pages */
	atomic_long_t bdev_misses;	/* of misses: block devices' pages */
	atomic_long_t bdev_unmarked;	/* block devices' pages not kept: unmarked, changed */
	atomic_long_t offload_boost_secs;	/* seconds the offload threads ran boosted */
	atomic_long_t same_filled_pages;	/* stored pages that are one repeated word */
	atomic_long_t decompress_errors;	/* hits that fell back to the disk */
	atomic_long_t checksum_errors;	/* of those, data that failed its checksum */
};

extern struct ccache_stats ccache_stats;

#define ccache_stat_inc(name)		atomic_long_inc(&ccache_stats.name)
#define ccache_stat_dec(name)		atomic_long_dec(&ccache_stats.name)
#define ccache_stat_add(name, n)	atomic_long_add(n, &ccache_stats.name)
#define ccache_stat_sub(name, n)	atomic_long_sub(n, &ccache_stats.name)
#define ccache_stat_read(name)		atomic_long_read(&ccache_stats.name)

/* Where faults can be injected (fault.c); names in ccache_fault_names. */
enum ccache_fault {
	CCACHE_FAULT_ENTRY,		/* entry allocation */
	CCACHE_FAULT_INODE,		/* per-file record allocation */
	CCACHE_FAULT_STAGING,		/* no staging buffer free */
	CCACHE_FAULT_POOL,		/* a page's pool allocation, retries too */
	CCACHE_FAULT_POOL_BUSY,		/* a page's first pool allocation */
	CCACHE_FAULT_SERVE,		/* a read's working memory */
	CCACHE_FAULT_COMPRESS,		/* compression fails */
	CCACHE_FAULT_DECOMPRESS,	/* decompression fails */
	CCACHE_FAULT_CORRUPT,		/* an object is stored with a byte flipped */
	CCACHE_FAULT_SHRINKER,		/* the shrinker gives nothing back */
	CCACHE_FAULT_HWPOISON,		/* a large folio's last page is poisoned */
	CCACHE_FAULT_DROP_LATER,	/* a hook's drop cannot wait for its task */
	CCACHE_FAULT_NR
};

#ifdef CCACHE_FAULT_INJECT
/* fault.c, in test builds only (Kbuild: CCDEV_FAULT_INJECT=y) */
extern const char * const ccache_fault_names[CCACHE_FAULT_NR];
extern unsigned long ccache_fault_mask;	/* the sites named, by bit */
extern unsigned int ccache_fault_every;
bool ccache_fault_hit(enum ccache_fault site);
void ccache_fault_corrupt(void *data, unsigned int len);

/* Should this pass through @site fail?  Almost free when no site is named. */
static inline bool ccache_fault(enum ccache_fault site)
{
	return unlikely(READ_ONCE(ccache_fault_mask) & BIT(site)) &&
	       ccache_fault_hit(site);
}
#else
/* A build for users: no site ever fails, and the checks compile away. */
static inline bool ccache_fault(enum ccache_fault site)
{
	return false;
}

static inline void ccache_fault_corrupt(void *data, unsigned int len)
{
}
#endif

/* params.c */
extern const char * const ccache_fs_names[CCACHE_FS_COUNT];
bool ccache_param_enabled(void);
bool ccache_param_checksum(void);
bool ccache_param_keep_served(void);
unsigned int ccache_param_max_pool_percent(void);
unsigned long ccache_param_max_pool_bytes(void);
unsigned int ccache_param_accept_threshold_percent(void);
bool ccache_param_pool_sizing_auto(void);
unsigned int ccache_param_offload_boost_percent(void);
unsigned long ccache_param_filesystems(void);
int ccache_param_start_compressor(void);
int ccache_param_start_offload(void);
void ccache_param_describe(char *buf, size_t size);

/* sysfs.c */
int ccache_sysfs_init(void);
void ccache_sysfs_exit(void);

#endif /* _CCACHE_CCACHE_H */
