// SPDX-License-Identifier: GPL-2.0
/*
 * kspu backend "cpu": kernel threads that compress on the cores nobody
 * else wants.  One thread per CPU of the configured set ("offload_cpus"),
 * each allowed to run on any CPU of the set, at SCHED_IDLE (or nice 19,
 * "offload_sched"), so they only take cycles that would otherwise be
 * idle.  submit() only queues; a thread is woken once "offload_batch" jobs
 * wait, or one jiffy after the queue stopped being empty, and takes up to
 * a batch at a time, compressing through the crypto API, which may sleep.
 * Their compress_ns counts the CPU time the threads ran (the scheduler's
 * sum_exec_runtime), not the wall time, which would include the time they
 * were preempted by the work they yield to.
 * When the threads cannot keep up the queue
 * fills to KSPU_QUEUE_MAX and further jobs are refused (counted as
 * dropped): reclaim never waits for compression.
 *
 * Locking: the queue's lock (irqsave: submit() runs with interrupts off)
 * protects the queue.  The settings and the threads change only under
 * kspu_cpu_mutex, which start() and stop() also take.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <uapi/linux/sched/types.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/wait.h>

#include "kspu.h"

/* Of compress_ns, the time the threads ran at SCHED_IDLE: spare cycles. */
static atomic_long_t kspu_cpu_idle_class_ns = ATOMIC_LONG_INIT(0);

static struct kspu_queue kspu_cpu_queue = {
	.lock = __SPIN_LOCK_UNLOCKED(kspu_cpu_queue.lock),
	.jobs = LIST_HEAD_INIT(kspu_cpu_queue.jobs),
};

static DECLARE_WAIT_QUEUE_HEAD(kspu_cpu_wait);
/*
 * Flushes a partial batch.  Set up once: a restart must not set up a timer
 * that a late submitter may have armed (see kspu_cpu_stop_locked()).
 */
static void kspu_cpu_flush(struct timer_list *timer);
static DEFINE_TIMER(kspu_cpu_timer, kspu_cpu_flush);

static DEFINE_MUTEX(kspu_cpu_mutex);
static bool kspu_cpu_started;			/* between start() and stop() */
static struct task_struct **kspu_cpu_threads;	/* under kspu_cpu_mutex */
static unsigned int kspu_cpu_nr_threads;
static struct cpumask kspu_cpu_set;
static struct cpumask *kspu_cpu_mask;		/* &kspu_cpu_set, or NULL: all */
static unsigned int kspu_cpu_batch = 16;	/* READ_ONCE() */
static bool kspu_cpu_sched_idle = true;
static unsigned int kspu_cpu_boost_level;	/* kspu_cpu_boost(); 0: none */

/*
 * The threads' nice value at each boost level.  Level 0 is the configured
 * priority (SCHED_IDLE, or nice 19).  Against one busy nice-0 task a
 * thread gets about 1.5% of a CPU at nice 19, 10% at nice 10 and half at
 * nice 0 (weights 15, 110 and 1024).
 */
static const int kspu_cpu_boost_nice[KSPU_CPU_BOOST_MAX + 1] = {
	MAX_NICE, MAX_NICE, 10, 0
};

/* Take up to a batch of jobs off the queue into @batch. */
static unsigned int kspu_cpu_take(struct list_head *batch)
{
	unsigned int n = 0, max = READ_ONCE(kspu_cpu_batch);
	unsigned long flags;
	bool more;

	struct kspu_job *job;

	spin_lock_irqsave(&kspu_cpu_queue.lock, flags);
	while (n < max && (job = kspu_queue_pop(&kspu_cpu_queue))) {
		list_add_tail(&job->list, batch);
		n++;
	}
	more = kspu_cpu_queue.len;
	spin_unlock_irqrestore(&kspu_cpu_queue.lock, flags);
	if (more)		/* let another thread help */
		wake_up(&kspu_cpu_wait);
	return n;
}

/* Is there work for a thread, or is it told to stop? */
static bool kspu_cpu_woken(void)
{
	return !list_empty_careful(&kspu_cpu_queue.jobs) || kthread_should_stop();
}

