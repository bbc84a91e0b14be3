/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Differences between the kernels ccache supports (Debian 6.1, 6.12, 7.x),
 * in one place for every layer (ccache/, crypto/, spu-offload/), so it
 * includes none of them.  Features are detected from the kernel's own
 * headers at build time (see Kbuild) rather than guessed from version
 * numbers:
 *
 *   CCACHE_HAVE_ZS_OBJ_API     zs_obj_read_begin()/zs_obj_write() replace
 *                              zs_map_object()/zs_unmap_object()
 *   CCACHE_HAVE_ZS_MALLOC_NID  zs_malloc() takes a NUMA node
 *   CCACHE_HAVE_SHRINKER_ALLOC shrinker_alloc()/shrinker_register() replace
 *                              register_shrinker()
 *   CCACHE_HAVE_ACCOUNT_RECLAIMED  mm_account_reclaimed_pages() replaces
 *                              adding to reclaim_state->reclaimed_slab (6.4)
 *   CCACHE_HAVE_FTRACE_REGS_SET_IP  ftrace_regs_set_instruction_pointer()
 *                              replaces ftrace_instruction_pointer_set()
 *   CCACHE_HAVE_CRYPTO_CB_VOID crypto completions get the caller's data
 *                              pointer, not the crypto_async_request (6.3)
 *   CCACHE_HAVE_BD_MAPPING     struct block_device has bd_mapping, its page
 *                              cache, where it had bd_inode (6.10)
 *   CCACHE_HAVE_BD_HOLDER_OPS  a filesystem holds its block device with
 *                              fs_holder_ops, the superblock the holder,
 *                              where bd_super pointed to it (6.6)
 */
#ifndef _CCACHE_COMPAT_H
#define _CCACHE_COMPAT_H

#include <linux/blk_types.h>
#include <linux/blkdev.h>
#include <linux/crypto.h>
#include <linux/fs.h>
#include <linux/ftrace.h>
#include <linux/numa.h>
#include <linux/sched.h>
#include <linux/shrinker.h>
#include <linux/string.h>
#include <linux/swap.h>
#include <linux/zsmalloc.h>

static inline unsigned long ccache_zs_malloc(struct zs_pool *pool, size_t size,
					     gfp_t gfp)
{
#ifdef CCACHE_HAVE_ZS_MALLOC_NID
	return zs_malloc(pool, size, gfp, NUMA_NO_NODE);
#else
	return zs_malloc(pool, size, gfp);
#endif
}

/* Copy @len bytes into the object @handle. */
static inline void ccache_zs_write(struct zs_pool *pool, unsigned long handle,
				   const void *src, size_t len)
{
#ifdef CCACHE_HAVE_ZS_OBJ_API
	zs_obj_write(pool, handle, (void *)src, len);
#else
	void *dst = zs_map_object(pool, handle, ZS_MM_WO);

	memcpy(dst, src, len);
	zs_unmap_object(pool, handle);
#endif
}

/* Copy @len bytes of the object @handle out to @dst. */
static inline void ccache_zs_read(struct zs_pool *pool, unsigned long handle,
				  void *dst, size_t len)
{
#ifdef CCACHE_HAVE_ZS_OBJ_API
	void *src = zs_obj_read_begin(pool, handle, len, dst);

	if (src != dst)
		memcpy(dst, src, len);
	zs_obj_read_end(pool, handle, len, src);
#else
	void *src = zs_map_object(pool, handle, ZS_MM_RO);

	memcpy(dst, src, len);
	zs_unmap_object(pool, handle);
#endif
}

/*
 * A shrinker: 6.7 and later allocate it; before, it is embedded.  Either
 * way the caller sees one pointer from ccache_shrinker_create().
 */
typedef unsigned long (*ccache_shrink_fn)(struct shrinker *s,
					  struct shrink_control *sc);

/*
 * Tell the reclaim running in this task that @pages pages went back to
 * the page allocator outside its LRUs, as slab and the xfs buffer cache
 * do: without it reclaim sees no progress from a shrinker that frees
 * pages of its own, and lowers its priority until it has asked for
 * nearly everything.
 */
static inline void ccache_account_reclaimed(unsigned long pages)
{
#ifdef CCACHE_HAVE_ACCOUNT_RECLAIMED
	mm_account_reclaimed_pages(pages);
#else
	if (current->reclaim_state)
		current->reclaim_state->reclaimed_slab += pages;
#endif
}

