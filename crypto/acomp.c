// SPDX-License-Identifier: GPL-2.0
/*
 * Compression through the kernel crypto API's acomp interface.
 *
 * Each algorithm in use gets a slot with two sets of contexts, one
 * context per possible CPU each (a transform, a request, a wait), as zswap
 * has one set; a mutex per context lets a task that migrates keep using
 * it.  One set compresses, one decompresses: compression runs in the
 * offload threads at SCHED_IDLE (spu-offload/cpu.c), decompression in the
 * task that reads, and a reader waiting for the mutex of a context that an
 * idle-priority thread holds waits until that thread gets a CPU back from
 * the busy server: a priority inversion.  Slots are never reused while the
 * module is loaded: every stored entry records its slot number, so an
 * entry written before a compressor switch is always decompressed by the
 * algorithm that wrote it.  Hardware drivers that complete asynchronously
 * work the same way: the caller waits for the completion.  A slot whose
 * algorithm is LZO ("lzo", "lzo-rle") decompresses through lib/lzo
 * instead (lib.c says why); its decompression contexts stay unused.
 *
 * Locking: ccache_alg_mutex serialises slot setup and switching; it nests
 * inside the module's parameter lock (the "compressor" knob switches).
 * Contexts are used under their own mutex, so callers may sleep.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/acompress.h>
#include <linux/crypto.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/scatterlist.h>

#include "comp.h"
#include "../include/compat.h"

#define CCACHE_MAX_ALGS 8

struct ccache_comp_ctx {
	struct mutex lock;		/* one user at a time */
	struct crypto_acomp *tfm;
	struct acomp_req *req;
	struct crypto_wait wait;
};

/* The two directions, each with contexts of its own (see above). */
enum ccache_comp_dir {
	CCACHE_COMPRESS,
	CCACHE_DECOMPRESS,
	CCACHE_NR_DIRS
};

struct ccache_alg {
	char name[CRYPTO_MAX_ALG_NAME];
	struct ccache_comp_ctx __percpu *ctx[CCACHE_NR_DIRS];
	int lib;			/* crypto/lib.c codec, or -1 */
};

static DEFINE_MUTEX(ccache_alg_mutex);
static struct ccache_alg ccache_algs[CCACHE_MAX_ALGS];	/* set up in order */
/*
 * Slots set up, and the one new pages use (-1 before init).  Written under
 * ccache_alg_mutex with smp_store_release() once the slot is set up, read
 * with smp_load_acquire(), so a reader on any CPU sees the slot whole.
 */
static int ccache_nr_algs;
static int ccache_alg_current = -1;

/**
 * ccache_comp_available() - can pages be compressed with this algorithm?
 * @name: crypto API algorithm name, e.g. "lzo" or "zstd"
 *
 * May load the module providing @name (the crypto API asks modprobe), so
 * it may sleep.
 *
 * Return: true if an acomp (or scomp) implementation of @name exists.
 */
bool ccache_comp_available(const char *name)
{
	return crypto_has_acomp(name, 0, 0);
}

static void ccache_ctx_free(struct ccache_comp_ctx __percpu **pctx)
{
	struct ccache_comp_ctx *ctx;
	int cpu;

	if (!*pctx)
		return;
	for_each_possible_cpu(cpu) {
		ctx = per_cpu_ptr(*pctx, cpu);
		if (ctx->req)
			acomp_request_free(ctx->req);
		if (!IS_ERR_OR_NULL(ctx->tfm))
			crypto_free_acomp(ctx->tfm);
	}
	free_percpu(*pctx);
	*pctx = NULL;
}

/* One context of @name per possible CPU into *@pctx; freed on failure. */
static int ccache_ctx_setup(struct ccache_comp_ctx __percpu **pctx,
			    const char *name)
{
	struct ccache_comp_ctx *ctx;
	int cpu;

	*pctx = alloc_percpu(struct ccache_comp_ctx);
	if (!*pctx)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		ctx = per_cpu_ptr(*pctx, cpu);
		mutex_init(&ctx->lock);
		ctx->tfm = crypto_alloc_acomp_node(name, 0, 0, cpu_to_node(cpu));
		if (IS_ERR(ctx->tfm)) {
			int err = PTR_ERR(ctx->tfm);

			ccache_ctx_free(pctx);
			return err;
		}
		ctx->req = acomp_request_alloc(ctx->tfm);
		if (!ctx->req) {
			ccache_ctx_free(pctx);
			return -ENOMEM;
		}
		crypto_init_wait(&ctx->wait);
		acomp_request_set_callback(ctx->req, CRYPTO_TFM_REQ_MAY_BACKLOG,
					   crypto_req_done, &ctx->wait);
	}
	return 0;
}

static void ccache_alg_free(struct ccache_alg *alg)
{
	int dir;

	for (dir = 0; dir < CCACHE_NR_DIRS; dir++)
		ccache_ctx_free(&alg->ctx[dir]);
}

