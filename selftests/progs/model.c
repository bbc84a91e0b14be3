// SPDX-License-Identifier: GPL-2.0
/*
 * The model of a file: its size and a sorted list of data segments (see
 * struct seg); everything else below the size is a hole and reads as
 * zeros.  It persists between runs of ccfile in a small text file under
 * $CCFILE_MODELS (default /tmp/ccmodel), named after the file's absolute
 * path, so a shell test can change a file in several steps.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ccfile.h"

#define MODEL_MAGIC	"ccfile-model 1"

/*
 * The file a command is changing, from its first change until its model
 * is saved.  If ccfile dies in between (die() exits), the model on disk
 * no longer describes the file, and lost_model() removes it: later
 * commands on the file then fail with "no model" instead of reporting
 * mismatches that are ccfile's own (a churn that died once showed as
 * mismatches in every later check of a run).
 */
static const char *changing;

char *model_path(const char *file)
{
	const char *dir = getenv("CCFILE_MODELS");
	char *path, *p;
	size_t len;

	if (!dir || !*dir)
		dir = "/tmp/ccmodel";
	if (file[0] != '/')
		die("%s: give files by absolute path\n", file);
	if (mkdir(dir, 0700) && errno != EEXIST)
		die("mkdir %s: %s\n", dir, strerror(errno));
	len = strlen(dir) + strlen(file) + 2;
	path = xmalloc(len);
	snprintf(path, len, "%s/%s", dir, file);
	for (p = path + strlen(dir) + 1; *p; p++)
		if (*p == '/')
			*p = '%';
	return path;
}

void model_init(struct model *m, unsigned long long seed)
{
	memset(m, 0, sizeof(*m));
	m->seed = seed;
	m->next_gen = 1;
}

static void reserve(struct model *m, int n)
{
	if (n <= m->cap)
		return;
	m->cap = n * 2 + 16;
	m->segs = realloc(m->segs, m->cap * sizeof(*m->segs));
	if (!m->segs)
		die("out of memory\n");
}

int model_load(const char *file, struct model *m)
{
	char *path = model_path(file), line[256];
	struct seg s;
	FILE *f;

	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr,
			"ccfile: no model for %s (%s): create it first%s\n",
			file, path, errno == ENOENT ?
			" (a command that died while changing it removes it)" :
			"");
		free(path);
		return -1;
	}
	model_init(m, 0);
	if (!fgets(line, sizeof(line), f) ||
	    strncmp(line, MODEL_MAGIC, strlen(MODEL_MAGIC)) ||
	    fscanf(f, "seed %llx size %llu next_gen %u ", &m->seed, &m->size,
		   &m->next_gen) != 3)
		die("%s: not a model file\n", path);
	while (fscanf(f, "%llu %llu %llu %u %c ", &s.off, &s.len, &s.src,
		      &s.gen, &s.kind) == 5) {
		reserve(m, m->nseg + 1);
		m->segs[m->nseg++] = s;
	}
	if (!feof(f))
		die("%s: damaged model file\n", path);
	fclose(f);
	free(path);
	return 0;
}

