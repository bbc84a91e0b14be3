/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of ccache, in tracefs under events/ccache/: a page stored,
 * a read served or not (load), a page not kept and why (reject), a range
 * erased because the file changed (invalidate), an entry evicted for the
 * pool limit or the shrinker (evict).  perf, trace-cmd and bpftrace see
 * them as ccache:<name>.  Pages are named by device, inode number and page
 * index.  Disabled tracepoints cost a patched-out branch.
 *
 * Context: every event may fire with ccache_lock held and interrupts off.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ccache

#if !defined(_CCACHE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _CCACHE_TRACE_H

#include <linux/fs.h>
#include <linux/tracepoint.h>

#include "ccache.h"
#include "store.h"

TRACE_DEFINE_ENUM(CCACHE_REJECT_POOR_COMPRESSION);
TRACE_DEFINE_ENUM(CCACHE_REJECT_STAGING_FULL);
TRACE_DEFINE_ENUM(CCACHE_REJECT_OFFLOAD);
TRACE_DEFINE_ENUM(CCACHE_REJECT_POOL_LIMIT);
TRACE_DEFINE_ENUM(CCACHE_REJECT_ALLOC_FAILURE);
TRACE_DEFINE_ENUM(CCACHE_REJECT_POLICY);
TRACE_DEFINE_ENUM(CCACHE_REJECT_CGROUP_LIMIT);

DECLARE_EVENT_CLASS(ccache_pages,
		    TP_PROTO(const struct ccache_key *key, pgoff_t index,
			     unsigned int nr),
		    TP_ARGS(key, index, nr),
		    TP_STRUCT__entry(__field(dev_t, dev)
				     __field(unsigned long, ino)
				     __field(pgoff_t, index)
				     __field(unsigned int, nr)),
		    TP_fast_assign(__entry->dev = key->sb->s_dev;
				   __entry->ino = key->ino;
				   __entry->index = index;
				   __entry->nr = nr;),
		    TP_printk("dev %d:%d ino %lu index %lu nr %u",
			      MAJOR(__entry->dev), MINOR(__entry->dev),
			      __entry->ino, (unsigned long)__entry->index,
			      __entry->nr)
);

/* Pages of a folio read from the store (the whole folio, or nothing). */
DEFINE_EVENT(ccache_pages, ccache_load_hit,
	     TP_PROTO(const struct ccache_key *key, pgoff_t index,
		      unsigned int nr),
	     TP_ARGS(key, index, nr)
);

/* A folio read from the disk: some of its pages were not stored. */
DEFINE_EVENT(ccache_pages, ccache_load_miss,
	     TP_PROTO(const struct ccache_key *key, pgoff_t index,
		      unsigned int nr),
	     TP_ARGS(key, index, nr)
);

/* One page stored, compressed to @len bytes (0: same-filled). */
TRACE_EVENT(ccache_store,
	    TP_PROTO(const struct ccache_key *key, pgoff_t index,
		     unsigned int len),
	    TP_ARGS(key, index, len),
	    TP_STRUCT__entry(__field(dev_t, dev)
			     __field(unsigned long, ino)
			     __field(pgoff_t, index)
			     __field(unsigned int, len)),
	    TP_fast_assign(__entry->dev = key->sb->s_dev;
			   __entry->ino = key->ino;
			   __entry->index = index;
			   __entry->len = len;),
	    TP_printk("dev %d:%d ino %lu index %lu len %u",
		      MAJOR(__entry->dev), MINOR(__entry->dev), __entry->ino,
		      (unsigned long)__entry->index, __entry->len)
);

/* @nr pages from @index on were not kept, for @reason. */
TRACE_EVENT(ccache_reject,
	    TP_PROTO(const struct ccache_key *key, pgoff_t index,
		     unsigned int nr, enum ccache_reject reason),
	    TP_ARGS(key, index, nr, reason),
	    TP_STRUCT__entry(__field(dev_t, dev)
			     __field(unsigned long, ino)
			     __field(pgoff_t, index)
			     __field(unsigned int, nr)
			     __field(unsigned int, reason)),
	    TP_fast_assign(__entry->dev = key->sb->s_dev;
			   __entry->ino = key->ino;
			   __entry->index = index;
			   __entry->nr = nr;
			   __entry->reason = reason;),
	    TP_printk("dev %d:%d ino %lu index %lu nr %u reason %s",
		      MAJOR(__entry->dev), MINOR(__entry->dev), __entry->ino,
		      (unsigned long)__entry->index, __entry->nr,
		      __print_symbolic(__entry->reason,
				       { CCACHE_REJECT_POOR_COMPRESSION,
					 "poor_compression" },
				       { CCACHE_REJECT_STAGING_FULL,
					 "staging_full" },
				       { CCACHE_REJECT_OFFLOAD, "offload" },
				       { CCACHE_REJECT_POOL_LIMIT,
					 "pool_limit" },
				       { CCACHE_REJECT_ALLOC_FAILURE,
					 "alloc_failure" },
				       { CCACHE_REJECT_POLICY, "policy" },
				       { CCACHE_REJECT_CGROUP_LIMIT,
					 "cgroup_limit" }))
);

