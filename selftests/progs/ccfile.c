// SPDX-License-Identifier: GPL-2.0
/*
 * ccfile: data-integrity tool for ccache's selftests.  Files get content a
 * model predicts (see pattern.c, model.c); every change goes to the file
 * and the model together; verify compares the file with the model through
 * one read path or all of them; evict and pressure push pages out through
 * memory reclaim.  Any mismatch is reported and ends in a non-zero exit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ccfile.h"

#define IO_STEP		CC_MIB
#define LOG_OPS		32
#define LOG_LEN		112

static const char usage[] =
"usage: ccfile COMMAND [OPTIONS] ARGS   (files by absolute path; sizes take K, M, G)\n"
"  create FILE SIZE [-r] [-d] [-s SEED]  new file of SIZE bytes, fresh content\n"
"  write FILE OFF LEN [-r] [-d]          overwrite or extend with a new generation\n"
"  truncate FILE SIZE                    shrink or extend (ftruncate)\n"
"  punch|zero|collapse|insert FILE OFF LEN   fallocate PUNCH_HOLE (keep size),\n"
"                                        ZERO_RANGE, COLLAPSE_RANGE, INSERT_RANGE\n"
"  rename FROM TO                        rename(2), over TO if it exists\n"
"  unlink FILE\n"
"  generation FILE [GEN]                 print the inode's generation, or set\n"
"                                        it (FS_IOC_SETVERSION, ext4)\n"
"  clone FROM TO                         TO shares FROM's blocks (FICLONE,\n"
"                                        reflink); TO no larger than FROM\n"
"  verify [-m HOW] FILE...               HOW: read (default), readahead, sendfile,\n"
"                                        mmap, direct, all\n"
"  evict [-t SECS] [-a ROUNDS] [-f MIB] [-l PCT] [-q] FILE...  memory pressure\n"
"                                        until no page of the files is cached\n"
"                                        (exit 2 if more than PCT%, default 1,\n"
"                                        stay; default 60 s, 10 rounds)\n"
"  resident FILE...                      pages in the page cache (mincore)\n"
"  pressure [-t SECS] [-x MIB] [-f MIB]  waves of pressure for SECS seconds\n"
"  hog [-t SECS] MIB                     take MIB of memory whatever it costs,\n"
"                                        hold it SECS seconds (default 60)\n"
"  churn [-t SECS] [-n OPS] [-s SEED] FILE  random changes and verifications\n"
"  model FILE                            print the model\n"
"  -r: incompressible content (default: text-like, compressible)\n"
"  -d: O_DIRECT (offsets and lengths in whole pages)\n"
"  -f: what pressure leaves of free memory plus file LRU above the min\n"
"      watermarks (MiB, default 16)\n"
"  -x: the most pressure takes (MiB)\n";

struct opts {
	char kind;
	int direct;
	int have_seed;
	unsigned long long seed;
	const char *how;
	int seconds;
	int attempts;
	unsigned long long floor_mib;
	unsigned long long max_mib;
	unsigned long long max_ops;
	int leave_pct;
	int quiet;
};

void *xmalloc(size_t len)
{
	void *p = malloc(len ? len : 1);

	if (!p)
		die("out of memory\n");
	return p;
}

unsigned long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

/* a number, with an optional suffix K, M or G */
static unsigned long long parse_size(const char *s)
{
	static const char suffixes[] = "KMG";
	unsigned long long v;
	const char *suffix;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		die("bad number '%s'\n", s);
	suffix = *end ? strchr(suffixes, *end) : NULL;
	if (suffix) {
		v <<= 10 * (suffix - suffixes + 1);
		end++;
	}
	if (*end)
		die("bad number '%s'\n", s);
	return v;
}

static int open_file(const char *file, int flags)
{
	int fd = open(file, flags, 0644);

	if (fd < 0)
		die("open %s: %s\n", file, strerror(errno));
	return fd;
}

