/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kspu: the offload shim.  One interface through which ccache runs
 * compression jobs somewhere other than the context that produced them,
 * and the backends that run them:
 *
 *   inline       in the submitter's context, synchronously: the capture
 *                probe itself compresses, as the thesis's synchronous
 *                compressed page cache did (kept to compare against)
 *   cpu          kernel threads on a configurable set of CPUs, at idle
 *                priority, draining the queue in batches
 *   acomp-async  requests handed to the crypto API without waiting; the
 *                driver's completion finishes the job (hardware such as
 *                QAT or IAA, or any asynchronous acomp driver)
 *
 * A backend is one struct kspu_backend in one file; a coprocessor backend
 * (the Cell SPU of the original design) would be one more.
 *
 * Job lifetime.  The submitter owns a job and everything it points to.
 * kspu_submit() hands the job to the current backend, which calls
 * job->done() exactly once: with job->err 0 and the result in job->out,
 * or with a negative errno (-ECANCELED when the backend stopped first).
 * done() may run in any context, hard interrupts included, and on any
 * CPU; job->out is valid only until done() returns, so done() copies
 * what it keeps.  After done() the backend never touches the job again.
 * A job refused by kspu_submit() is not completed: the caller still owns
 * it.
 *
 * Switching.  The current backend is an RCU-protected pointer.  Submitters
 * run in an RCU read-side section (the capture probe has interrupts off,
 * which is one); kspu_select() publishes the new backend, waits for them,
 * and only then stops the old one, which completes or cancels every job it
 * still holds before its stop() returns.  No job is ever lost.
 *
 * Locking.  kspu_mutex serialises start, stop and selection; it nests
 * inside the module's parameter lock.  Backends' queue locks are taken
 * irqsave (submit() runs with interrupts off).
 */
#ifndef _CCACHE_KSPU_H
#define _CCACHE_KSPU_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/kobject.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>

enum kspu_op {
	KSPU_COMPRESS,		/* one page in; compressed bytes or a fill word out */
	KSPU_DECOMPRESS,	/* compressed bytes in; one page out */
};

/* What a finished compress job produced. */
enum kspu_result {
	KSPU_COMPRESSED,	/* out/out_len hold the compressed bytes */
	KSPU_SAME_FILLED,	/* the page is one repeated word: fill_value */
};

/**
 * struct kspu_job - one compression or decompression
 * @list: the backend's queue; the backend's own while it holds the job
 * @op: what to do
 * @src: input: a page (compress) or compressed bytes (decompress)
 * @src_len: length of @src
 * @dst: decompress: the page to fill
 * @alg: compressor slot: out for compress, in for decompress
 * @result: compress: what came out
 * @out: compress: the compressed bytes, valid only inside done()
 * @out_len: their length
 * @fill_value: compress, KSPU_SAME_FILLED: the repeated word
 * @want_sum: compress: also checksum the page (unless same-filled)
 * @sum: compress, @want_sum, KSPU_COMPRESSED: the page's kspu_page_sum()
 * @err: 0, or why the job failed
 * @done: called once when the job is finished, in any context
 * @priv: the submitter's
 */
struct kspu_job {
	struct list_head list;
	u8 op;
	u8 alg;
	u8 result;
	bool want_sum;
	u32 sum;
	int err;
	const void *src;
	unsigned int src_len;
	unsigned int out_len;
	struct page *dst;
	const void *out;
	unsigned long fill_value;
	void (*done)(struct kspu_job *job);
	void *priv;
};

/*
 * Counters of one backend, shown under /sys/kernel/mm/ccache/offload/NAME/
 * (sysfs.c, which also shows "submitted", derived from them).
 */
struct kspu_stats {
	atomic_long_t completed;	/* jobs finished, successfully or not */
	atomic_long_t dropped;		/* jobs refused: queue full or stopping */
	atomic_long_t failed;		/* jobs finished with an error */
	atomic_long_t queued;		/* jobs accepted and not yet finished */
	atomic_long_t max_queue_depth;	/* the most ever queued at once */
	atomic_long_t compress_ns;	/* time spent compressing */
	atomic_long_t decompress_ns;	/* time spent decompressing */
};

