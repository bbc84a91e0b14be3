// SPDX-License-Identifier: GPL-2.0
/*
 * kspu: the offload shim's core.  Selects the backend, hands it jobs,
 * counts what it does, and runs a job where a backend decides to run it.
 * See kspu.h for the interface, the job lifetime and the switching rules.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/string.h>
#include <linux/xxhash.h>

#include "../crypto/comp.h"
#include "kspu.h"

static struct kspu_backend * const kspu_backends[] = {
	&kspu_inline_backend,
	&kspu_cpu_backend,
	&kspu_acomp_async_backend,
};

/* Serialises start, stop and switching; nests inside kernel_param_lock. */
static DEFINE_MUTEX(kspu_mutex);
/* The backend jobs go to; NULL before kspu_init() and after kspu_exit(). */
static struct kspu_backend __rcu *kspu_current;

static struct kspu_backend *kspu_find(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kspu_backends); i++)
		if (!strcmp(kspu_backends[i]->name, name))
			return kspu_backends[i];
	return NULL;
}

/**
 * kspu_backend_exists() - is there a backend called @name?
 * @name: what the "offload" knob was given
 */
bool kspu_backend_exists(const char *name)
{
	return kspu_find(name);
}

/**
 * kspu_backend_at() - the backends, for listing their statistics
 * @i: 0, 1, ...
 *
 * Return: the @i-th backend, or NULL past the last.
 */
struct kspu_backend *kspu_backend_at(unsigned int i)
{
	return i < ARRAY_SIZE(kspu_backends) ? kspu_backends[i] : NULL;
}

/* Start @next and make it current; stop the one before.  kspu_mutex held. */
static int kspu_switch(struct kspu_backend *next)
{
	struct kspu_backend *prev;
	int err;

	lockdep_assert_held(&kspu_mutex);
	prev = rcu_dereference_protected(kspu_current,
					 lockdep_is_held(&kspu_mutex));
	if (next == prev)
		return 0;
	if (next) {
		err = next->start();
		if (err) {
			pr_err("cannot start offload backend %s: %d\n",
			       next->name, err);
			return err;
		}
	}
	rcu_assign_pointer(kspu_current, next);
	/* every submit() to @prev has returned after this */
	synchronize_rcu();
	if (prev)
		prev->stop();
	return 0;
}

/**
 * kspu_init() - start the backend called @name
 * @name: one of the backends
 *
 * Context: process context; may sleep.
 * Return: 0 or a negative errno, logged.
 */
int kspu_init(const char *name)
{
	struct kspu_backend *b = kspu_find(name);
	int err;

	if (!b)
		return -ENOENT;
	mutex_lock(&kspu_mutex);
	err = kspu_switch(b);
	mutex_unlock(&kspu_mutex);
	if (!err)
		pr_info("offload backend %s\n", name);
	return err;
}

/**
 * kspu_exit() - stop the current backend; every job it held is finished
 *
 * Context: process context; no kspu_submit() may start any more.
 */
void kspu_exit(void)
{
	mutex_lock(&kspu_mutex);
	kspu_switch(NULL);
	mutex_unlock(&kspu_mutex);
}

/**
 * kspu_select() - send jobs to the backend called @name from now on
 * @name: one of the backends
 *
 * Before kspu_init() this only checks the name.  Jobs the previous backend
 * holds are finished or cancelled before it returns.
 *
 * Context: process context; may sleep.
 * Return: 0, -ENOENT for an unknown name, or why @name cannot start.
 */
int kspu_select(const char *name)
{
	struct kspu_backend *b = kspu_find(name);
	int err = 0;

	if (!b)
		return -ENOENT;
	mutex_lock(&kspu_mutex);
	if (rcu_access_pointer(kspu_current))
		err = kspu_switch(b);
	mutex_unlock(&kspu_mutex);
	return err;
}

/* Raise @max to at least @v. */
static void kspu_track_max(atomic_long_t *max, long v)
{
	long old = atomic_long_read(max);

	while (old < v && !atomic_long_try_cmpxchg(max, &old, v))
		;
}

/**
 * kspu_submit() - hand jobs to the current backend
 * @jobs: the jobs, each with op, src, src_len and done set
 * @n: how many
 *
 * Context: any, interrupts possibly off; never sleeps.
 * Return: how many were taken, from the first; the others were refused
 * (no backend, queue full, backend stopping) and are still the caller's.
 */
