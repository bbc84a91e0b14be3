// SPDX-License-Identifier: GPL-2.0
/*
 * Memory cgroups: each cgroup's share of the pool, counted and bounded.
 *
 * The pool is host memory.  Capture runs inside a cgroup's own limit
 * reclaim, so without a bound a container at its memory.max would move
 * its file pages into a pool nobody pays for, get them served back, and
 * push other tenants' entries out of the shared LRU.  A module can charge
 * another cgroup's limit only by pages: set_active_memcg() around a
 * __GFP_ACCOUNT allocation.  In the pool that would charge each zspage,
 * whole, to the cgroup whose object happened to open it, whichever
 * cgroups' objects fill it later, and compaction and migration free and
 * replace zspages without regard to cgroups (a migrated page comes
 * uncharged), so charges would drift to the wrong tenants.  The
 * per-byte charge zswap uses (obj_cgroup_charge()) is not exported by
 * 6.1, 6.12 or 7.x.  And limit reclaim calls only memcg-aware shrinkers,
 * which the kernel asks only for cgroups its per-cgroup list_lru marked.
 * So ccache counts each cgroup's share itself and bounds it:
 *
 *   a cgroup's entries, its descendants' included, may take at most
 *   max_pool_percent of its memory.max, at every level of its ancestry
 *
 * the same fraction the whole pool may take of the host's RAM.  A cgroup
 * without a limit (memory.max "max") up to the root is bounded by the
 * pool's limit alone.  A share counts the compressed bytes of the
 * cgroup's stored entries plus their metadata, and a whole page for each
 * entry still being compressed (the most it can take), so captures in
 * flight cannot carry it past its bound.  A page is counted against the
 * cgroup that owned it when it was evicted, for as long as its entry
 * lives.  A full share refuses new pages (reject_cgroup_limit) and keeps
 * what it has: its entries leave as they are read back or, grown cold,
 * are evicted from the shared LRU, so another cgroup's entries are never
 * evicted to make room for a full one.
 *
 * Records.  One struct ccache_memcg per cgroup with entries, made on its
 * first capture, with one for each ancestor below the root; it pins its
 * cgroup (a css reference, so the memcg outlives its deletion for as long
 * as the record does) and holds a reference on its parent's record.  An
 * entry names its record by a 16-bit id (struct ccache_entry fits in 64
 * bytes) and holds a reference on it from insertion to unlinking
 * (store.c).  The record goes with its last reference.  Pages of the root
 * cgroup, or with no cgroup, have id 0 and are not counted.
 *
 * Locking: everything here runs under ccache_lock, with interrupts off
 * (the capture probe, publish, unlink).  The memcg is read under RCU
 * (from 7.x a folio points to an object cgroup whose memcg can change).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hashtable.h>
#include <linux/idr.h>
#include <linux/memcontrol.h>
#include <linux/page_counter.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "ccache.h"
#include "store.h"

#ifdef CONFIG_MEMCG

/* One cgroup's share of the pool; all fields under ccache_lock. */
struct ccache_memcg {
	struct hlist_node hash;		/* in ccache_memcgs, by memcg */
	struct mem_cgroup *memcg;	/* pinned: a css reference */
	struct ccache_memcg *parent;	/* NULL for a child of the root */
	unsigned long bytes;		/* its and its descendants' share */
	unsigned long refs;		/* entries naming it, child records */
	u16 id;				/* in ccache_memcg_ids */
};

#define CCACHE_MEMCG_HASH_BITS 8
static DEFINE_HASHTABLE(ccache_memcgs, CCACHE_MEMCG_HASH_BITS);
static DEFINE_IDR(ccache_memcg_ids);	/* id -> record, from 1 */

/*
 * The bound on a share of @memcg: max_pool_percent of its memory.max, in
 * bytes, or ULONG_MAX when it has no limit.
 */
static unsigned long ccache_memcg_bound(struct mem_cgroup *memcg)
{
	unsigned long max = READ_ONCE(memcg->memory.max);
	unsigned int pct = ccache_param_max_pool_percent();

	if (max >= PAGE_COUNTER_MAX)
		return ULONG_MAX;
	return (max / 100 * pct + max % 100 * pct / 100) << PAGE_SHIFT;
}

static struct ccache_memcg *ccache_memcg_find(struct mem_cgroup *memcg)
{
	struct ccache_memcg *cg;

	hash_for_each_possible(ccache_memcgs, cg, hash, (unsigned long)memcg)
		if (cg->memcg == memcg)
			return cg;
	return NULL;
}

/* Drop a reference on @cg; the last one frees it and its parent's. */
static void ccache_memcg_unref(struct ccache_memcg *cg)
{
	struct ccache_memcg *parent;

	while (cg && !--cg->refs) {
		WARN_ON_ONCE(cg->bytes);
		parent = cg->parent;
		hash_del(&cg->hash);
		idr_remove(&ccache_memcg_ids, cg->id);
		css_put(&cg->memcg->css);	/* safe in atomic context */
		kfree(cg);
		cg = parent;
	}
}

