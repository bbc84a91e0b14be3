// SPDX-License-Identifier: GPL-2.0
/*
 * sumbench: what one checksum of a 4 KiB page costs, for the checksums
 * ccache could keep: CRC32C with the SSE4.2 instruction (the kernel's
 * crc32c-intel), CRC32C from tables (slice-by-8, crc32c-generic's method)
 * and xxh64 (lib/xxhash.c's algorithm).  Run it on the host and under
 * QEMU's TCG, the emulator the test guests run on (qemu-user):
 *
 *	tools/bench/sumbench
 *	qemu-x86_64 -cpu max tools/bench/sumbench
 *
 * It prints microseconds per page for each, the best of 5 rounds, and the
 * checksums of one fixed page, "123456789" and zeros: xxh64's low 32 bits
 * are what zstd --check stores for it (ebeadc3a), the two CRCs agree.
 * Documentation/design.rst, "Checksums", has the figures.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "crc32c.h"

#define PAGE 4096
#define ROUNDS 5
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define P1 0x9e3779b185ebca87ULL
#define P2 0xc2b2ae3d27d4eb4fULL
#define P3 0x165667b19e3779f9ULL
#define P4 0x85ebca77c2b2ae63ULL
#define P5 0x27d4eb2f165667c5ULL

static uint64_t rotl(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static uint64_t xxh_round(uint64_t acc, uint64_t in)
{
	return rotl(acc + in * P2, 31) * P1;
}

static uint64_t xxh_merge(uint64_t h, uint64_t v)
{
	return (h ^ xxh_round(0, v)) * P1 + P4;
}

/* xxh64 of a whole number of 32-byte stripes, as a page is */
static uint64_t xxh64_stripes(const uint8_t *p, size_t len, uint64_t seed)
{
	uint64_t v[4] = { seed + P1 + P2, seed + P2, seed, seed - P1 };
	uint64_t h, w;
	size_t i;
	int k;

	for (i = 0; i + 32 <= len; i += 32)
		for (k = 0; k < 4; k++) {
			memcpy(&w, p + i + 8 * k, 8);
			v[k] = xxh_round(v[k], w);
		}
	h = rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12) + rotl(v[3], 18);
	for (k = 0; k < 4; k++)
		h = xxh_merge(h, v[k]);
	h += len;
	h ^= h >> 33;
	h *= P2;
	h ^= h >> 29;
	h *= P3;
	h ^= h >> 32;
	return h;
}

static uint32_t run_insn(const uint8_t *p)
{
	return ~crc_update_hw(~0U, p, PAGE);
}

static uint32_t run_table(const uint8_t *p)
{
	return ~crc_update_sw(~0U, p, PAGE);
}

static uint32_t run_xxh64(const uint8_t *p)
{
	return (uint32_t)xxh64_stripes(p, PAGE, 0);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* microseconds per page, the best of ROUNDS rounds of about 0.2 s */
static double time_sum(uint32_t (*sum)(const uint8_t *), uint8_t *page)
{
	double best = 0, t0, us;
	long n, iters = 16;
	int r;

	for (;;) {
		t0 = now();
		for (n = 0; n < iters; n++)
			page[n & (PAGE - 1)] ^= (uint8_t)sum(page);
		if (now() - t0 > 0.2)
			break;
		iters *= 2;
	}
	for (r = 0; r < ROUNDS; r++) {
		t0 = now();
		for (n = 0; n < iters; n++)
			page[n & (PAGE - 1)] ^= (uint8_t)sum(page);
		us = (now() - t0) * 1e6 / iters;
		if (!r || us < best)
			best = us;
	}
	return best;
}

int main(void)
{
	static const struct {
		const char *name;
		uint32_t (*sum)(const uint8_t *page);
	} sums[] = {
		{ "crc32c, SSE4.2 instruction", run_insn },
		{ "crc32c, slice-by-8 tables", run_table },
		{ "xxh64, low 32 bits", run_xxh64 },
	};
	static uint8_t page[PAGE];
	uint32_t sum;
	size_t i;

	crc_init();
	for (i = 0; i < ARRAY_SIZE(sums); i++) {
		memset(page, 0, PAGE);
		memcpy(page, "123456789", 9);
		sum = sums[i].sum(page);
		printf("%-28s %08x %8.2f us per 4 KiB page\n", sums[i].name,
		       sum, time_sum(sums[i].sum, page));
	}
	return 0;
}