static void sync_close(const char *file, int fd)
{
	if (fsync(fd) || close(fd))
		die("fsync %s: %s\n", file, strerror(errno));
}

/* write what the model says for [off, off + len) */
static void put_range(const char *file, int fd, const struct model *m,
		      unsigned long long off, unsigned long long len)
{
	unsigned long long pos, n;
	unsigned char *buf;
	ssize_t done;

	if (posix_memalign((void **)&buf, CC_PAGE, IO_STEP))
		die("out of memory\n");
	for (pos = off; pos < off + len; pos += n) {
		n = off + len - pos < IO_STEP ? off + len - pos : IO_STEP;
		model_fill(m, pos, buf, n);
		done = pwrite(fd, buf, n, pos);
		if (done != (ssize_t)n)
			die("write %s at %llu: %s\n", file, pos,
			    done < 0 ? strerror(errno) : "short write");
	}
	free(buf);
}

static void op_write(const char *file, struct model *m, unsigned long long off,
		     unsigned long long len, char kind, int direct)
{
	int fd;

	if (direct && (off % CC_PAGE || len % CC_PAGE))
		die("O_DIRECT write of %s needs whole pages (%llu+%llu)\n",
		    file, off, len);
	fd = open_file(file, O_WRONLY | (direct ? O_DIRECT : 0));
	model_begin_change(file);
	model_write(m, off, len, kind);
	put_range(file, fd, m, off, len);
	sync_close(file, fd);
}

static void op_truncate(const char *file, struct model *m,
			unsigned long long size)
{
	int fd = open_file(file, O_WRONLY);

	model_begin_change(file);
	if (ftruncate(fd, size))
		die("truncate %s to %llu: %s\n", file, size, strerror(errno));
	model_truncate(m, size);
	sync_close(file, fd);
}

static void op_falloc(const char *file, struct model *m, int mode,
		      unsigned long long off, unsigned long long len)
{
	int fd = open_file(file, O_WRONLY);

	model_begin_change(file);
	if (fallocate(fd, mode, off, len))
		die("fallocate(0x%x) %s %llu+%llu: %s\n", mode, file, off, len,
		    strerror(errno));
	if (mode & FALLOC_FL_COLLAPSE_RANGE) {
		model_collapse(m, off, len);
	} else if (mode & FALLOC_FL_INSERT_RANGE) {
		model_insert(m, off, len);
	} else {
		model_clear(m, off, len);
		if (!(mode & FALLOC_FL_KEEP_SIZE) && off + len > m->size)
			m->size = off + len;
	}
	sync_close(file, fd);
}

static int falloc_mode(const char *cmd)
{
	if (!strcmp(cmd, "punch"))
		return FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE;
	if (!strcmp(cmd, "zero"))
		return FALLOC_FL_ZERO_RANGE;
	if (!strcmp(cmd, "collapse"))
		return FALLOC_FL_COLLAPSE_RANGE;
	if (!strcmp(cmd, "insert"))
		return FALLOC_FL_INSERT_RANGE;
	return -1;
}

static unsigned long long new_seed(const struct opts *o)
{
	unsigned long long seed;

	if (o->have_seed)
		return o->seed;
	if (getrandom(&seed, sizeof(seed), 0) != sizeof(seed))
		seed = now_ms() ^ ((unsigned long long)getpid() << 32);
	return seed;
}

static void cmd_create(const char *file, unsigned long long size,
		       const struct opts *o)
{
	struct model m;
	int fd;

	if (o->direct && size % CC_PAGE)
		die("O_DIRECT create of %s needs whole pages\n", file);
	model_init(&m, new_seed(o));
	model_begin_change(file);
	fd = open_file(file, O_WRONLY | O_CREAT | O_TRUNC |
		       (o->direct ? O_DIRECT : 0));
	model_write(&m, 0, size, o->kind);
	put_range(file, fd, &m, 0, size);
	sync_close(file, fd);
	model_save(file, &m);
}