/*
 * A thread with a backlog never sleeps, so it never makes a voluntary
 * context switch, the quiescent state RCU Tasks waits for: each job ends
 * with cond_resched_tasks_rcu_qs(), or every synchronize_rcu_tasks() in
 * the system (ftrace and kprobe unregistration, ours at unload included)
 * would wait until the backlog is gone, which at SCHED_IDLE on a busy
 * machine is slow.
 */
static int kspu_cpu_thread(void *unused)
{
	void *scratch = kmalloc(KSPU_SCRATCH_SIZE, GFP_KERNEL);
	struct kspu_backend *b = &kspu_cpu_backend;
	struct kspu_job *job, *tmp;
	LIST_HEAD(batch);
	u64 ran;

	while (!scratch && !kthread_should_stop())	/* the others work */
		wait_event_interruptible(kspu_cpu_wait, kthread_should_stop());
	while (!kthread_should_stop()) {
		wait_event_interruptible_exclusive(kspu_cpu_wait, kspu_cpu_woken());
		if (!kspu_cpu_take(&batch))
			continue;
		ran = current->se.sum_exec_runtime;
		list_for_each_entry_safe(job, tmp, &batch, list) {
			list_del_init(&job->list);
			kspu_complete(b, job, kspu_run(b, job, scratch,
						       KSPU_RUN_UNTIMED));
			cond_resched_tasks_rcu_qs();
		}
		ran = current->se.sum_exec_runtime - ran;
		atomic_long_add(ran, &b->stats.compress_ns);
		if (current->policy == SCHED_IDLE)
			atomic_long_add(ran, &kspu_cpu_idle_class_ns);
	}
	kfree(scratch);
	return 0;
}

static void kspu_cpu_set_priority(struct task_struct *t)
{
	struct sched_attr attr = { .sched_policy = SCHED_IDLE };

	if (!kspu_cpu_sched_idle || kspu_cpu_boost_level ||
	    sched_setattr_nocheck(t, &attr))
		sched_set_normal(t, kspu_cpu_boost_nice[kspu_cpu_boost_level]);
}

static void kspu_cpu_flush(struct timer_list *timer)
{
	wake_up(&kspu_cpu_wait);
}

/*
 * Cancel the queue; stop the threads.  kspu_cpu_mutex held.  A submitter
 * that found the queue open may still be about to arm the timer:
 * kspu_submit() calls us under rcu_read_lock(), so once synchronize_rcu()
 * returns no submitter is left, and the timer stays disarmed after
 * timer_delete_sync() (a restart used to re-initialise a timer armed
 * after it).  A thread at SCHED_IDLE on a busy machine may wait long for
 * the CPU it needs to finish its batch and exit, so each is raised to
 * normal priority before kthread_stop() waits for it.
 */
static void kspu_cpu_stop_locked(void)
{
	unsigned int i;

	kspu_queue_close(&kspu_cpu_backend, &kspu_cpu_queue);
	synchronize_rcu();
	timer_delete_sync(&kspu_cpu_timer);
	for (i = 0; i < kspu_cpu_nr_threads; i++)
		sched_set_normal(kspu_cpu_threads[i], 0);
	for (i = 0; i < kspu_cpu_nr_threads; i++)
		kthread_stop(kspu_cpu_threads[i]);
	kfree(kspu_cpu_threads);
	kspu_cpu_threads = NULL;
	kspu_cpu_nr_threads = 0;
}

/* Start one thread per CPU of the set.  kspu_cpu_mutex held. */
static int kspu_cpu_start_locked(void)
{
	const struct cpumask *mask = kspu_cpu_mask ?: cpu_possible_mask;
	unsigned int n = max(cpumask_weight(mask), 1U);
	struct task_struct *t;

	kspu_cpu_threads = kcalloc(n, sizeof(*kspu_cpu_threads), GFP_KERNEL);
	if (!kspu_cpu_threads)
		return -ENOMEM;
	while (kspu_cpu_nr_threads < n) {
		t = kthread_create(kspu_cpu_thread, NULL, "kspu_cpu/%u",
				   kspu_cpu_nr_threads);
		if (IS_ERR(t))
			goto fail;
		kspu_cpu_threads[kspu_cpu_nr_threads++] = t;
		if (set_cpus_allowed_ptr(t, mask))
			goto fail;
		kspu_cpu_set_priority(t);
		wake_up_process(t);
	}
	kspu_queue_open(&kspu_cpu_queue);
	return 0;
fail:
	kspu_cpu_stop_locked();
	return -ENOMEM;
}

