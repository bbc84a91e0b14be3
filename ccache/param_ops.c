// SPDX-License-Identifier: GPL-2.0
/*
 * The parsers behind ccache's knobs (params.c): what a value written to
 * /sys/module/ccache/parameters/ or given to modprobe may look like, and
 * how it is refused.  A refusal returns -EINVAL, leaves the knob as it
 * was, and is logged at warning level, rate limited, with the offending
 * input escaped and truncated.
 *
 * Locking: the kernel calls these with kernel_param_lock(THIS_MODULE)
 * held (load-time parsing runs before any other code of the module).
 * Values are single words: written with WRITE_ONCE(), so that the rest of
 * the module may read them with READ_ONCE() without the lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "param_ops.h"

/* How much of a rejected value the warning shows. */
#define CCACHE_SHOWN_INPUT 32

/**
 * ccache_reject() - refuse a knob's value, and say why in the log
 * @kp: the knob
 * @val: the value refused
 * @why: what was expected instead
 *
 * Return: -EINVAL.
 */
int ccache_reject(const struct kernel_param *kp, const char *val,
		  const char *why)
{
	pr_warn_ratelimited("%s: rejected '%*pE': %s\n", kp->name,
			    (int)min_t(size_t, strlen(val), CCACHE_SHOWN_INPUT),
			    val, why);
	return -EINVAL;
}

/**
 * ccache_parse_word() - take one word of a knob's value
 * @val: the value: one word, optionally ended by a newline as written by
 *	echo
 * @word: where to copy it, NUL-terminated
 * @size: the size of @word
 *
 * Return: 0, or -EINVAL when it is empty, too long or holds characters
 * outside [a-z0-9_-].
 */
int ccache_parse_word(const char *val, char *word, size_t size)
{
	size_t len = strcspn(val, "\n");
	size_t i;

	if (!len || len >= size || val[len + (val[len] == '\n')])
		return -EINVAL;
	for (i = 0; i < len; i++)
		if (!islower(val[i]) && !isdigit(val[i]) &&
		    val[i] != '-' && val[i] != '_')
			return -EINVAL;
	memcpy(word, val, len);
	word[len] = '\0';
	return 0;
}

/* ---- Booleans: exactly 0/1, y/n, Y/N or on/off ---- */

static const struct {
	const char *word;
	bool value;
} ccache_bool_words[] = {
	{ "1", true }, { "y", true }, { "Y", true }, { "on", true },
	{ "0", false }, { "n", false }, { "N", false }, { "off", false },
};

static int ccache_bool_set(const char *val, const struct kernel_param *kp)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ccache_bool_words); i++) {
		if (sysfs_streq(val, ccache_bool_words[i].word)) {
			WRITE_ONCE(*(bool *)kp->arg, ccache_bool_words[i].value);
			return 0;
		}
	}
	return ccache_reject(kp, val, "expected 0/1, y/n or on/off");
}

static int ccache_bool_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%c\n", READ_ONCE(*(bool *)kp->arg) ? 'Y' : 'N');
}

const struct kernel_param_ops ccache_bool_ops = {
	.set = ccache_bool_set,
	.get = ccache_bool_get,
};

/* ---- Unsigned integers within a range ---- */

static int ccache_uint_set(const char *val, const struct kernel_param *kp)
{
	const struct ccache_uint_knob *knob = kp->arg;
	unsigned int v;

	if (kstrtouint(val, 10, &v) || v < knob->min || v > knob->max) {
		pr_warn_ratelimited("%s: rejected '%*pE': expected a whole number from %u to %u\n",
				    kp->name,
				    (int)min_t(size_t, strlen(val), CCACHE_SHOWN_INPUT),
				    val, knob->min, knob->max);
		return -EINVAL;
	}
	if (knob->apply && knob->apply(v))
		return ccache_reject(kp, val, "cannot apply it now");
	if (knob->val)
		WRITE_ONCE(*knob->val, v);
	return 0;
}

