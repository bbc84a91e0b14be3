// SPDX-License-Identifier: GPL-2.0
/*
 * quotactl: user quota on and off, for selftests/quota.sh (busybox has no
 * quotacheck or quotaon).
 *
 *   quotactl init FILE     write an empty quota file of the vfsv1 format
 *                          (QFMT_VFS_V1: a header, the info block and an
 *                          empty tree root, as quotacheck writes it for a
 *                          filesystem with no usage), padded with zeros to
 *                          8 KiB so that it fills two whole pages
 *   quotactl on DEV FILE   user quota on for the filesystem on DEV, FILE
 *                          its quota file (Q_QUOTAON)
 *   quotactl off DEV       user quota off (Q_QUOTAOFF)
 *
 * The format is the kernel's fs/quota/quotaio_v2.h; all fields little
 * endian, as the guests are.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/quota.h>
#include <unistd.h>

#define V2_USR_MAGIC	0xd9c01f11	/* V2_INITQMAGICS[USRQUOTA] */
#define V2_VERSION_R1	1		/* QFMT_VFS_V1 */
#define QFMT_VFS_V1_ID	4		/* QFMT_VFS_V1, linux/quota.h */
#define QT_BLKSIZE	1024		/* 1 << V2_DQBLKSIZE_BITS */
#define QT_TREEOFF	1		/* the root's block */
#define GRACE		(7 * 24 * 3600)	/* quotacheck's default grace */
#define FILE_LEN	8192

struct v2_header {
	unsigned int magic, version;
};

struct v2_info {
	unsigned int bgrace, igrace, flags;
	unsigned int blocks, free_blk, free_entry;
};

/* struct v2_disk_dqheader and v2_disk_dqinfo: 32-bit fields */
static_assert(sizeof(struct v2_header) == 8, "v2 header is 8 bytes");
static_assert(sizeof(struct v2_info) == 24, "v2 info is 24 bytes");

static int fail(const char *what, const char *arg)
{
	fprintf(stderr, "quotactl: %s %s: %s\n", what, arg, strerror(errno));
	return 1;
}

static int cmd_init(const char *path)
{
	static char buf[FILE_LEN];
	struct v2_header h = { V2_USR_MAGIC, V2_VERSION_R1 };
	/* the header's block and the empty root; no free block or entry */
	struct v2_info i = { GRACE, GRACE, 0, QT_TREEOFF + 1, 0, 0 };
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0)
		return fail("open", path);
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), &i, sizeof(i));
	if (write(fd, buf, sizeof(buf)) != sizeof(buf) || fsync(fd))
		return fail("write", path);
	return close(fd) ? fail("close", path) : 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "init"))
		return cmd_init(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "on")) {
		if (quotactl(QCMD(Q_QUOTAON, USRQUOTA), argv[2], QFMT_VFS_V1_ID,
			     argv[3]))
			return fail("Q_QUOTAON", argv[2]);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "off")) {
		if (quotactl(QCMD(Q_QUOTAOFF, USRQUOTA), argv[2], 0, NULL))
			return fail("Q_QUOTAOFF", argv[2]);
		return 0;
	}
	fputs("usage: quotactl init FILE | on DEV FILE | off DEV\n", stderr);
	return 2;
}