/* The file changes in @first..@last: @erased entries went. */
TRACE_EVENT(ccache_invalidate,
	    TP_PROTO(const struct ccache_key *key, pgoff_t first,
		     pgoff_t last, unsigned long erased),
	    TP_ARGS(key, first, last, erased),
	    TP_STRUCT__entry(__field(dev_t, dev)
			     __field(unsigned long, ino)
			     __field(pgoff_t, first)
			     __field(pgoff_t, last)
			     __field(unsigned long, erased)),
	    TP_fast_assign(__entry->dev = key->sb->s_dev;
			   __entry->ino = key->ino;
			   __entry->first = first;
			   __entry->last = last;
			   __entry->erased = erased;),
	    TP_printk("dev %d:%d ino %lu first %lu last %lu erased %lu",
		      MAJOR(__entry->dev), MINOR(__entry->dev), __entry->ino,
		      (unsigned long)__entry->first,
		      (unsigned long)__entry->last, __entry->erased)
);

/*
 * A drop of a whole filesystem on device @dev (0:0: every filesystem)
 * erased @erased entries; @forget: the files' state went too (an unmount,
 * an unload); @resched: the walk rescheduled between its batches.
 */
TRACE_EVENT(ccache_drop,
	    TP_PROTO(dev_t dev, bool forget, unsigned long erased,
		     bool resched),
	    TP_ARGS(dev, forget, erased, resched),
	    TP_STRUCT__entry(__field(dev_t, dev)
			     __field(bool, forget)
			     __field(unsigned long, erased)
			     __field(bool, resched)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->forget = forget;
			   __entry->erased = erased;
			   __entry->resched = resched;),
	    TP_printk("dev %d:%d erased %lu forget %d resched %d",
		      MAJOR(__entry->dev), MINOR(__entry->dev),
		      __entry->erased, __entry->forget, __entry->resched)
);

/*
 * The per-file records' table grew to @buckets, with @records records in
 * use (store.c, ccache_inodes_grow_work()).
 */
TRACE_EVENT(ccache_inodes_grow,
	    TP_PROTO(unsigned long buckets, unsigned long records),
	    TP_ARGS(buckets, records),
	    TP_STRUCT__entry(__field(unsigned long, buckets)
			     __field(unsigned long, records)),
	    TP_fast_assign(__entry->buckets = buckets;
			   __entry->records = records;),
	    TP_printk("buckets %lu records %lu", __entry->buckets,
		      __entry->records)
);

/* An entry evicted from the LRU, for the shrinker or the pool limit. */
TRACE_EVENT(ccache_evict,
	    TP_PROTO(const struct ccache_key *key, pgoff_t index,
		     bool shrinker),
	    TP_ARGS(key, index, shrinker),
	    TP_STRUCT__entry(__field(dev_t, dev)
			     __field(unsigned long, ino)
			     __field(pgoff_t, index)
			     __field(bool, shrinker)),
	    TP_fast_assign(__entry->dev = key->sb->s_dev;
			   __entry->ino = key->ino;
			   __entry->index = index;
			   __entry->shrinker = shrinker;),
	    TP_printk("dev %d:%d ino %lu index %lu for %s",
		      MAJOR(__entry->dev), MINOR(__entry->dev), __entry->ino,
		      (unsigned long)__entry->index,
		      __entry->shrinker ? "shrinker" : "pool_limit")
);

/*
 * The sizing worker moved the pool's target from @old to @target bytes
 * (sizing.c): over the last period @hits pages were served, @near_hits of
 * them within the horizon, @far_ghost_hits pages read from the disk after
 * the pool let them go (neither slow nor within the horizon), @other file
 * pages read again within the horizon that the pool did not serve; @used:
 * what the pool held; @cpu_bound: the decompressions took more CPU time
 * than nobody wanted, so every hit counted against the pool and no ghost
 * hit for it; @replacing: a full pool takes new pages in place of its
 * oldest entries (ccache_sizing_replacing()).
 */
TRACE_EVENT(ccache_pool_target,
	    TP_PROTO(unsigned long old, unsigned long target,
		     unsigned long used, unsigned long hits,
		     unsigned long near_hits, unsigned long far_ghost_hits,
		     unsigned long other, bool cpu_bound, bool replacing),
	    TP_ARGS(old, target, used, hits, near_hits, far_ghost_hits, other,
		    cpu_bound, replacing),
	    TP_STRUCT__entry(__field(unsigned long, old)
			     __field(unsigned long, target)
			     __field(unsigned long, used)
			     __field(unsigned long, hits)
			     __field(unsigned long, near_hits)
			     __field(unsigned long, far_ghost_hits)
			     __field(unsigned long, other)
			     __field(bool, cpu_bound)
			     __field(bool, replacing)),
	    TP_fast_assign(__entry->old = old;
			   __entry->target = target;
			   __entry->used = used;
			   __entry->hits = hits;
			   __entry->near_hits = near_hits;
			   __entry->far_ghost_hits = far_ghost_hits;
			   __entry->other = other;
			   __entry->cpu_bound = cpu_bound;
			   __entry->replacing = replacing;),
	    TP_printk("target %lu -> %lu used %lu hits %lu near_hits %lu far_ghost_hits %lu other_refaults %lu%s%s",
		      __entry->old, __entry->target, __entry->used,
		      __entry->hits, __entry->near_hits,
		      __entry->far_ghost_hits, __entry->other,
		      __entry->cpu_bound ? " cpu_bound" : "",
		      __entry->replacing ? " replacing" : "")
);

#endif /* _CCACHE_TRACE_H */

/* This part must be outside the include guard. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
