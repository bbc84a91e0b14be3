// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only fault injection: the fault_inject knob (params.c) names sites,
 * and every fault_every-th pass through a named site fails as if the
 * allocation, the compression or the decompression had failed there, or
 * flips a byte of an object on its way into the pool.  Debian's kernels
 * have no CONFIG_FAULT_INJECTION, hence this small version of it.
 *
 * Each site keeps its own count, so "entry,pool" with fault_every=3 fails
 * every third entry allocation and every third pool allocation.  With no
 * site named the cost is one test of a word (ccache_fault() in ccache.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/kernel.h>

#include "ccache.h"

const char * const ccache_fault_names[CCACHE_FAULT_NR] = {
	[CCACHE_FAULT_ENTRY] = "entry",
	[CCACHE_FAULT_INODE] = "inode",
	[CCACHE_FAULT_STAGING] = "staging",
	[CCACHE_FAULT_POOL] = "pool",
	[CCACHE_FAULT_POOL_BUSY] = "pool_busy",
	[CCACHE_FAULT_SERVE] = "serve",
	[CCACHE_FAULT_COMPRESS] = "compress",
	[CCACHE_FAULT_DECOMPRESS] = "decompress",
	[CCACHE_FAULT_CORRUPT] = "corrupt",
	[CCACHE_FAULT_SHRINKER] = "shrinker",
	[CCACHE_FAULT_HWPOISON] = "hwpoison",
	[CCACHE_FAULT_DROP_LATER] = "drop_later",
};

unsigned long ccache_fault_mask;
unsigned int ccache_fault_every = 1;
static atomic_t ccache_fault_passes[CCACHE_FAULT_NR];

/**
 * ccache_fault_hit() - count a pass through a named site
 * @site: the site
 *
 * Context: any.
 * Return: true when this pass is to fail.
 */
bool ccache_fault_hit(enum ccache_fault site)
{
	unsigned int every = max(READ_ONCE(ccache_fault_every), 1U);

	return atomic_inc_return(&ccache_fault_passes[site]) % every == 0;
}

/**
 * ccache_fault_corrupt() - flip a byte of a compressed object
 * @data: the object
 * @len: its length, at least 1
 *
 * The middle byte: of an LZO stream most often a literal, so that the
 * object still decompresses, to the wrong data.
 */
void ccache_fault_corrupt(void *data, unsigned int len)
{
	((u8 *)data)[len / 2] ^= 0x5a;
}