unsigned int kspu_submit(struct kspu_job **jobs, unsigned int n)
{
	struct kspu_backend *b;
	unsigned int taken = 0;
	long depth;

	rcu_read_lock();
	b = rcu_dereference(kspu_current);
	if (b) {
		depth = atomic_long_add_return(n, &b->stats.queued);
		if (depth <= KSPU_QUEUE_MAX) {
			kspu_track_max(&b->stats.max_queue_depth, depth);
			taken = b->submit(jobs, n);
		}
		if (unlikely(taken < n)) {
			atomic_long_sub(n - taken, &b->stats.queued);
			atomic_long_add(n - taken, &b->stats.dropped);
		}
	}
	rcu_read_unlock();
	return taken;
}

/**
 * kspu_same_filled() - is a page one machine word repeated?
 * @page: its bytes
 * @value: out: that word
 *
 * Such pages are kept as the word: no compression, no pool memory.
 */
static bool kspu_same_filled(const void *page, unsigned long *value)
{
	const unsigned long *word = page;
	unsigned int i;

	for (i = 1; i < PAGE_SIZE / sizeof(*word); i++)
		if (word[i] != word[0])
			return false;
	*value = word[0];
	return true;
}

/**
 * kspu_page_sum() - the checksum of a page's data
 * @data: PAGE_SIZE bytes
 *
 * The low 32 bits of its xxh64.  Any change to the bytes changes them but
 * with a chance of 2^-32, as for a CRC of that width, which would also
 * catch every change within 32 consecutive bits for sure.  xxh64 is plain
 * integer arithmetic: on hardware it runs about as fast as the CRC32C
 * instruction, and where that instruction is emulated, as under QEMU's
 * TCG, about a hundred times faster (Documentation/design.rst,
 * "Checksums").
 *
 * Context: any.
 * Return: the checksum.
 */
u32 kspu_page_sum(const void *data)
{
	return lower_32_bits(xxh64(data, PAGE_SIZE, 0));
}

/**
 * kspu_prepare() - settle a compress job that needs no compressor
 * @job: a compress job
 *
 * Also computes the page's checksum when the job wants one; each backend
 * calls this before it compresses, off the reclaim path unless it is the
 * inline backend.
 *
 * Return: true when @job's page is same-filled: its result is set and it
 * only needs kspu_complete().
 */
bool kspu_prepare(struct kspu_job *job)
{
	if (!kspu_same_filled(job->src, &job->fill_value)) {
		if (job->want_sum)
			job->sum = kspu_page_sum(job->src);
		return false;
	}
	job->result = KSPU_SAME_FILLED;
	job->out_len = 0;
	return true;
}

/* How often the current task has been switched out, either way. */
static unsigned long kspu_switches(void)
{
	return current->nvcsw + current->nivcsw;
}

/**
 * kspu_run() - do a job here and now, timing it
 * @b: the backend on whose account
 * @job: the job
 * @scratch: compress: KSPU_SCRATCH_SIZE bytes for the output, left in
 *	job->out until the job completes
 * @flags: KSPU_RUN_ATOMIC when the caller cannot sleep (interrupts off):
 *	compress with crypto/lib.c instead of the crypto API;
 *	KSPU_RUN_UNTIMED when the caller measures the time itself (a
 *	preemptible caller's clock would count the time others ran)
 *
 * The time stands for CPU time the job took (the sizing policy weighs
 * decompress_ns against the time nobody wanted), but a clock read before
 * and after also counts whatever ran while the caller was switched out:
 * on a preemptible kernel (Debian's 7.x are PREEMPT_LAZY) the other
 * threads of a busy server, whose slices are long against a page's
 * decompression.  So a decompression whose codec never sleeps runs with
 * preemption off, for one page, and a job whose task was switched out
 * meanwhile (the crypto API may sleep) adds nothing, as its own share is
 * unknown and time spent waiting for a device leaves the CPU to others.
 * Interrupts taken meanwhile still count.
 *
 * Return: 0 or the job's error; the caller completes the job.
 */
int kspu_run(struct kspu_backend *b, struct kspu_job *job, void *scratch,
	     unsigned int flags)
{
	bool decompress = job->op == KSPU_DECOMPRESS;
	bool atomic = decompress && ccache_decompress_atomic(job->alg);
	unsigned int len = KSPU_SCRATCH_SIZE;
	atomic_long_t *ns = &b->stats.compress_ns;
	unsigned long switches;
	u64 start;
	int err = 0;

	if (atomic)
		preempt_disable();
	switches = kspu_switches();
	start = local_clock();
	if (decompress) {
		err = ccache_decompress(job->alg, job->src, job->src_len,
					job->dst);
		ns = &b->stats.decompress_ns;
	} else if (!kspu_prepare(job)) {
		err = flags & KSPU_RUN_ATOMIC ?
		      ccache_compress_atomic(job->src, scratch, &len, &job->alg) :
		      ccache_compress(job->src, scratch, &len, &job->alg);
		job->result = KSPU_COMPRESSED;
		job->out = scratch;
		job->out_len = len;
	}
	if (!(flags & KSPU_RUN_UNTIMED) && kspu_switches() == switches)
		atomic_long_add(local_clock() - start, ns);
	if (atomic)
		preempt_enable();
	return err;
}

