// SPDX-License-Identifier: GPL-2.0
/*
 * Memory pressure.  Guests have no swap, so anonymous memory that is
 * allocated and touched can only be found by reclaiming page cache: this
 * is how a test makes file pages leave through reclaim (the path ccache
 * captures), unlike drop_caches or fadvise(DONTNEED).  mincore(2) on a
 * mapping of a file tells which of its pages are still in the page cache.
 *
 * Allocation stops before free memory plus the file LRU would fall below a
 * floor above the min watermarks, so the pressure itself does not invite
 * the OOM killer; and this process volunteers as the OOM killer's first
 * choice should it come anyway.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "ccfile.h"

#define CHUNK		CC_MIB
#define SMALL_CHUNK	(64 * 1024ULL)
#define MAX_CHUNKS	32768

struct hog {
	void *chunk[MAX_CHUNKS];
	unsigned long long len[MAX_CHUNKS];
	unsigned long long total;
	unsigned long long paced_ms;	/* waited for kswapd: hog_pace() */
	int n;
};

/* the largest number in a zoneinfo "protection: (0, 99, 99)" line */
static long long max_protection(const char *p)
{
	long long v, max = 0;

	for (p = strchr(p, '('); p && *p && *p != ')'; p++) {
		v = strtoll(p + 1, (char **)&p, 10);
		if (v > max)
			max = v;
		if (*p == ')')
			break;
	}
	return max;
}

/* what /proc/zoneinfo says, summed over the zones: see zone_read() */
struct zone_sums {
	long long reclaimable;	/* KiB this process could still take */
	long long free;		/* free KiB */
	long long low;		/* KiB of low watermarks */
};

/*
 * Memory this process could still take without the OOM killer: in each
 * zone, what is free plus the page cache on the zone's file LRU lists
 * (reclaim can take those; with no swap, anonymous and tmpfs memory stay),
 * less the zone's min watermark (which includes any watermark boost) and
 * its lowmem reserve: free pages below those are not to be had, and a
 * small zone can have most of its free memory there.  MemAvailable will
 * not do: it counts only part of a small page cache, and stopping at it
 * leaves file pages cached above the watermarks, where reclaim never runs.
 * Also the free memory and the low watermarks, for hog_pace().
 */
static int zone_read(struct zone_sums *z)
{
	long long v, free = 0, file = 0, reserve = 0;
	char line[256], *p;
	FILE *f;

	memset(z, 0, sizeof(*z));
	f = fopen("/proc/zoneinfo", "r");
	if (!f)
		return -1;
	for (;;) {
		p = fgets(line, sizeof(line), f);
		if (!p || !strncmp(line, "Node ", 5)) {
			if (free + file > reserve)
				z->reclaimable += free + file - reserve;
			z->free += free;
			free = 0;
			file = 0;
			reserve = 0;
			if (!p)
				break;
			continue;
		}
		p += strspn(p, " ");
		if (sscanf(p, "pages free %lld", &v) == 1)
			free = v;
		else if (sscanf(p, "min %lld", &v) == 1)
			reserve += v;
		else if (sscanf(p, "low %lld", &v) == 1)
			z->low += v;
		else if (!strncmp(p, "protection:", 11))
			reserve += max_protection(p);
		else if (sscanf(p, "nr_zone_inactive_file %lld", &v) == 1 ||
			 sscanf(p, "nr_zone_active_file %lld", &v) == 1)
			file += v;
	}
	fclose(f);
	z->reclaimable *= CC_PAGE / 1024;
	z->free *= CC_PAGE / 1024;
	z->low *= CC_PAGE / 1024;
	return 0;
}

