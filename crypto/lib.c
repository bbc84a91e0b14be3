// SPDX-License-Identifier: GPL-2.0
/*
 * LZO through lib/lzo directly, for two callers.
 *
 * Compression with interrupts off, for the inline offload backend, which
 * compresses inside the capture probe (under the page cache's i_pages lock,
 * interrupts disabled).  The crypto API cannot be called there: its
 * software algorithms take per-CPU scratch locks that are not IRQ-safe, and
 * hardware drivers sleep.  So lib/lzo is called directly, with one work
 * area per CPU, which the disabled interrupts make ours alone.  Its output
 * is byte for byte what the crypto API's "lzo" and "lzo-rle" produce, so
 * pages compressed here and pages compressed through the crypto API are
 * one format.
 *
 * Decompression of every LZO page (acomp.c), on a hit in the reading task.
 * The crypto API's software "lzo" is a synchronous compressor behind the
 * acomp interface: each call takes a context's mutex and a per-CPU
 * scratch lock, copies the compressed bytes into a scratch buffer,
 * decompresses into a second one and copies the page out of it, work a
 * page-sized call whose buffers are already linear does not need (zram's
 * own backends call the libraries directly since 6.12 for the same
 * reason).  The library's one decompressor reads both formats and needs
 * no work area.
 *
 * Only LZO qualifies: lib/lzo is built into every kernel we support
 * (CONFIG_LZO_COMPRESS=y, CONFIG_LZO_DECOMPRESS=y), while lib/lz4 is a
 * module on Debian 6.1 and 6.12, and linking it would make ccache depend
 * on it.
 *
 * Work areas exist from ccache_lib_start() to ccache_lib_stop() (the inline
 * backend's lifetime); the caller guarantees no compression runs across
 * the stop.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/highmem.h>
#include <linux/types.h>
#include <linux/lzo.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "comp.h"

/* Work memory the library compressors need. */
#define CCACHE_LIB_WRKMEM LZO1X_1_MEM_COMPRESS

/* An LZO compressor of lib/lzo. */
typedef int (*ccache_lzo_fn)(const unsigned char *in, size_t in_len,
			     unsigned char *out, size_t *out_len, void *wrkmem);

static const struct {
	const char *name;	/* the crypto API's name for the same format */
	ccache_lzo_fn compress;
} ccache_lib_codecs[] = {
	{ "lzo", lzo1x_1_compress },
	{ "lzo-rle", lzorle1x_1_compress },
};

static void * __percpu *ccache_lib_wrkmem;

/**
 * ccache_lib_codec() - the interrupt-safe compressor for an algorithm
 * @name: crypto API algorithm name
 *
 * Return: its index, or -1 when @name has none.
 */
int ccache_lib_codec(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ccache_lib_codecs); i++)
		if (!strcmp(ccache_lib_codecs[i].name, name))
			return i;
	return -1;
}

/**
 * ccache_lib_compress() - compress one page with a library codec
 * @codec: from ccache_lib_codec()
 * @src: the page's bytes
 * @dst: output, at least 2 * PAGE_SIZE bytes
 * @dlen: in: size of @dst; out: compressed length
 *
 * Context: interrupts or preemption disabled, between ccache_lib_start()
 * and ccache_lib_stop().
 * Return: 0 or a negative errno.
 */
int ccache_lib_compress(int codec, const void *src, void *dst,
			unsigned int *dlen)
{
	size_t len = *dlen;

	if (codec < 0 || codec >= ARRAY_SIZE(ccache_lib_codecs))
		return -EOPNOTSUPP;
	if (len < lzo1x_worst_compress(PAGE_SIZE))
		return -ENOSPC;
	if (ccache_lib_codecs[codec].compress(src, PAGE_SIZE, dst, &len,
					      *this_cpu_ptr(ccache_lib_wrkmem)))
		return -EINVAL;
	*dlen = len;
	return 0;
}

/**
 * ccache_lib_decompress() - decompress one page with a library codec
 * @codec: from ccache_lib_codec()
 * @src: compressed bytes (directly mapped memory)
 * @slen: their length
 * @dst: the page to fill
 *
 * Context: any; never sleeps, needs no work area (works outside
 * ccache_lib_start() and ccache_lib_stop()).
 * Return: 0 when exactly one page came out, else a negative errno.
 */
int ccache_lib_decompress(int codec, const void *src, unsigned int slen,
			  struct page *dst)
{
	size_t len = PAGE_SIZE;
	void *out;
	int ret;

	if (codec < 0 || codec >= ARRAY_SIZE(ccache_lib_codecs))
		return -EOPNOTSUPP;
	out = kmap_local_page(dst);
	ret = lzo1x_decompress_safe(src, slen, out, &len);
	kunmap_local(out);
	if (ret != LZO_E_OK)
		return -EINVAL;
	return len == PAGE_SIZE ? 0 : -EIO;
}

/**
 * ccache_lib_stop() - free the work areas
 */
void ccache_lib_stop(void)
{
	int cpu;

	if (!ccache_lib_wrkmem)
		return;
	for_each_possible_cpu(cpu)
		kvfree(*per_cpu_ptr(ccache_lib_wrkmem, cpu));
	free_percpu(ccache_lib_wrkmem);
	ccache_lib_wrkmem = NULL;
}

/**
 * ccache_lib_start() - allocate one work area per possible CPU
 *
 * Context: process context; may sleep.
 * Return: 0 or -ENOMEM.
 */
int ccache_lib_start(void)
{
	void **mem;
	int cpu;

	ccache_lib_wrkmem = alloc_percpu(void *);
	if (!ccache_lib_wrkmem)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		mem = per_cpu_ptr(ccache_lib_wrkmem, cpu);
		*mem = kvmalloc_node(CCACHE_LIB_WRKMEM, GFP_KERNEL,
				     cpu_to_node(cpu));
		if (!*mem) {
			ccache_lib_stop();
			return -ENOMEM;
		}
	}
	return 0;
}
