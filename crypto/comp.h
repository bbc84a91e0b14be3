/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The compression layer's interface, for the core (ccache/) and the offload
 * shim (spu-offload/): compressor selection and the page-sized compress and
 * decompress calls, over the kernel crypto API (acomp.c) and lib/lzo
 * (lib.c: compression with interrupts off, and LZO's decompression).  It
 * includes nothing from the layers above it.
 */
#ifndef _CCACHE_CRYPTO_COMP_H
#define _CCACHE_CRYPTO_COMP_H

#include <linux/scatterlist.h>
#include <linux/types.h>

struct acomp_req;
struct page;

/*
 * An asynchronous compression (acomp.c): the crypto request and its
 * buffers' scatterlists, kept by the caller from start to done().
 */
struct ccache_async_req {
	struct acomp_req *req;
	struct scatterlist in, out;
	int alg;		/* the slot @req belongs to */
	void (*done)(struct ccache_async_req *r, int err, unsigned int dlen);
};

/* acomp.c */
bool ccache_comp_available(const char *name);
int ccache_comp_init(const char *name);
void ccache_comp_exit(void);
int ccache_comp_select(const char *name);
int ccache_compress(const void *src, void *dst, unsigned int *dlen, u8 *alg);
int ccache_decompress(u8 alg, const void *src, unsigned int slen,
		      struct page *dst);
bool ccache_decompress_atomic(u8 alg);
int ccache_compress_atomic(const void *src, void *dst, unsigned int *dlen,
			   u8 *alg);
bool ccache_comp_atomic_capable(const char *name);
int ccache_async_start(struct ccache_async_req *r, const void *src,
		       void *dst, unsigned int dlen);
void ccache_async_release(struct ccache_async_req *r);

/* lib.c */
int ccache_lib_codec(const char *name);
int ccache_lib_compress(int codec, const void *src, void *dst,
			unsigned int *dlen);
int ccache_lib_decompress(int codec, const void *src, unsigned int slen,
			  struct page *dst);
int ccache_lib_start(void);
void ccache_lib_stop(void);

#endif /* _CCACHE_CRYPTO_COMP_H */
