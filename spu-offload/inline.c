// SPDX-License-Identifier: GPL-2.0
/*
 * kspu backend "inline": every job runs in submit(), in the submitter's
 * context.  For captures that is the capture probe itself, inside page
 * reclaim with the page cache's locks held and interrupts off: the
 * synchronous compressed page cache of the thesis this project starts
 * from, kept so the cost of compressing on the reclaim path can be
 * measured against the other backends.  The crypto API may not be called
 * there, so compression goes through crypto/lib.c, which only LZO has (the
 * "offload" and "compressor" knobs refuse other combinations).
 *
 * Output goes to one scratch buffer per CPU; interrupts are disabled while
 * it is used, so nothing else on the CPU can use it meanwhile.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/irqflags.h>
#include <linux/percpu.h>
#include <linux/slab.h>

#include "../crypto/comp.h"
#include "kspu.h"

static void * __percpu *kspu_inline_scratch;

static void kspu_inline_stop(void)
{
	int cpu;

	if (kspu_inline_scratch) {
		for_each_possible_cpu(cpu)
			kfree(*per_cpu_ptr(kspu_inline_scratch, cpu));
		free_percpu(kspu_inline_scratch);
		kspu_inline_scratch = NULL;
	}
	ccache_lib_stop();
}

static int kspu_inline_start(void)
{
	void **buf;
	int cpu;

	if (ccache_lib_start())
		return -ENOMEM;
	kspu_inline_scratch = alloc_percpu(void *);
	if (!kspu_inline_scratch)
		goto fail;
	for_each_possible_cpu(cpu) {
		buf = per_cpu_ptr(kspu_inline_scratch, cpu);
		*buf = kmalloc_node(KSPU_SCRATCH_SIZE, GFP_KERNEL,
				    cpu_to_node(cpu));
		if (!*buf)
			goto fail;
	}
	return 0;
fail:
	kspu_inline_stop();
	return -ENOMEM;
}

static unsigned int kspu_inline_submit(struct kspu_job **jobs, unsigned int n)
{
	struct kspu_backend *b = &kspu_inline_backend;
	unsigned long flags;
	unsigned int i;
	void *scratch;
	int err;

	local_irq_save(flags);
	scratch = *this_cpu_ptr(kspu_inline_scratch);
	for (i = 0; i < n; i++) {
		err = kspu_run(b, jobs[i], scratch, KSPU_RUN_ATOMIC);
		kspu_complete(b, jobs[i], err);
	}
	local_irq_restore(flags);
	return n;
}

struct kspu_backend kspu_inline_backend = {
	.name = "inline",
	.start = kspu_inline_start,
	.stop = kspu_inline_stop,
	.submit = kspu_inline_submit,
};
