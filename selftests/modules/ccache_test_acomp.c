// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module: registers "lzo" and "lzo-rle" as genuinely asynchronous
 * acomp algorithms, so ccache's acomp-async offload backend meets real
 * asynchronous completions in guests that have no compression hardware.
 * Never load it outside a disposable guest.
 *
 * Every compress or decompress call queues the request to this module's
 * workqueue and returns -EINPROGRESS; a worker does the LZO work with the
 * kernel's own lib/lzo (so the output is byte for byte that of the software
 * "lzo" and "lzo-rle", and entries written by one decompress with the
 * other), then completes the request with bottom halves disabled, as a
 * hardware driver's interrupt path would.  The priority is above the
 * software algorithms', so crypto_alloc_acomp("lzo", 0, 0) returns this
 * driver while the module is loaded.
 *
 * Requests longer than CTA_MAX_LEN (in or out) fail with -EINVAL, as they
 * do with the 6.1 scomp layer; compressed data that does not fit the
 * destination fails with -ENOSPC, corrupt input with -EINVAL.
 *
 * Parameters: "completed" and "failed" count completions (read-only);
 * "delay_us" sleeps in the worker before each request, to widen races.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/internal/acompress.h>
#include <linux/atomic.h>
#include <linux/bottom_half.h>
#include <linux/crypto.h>
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/lzo.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#define CTA_MAX_LEN	(128 * 1024)	/* the 6.1 scomp scratch size */
#define CTA_PRIORITY	500		/* the software lzo/lzo-rle have 0 */

enum cta_op { CTA_COMPRESS, CTA_COMPRESS_RLE, CTA_DECOMPRESS };

/* Per-request context: lives in the request (acomp_request_ctx()). */
struct cta_req_ctx {
	struct work_struct work;
	struct acomp_req *req;
	enum cta_op op;
};

/* Bounce buffers and LZO work memory, one set per CPU. */
struct cta_scratch {
	struct mutex lock;	/* the worker using this set */
	void *wrkmem;		/* LZO1X_1_MEM_COMPRESS */
	u8 *src;		/* CTA_MAX_LEN */
	u8 *dst;		/* lzo1x_worst_compress(CTA_MAX_LEN) */
};

static struct workqueue_struct *cta_wq;
static struct cta_scratch __percpu *cta_scratch;
static atomic_long_t cta_completed = ATOMIC_LONG_INIT(0);
static atomic_long_t cta_failed = ATOMIC_LONG_INIT(0);

static unsigned int delay_us;
module_param(delay_us, uint, 0644);
MODULE_PARM_DESC(delay_us, "Sleep this long in the worker before each request (default 0)");

static int cta_counter_get(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%ld\n", atomic_long_read(kp->arg));
}

static int cta_counter_set(const char *val, const struct kernel_param *kp)
{
	return -EPERM;
}

static const struct kernel_param_ops cta_counter_ops = {
	.set = cta_counter_set,
	.get = cta_counter_get,
};

module_param_cb(completed, &cta_counter_ops, &cta_completed, 0444);
MODULE_PARM_DESC(completed, "Requests completed asynchronously (read-only)");
module_param_cb(failed, &cta_counter_ops, &cta_failed, 0444);
MODULE_PARM_DESC(failed, "Of those, requests completed with an error (read-only)");

/* Do the LZO work of @req; return 0 or a negative errno. */
static int cta_run(struct acomp_req *req, enum cta_op op)
{
	struct cta_scratch *s;
	size_t out_len;
	int err;

	/* a NULL dst asks 6.1 to allocate the output: not supported here */
	if (!req->src || !req->dst || !req->slen || !req->dlen ||
	    req->slen > CTA_MAX_LEN)
		return -EINVAL;

	/* the worker may migrate: the mutex, not the CPU, owns the set */
	s = raw_cpu_ptr(cta_scratch);
	mutex_lock(&s->lock);
	if (sg_copy_to_buffer(req->src, sg_nents(req->src), s->src,
			      req->slen) != req->slen) {
		err = -EINVAL;
		goto out;
	}

	switch (op) {
	case CTA_COMPRESS:
		err = lzo1x_1_compress(s->src, req->slen, s->dst, &out_len,
				       s->wrkmem);
		break;
	case CTA_COMPRESS_RLE:
		err = lzorle1x_1_compress(s->src, req->slen, s->dst, &out_len,
					  s->wrkmem);
		break;
	default:
		out_len = min_t(unsigned int, req->dlen, CTA_MAX_LEN);
		err = lzo1x_decompress_safe(s->src, req->slen, s->dst,
					    &out_len);
		break;
	}
	if (err != LZO_E_OK) {
		err = -EINVAL;
		goto out;
	}

	err = -ENOSPC;
	if (out_len > req->dlen)
		goto out;
	if (sg_copy_from_buffer(req->dst, sg_nents(req->dst), s->dst,
				out_len) != out_len)
		goto out;
	req->dlen = out_len;
	err = 0;
out:
	mutex_unlock(&s->lock);
	return err;
}

