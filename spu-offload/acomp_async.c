// SPDX-License-Identifier: GPL-2.0
/*
 * kspu backend "acomp-async": jobs become crypto API requests that nobody
 * waits for.  A dispatcher (a work item) starts up to KSPU_ASYNC_SLOTS
 * requests at once, each with an output buffer of its own; the driver's
 * completion callback finishes the job and frees the slot.  With a
 * hardware compressor (QAT, IAA, ...) the CPU only copies; with a
 * synchronous software algorithm the request completes inside the
 * dispatcher, which then behaves like one "cpu" thread at normal priority.
 *
 * Locking: the queue's lock (irqsave: submit() runs with interrupts off and
 * completions may run in interrupt context) protects the queue, the free
 * slots and the in-flight count.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/rcupdate.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "../crypto/comp.h"
#include "kspu.h"

/* Requests in flight at once. */
#define KSPU_ASYNC_SLOTS 64

struct kspu_async_slot {
	struct ccache_async_req r;
	struct list_head free;		/* on kspu_async_free when idle */
	struct kspu_job *job;
	void *out;			/* KSPU_SCRATCH_SIZE bytes */
	u64 start;			/* local_clock() at submission */
};

static struct kspu_queue kspu_async_queue = {
	.lock = __SPIN_LOCK_UNLOCKED(kspu_async_queue.lock),
	.jobs = LIST_HEAD_INIT(kspu_async_queue.jobs),
};

static LIST_HEAD(kspu_async_free);		/* idle slots */
static unsigned int kspu_async_inflight;
static DECLARE_WAIT_QUEUE_HEAD(kspu_async_idle);
static struct kspu_async_slot *kspu_async_slots;
static struct workqueue_struct *kspu_async_wq;	/* runs the dispatcher */

static void kspu_async_dispatch(struct work_struct *work);
static DECLARE_WORK(kspu_async_dispatcher, kspu_async_dispatch);

/* Complete @slot's job with @err and free the slot.  Any context. */
static void kspu_async_finish(struct kspu_async_slot *slot, int err)
{
	struct kspu_backend *b = &kspu_acomp_async_backend;
	unsigned long flags;

	atomic_long_add(local_clock() - slot->start, &b->stats.compress_ns);
	kspu_complete(b, slot->job, err);
	/* under the lock, so that stop() cannot finish before we are done */
	spin_lock_irqsave(&kspu_async_queue.lock, flags);
	slot->job = NULL;
	list_add(&slot->free, &kspu_async_free);
	kspu_async_inflight--;
	if (kspu_async_queue.len)
		queue_work(kspu_async_wq, &kspu_async_dispatcher);
	wake_up(&kspu_async_idle);
	spin_unlock_irqrestore(&kspu_async_queue.lock, flags);
}

/*
 * The driver finished @r: its output is the job's result.  Any context.
 * A driver that completed a request twice would hand the slot back twice
 * and with it the job's staging buffer: warn and ignore the second call
 * (the slot has no job once finished).  A failed job's length is 0, and a
 * length beyond the output buffer is the driver's error.
 */
static void kspu_async_done(struct ccache_async_req *r, int err,
			    unsigned int dlen)
{
	struct kspu_async_slot *slot = container_of(r, struct kspu_async_slot, r);
	struct kspu_job *job = slot->job;

	if (WARN_ON_ONCE(!job))
		return;
	if (!err && dlen > KSPU_SCRATCH_SIZE)
		err = -EOVERFLOW;
	job->result = KSPU_COMPRESSED;
	job->alg = r->alg;
	job->out = slot->out;
	job->out_len = err ? 0 : dlen;
	kspu_async_finish(slot, err);
}

/* Pair a queued job with a free slot.  Return: the slot, or NULL. */
static struct kspu_async_slot *kspu_async_next(void)
{
	struct kspu_async_slot *slot = NULL;
	unsigned long flags;