static int cmd_verify(char **files, int n, const char *how)
{
	struct model m;
	int i, err = 0;

	for (i = 0; i < n; i++) {
		if (model_load(files[i], &m)) {
			err = 1;
			continue;
		}
		err |= verify_file(files[i], &m, how);
		free(m.segs);
	}
	return err;
}

static int cmd_resident(char **files, int n)
{
	long long res, total, sum = 0, sum_total = 0;
	int i;

	for (i = 0; i < n; i++) {
		res = resident_pages(files[i], &total);
		if (res < 0)
			return 1;
		printf("%s %lld/%lld\n", files[i], res, total);
		sum += res;
		sum_total += total;
	}
	if (n > 1)
		printf("total %lld/%lld\n", sum, sum_total);
	return 0;
}

/* generation FILE [GEN]: print the inode's generation, or set it */
static int cmd_generation(int argc, char **argv)
{
	long gen;
	int fd, err;

	if (argc < 1 || argc > 2)
		die("%s", usage);
	fd = open_file(argv[0], O_RDONLY);
	if (argc == 2) {
		gen = strtol(argv[1], NULL, 0);
		err = ioctl(fd, FS_IOC_SETVERSION, &gen);
	} else {
		err = ioctl(fd, FS_IOC_GETVERSION, &gen);
	}
	if (err)
		die("%s: generation: %s\n", argv[0], strerror(errno));
	if (argc == 1)
		printf("%ld\n", gen);
	close(fd);
	return 0;
}

/*
 * clone FROM TO: TO becomes a reflink copy of FROM (FICLONE), and its
 * model FROM's.  FICLONE leaves TO's bytes past FROM's end in place, which
 * one model cannot describe beside FROM's (a model has one seed): TO must
 * be no larger than FROM.
 */
static int cmd_clone(const char *from, const char *to)
{
	struct model m, old;
	int src, dst;

	if (model_load(from, &m) || model_load(to, &old))
		return 1;
	if (old.size > m.size)
		die("clone %s %s: the target is the larger\n", from, to);
	src = open_file(from, O_RDONLY);
	dst = open_file(to, O_WRONLY);
	model_begin_change(to);
	if (ioctl(dst, FICLONE, src))
		die("clone %s %s: %s\n", from, to, strerror(errno));
	close(src);
	sync_close(to, dst);
	model_save(to, &m);
	return 0;
}

/* churn: a small fsx with compressible data */
static unsigned long long rng_state;

static unsigned long long rnd(unsigned long long bound)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return bound ? rng_state % bound : 0;
}

static char oplog[LOG_OPS][LOG_LEN];
static unsigned long long nops;

static void logop(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(oplog[nops % LOG_OPS], LOG_LEN, fmt, ap);
	va_end(ap);
	nops++;
}

static void dump_oplog(void)
{
	unsigned long long i = nops > LOG_OPS ? nops - LOG_OPS : 0;

	if (!nops)
		return;
	fprintf(stderr, "ccfile: the last %llu operations:\n", nops - i);
	for (; i < nops; i++)
		fprintf(stderr, "ccfile:   %6llu %s\n", i + 1,
			oplog[i % LOG_OPS]);
}

/*
 * fit: LEN cut so that a change at OFF (below MAX) ends by MAX.  The
 * writes and the zeroing go through it, and insert and truncate check
 * MAX themselves, so the file never outgrows MAX and an offset drawn
 * below its size is below MAX too (a direct write once went past it,
 * and a zeroing beyond MAX then asked for a negative length).
 */
static unsigned long long fit(unsigned long long off, unsigned long long len,
			      unsigned long long max)
{
	return off + len > max ? max - off : len;
}