/*
 * Let kswapd catch up: while free memory is under the low watermarks (an
 * allocation there wakes kswapd, which reclaims up to the high ones) and
 * grows, wait.  Touching pages faster than reclaim frees them sends each
 * fault into direct reclaim, and on multi-gen LRU kernels (6.12 and
 * later) a fault there can find only file pages too young to evict and
 * call the OOM killer with the file LRU full: seen on 6.12 with 32 MiB of
 * the test's files cached and none reclaimed.  Paced, the allocations go
 * at the rate reclaim frees pages.  Three polls without progress (kswapd
 * not woken yet, or stuck) end the wait: the allocations go on, into
 * direct reclaim.  Returns the ms waited; *@z holds the last reading
 * (all zero when /proc/zoneinfo could not be read).
 */
static unsigned long long hog_pace(struct zone_sums *z)
{
	unsigned long long start = now_ms();
	long long last = -1;
	int i, still = 0;

	for (i = 0; i < 100 && still < 3; i++) {
		if (zone_read(z) || z->free >= z->low)
			break;
		still = z->free > last ? 0 : still + 1;
		last = z->free;
		usleep(5000);
	}
	return now_ms() - start;
}

/* the memory counters that tell why pages stayed */
static void show_meminfo(void)
{
	static const char * const keys[] = {
		"MemFree:", "Active(file):", "Inactive(file):", "Unevictable:",
		"Mlocked:", "Dirty:", "Writeback:", "Mapped:", "Shmem:",
	};
	char line[128], out[512] = "evict: meminfo";
	unsigned int i;
	long long v;
	FILE *f;

	f = fopen("/proc/meminfo", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		for (i = 0; i < ARRAY_SIZE(keys); i++)
			if (!strncmp(line, keys[i], strlen(keys[i])) &&
			    sscanf(line + strlen(keys[i]), "%lld", &v) == 1)
				snprintf(out + strlen(out), sizeof(out) - strlen(out),
					 " %s%lld", keys[i], v);
	fclose(f);
	printf("%s (kB)\n", out);
}

static void volunteer_for_oom(void)
{
	int fd = open("/proc/self/oom_score_adj", O_WRONLY);

	if (fd < 0)
		return;
	if (write(fd, "1000", 4) != 4)
		fprintf(stderr, "ccfile: oom_score_adj: %s\n", strerror(errno));
	close(fd);
}

/*
 * One more touched chunk, unless that would take memory below the floor:
 * 0 when added.  Close to the floor the chunks get small, so the last
 * allocations push free memory just under the watermark that wakes
 * kswapd, which then reclaims the file pages that are left.
 */
static int hog_grow(struct hog *h, unsigned long long floor_kib)
{
	unsigned long long i, len;
	struct zone_sums z;
	long long margin;
	char *p;

	h->paced_ms += hog_pace(&z);
	margin = z.reclaimable - (long long)floor_kib;
	if (margin * 1024 < (long long)SMALL_CHUNK || h->n == MAX_CHUNKS)
		return -1;
	len = margin * 1024 > (long long)(4 * CHUNK) ? CHUNK : SMALL_CHUNK;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	for (i = 0; i < len; i += CC_PAGE) {
		if (i && i % SMALL_CHUNK == 0)
			h->paced_ms += hog_pace(&z);
		p[i] = 1;
	}
	h->chunk[h->n] = p;
	h->len[h->n++] = len;
	h->total += len;
	return 0;
}

static struct hog *hog_new(void)
{
	struct hog *h = xmalloc(sizeof(*h));

	h->total = 0;
	h->paced_ms = 0;
	h->n = 0;
	return h;
}

static void hog_release(struct hog *h)
{
	while (h->n) {
		h->n--;
		munmap(h->chunk[h->n], h->len[h->n]);
	}
	h->total = 0;
}

struct target {
	const char *file;
	dev_t dev;
	unsigned char *map;
	unsigned long long pages;
	unsigned char *vec;
};

static int target_open(struct target *t, const char *file)
{
	struct stat st;
	int fd;

	memset(t, 0, sizeof(*t));
	t->file = file;
	fd = open(file, O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "ccfile: %s: %s\n", file, strerror(errno));
		return -1;
	}
	t->dev = st.st_dev;
	t->pages = (st.st_size + CC_PAGE - 1) / CC_PAGE;
	if (t->pages) {
		t->map = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
		if (t->map == MAP_FAILED)
			die("mmap %s: %s\n", file, strerror(errno));
		t->vec = xmalloc(t->pages);
	}
	close(fd);
	return 0;
}

