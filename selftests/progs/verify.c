// SPDX-License-Identifier: GPL-2.0
/*
 * Check a whole file against its model through one read path:
 *   read       pread(2) in 1 MiB steps
 *   readahead  readahead(2) of each step in 128 KiB pieces, then pread(2)
 *   sendfile   sendfile(2) into a memfd, then compare the memfd
 *   mmap       a shared read-only mapping of the whole file
 *   direct     O_DIRECT reads (the disk, bypassing the page cache)
 * Each differing page is reported with the file, offset, expected and
 * found bytes, the stamps of both (where the data came from) and whether
 * the disk itself holds the expected bytes; the first few are printed, all
 * are counted.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ccfile.h"

#define STEP		CC_MIB
#define RA_PIECE	(128 * 1024ULL)
#define MAX_REPORTS	8

struct check {
	const char *file;
	const char *how;
	const struct model *m;
	unsigned long long bad_pages;
	unsigned long long bad_bytes;
};

/* does the disk hold what the model says for this page? */
static const char *disk_says(const char *file, unsigned long long off,
			     const unsigned char *exp, size_t len)
{
	unsigned char *buf;
	const char *what;
	ssize_t n;
	int fd;

	fd = open(file, O_RDONLY | O_DIRECT);
	if (fd < 0)
		return "unknown (no O_DIRECT)";
	if (posix_memalign((void **)&buf, CC_PAGE, CC_PAGE)) {
		close(fd);
		return "unknown (no memory)";
	}
	n = pread(fd, buf, CC_PAGE, off);
	if (n < (ssize_t)len)
		what = "unknown (short O_DIRECT read)";
	else if (memcmp(buf, exp, len))
		what = "differs from the model too";
	else
		what = "matches the model";
	free(buf);
	close(fd);
	return what;
}

static void report_page(struct check *c, unsigned long long off,
			const unsigned char *exp, const unsigned char *got,
			size_t len)
{
	char sg[96], se[96];
	size_t i, first = len, nbad = 0;

	for (i = 0; i < len; i++) {
		if (exp[i] == got[i])
			continue;
		if (first == len)
			first = i;
		nbad++;
	}
	if (!nbad)
		return;
	c->bad_pages++;
	c->bad_bytes += nbad;
	if (c->bad_pages > MAX_REPORTS)
		return;
	stamp_describe(got, sg, sizeof(sg));
	stamp_describe(exp, se, sizeof(se));
	fprintf(stderr,
		"ccfile: MISMATCH %s (%s) at offset %llu (page %llu +%zu): expected 0x%02x, got 0x%02x; %zu of %zu bytes differ\n"
		"ccfile:   got page: %s\n"
		"ccfile:   expected: %s\n"
		"ccfile:   disk (O_DIRECT): %s\n",
		c->file, c->how, off + first, off / CC_PAGE, first, exp[first],
		got[first], nbad, len, sg, se,
		disk_says(c->file, off, exp, len));
}

/* compare one step, page by page; steps start on page boundaries */
static void compare(struct check *c, unsigned long long off,
		    const unsigned char *exp, const unsigned char *got,
		    size_t len)
{
	size_t i, n;

	if (!memcmp(exp, got, len))
		return;
	for (i = 0; i < len; i += n) {
		n = len - i < CC_PAGE ? len - i : CC_PAGE;
		report_page(c, off + i, exp + i, got + i, n);
	}
}

static ssize_t pread_full(int fd, unsigned char *buf, size_t len,
			  unsigned long long off)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = pread(fd, buf + done, len - done, off + done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		done += n;
	}
	return done;
}

/*
 * fill got with [off, off + len) of the file through c->how: 0 when all
 * came, 1 (reported) on an error or a short read
 */
