/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CRC32C (Castagnoli) for the benchmark's programs (webload, sumbench):
 * slice-by-8 tables, and the SSE4.2 instruction when the CPU has one and
 * WEBLOAD_SOFT_CRC is not set.  Call crc_init() first.
 */
#ifndef BENCH_CRC32C_H
#define BENCH_CRC32C_H

#include <stdlib.h>
#include <string.h>

static unsigned int crc_table[8][256];
static int crc_hw;

static inline void crc_init(void)
{
	unsigned int i, j, c;

	for (i = 0; i < 256; i++) {
		c = i;
		for (j = 0; j < 8; j++)
			c = c & 1 ? (c >> 1) ^ 0x82f63b78 : c >> 1;
		crc_table[0][i] = c;
	}
	for (i = 0; i < 256; i++)
		for (j = 1; j < 8; j++)
			crc_table[j][i] = (crc_table[j - 1][i] >> 8) ^
					  crc_table[0][crc_table[j - 1][i] & 0xff];
#if defined(__x86_64__)
	__builtin_cpu_init();
	crc_hw = __builtin_cpu_supports("sse4.2") && !getenv("WEBLOAD_SOFT_CRC");
#endif
}

#if defined(__x86_64__)
__attribute__((target("sse4.2")))
static inline unsigned int crc_update_hw(unsigned int crc, const unsigned char *p, size_t n)
{
	unsigned long long c = crc, v;

	for (; n >= 8; p += 8, n -= 8) {
		memcpy(&v, p, 8);
		c = __builtin_ia32_crc32di(c, v);
	}
	crc = c;
	while (n--)
		crc = __builtin_ia32_crc32qi(crc, *p++);
	return crc;
}
#endif

/* CRC register update from the tables: start with ~0, finish with ~ */
static inline unsigned int crc_update_sw(unsigned int crc, const unsigned char *p, size_t n)
{
	unsigned long long v;

	for (; n >= 8; p += 8, n -= 8) {
		memcpy(&v, p, 8);	/* little-endian hosts only */
		v ^= crc;
		crc = crc_table[7][v & 0xff] ^ crc_table[6][(v >> 8) & 0xff] ^
		      crc_table[5][(v >> 16) & 0xff] ^ crc_table[4][(v >> 24) & 0xff] ^
		      crc_table[3][(v >> 32) & 0xff] ^ crc_table[2][(v >> 40) & 0xff] ^
		      crc_table[1][(v >> 48) & 0xff] ^ crc_table[0][v >> 56];
	}
	while (n--)
		crc = crc_table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

/* CRC register update, with the instruction when crc_init() found it */
static inline unsigned int crc_update(unsigned int crc, const unsigned char *p, size_t n)
{
#if defined(__x86_64__)
	if (crc_hw)
		return crc_update_hw(crc, p, n);
#endif
	return crc_update_sw(crc, p, n);
}

#endif /* BENCH_CRC32C_H */