static void cta_work(struct work_struct *work)
{
	struct cta_req_ctx *ctx = container_of(work, struct cta_req_ctx, work);
	struct acomp_req *req = ctx->req;
	unsigned int delay = READ_ONCE(delay_us);
	int err;

	if (delay)
		fsleep(delay);
	err = cta_run(req, ctx->op);

	/* count first: once completed, the caller may free @req */
	atomic_long_inc(&cta_completed);
	if (err)
		atomic_long_inc(&cta_failed);

	/* hardware completes from interrupt/BH context: a callback may not sleep */
	local_bh_disable();
	acomp_request_complete(req, err);
	local_bh_enable();
}

static int cta_submit(struct acomp_req *req, enum cta_op op)
{
	struct cta_req_ctx *ctx = acomp_request_ctx(req);

	ctx->req = req;
	ctx->op = op;
	INIT_WORK(&ctx->work, cta_work);
	/* queued already: the caller submitted a request still in flight */
	if (WARN_ON_ONCE(!queue_work(cta_wq, &ctx->work)))
		return -EINVAL;
	return -EINPROGRESS;
}

static int cta_compress(struct acomp_req *req)
{
	return cta_submit(req, CTA_COMPRESS);
}

static int cta_compress_rle(struct acomp_req *req)
{
	return cta_submit(req, CTA_COMPRESS_RLE);
}

static int cta_decompress(struct acomp_req *req)
{
	return cta_submit(req, CTA_DECOMPRESS);
}

/*
 * The request context size moved from struct acomp_alg (reqsize) to
 * struct crypto_alg (cra_reqsize) in Linux 6.16; Kbuild detects which.
 */
#ifdef CCACHE_TEST_HAVE_CRA_REQSIZE
#define CTA_REQSIZE(size)	.base.cra_reqsize = (size)
#else
#define CTA_REQSIZE(size)	.reqsize = (size)
#endif

static struct acomp_alg cta_algs[] = {
	{
		.compress		= cta_compress,
		.decompress		= cta_decompress,
		CTA_REQSIZE(sizeof(struct cta_req_ctx)),
		.base.cra_name		= "lzo",
		.base.cra_driver_name	= "lzo-ccache-test-async",
		.base.cra_flags		= CRYPTO_ALG_ASYNC,
		.base.cra_priority	= CTA_PRIORITY,
		.base.cra_module	= THIS_MODULE,
	}, {
		.compress		= cta_compress_rle,
		.decompress		= cta_decompress,
		CTA_REQSIZE(sizeof(struct cta_req_ctx)),
		.base.cra_name		= "lzo-rle",
		.base.cra_driver_name	= "lzo-rle-ccache-test-async",
		.base.cra_flags		= CRYPTO_ALG_ASYNC,
		.base.cra_priority	= CTA_PRIORITY,
		.base.cra_module	= THIS_MODULE,
	},
};

static void cta_scratch_free(void)
{
	struct cta_scratch *s;
	int cpu;

	if (!cta_scratch)
		return;
	for_each_possible_cpu(cpu) {
		s = per_cpu_ptr(cta_scratch, cpu);
		kvfree(s->wrkmem);
		kvfree(s->src);
		kvfree(s->dst);
	}
	free_percpu(cta_scratch);
	cta_scratch = NULL;
}

static int cta_scratch_alloc(void)
{
	struct cta_scratch *s;
	int cpu;

	cta_scratch = alloc_percpu(struct cta_scratch);
	if (!cta_scratch)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		s = per_cpu_ptr(cta_scratch, cpu);
		mutex_init(&s->lock);
		s->wrkmem = kvmalloc(LZO1X_1_MEM_COMPRESS, GFP_KERNEL);
		s->src = kvmalloc(CTA_MAX_LEN, GFP_KERNEL);
		s->dst = kvmalloc(lzo1x_worst_compress(CTA_MAX_LEN), GFP_KERNEL);
		if (!s->wrkmem || !s->src || !s->dst) {
			cta_scratch_free();
			return -ENOMEM;
		}
	}
	return 0;
}

static int __init cta_init(void)
{
	int err;

	err = cta_scratch_alloc();
	if (err)
		return err;
	/*
	 * Unbound, so a request may complete on another CPU; a rescuer, as
	 * ccache may wait for compression while the system reclaims memory.
	 */
	cta_wq = alloc_workqueue("ccache_test_acomp",
				 WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!cta_wq) {
		err = -ENOMEM;
		goto free_scratch;
	}
	/* last: registering runs the crypto self-tests through cta_work() */
	err = crypto_register_acomps(cta_algs, ARRAY_SIZE(cta_algs));
	if (err)
		goto destroy_wq;
	pr_info("registered %s and %s (async, priority %d)\n",
		cta_algs[0].base.cra_driver_name,
		cta_algs[1].base.cra_driver_name, CTA_PRIORITY);
	return 0;

destroy_wq:
	destroy_workqueue(cta_wq);
free_scratch:
	cta_scratch_free();
	return err;
}
module_init(cta_init);

static void __exit cta_exit(void)
{
	/* no transform is left (each holds a module reference), so no request */
	crypto_unregister_acomps(cta_algs, ARRAY_SIZE(cta_algs));
	destroy_workqueue(cta_wq);	/* drains it */
	cta_scratch_free();
	pr_info("unregistered after %ld completions\n",
		atomic_long_read(&cta_completed));
}
module_exit(cta_exit);

MODULE_DESCRIPTION("ccache selftest: asynchronous lzo/lzo-rle acomp driver");
MODULE_LICENSE("GPL");