static long long target_resident(struct target *t)
{
	unsigned long long i;
	long long n = 0;

	if (!t->pages)
		return 0;
	if (mincore(t->map, t->pages * CC_PAGE, t->vec))
		die("mincore %s: %s\n", t->file, strerror(errno));
	for (i = 0; i < t->pages; i++)
		n += t->vec[i] & 1;
	return n;
}

static void target_close(struct target *t)
{
	if (t->pages)
		munmap(t->map, t->pages * CC_PAGE);
	free(t->vec);
}

long long resident_pages(const char *file, long long *total)
{
	struct target t;
	long long n;

	if (target_open(&t, file))
		return -1;
	n = target_resident(&t);
	*total = t.pages;
	target_close(&t);
	return n;
}

static long long all_resident(struct target *t, int n)
{
	long long sum = 0;
	int i;

	for (i = 0; i < n; i++)
		sum += target_resident(&t[i]);
	return sum;
}

/*
 * Pages read twice are on the active LRU list, which reclaim ages only
 * while the inactive list is short: with the disk streaming through the
 * inactive list, they would stay.  Map the file's cached pages and reclaim
 * them right away (MADV_PAGEOUT, 5.4 and later: the kernel's reclaim,
 * under PF_MEMALLOC, so ccache captures them as from any reclaim); mark
 * what is left cold (MADV_COLD moves it to the inactive list and forgets
 * the access) and unmap it again: reclaim takes it in its turn.
 */
unsigned char deactivate_sum;	/* the reads must happen: keep their sum */

static void deactivate(struct target *t)
{
	unsigned long long i;

	if (!t->pages || target_resident(t) == 0)
		return;
	for (i = 0; i < t->pages; i++)
		if (t->vec[i] & 1)
			deactivate_sum += t->map[i * CC_PAGE];
	madvise(t->map, t->pages * CC_PAGE, MADV_PAGEOUT);
	madvise(t->map, t->pages * CC_PAGE, MADV_COLD);
	madvise(t->map, t->pages * CC_PAGE, MADV_DONTNEED);
}

/* the block device a file lives on, opened for buffered reads, or -1 */
static int open_disk(dev_t dev)
{
	char path[64], line[128], name[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/uevent",
		 major(dev), minor(dev));
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "DEVNAME=%63s", name) == 1)
			break;
	fclose(f);
	if (!name[0])
		return -1;
	snprintf(path, sizeof(path), "/dev/%s", name);
	return open(path, O_RDONLY);
}

/*
 * Reclaim scans each LRU list in proportion to its length: of a list a
 * few pages long it scans none until the lowest priorities, and kswapd
 * gives up first.  So the last pages of a file can stay cached however
 * hard anonymous memory presses.  Reading the disk underneath (buffered:
 * its pages go on the file LRU) makes the list long again, and reclaim
 * takes the oldest pages, ours among them.  ccache captures those disk
 * pages too when "bdev" is in its filesystems knob (the default): a test
 * that counts captures or stored pages loads it without.  Reads 1 MiB at
 * a time, up to limit bytes, until the files are gone.
 */
static long long stream_disk(int fd, unsigned long long *pos,
			     unsigned long long limit, struct target *t,
			     int nfiles, long long resident)
{
	unsigned long long done;
	unsigned char *buf = xmalloc(CHUNK);
	ssize_t n;

	for (done = 0; resident && done < limit; done += CHUNK) {
		n = pread(fd, buf, CHUNK, *pos);
		if (n <= 0) {
			if (*pos == 0)
				break;
			*pos = 0;	/* wrap around */
			continue;
		}
		*pos += n;
		resident = all_resident(t, nfiles);
	}
	free(buf);
	return resident;
}