int model_save(const char *file, const struct model *m)
{
	char *path = model_path(file), *tmp;
	size_t len = strlen(path) + 8;
	FILE *f;
	int i;

	tmp = xmalloc(len);
	snprintf(tmp, len, "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		die("%s: %s\n", tmp, strerror(errno));
	fprintf(f, "%s\nseed %llx size %llu next_gen %u\n", MODEL_MAGIC,
		m->seed, m->size, m->next_gen);
	for (i = 0; i < m->nseg; i++)
		fprintf(f, "%llu %llu %llu %u %c\n", m->segs[i].off,
			m->segs[i].len, m->segs[i].src, m->segs[i].gen,
			m->segs[i].kind);
	if (fclose(f) || rename(tmp, path))
		die("%s: %s\n", path, strerror(errno));
	if (changing && !strcmp(changing, file))
		changing = NULL;
	free(tmp);
	free(path);
	return 0;
}

static void lost_model(void)
{
	if (!changing)
		return;
	fprintf(stderr, "ccfile: %s changed part way: its model is removed\n",
		changing);
	model_remove(changing);
}

/**
 * model_begin_change() - FILE is about to change
 * @file: the file, by the path its model is kept under
 *
 * Until model_save() of @file, an exit (die()) removes @file's model.
 */
void model_begin_change(const char *file)
{
	static int registered;

	if (!registered && !atexit(lost_model))
		registered = 1;
	changing = file;
}

int model_remove(const char *file)
{
	char *path = model_path(file);
	int ret = unlink(path);

	free(path);
	return ret;
}

int model_rename(const char *from, const char *to)
{
	char *pf = model_path(from), *pt = model_path(to);
	int ret = rename(pf, pt);

	free(pf);
	free(pt);
	return ret;
}

/* make x a segment boundary: split the segment that straddles it */
static void split_at(struct model *m, unsigned long long x)
{
	struct seg *s;
	int i;

	for (i = 0; i < m->nseg; i++) {
		s = &m->segs[i];
		if (s->off < x && x < s->off + s->len) {
			reserve(m, m->nseg + 1);
			s = &m->segs[i];
			memmove(s + 1, s, (m->nseg - i) * sizeof(*s));
			m->nseg++;
			s[0].len = x - s[0].off;
			s[1].src += x - s[1].off;
			s[1].len -= x - s[1].off;
			s[1].off = x;
			return;
		}
	}
}

/* [off, off + len) becomes a hole; len may run past every segment */
void model_clear(struct model *m, unsigned long long off,
		 unsigned long long len)
{
	unsigned long long end = len > ~0ULL - off ? ~0ULL : off + len;
	int i, j;

	split_at(m, off);
	split_at(m, end);
	for (i = 0, j = 0; i < m->nseg; i++)
		if (m->segs[i].off < off || m->segs[i].off >= end)
			m->segs[j++] = m->segs[i];
	m->nseg = j;
}

/* a write of fresh content: returns its generation */
unsigned int model_write(struct model *m, unsigned long long off,
			 unsigned long long len, char kind)
{
	struct seg s = { off, len, off, m->next_gen++, kind };
	int i;

	if (!len)
		return s.gen;
	model_clear(m, off, len);
	reserve(m, m->nseg + 1);
	for (i = 0; i < m->nseg && m->segs[i].off < off; i++)
		;
	memmove(&m->segs[i + 1], &m->segs[i], (m->nseg - i) * sizeof(s));
	m->segs[i] = s;
	m->nseg++;
	if (off + len > m->size)
		m->size = off + len;
	return s.gen;
}

void model_truncate(struct model *m, unsigned long long size)
{
	model_clear(m, size, ~0ULL - size);
	m->size = size;
}

/* FALLOC_FL_COLLAPSE_RANGE: the range goes, what follows moves down */
void model_collapse(struct model *m, unsigned long long off,
		    unsigned long long len)
{
	int i;

	model_clear(m, off, len);
	for (i = 0; i < m->nseg; i++)
		if (m->segs[i].off >= off + len)
			m->segs[i].off -= len;
	m->size -= len;
}

/* FALLOC_FL_INSERT_RANGE: a hole opens at off, what follows moves up */
void model_insert(struct model *m, unsigned long long off,
		  unsigned long long len)
{
	int i;

	split_at(m, off);
	for (i = 0; i < m->nseg; i++)
		if (m->segs[i].off >= off)
			m->segs[i].off += len;
	m->size += len;
}

/* the expected bytes [off, off + len) of the file */
void model_fill(const struct model *m, unsigned long long off,
		unsigned char *buf, size_t len)
{
	unsigned long long end = off + len, a, b;
	const struct seg *s;
	int i;

	memset(buf, 0, len);
	for (i = 0; i < m->nseg; i++) {
		s = &m->segs[i];
		a = s->off > off ? s->off : off;
		b = s->off + s->len < end ? s->off + s->len : end;
		if (a >= b)
			continue;
		pattern_fill(buf + (a - off), b - a, m->seed, s->gen, s->kind,
			     s->src + (a - s->off));
	}
}

void model_print(const struct model *m)
{
	int i;

	printf("seed %llx size %llu next_gen %u segments %d\n", m->seed,
	       m->size, m->next_gen, m->nseg);
	for (i = 0; i < m->nseg; i++)
		printf("  [%llu, %llu) gen %u kind %c src %llu\n",
		       m->segs[i].off, m->segs[i].off + m->segs[i].len,
		       m->segs[i].gen, m->segs[i].kind, m->segs[i].src);
}
