// SPDX-License-Identifier: GPL-2.0
/*
 * webload: an HTTP/1.1 load generator for ccache's web-serving benchmark.
 *
 * It reads a manifest of the URL paths the server holds, one line per file
 * ("PATH SIZE CRC32C", written by "webload -M DIR"), and issues GET
 * requests over keep-alive connections from non-blocking sockets driven by
 * epoll, one request outstanding per connection (no pipelining).  Files are
 * picked with Zipf popularity over a fixed random permutation of the
 * manifest, so the popular files are spread over the set.  A session is a
 * connection: after -k requests it is closed and a new one opened.
 *
 * With -V it instead requests every file of the manifest exactly once, in
 * a random order, and compares each body's length and CRC32C with the
 * manifest: any difference, non-200 status or failed transfer is a
 * mismatch, and any mismatch or error makes it exit 1.
 *
 * With -P DIR it makes no requests: it reads every file of the manifest
 * from the server's root DIR, from the least to the most popular, so that
 * the page cache starts as a long Zipf load leaves it.
 *
 * It prints a human-readable block and one machine-readable line:
 *   WEBLOAD requests=N bytes=N errors=N mismatches=N seconds=F rps=F
 *           mibps=F p50_ms=F p90_ms=F p99_ms=F max_ms=F
 * (on one line).  Latencies come from a log-bucketed histogram (3% steps).
 * It is linked statically: guests have no libc of their own.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "crc32c.h"

#define HDR_MAX		16384		/* response header limit */
#define BODY_BUF	(256 * 1024)	/* per-thread receive buffer */
#define MAX_PATH_LEN	4096
#define NBUCKETS	(64 + 58 * 32)	/* histogram: see bucket_of() */
#define MAX_REPORTS	100		/* mismatches printed in -V mode */
#define NSEC		1000000000ULL
#define TICK_NS		(20 * 1000000ULL)	/* timeouts and reconnect delays */
#define RECONNECT_NS	(100 * 1000000ULL)	/* after a failed connect */

static const char usage[] =
"usage: webload [OPTIONS] MANIFEST        load or verify a web server\n"
"       webload -M DIR > MANIFEST         write DIR's manifest\n"
"  -H HOST:PORT  server, an IPv4 or [IPv6] address (default 127.0.0.1:80)\n"
"  -c N          concurrent connections (default 16)\n"
"  -t N          threads, each with its share of the connections (default 1)\n"
"  -d SECONDS    measured duration (default 10)\n"
"  -n N          issue N requests instead of running for a duration\n"
"  -w SECONDS    warm-up before the measured duration, not counted (-d only)\n"
"  -z S          Zipf exponent of file popularity (default 0.8; 0: uniform)\n"
"  -s SEED       seed of the popularity permutation and the picks (default 1)\n"
"  -p SEED       seed of the picks alone (default: from -s): runs with the\n"
"                same -s and other -p share the popularity, not the requests\n"
"  -k N          requests per session: close and reopen the connection after\n"
"                N requests (default 0: never)\n"
"  -T SECONDS    request timeout, counted as an error (default 60)\n"
"  -i SECONDS    progress: every SECONDS of the measured duration, print\n"
"                WEBLOAD-TS t=SECS requests=N bytes=N (counts so far)\n"
"  -C            check bodies' CRC32C in load mode too (lengths always are)\n"
"  -V            verify: request every file once, in random order; compare\n"
"                each body's length and CRC32C; exit 1 on any difference\n"
"  -M DIR        print the manifest of DIR's regular files: URL path, size,\n"
"                CRC32C (hex), one per line\n"
"  -P DIR        prime: read every file of the manifest from DIR (the web\n"
"                root) once, the least popular first (ranks of -s), with -t\n"
"                threads, instead of making requests\n";

struct file {
	char *path;			/* URL path, percent-encoded */
	unsigned long long size;
	unsigned int crc;
};

static struct file *files;
static size_t nfiles;
static size_t *popular;			/* rank -> file */
static double *cdf;			/* Zipf CDF over the ranks */

static struct {
	const char *host;		/* for the Host header */
	struct sockaddr_storage addr;
	socklen_t addrlen;
	int conns;
	int threads;
	double seconds;
	unsigned long long requests;	/* -n; 0: run for a duration */
	double warmup;
	double zipf;
	unsigned long long seed;
	unsigned long long pick_seed;	/* -p; 0: the picks follow -s */
	unsigned int session;
	double timeout;
	double interval;		/* -i: progress lines; 0: none */
	int check_crc;
	int verify;
} opt = {
	.host = "127.0.0.1:80",
	.conns = 16,
	.threads = 1,
	.seconds = 10,
	.zipf = 0.8,
	.seed = 1,
	.timeout = 60,
};

static int stop;			/* SIGINT, SIGTERM */
static int workers_left;		/* workers still running */
/* completed responses and their body bytes so far, for -i */
static unsigned long long done_requests, done_bytes;
static unsigned long long t_begin, t_measure, t_end;	/* ns */
static int reports;

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("webload: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	exit(2);
}