/**
 * struct kspu_backend - where jobs run
 * @name: what the "offload" knob calls it
 * @start: get ready to take jobs (threads, requests); may sleep
 * @stop: finish or cancel every job held, then release what start() took;
 *	no submit() runs any more when it is called; may sleep
 * @submit: take @n jobs; any context, interrupts possibly off, always
 *	under rcu_read_lock() (kspu_submit()); never sleeps.  Return: how
 *	many were taken, from the first (the rest are refused and still the
 *	caller's)
 * @stats: its counters
 * @kobj: its directory of counters, offload/NAME/ (sysfs.c)
 * @kobj_released: completed when @kobj is released
 */
struct kspu_backend {
	const char *name;
	int (*start)(void);
	void (*stop)(void);
	unsigned int (*submit)(struct kspu_job **jobs, unsigned int n);
	struct kspu_stats stats;
	struct kobject kobj;
	struct completion kobj_released;
};

/**
 * struct kspu_queue - jobs a backend holds before running them
 * @lock: protects the queue and @open; taken irqsave (submit() runs with
 *	interrupts off); a backend may protect more of its state with it
 * @jobs: oldest first
 * @len: how many
 * @open: jobs are accepted
 */
struct kspu_queue {
	spinlock_t lock;		/* see above */
	struct list_head jobs;
	unsigned int len;
	bool open;
};

/* The backends (one file each); kspu.c lists them. */
extern struct kspu_backend kspu_inline_backend;
extern struct kspu_backend kspu_cpu_backend;
extern struct kspu_backend kspu_acomp_async_backend;

/* The most jobs a backend holds at once; more are dropped and counted. */
#define KSPU_QUEUE_MAX 16384

/* kspu.c: the interface */
int kspu_init(const char *name);
void kspu_exit(void);
int kspu_select(const char *name);
bool kspu_backend_exists(const char *name);
unsigned int kspu_submit(struct kspu_job **jobs, unsigned int n);
int kspu_run_sync(struct kspu_job *job);
unsigned long kspu_decompress_ns(void);
struct kspu_backend *kspu_backend_at(unsigned int i);

/* sysfs.c: the backends' counters */
int kspu_sysfs_init(struct kobject *parent);
void kspu_sysfs_exit(void);

/* kspu.c: for backends */
u32 kspu_page_sum(const void *data);
bool kspu_prepare(struct kspu_job *job);

/* How kspu_run() runs a job. */
#define KSPU_RUN_ATOMIC		BIT(0)	/* cannot sleep: use crypto/lib.c */
#define KSPU_RUN_UNTIMED	BIT(1)	/* the caller accounts the time */
int kspu_run(struct kspu_backend *b, struct kspu_job *job, void *scratch,
	     unsigned int flags);
void kspu_complete(struct kspu_backend *b, struct kspu_job *job, int err);
int kspu_queue_add(struct kspu_queue *q, struct kspu_job **jobs,
		   unsigned int n);
void kspu_queue_open(struct kspu_queue *q);
void kspu_queue_close(struct kspu_backend *b, struct kspu_queue *q);
struct kspu_job *kspu_queue_pop(struct kspu_queue *q);

/* Bytes of scratch kspu_run() needs for a compress job. */
#define KSPU_SCRATCH_SIZE (2 * PAGE_SIZE)

/* cpu.c: its settings, kept there (knobs in ccache/params.c) */
int kspu_cpu_configure(const struct cpumask *cpus, unsigned int batch,
		       bool sched_idle);
bool kspu_cpu_get_cpus(struct cpumask *cpus);
unsigned int kspu_cpu_get_batch(void);
bool kspu_cpu_get_sched_idle(void);
/* kspu_cpu_boost()'s highest level: nice 0 */
#define KSPU_CPU_BOOST_MAX 3
bool kspu_cpu_boost(unsigned int level);
unsigned long kspu_cpu_busy_ns(void);
unsigned long kspu_cpu_idle_ns(void);
#ifdef KSPU_TEST_HOOKS
/* test builds only: ms a submitter spins before it arms the timer */
extern unsigned int kspu_cpu_test_delay_ms;
#endif

#endif /* _CCACHE_KSPU_H */