static int ccache_uint_get(char *buf, const struct kernel_param *kp)
{
	const struct ccache_uint_knob *knob = kp->arg;

	return sysfs_emit(buf, "%u\n",
			  knob->val ? READ_ONCE(*knob->val) : knob->get());
}

const struct kernel_param_ops ccache_uint_ops = {
	.set = ccache_uint_set,
	.get = ccache_uint_get,
};

/* ---- One word of a list ---- */

static int ccache_choice_set(const char *val, const struct kernel_param *kp)
{
	const struct ccache_choice_knob *knob = kp->arg;
	char word[16];
	int i;

	if (ccache_parse_word(val, word, sizeof(word)))
		return ccache_reject(kp, val, knob->why);
	i = match_string(knob->names, knob->nr, word);
	if (i < 0)
		return ccache_reject(kp, val, knob->why);
	if (knob->apply && knob->apply(i))
		return ccache_reject(kp, val, knob->apply_why);
	if (knob->val)
		WRITE_ONCE(*knob->val, i);
	return 0;
}

static int ccache_choice_get(char *buf, const struct kernel_param *kp)
{
	const struct ccache_choice_knob *knob = kp->arg;

	return sysfs_emit(buf, "%s\n",
			  knob->names[knob->val ? READ_ONCE(*knob->val) :
				      knob->get()]);
}

const struct kernel_param_ops ccache_choice_ops = {
	.set = ccache_choice_set,
	.get = ccache_choice_get,
};

/*
 * ---- Lists of names: comma-separated, or "none" ----
 *
 * An empty value is refused: a write of a NUL byte, or of nothing but
 * blanks, arrives here as one, and must not switch everything off.
 */

static int ccache_list_set(const char *val, const struct kernel_param *kp)
{
	const struct ccache_list_knob *knob = kp->arg;
	char list[128], word[16];
	unsigned long mask = 0;
	char *rest, *tok;
	int i;

	if (strlen(val) >= sizeof(list))
		return ccache_reject(kp, val, "list too long");
	strscpy(list, val, sizeof(list));
	rest = strim(list);
	if (!*rest)
		return ccache_reject(kp, val, knob->why);
	if (!strcmp(rest, "none"))
		rest = NULL;
	while (rest) {
		tok = strsep(&rest, ",");
		if (ccache_parse_word(tok, word, sizeof(word)))
			return ccache_reject(kp, val, knob->why);
		i = match_string(knob->names, knob->nr, word);
		if (i < 0)
			return ccache_reject(kp, val, knob->why);
		mask |= BIT(i);
	}
	WRITE_ONCE(*knob->mask, mask);
	if (knob->test_only && mask)
		pr_warn("%s: test-only fault injection is on\n", kp->name);
	return 0;
}

/**
 * ccache_list_emit() - a list knob's value, as the knob shows it
 * @buf: where to write it, without a newline
 * @size: the size of @buf
 * @mask: bit i set: @names[i] is listed
 * @names: the names known
 * @nr: how many
 *
 * Return: the length written: the names listed, comma-separated, or
 * "none".
 */
int ccache_list_emit(char *buf, size_t size, unsigned long mask,
		     const char * const *names, unsigned int nr)
{
	int i, len = 0;

	for_each_set_bit(i, &mask, nr)
		len += scnprintf(buf + len, size - len, "%s%s",
				 len ? "," : "", names[i]);
	if (!len)
		len = scnprintf(buf, size, "none");
	return len;
}

static int ccache_list_get(char *buf, const struct kernel_param *kp)
{
	const struct ccache_list_knob *knob = kp->arg;
	int len = ccache_list_emit(buf, PAGE_SIZE - 1, READ_ONCE(*knob->mask),
				   knob->names, knob->nr);

	return len + sysfs_emit_at(buf, len, "\n");
}

const struct kernel_param_ops ccache_list_ops = {
	.set = ccache_list_set,
	.get = ccache_list_get,
};
