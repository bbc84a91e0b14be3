/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The parsers behind ccache's knobs (param_ops.c): kernel_param_ops for
 * booleans, bounded unsigned integers, lists of names and a choice of one
 * word, and the helpers
 * the knobs of params.c share to check a word and to refuse a value.
 */
#ifndef _CCACHE_PARAM_OPS_H
#define _CCACHE_PARAM_OPS_H

#include <linux/moduleparam.h>
#include <linux/types.h>

/**
 * struct ccache_uint_knob - a whole number within a range (ccache_uint_ops)
 * @val: where it is kept; NULL when @apply keeps it and @get reads it back
 * @min: the smallest value accepted
 * @max: the largest value accepted
 * @apply: or NULL; called with a value in range before it is kept: an
 *	error refuses the value
 * @get: with @val NULL: the value in force
 */
struct ccache_uint_knob {
	unsigned int *val;
	unsigned int min;
	unsigned int max;
	int (*apply)(unsigned int v);
	unsigned int (*get)(void);
};

/**
 * struct ccache_list_knob - a comma-separated list of names, or "none"
 *	(ccache_list_ops)
 * @mask: bit i set: @names[i] is listed
 * @names: the names known
 * @nr: how many
 * @why: what a refusal says
 * @test_only: warn when anything is listed
 */
struct ccache_list_knob {
	unsigned long *mask;
	const char * const *names;
	unsigned int nr;
	const char *why;
	bool test_only;
};

/**
 * struct ccache_choice_knob - one word of a list (ccache_choice_ops)
 * @val: where its index in @names is kept; NULL when @apply keeps it and
 *	@get reads it back
 * @names: the words accepted
 * @nr: how many
 * @why: what a refusal of another word says
 * @apply: or NULL; called with the index of a word accepted, before it is
 *	kept: an error refuses it, saying @apply_why
 * @apply_why: what a refusal by @apply says
 * @get: with @val NULL: the index in force
 */
struct ccache_choice_knob {
	unsigned int *val;
	const char * const *names;
	unsigned int nr;
	const char *why;
	int (*apply)(unsigned int i);
	const char *apply_why;
	unsigned int (*get)(void);
};

/* kp->arg: a bool */
extern const struct kernel_param_ops ccache_bool_ops;
/* kp->arg: a struct ccache_uint_knob */
extern const struct kernel_param_ops ccache_uint_ops;
/* kp->arg: a struct ccache_list_knob */
extern const struct kernel_param_ops ccache_list_ops;
/* kp->arg: a struct ccache_choice_knob */
extern const struct kernel_param_ops ccache_choice_ops;

int ccache_reject(const struct kernel_param *kp, const char *val,
		  const char *why);
int ccache_parse_word(const char *val, char *word, size_t size);
int ccache_list_emit(char *buf, size_t size, unsigned long mask,
		     const char * const *names, unsigned int nr);

#endif /* _CCACHE_PARAM_OPS_H */