static int kspu_cpu_start(void)
{
	int err;

	mutex_lock(&kspu_cpu_mutex);
	err = kspu_cpu_start_locked();
	kspu_cpu_started = !err;
	mutex_unlock(&kspu_cpu_mutex);
	return err;
}

static void kspu_cpu_stop(void)
{
	mutex_lock(&kspu_cpu_mutex);
	kspu_cpu_stop_locked();
	kspu_cpu_started = false;
	mutex_unlock(&kspu_cpu_mutex);
}

#ifdef KSPU_TEST_HOOKS
/*
 * Test builds only: how long, in milliseconds, a submitter spins between
 * queueing its jobs and arming the timer, which widens the window where
 * a restart meets a late submitter (kspu_cpu_stop_locked();
 * selftests/offload_restart.sh).  At most 1 s (params.c).
 */
unsigned int kspu_cpu_test_delay_ms;
#endif

/*
 * Waking a thread on another CPU is dear on the capture probe's path, so
 * it is done once per batch: when the queue reaches a batch, or from a
 * timer armed when it stops being empty.  Threads drain the queue until it
 * is empty before they sleep, and one that leaves jobs behind wakes
 * another (kspu_cpu_take()).
 */
static unsigned int kspu_cpu_submit(struct kspu_job **jobs, unsigned int n)
{
	int len = kspu_queue_add(&kspu_cpu_queue, jobs, n);
	unsigned int batch = READ_ONCE(kspu_cpu_batch);

	if (len < 0)
		return 0;
#ifdef KSPU_TEST_HOOKS
	mdelay(READ_ONCE(kspu_cpu_test_delay_ms));
#endif
	if (len >= batch && len - n < batch) {
		if (wq_has_sleeper(&kspu_cpu_wait))
			wake_up(&kspu_cpu_wait);
	} else if (len == n && !timer_pending(&kspu_cpu_timer)) {
		mod_timer(&kspu_cpu_timer, jiffies + 1);
	}
	return n;
}

/* Do two CPU sets, NULL meaning every CPU, differ? */
static bool kspu_cpu_mask_differs(const struct cpumask *a,
				  const struct cpumask *b)
{
	return !a != !b || (a && !cpumask_equal(a, b));
}

/**
 * kspu_cpu_configure() - set where and how the cpu backend's threads run
 * @cpus: the CPUs they may use, or NULL for all; at least one online
 * @batch: the most jobs a thread takes at a time, at least 1
 * @sched_idle: SCHED_IDLE when true, else nice 19
 *
 * Running threads are replaced when the CPU set or the policy changes;
 * jobs queued meanwhile are cancelled (their captures are dropped and
 * counted), none is lost.  Should the new threads fail to start, the
 * backend refuses jobs (counted as dropped) until a later call succeeds.
 *
 * Context: process context; may sleep.
 * Return: 0, -EINVAL (settings unchanged), or why the threads could not
 * be restarted (settings changed).
 */
int kspu_cpu_configure(const struct cpumask *cpus, unsigned int batch,
		       bool sched_idle)
{
	bool restart;
	int err = 0;

	if (!batch || (cpus && !cpumask_intersects(cpus, cpu_online_mask)))
		return -EINVAL;
	mutex_lock(&kspu_cpu_mutex);
	WRITE_ONCE(kspu_cpu_batch, batch);
	restart = kspu_cpu_started &&
		  (!kspu_cpu_threads || sched_idle != kspu_cpu_sched_idle ||
		   kspu_cpu_mask_differs(cpus, kspu_cpu_mask));
	if (cpus)
		cpumask_copy(&kspu_cpu_set, cpus);
	kspu_cpu_mask = cpus ? &kspu_cpu_set : NULL;
	kspu_cpu_sched_idle = sched_idle;
	if (restart) {
		kspu_cpu_stop_locked();
		err = kspu_cpu_start_locked();
		if (err)
			pr_err("cannot restart the offload threads: %d\n", err);
	}
	mutex_unlock(&kspu_cpu_mutex);
	return err;
}