/* one 64-bit word at @index of a /proc file of such words; 0 if unread */
static unsigned long long proc_word(const char *path, unsigned long long index)
{
	unsigned long long v = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return 0;
	if (pread(fd, &v, sizeof(v), index * sizeof(v)) != sizeof(v))
		v = 0;
	close(fd);
	return v;
}

/*
 * Why did pages stay?  For the first few cached pages of @t: the page
 * frame (pagemap; root only), how many mappings it has (/proc/kpagecount:
 * 1 is this process's own, touched here) and its flags (bits of
 * Documentation/admin-guide/mm/pagemap.rst: 2 referenced, 4 dirty, 5 lru,
 * 6 active, 8 writeback, 11 mmap, 15/16 compound head/tail, 18
 * unevictable).
 */
static void explain_resident(struct target *t)
{
	unsigned long long i, pfn, pm;
	int shown = 0;

	if (target_resident(t) <= 0)
		return;
	for (i = 0; i < t->pages && shown < 4; i++) {
		if (!(t->vec[i] & 1))
			continue;
		deactivate_sum += t->map[i * CC_PAGE];	/* map it */
		pm = proc_word("/proc/self/pagemap",
			       ((unsigned long)t->map + i * CC_PAGE) / CC_PAGE);
		if (!(pm & (1ULL << 63)))	/* not present */
			continue;
		pfn = pm & ((1ULL << 55) - 1);
		printf("evict: %s page %llu: pfn %llu, mapcount %llu, flags 0x%llx\n",
		       t->file, i, pfn, proc_word("/proc/kpagecount", pfn),
		       proc_word("/proc/kpageflags", pfn));
		shown++;
	}
}

/*
 * Proactive reclaim of the root cgroup (cgroup v2 memory.reclaim, 5.19 and
 * later): the kernel's own reclaim path, down to its lowest priority,
 * which ages multi-gen LRU generations (the default on Debian's 6.12 and
 * 7.x) until their oldest pages go.  With pressure and the disk stream
 * alone, 2-4% of a file written at random stayed cached on 6.12.  Asks
 * for twice what is left; a partial result (EAGAIN) is fine.  Called with
 * the hog released: with memory free, ccache's shrinker stays out of it.
 */
static void reclaim_proactively(long long pages)
{
	int fd = open("/sys/fs/cgroup/memory.reclaim", O_WRONLY);
	char buf[32];
	int len;

	if (fd < 0)
		return;
	len = snprintf(buf, sizeof(buf), "%lld", pages * 2 * CC_PAGE);
	if (write(fd, buf, len) < 0 && errno != EAGAIN)
		fprintf(stderr, "ccfile: memory.reclaim: %s\n", strerror(errno));
	close(fd);
}

/*
 * Apply pressure until no page of the files is in the page cache, or the
 * time or the rounds (attempts) are up.  The first round allocates
 * anonymous memory until the files are gone or memory is at the floor;
 * every round then, if pages are left, marks them cold and reads the disk
 * below the first file (see deactivate, stream_disk), frees what it took,
 * and when that did not finish the job asks the kernel for proactive
 * reclaim (reclaim_proactively); another round follows after a sync
 * (dirty pages must be written back before reclaim can take them).  0 when
 * every page left, 2 when some stayed.
 *
 * Only the first round hogs memory: by the second, most of the files are
 * gone and the file LRU is short, so ccache's shrinker answers (see
 * ccache/pool.c) and a second climb to the floor emptied the pool of the
 * pages the first one had put there (6.12: 4607 of 5205 captures freed).
 *
 * The floor (default 16 MiB above the min watermarks) is kept well clear
 * of the watermarks on purpose: pressing closer makes kswapd fail to
 * balance and lean on every shrinker, ccache's among them, harder than a
 * real workload would, and emptying ccache's pool is not what these tests
 * are after.
 */