static void *xmalloc(size_t len)
{
	void *p = calloc(1, len ? len : 1);

	if (!p)
		die("out of memory\n");
	return p;
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC + ts.tv_nsec;
}

/* ---- random numbers: splitmix64 ---- */

static unsigned long long rnd(unsigned long long *state)
{
	unsigned long long z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* uniform in [0, 1) */
static double rnd_unit(unsigned long long *state)
{
	return (rnd(state) >> 11) / 9007199254740992.0;	/* 2^53 */
}

static void shuffle(size_t *a, size_t n, unsigned long long *state)
{
	size_t i, j, t;

	for (i = n; i > 1; i--) {
		j = rnd(state) % i;
		t = a[i - 1];
		a[i - 1] = a[j];
		a[j] = t;
	}
}

/* a file by Zipf popularity: rank r has weight 1 / (r + 1)^s */
static size_t zipf_pick(unsigned long long *state)
{
	double u = rnd_unit(state) * cdf[nfiles - 1];
	size_t lo = 0, hi = nfiles - 1, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (cdf[mid] > u)
			hi = mid;
		else
			lo = mid + 1;
	}
	return popular[lo];
}

/* ---- latency histogram: exact below 64 us, then 32 steps per octave ---- */

struct stats {
	unsigned long long requests, bytes, mismatches, verified, retries, connects;
	unsigned long long err_connect, err_closed, err_proto, err_status, err_timeout;
	unsigned long long status[6];	/* 1xx..5xx, other */
	unsigned long long sum_us, max_us;
	unsigned long long hist[NBUCKETS];
};

static unsigned int bucket_of(unsigned long long us)
{
	unsigned int e;

	if (us < 64)
		return us;
	e = 63 - __builtin_clzll(us);
	return 64 + (e - 6) * 32 + ((us >> (e - 5)) & 31);
}

/* the middle of a bucket */
static double bucket_value(unsigned int b)
{
	unsigned int e;

	if (b < 64)
		return b;
	e = (b - 64) / 32 + 6;
	return (double)((32ULL + (b - 64) % 32) << (e - 5)) + (1ULL << (e - 5)) / 2.0;
}

static double percentile_ms(const struct stats *s, double p)
{
	unsigned long long want, seen = 0;
	unsigned int b;
	double v;

	if (!s->requests)
		return 0;
	want = (unsigned long long)ceil(p * s->requests);
	if (want < 1)
		want = 1;
	for (b = 0; b < NBUCKETS; b++) {
		seen += s->hist[b];
		if (seen >= want)
			break;
	}
	v = bucket_value(b < NBUCKETS ? b : NBUCKETS - 1);
	if (v > s->max_us)
		v = s->max_us;
	return v / 1000.0;
}

static unsigned long long errors_of(const struct stats *s)
{
	return s->err_connect + s->err_closed + s->err_proto + s->err_status + s->err_timeout;
}

/* ---- connections ---- */

enum cstate { C_IDLE, C_WAIT, C_CONNECTING, C_SENDING, C_HEADERS, C_BODY };

struct conn {
	int fd;
	enum cstate st;
	unsigned int events;		/* epoll interest */
	unsigned int served;		/* responses on this connection */
	int fresh;			/* opened for the current request */
	long file;			/* requested, -1: none */
	int retried;			/* resent once after a stale keep-alive */
	unsigned long long t_start;	/* request issued, ns */
	unsigned long long wait_until;	/* C_WAIT: reconnect then, ns */
	char *req;
	size_t req_len, req_off;
	char hdr[HDR_MAX];
	size_t hdr_len;
	int got_any;			/* bytes of a response seen */
	int status;
	long long clen;			/* -1: body until the server closes */
	unsigned long long got;
	unsigned int crc;
	int close_after;
};

struct worker {
	pthread_t tid;
	int id;
	int ep;
	struct conn *conns;
	int nconns;
	unsigned long long rng;
	size_t *vlist;			/* -V: this thread's files */
	size_t vcount, vnext;
	unsigned long long quota, issued;	/* -n */
	unsigned long long active;	/* requests in flight */
	unsigned char *buf;
	struct stats st;
};

static int counting(unsigned long long now)
{
	return now >= t_measure;
}

static int have_work(struct worker *w, unsigned long long now)
{
	if (__atomic_load_n(&stop, __ATOMIC_RELAXED))
		return 0;
	if (opt.verify)
		return w->vnext < w->vcount;
	if (opt.requests)
		return w->issued < w->quota;
	return now < t_end;
}

static size_t take_work(struct worker *w)
{
	w->issued++;
	if (opt.verify)
		return w->vlist[w->vnext++];
	return zipf_pick(&w->rng);
}

static void set_events(struct worker *w, struct conn *c, unsigned int events)
{
	struct epoll_event ev = { .events = events, .data.ptr = c };

	if (c->events == events)
		return;
	if (epoll_ctl(w->ep, EPOLL_CTL_MOD, c->fd, &ev))
		die("epoll_ctl: %s\n", strerror(errno));
	c->events = events;
}