static int ccache_alg_setup(struct ccache_alg *alg, const char *name)
{
	int dir, err;

	for (dir = 0; dir < CCACHE_NR_DIRS; dir++) {
		err = ccache_ctx_setup(&alg->ctx[dir], name);
		if (err) {
			ccache_alg_free(alg);
			return err;
		}
	}
	strscpy(alg->name, name, sizeof(alg->name));
	alg->lib = ccache_lib_codec(name);
	return 0;
}

/**
 * ccache_comp_select() - compress new pages with @name from now on
 * @name: crypto API algorithm name
 *
 * Before ccache_comp_init() this only checks that @name exists.
 *
 * Context: process context; may sleep and load modules.
 * Return: 0, -ENOENT for an unknown algorithm, -ENOSPC when too many
 * algorithms were used since load, or another negative errno.
 */
int ccache_comp_select(const char *name)
{
	int i, err = 0;

	if (!ccache_comp_available(name))
		return -ENOENT;
	mutex_lock(&ccache_alg_mutex);
	if (READ_ONCE(ccache_alg_current) < 0 && !ccache_nr_algs)
		goto out;	/* not started: the knob is applied at init */
	for (i = 0; i < ccache_nr_algs; i++)
		if (!strcmp(ccache_algs[i].name, name))
			break;
	if (i == CCACHE_MAX_ALGS) {
		err = -ENOSPC;
		goto out;
	}
	if (i == ccache_nr_algs) {
		err = ccache_alg_setup(&ccache_algs[i], name);
		if (err)
			goto out;
		smp_store_release(&ccache_nr_algs, ccache_nr_algs + 1); /* see above */
	}
	smp_store_release(&ccache_alg_current, i);	/* see above */
out:
	mutex_unlock(&ccache_alg_mutex);
	return err;
}

/* Run one request on this CPU's context of slot @id. */
static int ccache_comp_run(int id, enum ccache_comp_dir dir,
			   struct scatterlist *src, unsigned int slen,
			   struct scatterlist *dst, unsigned int *dlen)
{
	struct ccache_comp_ctx *ctx = raw_cpu_ptr(ccache_algs[id].ctx[dir]);
	int err;

	mutex_lock(&ctx->lock);
	acomp_request_set_params(ctx->req, src, dst, slen, *dlen);
	err = crypto_wait_req(dir == CCACHE_COMPRESS ?
			      crypto_acomp_compress(ctx->req) :
			      crypto_acomp_decompress(ctx->req),
			      &ctx->wait);
	*dlen = ctx->req->dlen;
	mutex_unlock(&ctx->lock);
	return err;
}

/**
 * ccache_compress() - compress one page with the current algorithm
 * @src: the page's bytes (PAGE_SIZE, directly mapped memory)
 * @dst: output buffer (directly mapped memory)
 * @dlen: in: size of @dst; out: compressed length
 * @alg: out: the algorithm's slot, to give ccache_decompress()
 *
 * Context: process context; may sleep.
 * Return: 0 or a negative errno (e.g. when @dst is too small).
 */
int ccache_compress(const void *src, void *dst, unsigned int *dlen, u8 *alg)
{
	int id = smp_load_acquire(&ccache_alg_current);	/* see above */
	struct scatterlist in, out;

	if (id < 0)
		return -ENODEV;
	sg_init_one(&in, src, PAGE_SIZE);
	sg_init_one(&out, dst, *dlen);
	*alg = id;
	return ccache_comp_run(id, CCACHE_COMPRESS, &in, PAGE_SIZE, &out, dlen);
}

/**
 * ccache_compress_atomic() - compress one page with interrupts off
 * @src: the page's bytes
 * @dst: output buffer, at least 2 * PAGE_SIZE bytes
 * @dlen: in: size of @dst; out: compressed length
 * @alg: out: the slot of the current algorithm, whose format this is
 *
 * Uses crypto/lib.c, which only some algorithms have.
 *
 * Context: any, interrupts or preemption disabled; never sleeps.
 * Return: 0, -EOPNOTSUPP when the current algorithm cannot be used here,
 * or another negative errno.
 */
int ccache_compress_atomic(const void *src, void *dst, unsigned int *dlen,
			   u8 *alg)
{
	int id = smp_load_acquire(&ccache_alg_current);	/* see above */

	if (id < 0)
		return -ENODEV;
	*alg = id;
	return ccache_lib_compress(ccache_algs[id].lib, src, dst, dlen);
}

/**
 * ccache_comp_atomic_capable() - can ccache_compress_atomic() use @name?
 * @name: crypto API algorithm name
 *
 * Return: true when crypto/lib.c has a codec for it.
 */
bool ccache_comp_atomic_capable(const char *name)
{
	return ccache_lib_codec(name) >= 0;
}

/**
 * ccache_decompress_atomic() - does ccache_decompress() never sleep for @alg?
 * @alg: the slot ccache_compress() reported
 *
 * Return: true when crypto/lib.c decompresses it (the default, LZO), so
 * the caller may decompress with preemption off; false for the crypto
 * API, whose driver may sleep.
 */
