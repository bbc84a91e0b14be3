// SPDX-License-Identifier: GPL-2.0
/*
 * bdevio: reads and writes of a block device, one 4 KiB block at a time,
 * for selftests/bdev.sh and bdev_abort.sh.  Every block written holds a
 * compressible text naming its seed and its block number, so a read tells
 * which write it saw.
 *
 *   bdevio write [-d] DEV FIRST N SEED  blocks FIRST..FIRST+N-1 (-d: O_DIRECT)
 *   bdevio check DEV FIRST N SEED [BASE]  read them through the page
 *                                       cache, one page per read (no
 *                                       readahead), skipping those cached
 *                                       before; block b must hold what the
 *                                       write of block BASE + b wrote;
 *                                       exit 1 on any mismatch
 *   bdevio cmp DEV FIRST N              read them through the page cache
 *                                       as check does, and from the disk
 *                                       (O_DIRECT); exit 1 if any differ
 *   bdevio addpart DISK NO START LEN    add partition NO (BLKPG), in
 *                                       512-byte sectors
 *   bdevio shutdown DIR                 shut the ext4 (or xfs) mounted on
 *                                       DIR down without flushing its
 *                                       journal (EXT4_IOC_SHUTDOWN)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/blkpg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define BLK 4096
/* EXT4_IOC_SHUTDOWN and XFS_IOC_GOINGDOWN; its flag: journal not flushed */
#define IOC_SHUTDOWN _IOR('X', 125, unsigned int)
#define SHUTDOWN_NOLOGFLUSH 2

static void die(const char *what, const char *dev)
{
	fprintf(stderr, "bdevio: %s %s: %s\n", what, dev, strerror(errno));
	exit(2);
}

static void fill(char *buf, unsigned long seed, unsigned long block)
{
	int n = 0;

	while (n < BLK)
		n += snprintf(buf + n, BLK - n, "seed %lu block %lu; ", seed,
			      block);
}

static int cmd_write(const char *dev, unsigned long first, unsigned long nr,
		     unsigned long seed, int direct)
{
	int fd = open(dev, O_WRONLY | (direct ? O_DIRECT : 0));
	unsigned long b;
	char *buf;

	if (fd < 0)
		die("open", dev);
	if (posix_memalign((void **)&buf, BLK, BLK))
		die("memory for", dev);
	for (b = first; b < first + nr; b++) {
		fill(buf, seed, b);
		if (pwrite(fd, buf, BLK, (off_t)b * BLK) != BLK)
			die("write", dev);
	}
	if (fsync(fd))
		die("fsync", dev);
	close(fd);
	return 0;
}

/* A reader of @dev's page cache, one page per read (no readahead). */
static int open_paged(const char *dev)
{
	int fd = open(dev, O_RDONLY);

	if (fd < 0)
		die("open", dev);
	if (posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM))
		die("fadvise", dev);
	return fd;
}

/*
 * Read block @b of @fd into @got through the page cache, unless it is
 * cached already (the kernel's copy, not ccache's): then return 0.
 */
static int read_uncached(int fd, const char *dev, unsigned long b, char *got)
{
	unsigned char vec[1];
	void *map;

	map = mmap(NULL, BLK, PROT_READ, MAP_SHARED, fd, (off_t)b * BLK);
	if (map == MAP_FAILED)
		die("mmap", dev);
	if (mincore(map, BLK, vec))
		die("mincore", dev);
	munmap(map, BLK);
	if (vec[0] & 1)
		return 0;
	if (pread(fd, got, BLK, (off_t)b * BLK) != BLK)
		die("read", dev);
	return 1;
}

static int cmd_check(const char *dev, unsigned long first, unsigned long nr,
		     unsigned long seed, unsigned long base)
{
	unsigned long b, cached = 0, bad = 0, other = 0;
	int fd = open_paged(dev);
	char want[BLK], got[BLK];

	for (b = first; b < first + nr; b++) {
		if (!read_uncached(fd, dev, b, got)) {
			cached++;
			continue;
		}
		fill(want, seed, base + b);
		if (!memcmp(want, got, BLK))
			continue;
		if (!bad++)
			fprintf(stderr, "bdevio: block %lu: %.40s\n", b, got);
		if (!strncmp(got, "seed ", 5))
			other++;
	}
	close(fd);
	printf("checked %lu blocks: %lu were cached, %lu differ (%lu from another write)\n",
	       nr - cached, cached, bad, other);
	return bad ? 1 : 0;
}

