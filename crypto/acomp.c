// SPDX-License-Identifier: GPL-2.0
/*
 * Compression through the kernel crypto API's acomp interface.
 *
 * For now this file only answers whether an algorithm can be used; the
 * per-CPU compression contexts join it when pages are compressed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/acompress.h>

#include "../ccache/ccache.h"

/**
 * ccache_comp_available() - can pages be compressed with this algorithm?
 * @name: crypto API algorithm name, e.g. "lzo" or "zstd"
 *
 * May load the module providing @name (the crypto API asks modprobe), so
 * it may sleep.
 *
 * Return: true if an acomp (or scomp) implementation of @name exists.
 */
bool ccache_comp_available(const char *name)
{
	return crypto_has_acomp(name, 0, 0);
}