int evict_files(char **files, int nfiles, int seconds, int attempts,
		unsigned long long floor_mib, int leave_pct, int quiet)
{
	unsigned long long start = now_ms(), peak = 0, floor_kib;
	unsigned long long disk_pos = 0, disk_limit;
	long long total = 0, resident;
	int i, disk, rounds = 0, streamed = 0;
	struct target *t;
	struct hog *h;

	t = xmalloc(nfiles * sizeof(*t));
	for (i = 0; i < nfiles; i++) {
		if (target_open(&t[i], files[i]))
			return 1;
		total += t[i].pages;
	}
	floor_kib = floor_mib * 1024;
	disk = open_disk(t[0].dev);
	disk_limit = 64 * CC_MIB;
	volunteer_for_oom();
	h = hog_new();
	resident = all_resident(t, nfiles);
	while (resident && now_ms() - start < seconds * 1000ULL &&
	       rounds < attempts) {
		/* anonymous memory in the first round only: see above */
		while (!rounds && resident &&
		       now_ms() - start < seconds * 1000ULL &&
		       !hog_grow(h, floor_kib))
			resident = all_resident(t, nfiles);
		rounds++;
		if (h->total > peak)
			peak = h->total;
		if (resident && disk >= 0) {
			for (i = 0; i < nfiles; i++)
				deactivate(&t[i]);
			resident = stream_disk(disk, &disk_pos, disk_limit, t,
					       nfiles, resident);
			streamed++;
		}
		hog_release(h);
		if (resident) {
			reclaim_proactively(resident);
			sync();
			usleep(200000);
			resident = all_resident(t, nfiles);
		}
	}
	if (!quiet || resident) {
		printf("evict: %lld/%lld pages cached, %d rounds, %llu MiB, %d disk, ",
		       resident, total, rounds, peak >> 20, streamed);
		printf("%llu ms (%llu paced)\n", now_ms() - start, h->paced_ms);
	}
	for (i = 0; i < nfiles; i++) {
		if (resident && target_resident(&t[i])) {
			printf("evict: %s: %lld of %llu pages cached\n",
			       t[i].file, target_resident(&t[i]), t[i].pages);
			explain_resident(&t[i]);
		}
		target_close(&t[i]);
	}
	if (resident)
		show_meminfo();
	if (disk >= 0)
		close(disk);
	free(t);
	free(h);
	/*
	 * A few pages may stay pinned (per-CPU LRU batches, a mapping): up
	 * to @leave_pct percent of them (default 1) counts as evicted; the
	 * tests check separately that ccache captured and served pages.
	 */
	return resident * 100 > total * leave_pct ? 2 : 0;
}

/*
 * Waves of pressure for the given time: allocate up to max_mib (or the
 * floor), hold briefly, free, pause.  For running beside other workloads
 * so their pages keep leaving and coming back.
 */
int pressure_run(int seconds, unsigned long long max_mib,
		 unsigned long long floor_mib)
{
	unsigned long long start = now_ms(), peak = 0;
	struct hog *h = hog_new();
	int rounds = 0;

	volunteer_for_oom();
	while (now_ms() - start < seconds * 1000ULL) {
		while (h->total < max_mib * CC_MIB &&
		       !hog_grow(h, floor_mib * 1024))
			;
		if (h->total > peak)
			peak = h->total;
		usleep(200000);
		hog_release(h);
		usleep(300000);
		rounds++;
	}
	printf("pressure: %d rounds, %llu MiB peak, %llu ms (%llu paced)\n",
	       rounds, peak >> 20, now_ms() - start, h->paced_ms);
	free(h);
	return 0;
}

/*
 * Take @mib MiB of anonymous memory, whatever that costs, and hold it for
 * @seconds: a workload that needs memory the page cache and ccache hold.
 * The OOM killer's first choice should it not be had: exit by SIGKILL.
 */
int hog_run(unsigned long long mib, int seconds)
{
	unsigned long long i, len = mib * CC_MIB;
	char *p;

	volunteer_for_oom();
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("hog: mmap %llu MiB: %s\n", mib, strerror(errno));
	for (i = 0; i < len; i += CC_PAGE)
		p[i] = 1;
	printf("hog: holding %llu MiB\n", mib);
	fflush(stdout);
	sleep(seconds);
	munmap(p, len);
	return 0;
}
