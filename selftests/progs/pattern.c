// SPDX-License-Identifier: GPL-2.0
/*
 * Deterministic file content.  The byte at source offset o of generation g
 * of a file with seed s is a pure function of (s, g, kind, o), so any range
 * can be produced again without storing it.  Every 4 KiB page starts with a
 * 32-byte stamp naming (seed, generation, kind, page offset): when a read
 * returns the wrong data, the stamp of what came back tells where it came
 * from (an older generation, another file, another offset).
 *
 * KIND_TEXT draws 8-byte words from a small vocabulary, which LZO
 * compresses to well under half; KIND_RAND is noise no compressor shrinks.
 */
#include <stdio.h>
#include <string.h>

#include "ccfile.h"

#define WORD_LEN	8
#define NWORDS		64

/* words of at most 8 bytes; each fills an 8-byte slot, padded with spaces */
static const char * const vocabulary[NWORDS] = {
	"the", "page", "cache", "kernel", "file", "read", "write", "memory",
	"and", "of", "to", "in", "is", "for", "with", "that", "data",
	"block", "inode", "mapping", "folio", "lock", "disk", "server",
	"this", "from", "by", "on", "not", "are", "be", "as", "when", "it",
	"an", "or", "which", "each", "can", "will", "its", "into", "has",
	"all", "one", "time", "system", "request", "reply", "copy", "entry",
	"store", "index", "list", "free", "used", "size", "offset", "length",
	"value", "count", "first", "last.\n", "line\n"
};

static unsigned long long mix(unsigned long long x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static void make_stamp(char *st, unsigned long long seed, unsigned int gen,
		       char kind, unsigned long long page_src)
{
	char tmp[CC_STAMP_LEN + 16];
	int n;

	n = snprintf(tmp, sizeof(tmp), "<%08llx:%06x:%c:%010llx>",
		     seed & 0xffffffffULL, gen & 0xffffff, kind, page_src);
	memset(st, ' ', CC_STAMP_LEN);
	memcpy(st, tmp, n < CC_STAMP_LEN - 1 ? n : CC_STAMP_LEN - 1);
	st[CC_STAMP_LEN - 1] = '\n';
}

/* the 8 bytes of one 8-byte slot */
static void slot_bytes(unsigned char *w, unsigned long long base, char kind,
		       unsigned long long slot)
{
	unsigned long long h;
	unsigned int word;
	int i;

	if (kind == KIND_RAND) {
		h = mix(base + slot);
		for (i = 0; i < WORD_LEN; i++)
			w[i] = h >> (8 * i);
		return;
	}
	/* one hash picks the words of 8 consecutive slots, 6 bits each */
	h = mix(base + slot / 8);
	word = (h >> (6 * (slot % 8))) & (NWORDS - 1);
	memset(w, ' ', WORD_LEN);
	memcpy(w, vocabulary[word], strlen(vocabulary[word]));
}

void pattern_fill(unsigned char *buf, size_t len, unsigned long long seed,
		  unsigned int gen, char kind, unsigned long long src)
{
	unsigned long long base, pos = src, end = src + len;
	unsigned char w[WORD_LEN];
	char st[CC_STAMP_LEN];
	unsigned long long in_page, n;

	base = mix(seed ^ ((unsigned long long)gen << 32) ^ (unsigned char)kind);
	while (pos < end) {
		in_page = pos % CC_PAGE;
		if (in_page < CC_STAMP_LEN) {
			make_stamp(st, seed, gen, kind, pos - in_page);
			n = CC_STAMP_LEN - in_page;
			if (n > end - pos)
				n = end - pos;
			memcpy(buf + (pos - src), st + in_page, n);
			pos += n;
			continue;
		}
		slot_bytes(w, base, kind, pos / WORD_LEN);
		n = WORD_LEN - pos % WORD_LEN;
		if (n > end - pos)
			n = end - pos;
		memcpy(buf + (pos - src), w + pos % WORD_LEN, n);
		pos += n;
	}
}

/* what the first bytes of a page say about where its data came from */
void stamp_describe(const unsigned char *page, char *out, size_t outlen)
{
	int i, printable = page[0] == '<';

	for (i = 0; i < CC_STAMP_LEN - 1 && printable; i++)
		if (page[i] < 0x20 || page[i] > 0x7e)
			printable = 0;
	if (printable) {
		snprintf(out, outlen, "stamp %.*s", CC_STAMP_LEN - 1, page);
		return;
	}
	snprintf(out, outlen,
		 "no stamp, starts %02x %02x %02x %02x %02x %02x %02x %02x",
		 page[0], page[1], page[2], page[3], page[4], page[5], page[6],
		 page[7]);
}