static void conn_close(struct conn *c)
{
	if (c->fd >= 0)
		close(c->fd);	/* also leaves the epoll set */
	c->fd = -1;
	c->served = 0;
	c->events = 0;
}

static void report(const char *path, const char *fmt, ...)
{
	va_list ap;

	if (__atomic_fetch_add(&reports, 1, __ATOMIC_RELAXED) >= MAX_REPORTS)
		return;
	flockfile(stderr);
	fprintf(stderr, "webload: mismatch %s: ", path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	funlockfile(stderr);
}

static void start_request(struct worker *w, struct conn *c, size_t file, int retry);
static void send_request(struct worker *w, struct conn *c);

/* the request on C failed: count it, then reconnect after DELAY ns */
static void request_failed(struct worker *w, struct conn *c, unsigned long long *counter,
			   const char *why, unsigned long long delay)
{
	unsigned long long now = now_ns();

	if (counting(now))
		(*counter)++;
	if (opt.verify) {
		w->st.mismatches++;
		report(files[c->file].path, "%s", why);
	}
	conn_close(c);
	c->file = -1;
	c->retried = 0;
	w->active--;
	c->st = C_WAIT;
	c->wait_until = now + delay;
}

/*
 * The connection broke.  A kept-alive connection the server closed before
 * sending any of the response (its keep-alive timeout, its request limit)
 * is not an error: the request is sent again, once, on a new connection.
 */
static void conn_broke(struct worker *w, struct conn *c, const char *why)
{
	if (c->file >= 0 && !c->got_any && !c->fresh && !c->retried) {
		size_t file = c->file;

		conn_close(c);
		if (counting(now_ns()))
			w->st.retries++;
		start_request(w, c, file, 1);
		return;
	}
	request_failed(w, c, &w->st.err_closed, why, 0);
}

static void conn_open(struct worker *w, struct conn *c)
{
	struct epoll_event ev = { .events = EPOLLOUT, .data.ptr = c };
	int one = 1;

	c->fd = socket(opt.addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0) {
		request_failed(w, c, &w->st.err_connect, strerror(errno), RECONNECT_NS);
		return;
	}
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (epoll_ctl(w->ep, EPOLL_CTL_ADD, c->fd, &ev))
		die("epoll_ctl: %s\n", strerror(errno));
	c->events = EPOLLOUT;
	c->served = 0;
	c->fresh = 1;
	if (counting(now_ns()))
		w->st.connects++;
	if (connect(c->fd, (struct sockaddr *)&opt.addr, opt.addrlen) == 0) {
		send_request(w, c);
	} else if (errno == EINPROGRESS) {
		c->st = C_CONNECTING;
	} else {
		char why[160];

		snprintf(why, sizeof(why), "connect: %s", strerror(errno));
		request_failed(w, c, &w->st.err_connect, why, RECONNECT_NS);
	}
}

static void start_request(struct worker *w, struct conn *c, size_t file, int retry)
{
	int last;

	if (!retry) {
		c->t_start = now_ns();
		w->active++;
		c->retried = 0;
	} else {
		c->retried = 1;
	}
	c->file = file;
	c->hdr_len = 0;
	c->got_any = 0;
	/* the last request of a session asks the server to close */
	last = opt.session && c->served + 1 >= opt.session;
	c->req_len = sprintf(c->req, "GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: webload\r\n%s\r\n",
			     files[file].path, opt.host, last ? "Connection: close\r\n" : "");
	c->req_off = 0;
	if (c->fd < 0) {
		conn_open(w, c);
		return;
	}
	c->fresh = 0;
	send_request(w, c);
}

static void send_request(struct worker *w, struct conn *c)
{
	ssize_t n;

	c->st = C_SENDING;
	while (c->req_off < c->req_len) {
		n = send(c->fd, c->req + c->req_off, c->req_len - c->req_off, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				set_events(w, c, EPOLLOUT);
				return;
			}
			conn_broke(w, c, strerror(errno));
			return;
		}
		c->req_off += n;
	}
	c->st = C_HEADERS;
	set_events(w, c, EPOLLIN);
}