	spin_lock_irqsave(&kspu_async_queue.lock, flags);
	if (kspu_async_queue.len && !list_empty(&kspu_async_free)) {
		slot = list_first_entry(&kspu_async_free,
					struct kspu_async_slot, free);
		list_del(&slot->free);
		slot->job = kspu_queue_pop(&kspu_async_queue);
		kspu_async_inflight++;
	}
	spin_unlock_irqrestore(&kspu_async_queue.lock, flags);
	return slot;
}

static void kspu_async_dispatch(struct work_struct *work)
{
	struct kspu_async_slot *slot;
	struct kspu_job *job;
	int err;

	while ((slot = kspu_async_next())) {
		job = slot->job;
		slot->start = local_clock();
		if (job->op != KSPU_COMPRESS) {
			kspu_async_finish(slot, -EOPNOTSUPP);
		} else if (kspu_prepare(job)) {
			/* same-filled: nothing for the driver to do */
			kspu_async_finish(slot, 0);
		} else {
			err = ccache_async_start(&slot->r, job->src, slot->out,
						 KSPU_SCRATCH_SIZE);
			if (err)
				kspu_async_finish(slot, err);
		}
		cond_resched_tasks_rcu_qs();
	}
}

static unsigned int kspu_async_submit(struct kspu_job **jobs, unsigned int n)
{
	if (kspu_queue_add(&kspu_async_queue, jobs, n) < 0)
		return 0;
	queue_work(kspu_async_wq, &kspu_async_dispatcher);
	return n;
}

/* Free what start() set up; nothing may be in flight. */
static void kspu_async_free_slots(void)
{
	unsigned int i;

	for (i = 0; kspu_async_slots && i < KSPU_ASYNC_SLOTS; i++) {
		ccache_async_release(&kspu_async_slots[i].r);
		kfree(kspu_async_slots[i].out);
	}
	kfree(kspu_async_slots);
	kspu_async_slots = NULL;
	INIT_LIST_HEAD(&kspu_async_free);
	if (kspu_async_wq)
		destroy_workqueue(kspu_async_wq);
	kspu_async_wq = NULL;
}

static int kspu_async_start(void)
{
	struct kspu_async_slot *slot;
	unsigned int i;

	kspu_async_wq = alloc_workqueue("kspu_async", WQ_UNBOUND, 0);
	kspu_async_slots = kcalloc(KSPU_ASYNC_SLOTS, sizeof(*kspu_async_slots),
				   GFP_KERNEL);
	if (!kspu_async_wq || !kspu_async_slots) {
		kspu_async_free_slots();
		return -ENOMEM;
	}
	for (i = 0; i < KSPU_ASYNC_SLOTS; i++) {
		slot = &kspu_async_slots[i];
		slot->r.done = kspu_async_done;
		slot->out = kmalloc(KSPU_SCRATCH_SIZE, GFP_KERNEL);
		if (!slot->out) {
			kspu_async_free_slots();
			return -ENOMEM;
		}
		list_add_tail(&slot->free, &kspu_async_free);
	}
	kspu_queue_open(&kspu_async_queue);
	return 0;
}

/* Requests still with the driver? */
static bool kspu_async_busy(void)
{
	unsigned long flags;
	bool busy;

	spin_lock_irqsave(&kspu_async_queue.lock, flags);
	busy = kspu_async_inflight;
	spin_unlock_irqrestore(&kspu_async_queue.lock, flags);
	return busy;
}

static void kspu_async_stop(void)
{
	kspu_queue_close(&kspu_acomp_async_backend, &kspu_async_queue);
	flush_work(&kspu_async_dispatcher);
	/* drivers always complete what they accepted */
	wait_event(kspu_async_idle, !kspu_async_busy());
	kspu_async_free_slots();
}

struct kspu_backend kspu_acomp_async_backend = {
	.name = "acomp-async",
	.start = kspu_async_start,
	.stop = kspu_async_stop,
	.submit = kspu_async_submit,
};