static inline void ccache_shrinker_fill(struct shrinker *s,
					ccache_shrink_fn count,
					ccache_shrink_fn scan, int seeks)
{
	s->count_objects = count;
	s->scan_objects = scan;
	s->seeks = seeks;
}

#ifdef CCACHE_HAVE_SHRINKER_ALLOC
static inline struct shrinker *
ccache_shrinker_create(ccache_shrink_fn count, ccache_shrink_fn scan,
		       int seeks, const char *name)
{
	struct shrinker *s = shrinker_alloc(0, "%s", name);

	if (s) {
		ccache_shrinker_fill(s, count, scan, seeks);
		shrinker_register(s);
	}
	return s;
}

static inline void ccache_shrinker_destroy(struct shrinker *s)
{
	shrinker_free(s);
}
#else
static inline struct shrinker *
ccache_shrinker_create(ccache_shrink_fn count, ccache_shrink_fn scan,
		       int seeks, const char *name)
{
	static struct shrinker s;

	ccache_shrinker_fill(&s, count, scan, seeks);
	return register_shrinker(&s, "%s", name) ? NULL : &s;
}

static inline void ccache_shrinker_destroy(struct shrinker *s)
{
	unregister_shrinker(s);
}
#endif

/* Make an ftrace callback's traced function return into @ip instead. */
static __always_inline void ccache_ftrace_set_ip(struct ftrace_regs *fregs,
						 unsigned long ip)
{
#ifdef CCACHE_HAVE_FTRACE_REGS_SET_IP
	ftrace_regs_set_instruction_pointer(fregs, ip);
#else
	ftrace_instruction_pointer_set(fregs, ip);
#endif
}

/*
 * A crypto completion callback's first argument: declare callbacks as
 * void fn(CCACHE_CRYPTO_CB_ARG *arg, int err) and get the data pointer
 * given to acomp_request_set_callback() with ccache_crypto_cb_data(arg).
 */
#ifdef CCACHE_HAVE_CRYPTO_CB_VOID
#define CCACHE_CRYPTO_CB_ARG void

static inline void *ccache_crypto_cb_data(void *arg)
{
	return arg;
}
#else
#define CCACHE_CRYPTO_CB_ARG struct crypto_async_request

static inline void *ccache_crypto_cb_data(struct crypto_async_request *arg)
{
	return arg->data;
}
#endif

/* The page cache of a block device. */
static inline struct address_space *
ccache_bdev_mapping(struct block_device *bdev)
{
#ifdef CCACHE_HAVE_BD_MAPPING
	return bdev->bd_mapping;
#else
	return bdev->bd_inode->i_mapping;
#endif
}

/*
 * Where the kernel has it, the holder's function that tells a
 * filesystem's hold (ccache_bdev_super()).
 */
#ifdef CCACHE_HAVE_BD_HOLDER_OPS
#define CCACHE_FS_HOLDER_FUNC "fs_bdev_mark_dead"
#endif

/*
 * The filesystem mounted on @bdev, or NULL.  Call under rcu_read_lock():
 * a superblock is freed a grace period after it lets go of its device.
 * From 6.6 a filesystem holds its device with fs_holder_ops, the
 * superblock as the holder; 7.x no longer exports fs_holder_ops, so its
 * mark_dead function (@fs_func, the address of CCACHE_FS_HOLDER_FUNC)
 * tells it.  The holder is read before and after its ops, so that both
 * come from one claim: a claim stores the holder, then its ops; a
 * release clears them in the same order.
 */
static inline struct super_block *ccache_bdev_super(struct block_device *bdev,
						    void *fs_func)
{
#ifdef CCACHE_HAVE_BD_HOLDER_OPS
	void *holder = READ_ONCE(bdev->bd_holder);
	const struct blk_holder_ops *ops;

	smp_rmb();	/* the holder, then its ops: as a release clears them */
	ops = READ_ONCE(bdev->bd_holder_ops);
	if (!holder || !ops || !fs_func || (void *)ops->mark_dead != fs_func)
		return NULL;
	smp_rmb();	/* the ops, then the holder: as a claim stores them */
	return READ_ONCE(bdev->bd_holder) == holder ? holder : NULL;
#else
	return READ_ONCE(bdev->bd_super);
#endif
}

#endif /* _CCACHE_COMPAT_H */