/* a case-insensitive header NAME (with its colon) at P: its value, or NULL */
static const char *header(const char *p, const char *name)
{
	size_t len = strlen(name);

	if (strncasecmp(p, name, len))
		return NULL;
	p += len;
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* does the header value at P (to the line's end) hold WORD? */
static int value_has(const char *p, const char *word)
{
	size_t len = strlen(word);

	for (; *p && *p != '\r' && *p != '\n'; p++)
		if (!strncasecmp(p, word, len))
			return 1;
	return 0;
}

static void next_request(struct worker *w, struct conn *c)
{
	if (have_work(w, now_ns())) {
		start_request(w, c, take_work(w), 0);
	} else {
		conn_close(c);
		c->st = C_IDLE;
	}
}

static void complete(struct worker *w, struct conn *c)
{
	unsigned long long now = now_ns(), us = (now - c->t_start) / 1000;
	const struct file *f = &files[c->file];
	unsigned int crc = ~c->crc;
	int count = counting(now);

	if (count) {
		__atomic_add_fetch(&done_requests, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&done_bytes, c->got, __ATOMIC_RELAXED);
		w->st.requests++;
		w->st.bytes += c->got;
		w->st.hist[bucket_of(us)]++;
		w->st.sum_us += us;
		if (us > w->st.max_us)
			w->st.max_us = us;
		w->st.status[c->status >= 100 && c->status < 600 ? c->status / 100 - 1 : 5]++;
	}
	if (c->status != 200) {
		if (count)
			w->st.err_status++;
		if (opt.verify) {
			w->st.mismatches++;
			report(f->path, "status %d", c->status);
		}
	} else if (c->got != f->size) {
		if (count)
			w->st.mismatches++;
		report(f->path, "%llu bytes, want %llu", c->got, f->size);
	} else if ((opt.verify || opt.check_crc) && crc != f->crc) {
		if (count)
			w->st.mismatches++;
		report(f->path, "crc32c %08x, want %08x", crc, f->crc);
	} else if (opt.verify) {
		w->st.verified++;
	}
	c->served++;
	c->file = -1;
	c->retried = 0;
	w->active--;
	if (c->close_after || (opt.session && c->served >= opt.session))
		conn_close(c);
	next_request(w, c);
}

/* body bytes of the response on C */
static int body(struct worker *w, struct conn *c, const unsigned char *p, size_t n)
{
	if (c->clen >= 0 && c->got + n > (unsigned long long)c->clen) {
		request_failed(w, c, &w->st.err_proto, "more bytes than Content-Length", 0);
		return -1;
	}
	if (opt.verify || opt.check_crc)
		c->crc = crc_update(c->crc, p, n);
	c->got += n;
	if (c->clen >= 0 && c->got == (unsigned long long)c->clen) {
		complete(w, c);
		return 1;
	}
	return 0;
}

/* the status line and headers, complete in c->hdr up to END */
static void parse_headers(struct worker *w, struct conn *c, char *end)
{
	int minor, keep_alive = 0, close = 0;
	const char *v;
	char *p, *q;

	*end = '\0';
	if (sscanf(c->hdr, "HTTP/1.%d %d", &minor, &c->status) != 2) {
		request_failed(w, c, &w->st.err_proto, "not an HTTP/1.x response", 0);
		return;
	}
	c->clen = -1;
	c->got = 0;
	c->crc = ~0U;
	for (p = strstr(c->hdr, "\r\n"); p && p < end; p = q) {
		p += 2;
		q = strstr(p, "\r\n");
		v = header(p, "content-length:");
		if (v) {
			c->clen = strtoll(v, NULL, 10);
			continue;
		}
		v = header(p, "transfer-encoding:");
		if (v && value_has(v, "chunked")) {
			request_failed(w, c, &w->st.err_proto, "chunked encoding", 0);
			return;
		}
		v = header(p, "connection:");
		if (v) {
			close |= value_has(v, "close");
			keep_alive |= value_has(v, "keep-alive");
		}
	}
	c->close_after = close || (minor == 0 && !keep_alive) || c->clen < 0;
	if ((c->status >= 100 && c->status < 200) || c->status == 204 || c->status == 304) {
		request_failed(w, c, &w->st.err_proto, "response without a body", 0);
		return;
	}
	c->st = C_BODY;
	if (c->clen == 0)
		complete(w, c);
}

static void on_readable(struct worker *w, struct conn *c)
{
	size_t room, leftover;
	char *end;
	ssize_t n;

	if (c->st == C_HEADERS) {
		n = recv(c->fd, c->hdr + c->hdr_len, HDR_MAX - 1 - c->hdr_len, 0);
		if (n <= 0) {
			if (n < 0 && (errno == EAGAIN || errno == EINTR))
				return;
			conn_broke(w, c, n ? strerror(errno) : "closed before the response");
			return;
		}
		c->got_any = 1;
		c->hdr_len += n;
		c->hdr[c->hdr_len] = '\0';
		end = strstr(c->hdr, "\r\n\r\n");
		if (!end) {
			if (c->hdr_len >= HDR_MAX - 1)
				request_failed(w, c, &w->st.err_proto, "headers too long", 0);
			return;
		}
		leftover = c->hdr_len - (end + 4 - c->hdr);
		parse_headers(w, c, end);
		if (c->st == C_BODY && leftover)
			body(w, c, (unsigned char *)end + 4, leftover);
		return;
	}
	/* C_BODY: read no further than this response */
	room = BODY_BUF;
	if (c->clen >= 0 && (unsigned long long)c->clen - c->got < room)
		room = c->clen - c->got;
	n = recv(c->fd, w->buf, room, 0);
	if (n < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return;
		request_failed(w, c, &w->st.err_closed, strerror(errno), 0);
	} else if (n == 0) {
		if (c->clen < 0)
			complete(w, c);		/* body delimited by the close */
		else
			request_failed(w, c, &w->st.err_closed, "closed in the body", 0);
	} else {
		body(w, c, w->buf, n);
	}
}

static void on_event(struct worker *w, struct conn *c, unsigned int events)
{
	int err = 0;
	socklen_t len = sizeof(err);
	char why[160];

	switch (c->st) {
	case C_CONNECTING:
		getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len);
		if (err) {
			snprintf(why, sizeof(why), "connect: %s", strerror(err));
			request_failed(w, c, &w->st.err_connect, why, RECONNECT_NS);
			return;
		}
		send_request(w, c);
		return;
	case C_SENDING:
		send_request(w, c);
		return;
	case C_HEADERS:
	case C_BODY:
		on_readable(w, c);
		return;
	default:
		/* data or a close on a connection without a request */
		if (events)
			conn_close(c);
		return;
	}
}

/* start idle connections, reconnect waiting ones, time out slow requests */
static void tick(struct worker *w, unsigned long long now)
{
	unsigned long long limit = opt.timeout * NSEC;
	struct conn *c;
	int i;

	for (i = 0; i < w->nconns; i++) {
		c = &w->conns[i];
		if (c->st == C_WAIT && now < c->wait_until)
			continue;
		if (c->st == C_IDLE || c->st == C_WAIT) {
			c->st = C_IDLE;
			if (have_work(w, now))
				start_request(w, c, take_work(w), 0);
		} else if (c->file >= 0 && now - c->t_start > limit) {
			request_failed(w, c, &w->st.err_timeout, "timed out", 0);
		}
	}
}

static void *worker_run(void *arg)
{
	struct worker *w = arg;
	struct epoll_event evs[256];
	unsigned long long now, next_tick = 0;
	int i, n, ms;

	w->ep = epoll_create1(EPOLL_CLOEXEC);
	if (w->ep < 0)
		die("epoll_create1: %s\n", strerror(errno));
	for (;;) {
		now = now_ns();
		if (!opt.verify && !opt.requests && now >= t_end)
			break;
		if (__atomic_load_n(&stop, __ATOMIC_RELAXED))
			break;
		if (now >= next_tick) {
			tick(w, now);
			next_tick = now + TICK_NS;
		}
		if (!w->active && !have_work(w, now))
			break;
		ms = (next_tick - now) / 1000000 + 1;
		n = epoll_wait(w->ep, evs, 256, ms);
		if (n < 0 && errno != EINTR)
			die("epoll_wait: %s\n", strerror(errno));
		for (i = 0; i < n; i++)
			on_event(w, evs[i].data.ptr, evs[i].events);
	}
	for (i = 0; i < w->nconns; i++)
		conn_close(&w->conns[i]);
	close(w->ep);
	__atomic_sub_fetch(&workers_left, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* ---- the manifest ---- */

static void load_manifest(const char *name)
{
	char line[MAX_PATH_LEN + 64], path[MAX_PATH_LEN + 1];
	unsigned long long size;
	size_t cap = 0;
	unsigned int crc;
	FILE *f = fopen(name, "r");
	int lineno = 0;

	if (!f)
		die("%s: %s\n", name, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (line[0] == '#' || line[strspn(line, " \t\r\n")] == '\0')
			continue;
		if (sscanf(line, "%4096s %llu %x", path, &size, &crc) != 3 || path[0] != '/')
			die("%s:%d: not \"PATH SIZE CRC32C\"\n", name, lineno);
		if (nfiles == cap) {
			cap = cap ? cap * 2 : 1024;
			files = realloc(files, cap * sizeof(*files));
			if (!files)
				die("out of memory\n");
		}
		files[nfiles].path = strdup(path);
		files[nfiles].size = size;
		files[nfiles].crc = crc;
		if (!files[nfiles].path)
			die("out of memory\n");
		nfiles++;
	}
	fclose(f);
	if (!nfiles)
		die("%s: no files\n", name);
}

/* ---- -M: write a manifest ---- */

static char **walked;
static size_t nwalked, walk_cap, walk_root;

static int walk_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)ftw;
	if (type != FTW_F || !S_ISREG(st->st_mode))
		return 0;
	if (nwalked == walk_cap) {
		walk_cap = walk_cap ? walk_cap * 2 : 1024;
		walked = realloc(walked, walk_cap * sizeof(*walked));
		if (!walked)
			die("out of memory\n");
	}
	walked[nwalked] = strdup(path);
	if (!walked[nwalked++])
		die("out of memory\n");
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

/* print a path as a URL path: unreserved bytes and '/' as they are */
static void put_url(const char *p)
{
	static const char hex[] = "0123456789ABCDEF";
	unsigned char ch;

	for (; *p; p++) {
		ch = *p;
		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		    (ch >= '0' && ch <= '9') || strchr("-._~/", ch)) {
			putchar(ch);
		} else {
			putchar('%');
			putchar(hex[ch >> 4]);
			putchar(hex[ch & 15]);
		}
	}
}

static int write_manifest(const char *dir)
{
	size_t i, len = strlen(dir);
	unsigned char *buf = xmalloc(1 << 20);
	unsigned long long size;
	unsigned int crc;
	ssize_t n;
	int fd;

	while (len > 1 && dir[len - 1] == '/')
		len--;
	walk_root = len;
	if (nftw(dir, walk_one, 64, FTW_PHYS))
		die("%s: %s\n", dir, strerror(errno));
	qsort(walked, nwalked, sizeof(*walked), by_name);
	for (i = 0; i < nwalked; i++) {
		fd = open(walked[i], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			die("%s: %s\n", walked[i], strerror(errno));
		size = 0;
		crc = ~0U;
		while ((n = read(fd, buf, 1 << 20)) > 0) {
			crc = crc_update(crc, buf, n);
			size += n;
		}
		if (n < 0)
			die("%s: %s\n", walked[i], strerror(errno));
		close(fd);
		put_url(walked[i] + walk_root);
		printf(" %llu %08x\n", size, ~crc);
	}
	if (fflush(stdout) || ferror(stdout))
		die("writing the manifest: %s\n", strerror(errno));
	return 0;
}

/* ---- -P: read the files from the web root, the least popular first ---- */

static const char *prime_dir;

static int hexval(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	return -1;
}

/* DIR followed by the percent-decoded URL path, into OUT */
static void local_path(char *out, size_t size, const char *dir, const char *url)
{
	size_t len = snprintf(out, size, "%s", dir);

	while (*url && len + 1 < size) {
		int hi = url[0] == '%' ? hexval(url[1]) : -1;
		int lo = hi >= 0 ? hexval(url[2]) : -1;

		if (lo >= 0) {
			out[len++] = hi << 4 | lo;
			url += 3;
		} else {
			out[len++] = *url++;
		}
	}
	out[len < size ? len : size - 1] = '\0';
}

struct primer {
	pthread_t tid;
	int id;
	unsigned long long files, bytes;
};

/*
 * Read the files of every opt.threads-th rank, from the least popular to
 * the most: the popular files are the most recently used at the end, as
 * after a long Zipf load, and the least popular the first to be evicted.
 */
static void *prime_run(void *arg)
{
	struct primer *p = arg;
	unsigned char *buf = xmalloc(BODY_BUF);
	char path[MAX_PATH_LEN * 2];
	size_t r;
	ssize_t n;
	int fd;

	for (r = nfiles; r-- > 0;) {
		if (r % opt.threads != (size_t)p->id)
			continue;
		local_path(path, sizeof(path), prime_dir, files[popular[r]].path);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			die("%s: %s\n", path, strerror(errno));
		while ((n = read(fd, buf, BODY_BUF)) > 0)
			p->bytes += n;
		if (n < 0)
			die("%s: %s\n", path, strerror(errno));
		close(fd);
		p->files++;
	}
	free(buf);
	return NULL;
}

static int prime(void)
{
	struct primer *p = xmalloc(opt.threads * sizeof(*p));
	unsigned long long start = now_ns(), files_read = 0, bytes = 0;
	int t;

	for (t = 0; t < opt.threads; t++) {
		p[t].id = t;
		if (pthread_create(&p[t].tid, NULL, prime_run, &p[t]))
			die("pthread_create failed\n");
	}
	for (t = 0; t < opt.threads; t++) {
		pthread_join(p[t].tid, NULL);
		files_read += p[t].files;
		bytes += p[t].bytes;
	}
	printf("WEBLOAD primed=%llu bytes=%llu seconds=%.3f\n", files_read, bytes,
	       (now_ns() - start) / (double)NSEC);
	return 0;
}

/* ---- the command line ---- */

static double arg_num(const char *s, int opt_char)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || v < 0)
		die("-%c: not a number: %s\n", opt_char, s);
	return v;
}

