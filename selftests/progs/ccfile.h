/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ccfile: files whose content a model predicts byte for byte, the
 * operations that change them, verification through every read path, and
 * memory pressure that pushes their pages out of the page cache.
 */
#ifndef CCFILE_H
#define CCFILE_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#define CC_PAGE		4096ULL
#define CC_MIB		(1024ULL * 1024)
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* print a message ("ccfile: " and a format with its arguments) and exit 1 */
#define die(...)						\
	do {							\
		fprintf(stderr, "ccfile: " __VA_ARGS__);	\
		exit(1);					\
	} while (0)
#define CC_STAMP_LEN	32

/* content kinds: compressible text, incompressible noise */
#define KIND_TEXT	't'
#define KIND_RAND	'r'

/*
 * A segment of file data: bytes [off, off + len) of the file hold the
 * content of generation gen at source offsets [src, src + len).  Bytes of
 * the file below size that no segment covers are zeros (holes).
 */
struct seg {
	unsigned long long off;
	unsigned long long len;
	unsigned long long src;
	unsigned int gen;
	char kind;
};

struct model {
	unsigned long long seed;
	unsigned long long size;
	unsigned int next_gen;
	int nseg;
	int cap;
	struct seg *segs;
};

/* pattern.c */
void pattern_fill(unsigned char *buf, size_t len, unsigned long long seed,
		  unsigned int gen, char kind, unsigned long long src);
void stamp_describe(const unsigned char *page, char *out, size_t outlen);

/* model.c */
char *model_path(const char *file);
int model_load(const char *file, struct model *m);
int model_save(const char *file, const struct model *m);
int model_remove(const char *file);
int model_rename(const char *from, const char *to);
void model_begin_change(const char *file);
void model_init(struct model *m, unsigned long long seed);
unsigned int model_write(struct model *m, unsigned long long off,
			 unsigned long long len, char kind);
void model_clear(struct model *m, unsigned long long off,
		 unsigned long long len);
void model_truncate(struct model *m, unsigned long long size);
void model_collapse(struct model *m, unsigned long long off,
		    unsigned long long len);
void model_insert(struct model *m, unsigned long long off,
		  unsigned long long len);
void model_fill(const struct model *m, unsigned long long off,
		unsigned char *buf, size_t len);
void model_print(const struct model *m);

/* verify.c */
int verify_file(const char *file, const struct model *m, const char *how);

/* pressure.c */
int evict_files(char **files, int nfiles, int seconds, int attempts,
		unsigned long long floor_mib, int leave_pct, int quiet);
int pressure_run(int seconds, unsigned long long max_mib,
		 unsigned long long floor_mib);
int hog_run(unsigned long long mib, int seconds);
long long resident_pages(const char *file, long long *total);

/* ccfile.c */
void *xmalloc(size_t len);
unsigned long long now_ms(void);

#endif /* CCFILE_H */