static int fetch(struct check *c, int fd, int memfd, unsigned char *got,
		 unsigned long long off, size_t len)
{
	unsigned long long p;
	off_t soff = off;
	size_t done = 0;
	ssize_t n = 0;

	if (!strcmp(c->how, "readahead")) {
		for (p = off; p < off + len && n == 0; p += RA_PIECE)
			n = readahead(fd, p, RA_PIECE);
	}
	if (n) {
		n = -1;
	} else if (!strcmp(c->how, "sendfile")) {
		/* into the memfd's start, then read back from there */
		n = lseek(memfd, 0, SEEK_SET);
		while (n == 0 && done < len) {
			n = sendfile(memfd, fd, &soff, len - done);
			if (n > 0) {
				done += n;
				n = 0;
			} else if (n == 0) {
				break;	/* end of file */
			} else if (errno == EINTR) {
				n = 0;
			}
		}
		if (n == 0)
			n = pread_full(memfd, got, done, 0);
	} else if (!strcmp(c->how, "direct")) {
		/* O_DIRECT wants whole blocks; the tail comes back short */
		n = pread(fd, got, (len + CC_PAGE - 1) & ~(CC_PAGE - 1), off);
		if (n > (ssize_t)len)
			n = len;
	} else {
		n = pread_full(fd, got, len, off);
	}
	if (n < 0) {
		fprintf(stderr, "ccfile: %s (%s) at offset %llu: %s\n",
			c->file, c->how, off, strerror(errno));
		return 1;
	}
	if ((size_t)n < len) {
		fprintf(stderr, "ccfile: MISMATCH %s (%s): short read, %zd of %zu at %llu\n",
			c->file, c->how, n, len, off);
		return 1;
	}
	return 0;
}

static int verify_how(const char *file, const struct model *m,
		      const char *how)
{
	struct check c = { file, how, m, 0, 0 };
	unsigned char *exp, *got = NULL, *map = NULL;
	unsigned long long off, size = m->size;
	int fd, memfd = -1, flags = O_RDONLY, err = 0;
	struct stat st;
	size_t len;

	if (!strcmp(how, "direct"))
		flags |= O_DIRECT;
	fd = open(file, flags);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "ccfile: %s: %s\n", file, strerror(errno));
		return 1;
	}
	if ((unsigned long long)st.st_size != m->size) {
		fprintf(stderr, "ccfile: MISMATCH %s: size %lld, model says %llu\n",
			file, (long long)st.st_size, m->size);
		err = 1;
		if ((unsigned long long)st.st_size < size)
			size = st.st_size;
	}
	exp = xmalloc(STEP);
	if (!strcmp(how, "mmap")) {
		if (size) {
			map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
			if (map == MAP_FAILED)
				die("mmap %s: %s\n", file, strerror(errno));
		}
	} else if (posix_memalign((void **)&got, CC_PAGE, STEP)) {
		die("out of memory\n");
	}
	if (!strcmp(how, "sendfile")) {
		memfd = memfd_create("ccfile-sendfile", 0);
		if (memfd < 0)
			die("memfd_create: %s\n", strerror(errno));
	} else if (strcmp(how, "read") && strcmp(how, "readahead") &&
		   strcmp(how, "mmap") && strcmp(how, "direct")) {
		die("unknown read path '%s'\n", how);
	}
	for (off = 0; off < size; off += len) {
		len = size - off < STEP ? size - off : STEP;
		model_fill(m, off, exp, len);
		if (map) {
			compare(&c, off, exp, map + off, len);
			continue;
		}
		if (fetch(&c, fd, memfd, got, off, len)) {
			err = 1;
			break;
		}
		compare(&c, off, exp, got, len);
	}
	/* the file ends where the model says */
	if (!err && !map && !(flags & O_DIRECT) && memfd < 0 &&
	    pread(fd, exp, 1, size) != 0) {
		fprintf(stderr, "ccfile: MISMATCH %s (%s): data past the end at %llu\n",
			file, how, size);
		err = 1;
	}
	if (c.bad_pages) {
		fprintf(stderr, "ccfile: %s (%s): %llu pages differ (%llu bytes)\n",
			file, how, c.bad_pages, c.bad_bytes);
		err = 1;
	}
	if (map)
		munmap(map, size);
	if (memfd >= 0)
		close(memfd);
	free(got);
	free(exp);
	close(fd);
	return err;
}

/* how: one read path, or "all" for each in turn */
int verify_file(const char *file, const struct model *m, const char *how)
{
	static const char * const all[] = {
		"read", "readahead", "sendfile", "mmap", "direct"
	};
	unsigned int i;
	int err = 0;

	if (strcmp(how, "all"))
		return verify_how(file, m, how);
	for (i = 0; i < ARRAY_SIZE(all); i++)
		err |= verify_how(file, m, all[i]);
	return err;
}