static void parse_server(const char *s)
{
	char host[256];
	const char *colon;
	size_t len;
	long port;

	if (s[0] == '[') {
		colon = strstr(s, "]:");
		if (!colon)
			die("-H: want [ADDR]:PORT: %s\n", s);
		len = colon - s - 1;
		colon++;
		s++;
	} else {
		colon = strrchr(s, ':');
		if (!colon)
			die("-H: want HOST:PORT: %s\n", s);
		len = colon - s;
	}
	if (len >= sizeof(host))
		die("-H: host too long\n");
	memcpy(host, s, len);
	host[len] = '\0';
	port = strtol(colon + 1, NULL, 10);
	if (port <= 0 || port > 65535)
		die("-H: bad port in %s\n", s);
	if (!strcmp(host, "localhost"))
		strcpy(host, "127.0.0.1");
	memset(&opt.addr, 0, sizeof(opt.addr));
	if (inet_pton(AF_INET, host, &((struct sockaddr_in *)&opt.addr)->sin_addr) == 1) {
		struct sockaddr_in *a = (struct sockaddr_in *)&opt.addr;

		a->sin_family = AF_INET;
		a->sin_port = htons(port);
		opt.addrlen = sizeof(*a);
	} else if (inet_pton(AF_INET6, host, &((struct sockaddr_in6 *)&opt.addr)->sin6_addr) == 1) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&opt.addr;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons(port);
		opt.addrlen = sizeof(*a);
	} else {
		die("-H: %s is not an IP address\n", host);
	}
}