static int cmd_cmp(const char *dev, unsigned long first, unsigned long nr)
{
	int fd = open_paged(dev), dfd = open(dev, O_RDONLY | O_DIRECT);
	unsigned long b, cached = 0, bad = 0;
	char got[BLK], *disk;

	if (dfd < 0)
		die("open (O_DIRECT)", dev);
	if (posix_memalign((void **)&disk, BLK, BLK))
		die("memory for", dev);
	for (b = first; b < first + nr; b++) {
		if (!read_uncached(fd, dev, b, got)) {
			cached++;
			continue;
		}
		if (pread(dfd, disk, BLK, (off_t)b * BLK) != BLK)
			die("read (O_DIRECT)", dev);
		if (memcmp(disk, got, BLK) && !bad++)
			fprintf(stderr, "bdevio: block %lu differs from the disk\n",
				b);
	}
	close(dfd);
	close(fd);
	free(disk);
	printf("compared %lu blocks with the disk: %lu were cached, %lu differ\n",
	       nr - cached, cached, bad);
	return bad ? 1 : 0;
}

/* ioctl @req on @path, opened read-only; @what names it in an error */
static int path_ioctl(const char *path, unsigned long req, void *arg,
		      const char *what)
{
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		die("open", path);
	if (ioctl(fd, req, arg))
		die(what, path);
	close(fd);
	return 0;
}

static int cmd_shutdown(const char *dir)
{
	unsigned int flags = SHUTDOWN_NOLOGFLUSH;

	return path_ioctl(dir, IOC_SHUTDOWN, &flags, "shut down");
}

static int cmd_addpart(const char *disk, int no, long long start, long long len)
{
	struct blkpg_partition p = {
		.start = start * 512, .length = len * 512, .pno = no,
	};
	struct blkpg_ioctl_arg arg = {
		.op = BLKPG_ADD_PARTITION, .datalen = sizeof(p), .data = &p,
	};

	return path_ioctl(disk, BLKPG, &arg, "BLKPG_ADD_PARTITION on");
}

int main(int argc, char **argv)
{
	int direct = argc > 2 && !strcmp(argv[2], "-d");

	if (direct) {
		argv[2] = argv[1];
		argv++;
		argc--;
	}
	if (argc == 6 && !strcmp(argv[1], "write"))
		return cmd_write(argv[2], strtoul(argv[3], NULL, 0),
				 strtoul(argv[4], NULL, 0),
				 strtoul(argv[5], NULL, 0), direct);
	if ((argc == 6 || argc == 7) && !strcmp(argv[1], "check"))
		return cmd_check(argv[2], strtoul(argv[3], NULL, 0),
				 strtoul(argv[4], NULL, 0),
				 strtoul(argv[5], NULL, 0),
				 argc == 7 ? strtoul(argv[6], NULL, 0) : 0);
	if (argc == 5 && !strcmp(argv[1], "cmp"))
		return cmd_cmp(argv[2], strtoul(argv[3], NULL, 0),
			       strtoul(argv[4], NULL, 0));
	if (argc == 3 && !strcmp(argv[1], "shutdown"))
		return cmd_shutdown(argv[2]);
	if (argc == 6 && !strcmp(argv[1], "addpart"))
		return cmd_addpart(argv[2], atoi(argv[3]),
				   strtoll(argv[4], NULL, 0),
				   strtoll(argv[5], NULL, 0));
	fputs("usage: bdevio write [-d] DEV FIRST N SEED\n"
	      "       bdevio check DEV FIRST N SEED [BASE]\n"
	      "       bdevio cmp DEV FIRST N\n"
	      "       bdevio addpart DISK NO START LEN\n"
	      "       bdevio shutdown DIR\n", stderr);
	return 2;
}