/*
 * The record of @memcg, which is not the root, with a reference for the
 * caller, made (with its ancestors') if there is none; NULL when an
 * allocation failed or the cgroup is being freed.
 */
static struct ccache_memcg *ccache_memcg_record(struct mem_cgroup *memcg)
{
	struct mem_cgroup *up = parent_mem_cgroup(memcg);
	struct ccache_memcg *cg, *parent = NULL;
	int id;

	cg = ccache_memcg_find(memcg);
	if (cg) {
		cg->refs++;
		return cg;
	}
	if (parent_mem_cgroup(up)) {	/* no record for the root */
		parent = ccache_memcg_record(up);
		if (!parent)
			return NULL;
	}
	cg = kzalloc(sizeof(*cg), GFP_NOWAIT | __GFP_NOWARN);
	if (!cg)
		goto fail;
	id = idr_alloc(&ccache_memcg_ids, cg, 1, U16_MAX + 1,
		       GFP_NOWAIT | __GFP_NOWARN);
	if (id < 0)
		goto fail;
	if (!css_tryget(&memcg->css)) {
		idr_remove(&ccache_memcg_ids, id);
		goto fail;
	}
	cg->memcg = memcg;
	cg->parent = parent;	/* its reference is now cg's */
	cg->refs = 1;
	cg->id = id;
	hash_add(ccache_memcgs, &cg->hash, (unsigned long)memcg);
	return cg;
fail:
	kfree(cg);
	ccache_memcg_unref(parent);
	return NULL;
}

static struct ccache_memcg *ccache_memcg_of(u16 id)
{
	return id ? idr_find(&ccache_memcg_ids, id) : NULL;
}

/**
 * ccache_memcg_get() - the cgroup to count @folio's pages against
 * @folio: a page-cache folio being captured
 * @why: set to the reason when the pages may not be captured
 *
 * Context: ccache_lock held.
 * Return: the id of the record of @folio's cgroup, with a reference the
 * caller gives back with ccache_memcg_put(); 0 for pages not counted (the
 * root cgroup's); -1 when the pages may not be stored: the cgroup's share,
 * or an ancestor's, is full (@why CCACHE_REJECT_CGROUP_LIMIT), or its
 * record could not be made (CCACHE_REJECT_ALLOC_FAILURE).
 */
int ccache_memcg_get(struct folio *folio, enum ccache_reject *why)
{
	struct ccache_memcg *cg, *up;
	struct mem_cgroup *memcg;

	lockdep_assert_held(&ccache_lock);
	rcu_read_lock();
	memcg = folio_memcg(folio);
	if (!memcg || !parent_mem_cgroup(memcg)) {
		rcu_read_unlock();
		return 0;
	}
	cg = ccache_memcg_record(memcg);
	rcu_read_unlock();
	if (!cg) {
		*why = CCACHE_REJECT_ALLOC_FAILURE;
		return -1;
	}
	for (up = cg; up; up = up->parent) {
		if (up->bytes >= ccache_memcg_bound(up->memcg)) {
			ccache_memcg_unref(cg);
			*why = CCACHE_REJECT_CGROUP_LIMIT;
			return -1;
		}
	}
	return cg->id;
}

/**
 * ccache_memcg_hold() - take a reference on a record for an entry
 * @id: from ccache_memcg_get(), on which the caller holds a reference
 *
 * Context: ccache_lock held.
 */
void ccache_memcg_hold(u16 id)
{
	struct ccache_memcg *cg = ccache_memcg_of(id);

	lockdep_assert_held(&ccache_lock);
	if (cg)
		cg->refs++;
}

/**
 * ccache_memcg_put() - give back a reference on a record
 * @id: from ccache_memcg_get() or an entry's; 0 is none
 *
 * Context: ccache_lock held.
 */
void ccache_memcg_put(u16 id)
{
	lockdep_assert_held(&ccache_lock);
	ccache_memcg_unref(ccache_memcg_of(id));
}

/**
 * ccache_memcg_count() - count @bytes more, or fewer, in a share
 * @id: the entry's record; 0 is none
 * @bytes: what the entry takes, negative when it leaves
 *
 * Context: ccache_lock held.
 */
void ccache_memcg_count(u16 id, long bytes)
{
	struct ccache_memcg *cg;

	lockdep_assert_held(&ccache_lock);
	for (cg = ccache_memcg_of(id); cg; cg = cg->parent)
		cg->bytes += bytes;
}

/**
 * ccache_memcg_init() - nothing to set up: records are made on demand
 *
 * Return: 0.
 */
int ccache_memcg_init(void)
{
	return 0;
}

/**
 * ccache_memcg_exit() - check that every record went with its entries
 *
 * Context: unload, after the store was emptied.
 */
void ccache_memcg_exit(void)
{
	WARN_ON(!idr_is_empty(&ccache_memcg_ids));
	idr_destroy(&ccache_memcg_ids);
}

#endif /* CONFIG_MEMCG */
