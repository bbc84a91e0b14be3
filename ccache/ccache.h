/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ccache: a compressed tier for the page cache.
 *
 * Declarations shared between the files of the module.  Each .c file owns
 * one part:
 *
 *   ccache/main.c      module load and unload, in dependency order
 *   ccache/params.c    the knobs (module parameters) and their validation
 *   ccache/sysfs.c     the read-only tree under /sys/kernel/mm/ccache/
 *   crypto/acomp.c     everything that talks to the crypto API
 */
#ifndef _CCACHE_CCACHE_H
#define _CCACHE_CCACHE_H

#include <linux/types.h>

#define CCACHE_VERSION "0.1.0"

/* Filesystems ccache may be allowed to cache (bit i = ccache_fs_names[i]). */
enum ccache_fs {
	CCACHE_FS_EXT4,
	CCACHE_FS_XFS,
	CCACHE_FS_COUNT,
};

/* params.c */
bool ccache_param_enabled(void);
unsigned int ccache_param_max_pool_percent(void);
unsigned int ccache_param_accept_threshold_percent(void);
unsigned long ccache_param_filesystems(void);
void ccache_param_compressor(char *buf, size_t len);

/* sysfs.c */
int ccache_sysfs_init(void);
void ccache_sysfs_exit(void);

/* crypto/acomp.c */
bool ccache_comp_available(const char *name);

#endif /* _CCACHE_CCACHE_H */