bool ccache_decompress_atomic(u8 alg)
{
	return alg < smp_load_acquire(&ccache_nr_algs) &&	/* see above */
	       ccache_algs[alg].lib >= 0;
}

static void ccache_async_done(CCACHE_CRYPTO_CB_ARG *arg, int err)
{
	struct ccache_async_req *r = ccache_crypto_cb_data(arg);

	if (err == -EINPROGRESS)	/* a backlogged request has started */
		return;
	r->done(r, err, r->req->dlen);
}

/**
 * ccache_async_start() - start compressing one page, without waiting
 * @r: the request; @r->done set by the caller
 * @src: the page's bytes (directly mapped memory, kept until done)
 * @dst: output buffer (directly mapped memory, kept until done)
 * @dlen: size of @dst
 *
 * (Re)allocates @r's crypto request for the current algorithm when it
 * belongs to another, and submits it.  @r->done() is called exactly once
 * with the result: from the driver's completion (any context) when the
 * algorithm is asynchronous, or before this function returns when it
 * completed at once.  @r->alg tells which slot compressed.
 *
 * Context: process context; may sleep (allocation), never waits for the
 * compression itself.
 * Return: 0 when @r->done() was or will be called, else a negative errno
 * and @r->done() is not called.
 */
int ccache_async_start(struct ccache_async_req *r, const void *src,
		       void *dst, unsigned int dlen)
{
	int id = smp_load_acquire(&ccache_alg_current);	/* see above */
	int err;

	if (id < 0)
		return -ENODEV;
	if (r->req && r->alg != id)
		ccache_async_release(r);
	if (!r->req) {
		struct ccache_comp_ctx __percpu *ctx;

		ctx = ccache_algs[id].ctx[CCACHE_COMPRESS];
		r->req = acomp_request_alloc(raw_cpu_ptr(ctx)->tfm);
		if (!r->req)
			return -ENOMEM;
		r->alg = id;
	}
	sg_init_one(&r->in, src, PAGE_SIZE);
	sg_init_one(&r->out, dst, dlen);
	acomp_request_set_params(r->req, &r->in, &r->out, PAGE_SIZE, dlen);
	acomp_request_set_callback(r->req, CRYPTO_TFM_REQ_MAY_BACKLOG,
				   ccache_async_done, r);
	err = crypto_acomp_compress(r->req);
	if (err != -EINPROGRESS && err != -EBUSY)
		r->done(r, err, r->req->dlen);
	return 0;
}

/**
 * ccache_async_release() - free a request's crypto state
 * @r: a request not in flight
 */
void ccache_async_release(struct ccache_async_req *r)
{
	if (r->req)
		acomp_request_free(r->req);
	r->req = NULL;
}

/**
 * ccache_decompress() - decompress one page
 * @alg: the slot ccache_compress() reported
 * @src: compressed bytes (directly mapped memory)
 * @slen: their length
 * @dst: the page to fill
 *
 * Context: process context; may sleep.
 * Return: 0 when exactly one page came out, else a negative errno.
 */
int ccache_decompress(u8 alg, const void *src, unsigned int slen,
		      struct page *dst)
{
	unsigned int dlen = PAGE_SIZE;
	struct scatterlist in, out;
	int err;

	if (alg >= smp_load_acquire(&ccache_nr_algs))	/* see above */
		return -EINVAL;
	if (ccache_algs[alg].lib >= 0)
		return ccache_lib_decompress(ccache_algs[alg].lib, src, slen,
					     dst);
	sg_init_one(&in, src, slen);
	sg_init_table(&out, 1);
	sg_set_page(&out, dst, PAGE_SIZE, 0);
	err = ccache_comp_run(alg, CCACHE_DECOMPRESS, &in, slen, &out, &dlen);
	return err ? err : dlen == PAGE_SIZE ? 0 : -EIO;
}

/**
 * ccache_comp_init() - set up the algorithm the "compressor" knob names
 *
 * Context: process context, kernel_param_lock(THIS_MODULE) held so the
 * knob cannot change meanwhile.
 * Return: 0 or a negative errno.
 */
int ccache_comp_init(const char *name)
{
	int err;

	mutex_lock(&ccache_alg_mutex);
	err = ccache_alg_setup(&ccache_algs[0], name);
	if (!err) {
		smp_store_release(&ccache_nr_algs, 1);		/* see above */
		smp_store_release(&ccache_alg_current, 0);	/* see above */
	}
	mutex_unlock(&ccache_alg_mutex);
	return err;
}

/**
 * ccache_comp_exit() - free every algorithm's contexts
 *
 * Context: nothing compresses or decompresses any more.
 */
void ccache_comp_exit(void)
{
	int i;

	mutex_lock(&ccache_alg_mutex);
	for (i = 0; i < ccache_nr_algs; i++)
		ccache_alg_free(&ccache_algs[i]);
	WRITE_ONCE(ccache_nr_algs, 0);
	WRITE_ONCE(ccache_alg_current, -1);
	mutex_unlock(&ccache_alg_mutex);
}
