// SPDX-License-Identifier: GPL-2.0
/*
 * The zsmalloc pool holding compressed pages: allocation, freeing and
 * loading of objects, and the memory the pool takes.  It knows nothing of
 * entries' lives or of the limit (lru.c decides what may be stored,
 * store.c when an object is freed).
 *
 * zsmalloc may not be called under ccache_lock: everything here runs in
 * process context without it.
 */
#include <linux/mm.h>

#include "ccache.h"
#include "store.h"
#include "../include/compat.h"

static struct zs_pool *ccache_zpool;
/*
 * Bytes of objects freed since the last compaction: the holes they left
 * in zsmalloc's pages still count in ccache_pool_bytes() until compaction
 * moves the remaining objects together and gives the emptied pages back.
 */
static atomic_long_t ccache_pool_freed = ATOMIC_LONG_INIT(0);

/**
 * ccache_pool_bytes() - Return: memory the pool takes from the system.
 */
unsigned long ccache_pool_bytes(void)
{
	return zs_get_total_pages(ccache_zpool) << PAGE_SHIFT;
}

/**
 * ccache_pool_compact() - give back the pool's pages that freed objects
 * left partly empty, moving objects together (zsmalloc compaction)
 *
 * Context: process context, may sleep; no ccache_lock.
 */
void ccache_pool_compact(void)
{
	atomic_long_set(&ccache_pool_freed, 0);
	zs_compact(ccache_zpool);
}

/**
 * ccache_pool_holes() - Return: bytes of the objects freed since the last
 * compaction, at most; zs_malloc() fills such holes with new objects of
 * their sizes before the pool takes more pages.
 */
unsigned long ccache_pool_holes(void)
{
	return atomic_long_read(&ccache_pool_freed);
}

/**
 * ccache_pool_compact_holes() - compact if the objects freed since the last
 * compaction add up to more than @slack bytes
 * @slack: holes worth leaving, since compaction looks at every object
 *
 * Context: process context, may sleep; no ccache_lock.
 * Return: whether it compacted.
 */
bool ccache_pool_compact_holes(unsigned long slack)
{
	if (ccache_pool_holes() <= slack)
		return false;
	ccache_pool_compact();
	return true;
}

/**
 * ccache_pool_max_object() - largest compressed page worth keeping
 *
 * Objects of zsmalloc's "huge" class take a whole page each: a page that
 * compresses no smaller than that saves nothing.
 *
 * Return: the size in bytes; longer results are rejected.
 */
size_t ccache_pool_max_object(void)
{
	return zs_huge_class_size(ccache_zpool) - 1;
}

/**
 * ccache_pool_alloc() - store a compressed page in the pool
 * @data: the compressed bytes
 * @len: how many, at most ccache_pool_max_object()
 *
 * The caller has asked ccache_pool_admit() first.
 *
 * Context: process context, may sleep briefly; no ccache_lock.
 * Return: a zsmalloc handle, or 0 when memory is short.
 */
unsigned long ccache_pool_alloc(const void *data, unsigned int len)
{
	unsigned long handle;

	/*
	 * zswap's flags: wake kswapd but never reclaim directly.  A cache
	 * drops a page rather than reclaim hard to keep it, and hard reclaim
	 * here stalls the publish worker, and module unload behind it.
	 */
	handle = ccache_zs_malloc(ccache_zpool, len,
				  __GFP_KSWAPD_RECLAIM | __GFP_NORETRY |
				  __GFP_NOWARN | __GFP_NOMEMALLOC |
				  __GFP_HIGHMEM | __GFP_MOVABLE);
	if (IS_ERR_VALUE(handle) || !handle)
		return 0;
	ccache_zs_write(ccache_zpool, handle, data, len);
	return handle;
}

/**
 * ccache_pool_free() - free a pool object
 * @handle: from ccache_pool_alloc()
 * @len: the length it was allocated with
 *
 * Only ccache_entry_free() calls it.
 *
 * Context: process context; no ccache_lock.
 */
void ccache_pool_free(unsigned long handle, unsigned int len)
{
	atomic_long_add(len, &ccache_pool_freed);
	zs_free(ccache_zpool, handle);
}

/**
 * ccache_pool_load() - copy a compressed entry's bytes out of the pool
 * @e: a compressed entry that the caller owns
 * @buf: at least e->length bytes
 */
void ccache_pool_load(struct ccache_entry *e, void *buf)
{
	ccache_zs_read(ccache_zpool, e->handle, buf, e->length);
}

/**
 * ccache_pool_init() - create the pool
 *
 * Return: 0 or -ENOMEM.
 */
int ccache_pool_init(void)
{
	ccache_zpool = zs_create_pool(KBUILD_MODNAME);
	return ccache_zpool ? 0 : -ENOMEM;
}

/**
 * ccache_pool_exit() - destroy the pool, which the store has emptied
 */
void ccache_pool_exit(void)
{
	zs_destroy_pool(ccache_zpool);
}