/*
 * -i: while the workers run, print the responses completed so far at every
 * interval of the measured duration (warm-up excluded), so that a phase's
 * throughput can be followed over time.
 */
static void progress(void)
{
	unsigned long long next = t_measure + (unsigned long long)(opt.interval * NSEC);
	struct timespec ts;

	while (__atomic_load_n(&workers_left, __ATOMIC_ACQUIRE)) {
		unsigned long long now = now_ns();

		if (now < next) {
			unsigned long long wait = next - now < TICK_NS ? next - now : TICK_NS;

			ts.tv_sec = wait / NSEC;
			ts.tv_nsec = wait % NSEC;
			nanosleep(&ts, NULL);
			continue;
		}
		printf("WEBLOAD-TS t=%.2f requests=%llu bytes=%llu\n",
		       (now - t_measure) / (double)NSEC,
		       __atomic_load_n(&done_requests, __ATOMIC_RELAXED),
		       __atomic_load_n(&done_bytes, __ATOMIC_RELAXED));
		fflush(stdout);
		next += (unsigned long long)(opt.interval * NSEC);
	}
}

static void on_signal(int sig)
{
	(void)sig;
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
}

static void print_results(const struct stats *s, double secs)
{
	unsigned long long errors = errors_of(s);
	double rps = secs > 0 ? s->requests / secs : 0;
	double mibps = secs > 0 ? s->bytes / secs / (1 << 20) : 0;
	double p50 = percentile_ms(s, 0.50), p90 = percentile_ms(s, 0.90);
	double p99 = percentile_ms(s, 0.99), max = s->max_us / 1000.0;

	printf("webload: %s, %d connection%s, %d thread%s, ", opt.host, opt.conns,
	       opt.conns == 1 ? "" : "s", opt.threads, opt.threads == 1 ? "" : "s");
	if (opt.verify)
		printf("verifying all %zu files\n", nfiles);
	else
		printf("zipf %.2f over %zu files, seed %llu\n", opt.zipf, nfiles, opt.seed);
	if (opt.session)
		printf("  sessions      %u requests each\n", opt.session);
	printf("  requests      %llu in %.2f s: %.1f/s\n", s->requests, secs, rps);
	printf("  body bytes    %.1f MiB: %.2f MiB/s\n", s->bytes / 1048576.0, mibps);
	printf("  latency ms    p50 %.3f  p90 %.3f  p99 %.3f  max %.3f  mean %.3f\n",
	       p50, p90, p99, max, s->requests ? s->sum_us / 1000.0 / s->requests : 0);
	printf("  statuses      1xx %llu  2xx %llu  3xx %llu  4xx %llu  5xx %llu  other %llu\n",
	       s->status[0], s->status[1], s->status[2], s->status[3], s->status[4], s->status[5]);
	printf("  errors        %llu: connect %llu, closed %llu, protocol %llu, ",
	       errors, s->err_connect, s->err_closed, s->err_proto);
	printf("status %llu, timeout %llu\n", s->err_status, s->err_timeout);
	printf("  connections   %llu opened, %llu requests resent after a keep-alive close\n",
	       s->connects, s->retries);
	if (opt.verify)
		printf("  verified      %llu of %zu files identical, %llu mismatches\n",
		       s->verified, nfiles, s->mismatches);
	else
		printf("  mismatches    %llu (length%s)\n", s->mismatches,
		       opt.check_crc ? " and crc32c" : " only; -C checks crc32c");
	printf("WEBLOAD requests=%llu bytes=%llu errors=%llu mismatches=%llu seconds=%.3f",
	       s->requests, s->bytes, errors, s->mismatches, secs);
	printf(" rps=%.1f mibps=%.2f p50_ms=%.3f p90_ms=%.3f p99_ms=%.3f max_ms=%.3f\n",
	       rps, mibps, p50, p90, p99, max);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	unsigned long long state, t_done;
	struct worker *workers;
	struct stats total = { 0 };
	const char *manifest_dir = NULL;
	size_t i, *order;
	double secs;
	int ch, t, j, left;

	crc_init();
	while ((ch = getopt(argc, argv, "H:c:t:d:n:w:z:s:p:k:T:i:CVM:P:h")) != -1) {
		switch (ch) {
		case 'H':
			opt.host = optarg;
			break;
		case 'c':
			opt.conns = arg_num(optarg, ch);
			break;
		case 't':
			opt.threads = arg_num(optarg, ch);
			break;
		case 'd':
			opt.seconds = arg_num(optarg, ch);
			break;
		case 'n':
			opt.requests = arg_num(optarg, ch);
			break;
		case 'w':
			opt.warmup = arg_num(optarg, ch);
			break;
		case 'z':
			opt.zipf = arg_num(optarg, ch);
			break;
		case 's':
			opt.seed = strtoull(optarg, NULL, 0);
			break;
		case 'p':
			opt.pick_seed = strtoull(optarg, NULL, 0);
			break;
		case 'k':
			opt.session = arg_num(optarg, ch);
			break;
		case 'T':
			opt.timeout = arg_num(optarg, ch);
			break;
		case 'i':
			opt.interval = arg_num(optarg, ch);
			break;
		case 'C':
			opt.check_crc = 1;
			break;
		case 'V':
			opt.verify = 1;
			break;
		case 'M':
			manifest_dir = optarg;
			break;
		case 'P':
			prime_dir = optarg;
			break;
		default:
			fputs(usage, ch == 'h' ? stdout : stderr);
			return ch == 'h' ? 0 : 2;
		}
	}
	if (manifest_dir)
		return write_manifest(manifest_dir);
	if (optind != argc - 1) {
		fputs(usage, stderr);
		return 2;
	}
	if (opt.conns < 1 || opt.threads < 1)
		die("-c and -t want at least 1\n");
	if (opt.threads > opt.conns)
		opt.threads = opt.conns;
	if (opt.warmup > 0 && (opt.verify || opt.requests))
		die("-w goes with a duration, not -n or -V\n");
	parse_server(opt.host);
	load_manifest(argv[optind]);

	/* popularity: a fixed random permutation of the files, then Zipf */
	state = opt.seed;
	popular = xmalloc(nfiles * sizeof(*popular));
	cdf = xmalloc(nfiles * sizeof(*cdf));
	for (i = 0; i < nfiles; i++)
		popular[i] = i;
	shuffle(popular, nfiles, &state);
	if (prime_dir)
		return prime();
	for (i = 0; i < nfiles; i++)
		cdf[i] = (i ? cdf[i - 1] : 0) + pow(i + 1, -opt.zipf);
	/*
	 * -p: a warm-up and the measured run that follows it must not send the
	 * same requests in the same order, or the measured run starts with
	 * exactly what the warm-up just cached
	 */
	if (opt.pick_seed)
		state = opt.pick_seed ^ 0x9e3779b97f4a7c15ULL;
	order = xmalloc(nfiles * sizeof(*order));
	for (i = 0; i < nfiles; i++)
		order[i] = i;
	shuffle(order, nfiles, &state);

	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	t_begin = now_ns();
	t_measure = t_begin + (unsigned long long)(opt.warmup * NSEC);
	t_end = t_measure + (unsigned long long)(opt.seconds * NSEC);
	workers = xmalloc(opt.threads * sizeof(*workers));
	workers_left = opt.threads;
	for (t = 0, left = opt.conns; t < opt.threads; t++) {
		struct worker *w = &workers[t];

		w->id = t;
		w->nconns = left / (opt.threads - t);
		left -= w->nconns;
		w->conns = xmalloc(w->nconns * sizeof(*w->conns));
		for (j = 0; j < w->nconns; j++) {
			w->conns[j].fd = -1;
			w->conns[j].file = -1;
			w->conns[j].req = xmalloc(MAX_PATH_LEN + strlen(opt.host) + 128);
		}
		w->rng = rnd(&state);
		w->buf = xmalloc(BODY_BUF);
		w->quota = opt.requests / opt.threads + (t < (int)(opt.requests % opt.threads));
		if (opt.verify) {
			w->vlist = xmalloc((nfiles / opt.threads + 1) * sizeof(*w->vlist));
			for (i = t; i < nfiles; i += opt.threads)
				w->vlist[w->vcount++] = order[i];
		}
		if (pthread_create(&w->tid, NULL, worker_run, w))
			die("pthread_create failed\n");
	}
	if (opt.interval > 0)
		progress();
	for (t = 0; t < opt.threads; t++) {
		struct stats *s = &workers[t].st;

		pthread_join(workers[t].tid, NULL);
		total.requests += s->requests;
		total.bytes += s->bytes;
		total.mismatches += s->mismatches;
		total.verified += s->verified;
		total.retries += s->retries;
		total.connects += s->connects;
		total.err_connect += s->err_connect;
		total.err_closed += s->err_closed;
		total.err_proto += s->err_proto;
		total.err_status += s->err_status;
		total.err_timeout += s->err_timeout;
		total.sum_us += s->sum_us;
		if (s->max_us > total.max_us)
			total.max_us = s->max_us;
		for (j = 0; j < 6; j++)
			total.status[j] += s->status[j];
		for (j = 0; j < NBUCKETS; j++)
			total.hist[j] += s->hist[j];
	}
	t_done = now_ns();
	if (opt.verify || opt.requests || t_done < t_end)
		secs = (t_done - t_measure) / (double)NSEC;	/* -n, -V, interrupted */
	else
		secs = opt.seconds;
	if (reports > MAX_REPORTS)
		fprintf(stderr, "webload: %d more mismatches not shown\n", reports - MAX_REPORTS);
	print_results(&total, secs);
	if (opt.verify && (total.mismatches || errors_of(&total) || total.verified != nfiles))
		return 1;
	return 0;
}