static int churn_one(const char *file, struct model *m,
		     unsigned long long max)
{
	static const char * const hows[] = {
		"read", "readahead", "sendfile", "mmap"
	};
	unsigned long long size = m->size, off, len, pages = size / CC_PAGE;
	unsigned int r = rnd(100);
	int fd;

	if (r < 30) {
		off = rnd(size + 64 * 1024 < max ? size + 64 * 1024 : max);
		len = fit(off, 1 + rnd(256 * 1024), max);
		logop("write %llu+%llu gen %u", off, len, m->next_gen);
		op_write(file, m, off, len, rnd(10) ? KIND_TEXT : KIND_RAND, 0);
	} else if (r < 37 && pages) {
		/* off + CC_PAGE <= pages * CC_PAGE <= size <= max */
		off = rnd(pages) * CC_PAGE;
		len = fit(off, (1 + rnd(32)) * CC_PAGE, max) / CC_PAGE * CC_PAGE;
		logop("direct write %llu+%llu gen %u", off, len, m->next_gen);
		op_write(file, m, off, len, KIND_TEXT, 1);
	} else if (r < 44 && size) {
		off = rnd(size);
		len = 1 + rnd(512 * 1024);
		logop("punch %llu+%llu", off, len);
		op_falloc(file, m, falloc_mode("punch"), off, len);
	} else if (r < 50 && size) {
		off = rnd(size);
		len = fit(off, 1 + rnd(256 * 1024), max);
		logop("zero %llu+%llu", off, len);
		op_falloc(file, m, falloc_mode("zero"), off, len);
	} else if (r < 55) {
		len = size / 2 + rnd(size + 1);
		if (len > max)
			len = max;
		logop("truncate %llu -> %llu", size, len);
		op_truncate(file, m, len);
	} else if (r < 59 && pages > 2) {
		off = rnd(pages - 2) * CC_PAGE;
		len = (1 + rnd((size - off - 1) / CC_PAGE < 64 ?
			       (size - off - 1) / CC_PAGE : 64)) * CC_PAGE;
		logop("collapse %llu+%llu", off, len);
		op_falloc(file, m, falloc_mode("collapse"), off, len);
	} else if (r < 63 && pages && size + (64 << 12) <= max) {
		off = rnd(pages) * CC_PAGE;
		len = (1 + rnd(64)) * CC_PAGE;
		logop("insert %llu+%llu", off, len);
		op_falloc(file, m, falloc_mode("insert"), off, len);
	} else if (r < 68 && size) {
		off = rnd(size);
		len = rnd(size - off);
		logop("fadvise DONTNEED %llu+%llu", off, len);
		fd = open_file(file, O_RDONLY);
		posix_fadvise(fd, off, len, POSIX_FADV_DONTNEED);
		close(fd);
	} else {
		logop("verify (%s), size %llu", hows[r % 4], size);
		return verify_file(file, m, hows[r % 4]);
	}
	return 0;
}

/* a churn that dies (die() exits) shows the operations that led there */
static int churning;

static void churn_died(void)
{
	if (churning)
		dump_oplog();
}

static int cmd_churn(const char *file, struct model *m, const struct opts *o)
{
	unsigned long long start = now_ms(), max;
	int err = 0;

	max = m->size * 2 > CC_MIB ? m->size * 2 : CC_MIB;
	rng_state = new_seed(o) | 1;
	printf("churn %s: seed %llu, up to %llu bytes\n", file, rng_state, max);
	fflush(stdout);
	churning = 1;
	atexit(churn_died);
	while (!err && now_ms() - start < o->seconds * 1000ULL &&
	       (!o->max_ops || nops < o->max_ops))
		err = churn_one(file, m, max);
	if (!err)
		err = verify_file(file, m, "read");
	model_save(file, m);
	churning = 0;
	if (err)
		dump_oplog();
	printf("churn %s: %llu operations, %s\n", file, nops,
	       err ? "MISMATCH" : "all reads matched");
	return err;
}

static void need(int argc, int n)
{
	if (argc != n)
		die("wrong number of arguments\n%s", usage);
}