/**
 * kspu_cpu_get_cpus() - the CPUs the cpu backend's threads may use
 * @cpus: set to them, unless every CPU may be used
 *
 * Context: process context; may sleep.
 * Return: true when every CPU may be used (@cpus is then left as it was).
 */
bool kspu_cpu_get_cpus(struct cpumask *cpus)
{
	bool all;

	mutex_lock(&kspu_cpu_mutex);
	all = !kspu_cpu_mask;
	if (!all)
		cpumask_copy(cpus, kspu_cpu_mask);
	mutex_unlock(&kspu_cpu_mutex);
	return all;
}

/**
 * kspu_cpu_get_batch() - the most jobs a cpu backend thread takes at a time
 *
 * Return: the batch set by kspu_cpu_configure(), 16 until then.
 */
unsigned int kspu_cpu_get_batch(void)
{
	return READ_ONCE(kspu_cpu_batch);
}

/**
 * kspu_cpu_get_sched_idle() - the cpu backend's threads' priority
 *
 * Context: process context; may sleep.
 * Return: true for SCHED_IDLE (the default), false for nice 19.
 */
bool kspu_cpu_get_sched_idle(void)
{
	bool idle;

	mutex_lock(&kspu_cpu_mutex);
	idle = kspu_cpu_sched_idle;
	mutex_unlock(&kspu_cpu_mutex);
	return idle;
}

/**
 * kspu_cpu_boost() - raise the threads above their configured priority, or
 * lower them back
 * @level: 0 (the configured priority) to KSPU_CPU_BOOST_MAX: nice 19, 10
 *	and 0 (kspu_cpu_boost_nice[]); larger values mean the maximum
 *
 * At SCHED_IDLE the threads get only the cycles nobody else wants; each
 * level gets them a larger share of busy CPUs.  A user's choice of nice
 * 19 (kspu_cpu_configure()) is level 1 already.  The running threads
 * change in place, without a restart: no queued job is cancelled.
 * Threads started later (a restart) take the level while it lasts.
 *
 * Context: process context; may sleep.
 * Return: true when threads run above their configured priority.
 */
bool kspu_cpu_boost(unsigned int level)
{
	unsigned int i;
	bool raised;

	level = min_t(unsigned int, level, KSPU_CPU_BOOST_MAX);
	mutex_lock(&kspu_cpu_mutex);
	if (level != kspu_cpu_boost_level) {
		kspu_cpu_boost_level = level;
		for (i = 0; i < kspu_cpu_nr_threads; i++)
			kspu_cpu_set_priority(kspu_cpu_threads[i]);
	}
	raised = kspu_cpu_nr_threads && level > (kspu_cpu_sched_idle ? 0 : 1);
	mutex_unlock(&kspu_cpu_mutex);
	return raised;
}

/**
 * kspu_cpu_busy_ns() - Return: the CPU time the threads have run, in ns,
 * since the module was loaded (the backend's compress_ns).
 */
unsigned long kspu_cpu_busy_ns(void)
{
	return atomic_long_read(&kspu_cpu_backend.stats.compress_ns);
}

/**
 * kspu_cpu_idle_ns() - Return: of kspu_cpu_busy_ns(), the time the threads
 * ran at SCHED_IDLE, in ns: cycles no other task wanted
 */
unsigned long kspu_cpu_idle_ns(void)
{
	return atomic_long_read(&kspu_cpu_idle_class_ns);
}

struct kspu_backend kspu_cpu_backend = {
	.name = "cpu",
	.start = kspu_cpu_start,
	.stop = kspu_cpu_stop,
	.submit = kspu_cpu_submit,
};