/* Record @job's result @err and count it as finished on @b. */
static void kspu_count(struct kspu_backend *b, struct kspu_job *job, int err)
{
	job->err = err;
	atomic_long_inc(&b->stats.completed);
	if (err)
		atomic_long_inc(&b->stats.failed);
}

/**
 * kspu_complete() - a backend is done with a job
 * @b: the backend
 * @job: the job, with its result set
 * @err: 0 or why it failed
 *
 * Context: any.  The job belongs to the submitter again once this
 * returns.
 */
void kspu_complete(struct kspu_backend *b, struct kspu_job *job, int err)
{
	kspu_count(b, job, err);
	atomic_long_dec(&b->stats.queued);
	job->done(job);
}

/**
 * kspu_run_sync() - do a decompress job in the caller's context
 * @job: the job (no done() needed)
 *
 * For decompression on a hit, which the reading task does itself; it is
 * counted on the inline backend's account (completed at once, never
 * queued).
 *
 * Context: process context; may sleep.
 * Return: 0 or the job's error.
 */
int kspu_run_sync(struct kspu_job *job)
{
	int err;

	if (WARN_ON_ONCE(job->op != KSPU_DECOMPRESS))
		return -EINVAL;
	err = kspu_run(&kspu_inline_backend, job, NULL, 0);
	kspu_count(&kspu_inline_backend, job, err);
	return err;
}

/**
 * kspu_decompress_ns() - Return: the time every backend has spent
 * decompressing, in ns, since the module was loaded
 *
 * Decompression runs in the reading task's context (kspu_run_sync()): on
 * a busy machine it is time taken from the workload.
 */
unsigned long kspu_decompress_ns(void)
{
	unsigned long ns = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kspu_backends); i++)
		ns += atomic_long_read(&kspu_backends[i]->stats.decompress_ns);
	return ns;
}

/**
 * kspu_queue_add() - queue jobs on an open queue
 * @q: the queue
 * @jobs: the jobs
 * @n: how many
 *
 * Context: any; takes @q->lock.
 * Return: how many jobs the queue holds now, or -ESHUTDOWN when @q is
 * closed (nothing was queued).
 */
int kspu_queue_add(struct kspu_queue *q, struct kspu_job **jobs,
		   unsigned int n)
{
	unsigned long flags;
	unsigned int i;
	int ret = -ESHUTDOWN;

	spin_lock_irqsave(&q->lock, flags);
	if (q->open) {
		for (i = 0; i < n; i++)
			list_add_tail(&jobs[i]->list, &q->jobs);
		q->len += n;
		ret = q->len;
	}
	spin_unlock_irqrestore(&q->lock, flags);
	return ret;
}

/**
 * kspu_queue_pop() - take the oldest job off a queue
 * @q: the queue
 *
 * Context: @q->lock held.
 * Return: the job, or NULL when the queue is empty.
 */
struct kspu_job *kspu_queue_pop(struct kspu_queue *q)
{
	struct kspu_job *job;

	lockdep_assert_held(&q->lock);
	job = list_first_entry_or_null(&q->jobs, struct kspu_job, list);
	if (job) {
		list_del_init(&job->list);
		q->len--;
	}
	return job;
}

/**
 * kspu_queue_open() - start accepting jobs
 * @q: the queue
 */
void kspu_queue_open(struct kspu_queue *q)
{
	unsigned long flags;

	spin_lock_irqsave(&q->lock, flags);
	q->open = true;
	spin_unlock_irqrestore(&q->lock, flags);
}

/**
 * kspu_queue_close() - stop accepting jobs, cancel those still queued
 * @b: the backend the queue belongs to
 * @q: the queue
 *
 * Every queued job completes with -ECANCELED.  Jobs already taken off
 * the queue are the backend's to finish.
 *
 * Context: any; takes @q->lock.
 */
void kspu_queue_close(struct kspu_backend *b, struct kspu_queue *q)
{
	struct kspu_job *job, *tmp;
	unsigned long flags;
	LIST_HEAD(left);

	spin_lock_irqsave(&q->lock, flags);
	q->open = false;
	list_splice_init(&q->jobs, &left);
	q->len = 0;
	spin_unlock_irqrestore(&q->lock, flags);
	list_for_each_entry_safe(job, tmp, &left, list) {
		list_del_init(&job->list);
		kspu_complete(b, job, -ECANCELED);
	}
}