int main(int argc, char **argv)
{
	struct opts o = {
		.kind = KIND_TEXT, .how = "read", .seconds = 60, .attempts = 10,
		.floor_mib = 16, .max_mib = ~0ULL >> 21, .leave_pct = 1,
	};
	const char *cmd;
	struct model m;
	int c;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	cmd = argv[1];
	argc--;
	argv++;
	while ((c = getopt(argc, argv, "rds:m:t:a:f:x:n:l:q")) != -1) {
		switch (c) {
		case 'r':
			o.kind = KIND_RAND;
			break;
		case 'd':
			o.direct = 1;
			break;
		case 's':
			o.seed = parse_size(optarg);
			o.have_seed = 1;
			break;
		case 'm':
			o.how = optarg;
			break;
		case 't':
			o.seconds = parse_size(optarg);
			break;
		case 'a':
			o.attempts = parse_size(optarg);
			break;
		case 'f':
			o.floor_mib = parse_size(optarg);
			break;
		case 'x':
			o.max_mib = parse_size(optarg);
			break;
		case 'n':
			o.max_ops = parse_size(optarg);
			break;
		case 'l':
			o.leave_pct = parse_size(optarg);
			break;
		case 'q':
			o.quiet = 1;
			break;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	argc -= optind;
	argv += optind;

	if (!strcmp(cmd, "create")) {
		need(argc, 2);
		cmd_create(argv[0], parse_size(argv[1]), &o);
		return 0;
	}
	if (!strcmp(cmd, "verify"))
		return argc ? cmd_verify(argv, argc, o.how) : 2;
	if (!strcmp(cmd, "evict"))
		return argc ? evict_files(argv, argc, o.seconds, o.attempts,
					  o.floor_mib, o.leave_pct, o.quiet) : 2;
	if (!strcmp(cmd, "resident"))
		return argc ? cmd_resident(argv, argc) : 2;
	if (!strcmp(cmd, "pressure")) {
		need(argc, 0);
		return pressure_run(o.seconds, o.max_mib, o.floor_mib);
	}
	if (!strcmp(cmd, "hog")) {
		need(argc, 1);
		return hog_run(parse_size(argv[0]), o.seconds);
	}
	if (!strcmp(cmd, "rename")) {
		need(argc, 2);
		if (rename(argv[0], argv[1]))
			die("rename %s %s: %s\n", argv[0], argv[1],
			    strerror(errno));
		model_remove(argv[1]);
		if (model_rename(argv[0], argv[1]))
			die("no model for %s\n", argv[0]);
		return 0;
	}
	if (!strcmp(cmd, "generation"))
		return cmd_generation(argc, argv);
	if (!strcmp(cmd, "clone")) {
		need(argc, 2);
		return cmd_clone(argv[0], argv[1]);
	}
	if (!strcmp(cmd, "unlink")) {
		need(argc, 1);
		if (unlink(argv[0]))
			die("unlink %s: %s\n", argv[0], strerror(errno));
		model_remove(argv[0]);
		return 0;
	}

	/* the rest change or show one file with a model */
	if (argc < 1)
		die("%s", usage);
	if (model_load(argv[0], &m))
		return 1;
	if (!strcmp(cmd, "churn")) {
		need(argc, 1);
		return cmd_churn(argv[0], &m, &o);
	} else if (!strcmp(cmd, "model")) {
		need(argc, 1);
		model_print(&m);
		return 0;
	} else if (!strcmp(cmd, "write")) {
		need(argc, 3);
		op_write(argv[0], &m, parse_size(argv[1]), parse_size(argv[2]),
			 o.kind, o.direct);
	} else if (!strcmp(cmd, "truncate")) {
		need(argc, 2);
		op_truncate(argv[0], &m, parse_size(argv[1]));
	} else if (falloc_mode(cmd) >= 0) {
		need(argc, 3);
		op_falloc(argv[0], &m, falloc_mode(cmd), parse_size(argv[1]),
			  parse_size(argv[2]));
	} else {
		die("unknown command '%s'\n%s", cmd, usage);
	}
	model_save(argv[0], &m);
	return 0;
}
