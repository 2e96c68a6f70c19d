// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The agent's lifecycle and the session's side of its requests: the
 * session's event loop (agent__on_wake) takes the snapshots the queued
 * requests need (one for all the /metrics requests waiting, one for the
 * windows starting, one for those ending), hands them over and lets the
 * requests' connections go on; a timerfd wakes it at a window's end, and
 * when /metrics may take a snapshot again (at most one every
 * AGENT_SNAPSHOT_S, whoever scrapes).
 */
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "agent_int.h"
#include "log.h"
#include "profile.h"
#include "session.h"

/* A window ending this close to a wake-up ends with it. */
#define WINDOW_SLACK_S 0.02

enum snap_kind {
	SNAP_PLAIN, /* the core samples: /metrics */
	SNAP_START, /* and the native stacks, not symbolized: a window's start */
	SNAP_END, /* and the native stacks, symbolized: a window's end */
	/* /metrics with function features: the native stacks, symbolized, and
	 * the function features charged */
	SNAP_CHARGED,
};

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* ---- snapshots ------------------------------------------------------------------- */

void agent_snap__put(struct agent *a, struct agent_snap *s)
{
	bool last;

	if (!s)
		return;
	pthread_mutex_lock(&a->lock);
	last = --s->refs == 0;
	pthread_mutex_unlock(&a->lock);
	if (!last)
		return;
	profile__free(s->p);
	free(s->alive);
	free(s);
}

static struct agent_snap *snap_get(struct agent_snap *s)
{
	if (s)
		s->refs++;
	return s;
}

static struct agent_snap *take(struct agent *a, struct session *s, enum snap_kind kind)
{
	struct agent_snap *n = calloc(1, sizeof(*n));
	size_t nr;
	int err = -ENOMEM;

	if (!n)
		goto fail;
	n->refs = 1;
	n->p = profile__new();
	if (!n->p)
		goto fail;
	err = kind == SNAP_PLAIN ? session__snapshot(s, n->p)
				 : session__snapshot_stacks(s, n->p, kind != SNAP_START);
	if (!err)
		err = a->meta(n->p, s, a->meta_ctx);
	if (!err && kind == SNAP_CHARGED)
		err = a->charge(n->p);
	if (err)
		goto fail;
	nr = session__alive(s, NULL, 0);
	n->alive = calloc(nr + 1, sizeof(*n->alive));
	if (!n->alive) {
		err = -ENOMEM;
		goto fail;
	}
	n->nr_alive = session__alive(s, n->alive, nr);
	qsort(n->alive, n->nr_alive, sizeof(*n->alive), cmp_u32);
	session__marks(s, n->marks, sizeof(n->marks));
	n->native = kind != SNAP_PLAIN;
	n->mono = mono_now();
	return n;
fail:
	log__err("agent: cannot take a snapshot of the session: %s", strerror(-err));
	if (n) {
		profile__free(n->p);
		free(n);
	}
	return NULL;
}

/* ---- the requests, from the session's loop ------------------------------------------ */

int agent__queue(struct agent *a, struct agent_req *r)
{
	uint64_t one = 1;
	size_t windows = 0;

	if (a->stopping)
		return -ESHUTDOWN;
	for (struct agent_req *q = a->pending; q; q = q->next)
		windows += q->kind != REQ_METRICS;
	if (r->kind != REQ_METRICS && windows >= AGENT_MAX_WINDOWS)
		return -EBUSY;
	r->state = REQ_QUEUED;
	r->next = a->pending;
	a->pending = r;
	if (write(a->efd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		return -errno;
	return 0;
}

/* What the requests waiting now need (a->lock held). */
static void needs(struct agent *a, double t, bool *metrics, bool *start, bool *end)
{
	*metrics = *start = *end = false;
	for (struct agent_req *r = a->pending; r; r = r->next) {
		if (r->state == REQ_QUEUED)
			*(r->kind == REQ_METRICS ? metrics : start) = true;
		else if (r->state == REQ_WINDOW && r->due <= t + WINDOW_SLACK_S)
			*end = true;
	}
}

/* Hands the snapshots over (a->lock held): requests that have what they
 * need leave the list and go on; windows get their start. */
static void hand_over(struct agent *a, struct agent_snap *metrics, struct agent_snap *start,
		      struct agent_snap *end, double t)
{
	struct agent_req **pp = &a->pending, *r;

	while ((r = *pp)) {
		if (r->state == REQ_QUEUED && r->kind == REQ_METRICS && metrics) {
			r->end = snap_get(metrics);
			r->state = REQ_READY;
		} else if (r->state == REQ_QUEUED && r->kind != REQ_METRICS && start) {
			r->start = snap_get(start);
			r->due = start->mono + r->seconds;
			r->state = REQ_WINDOW;
		} else if (r->state == REQ_WINDOW && r->due <= t + WINDOW_SLACK_S && end) {
			r->end = snap_get(end);
			r->state = REQ_READY;
		}
		if (r->state != REQ_READY) {
			pp = &r->next;
			continue;
		}
		*pp = r->next;
		agent_http__resume(r);
	}
}

/* The timer: the next window's end, or when /metrics may take a snapshot
 * again (a->lock held). */
static void arm(struct agent *a, double t)
{
	struct itimerspec its = {0};
	double next = a->metrics_due;

	a->nr_windows = 0;
	for (struct agent_req *r = a->pending; r; r = r->next) {
		if (r->state != REQ_WINDOW)
			continue;
		a->nr_windows++;
		if (!next || r->due < next)
			next = r->due;
	}
	if (next) {
		double d = next > t ? next - t : 0.001;

		its.it_value.tv_sec = (time_t)d;
		its.it_value.tv_nsec = (long)((d - (time_t)d) * 1e9);
		if (!its.it_value.tv_sec && !its.it_value.tv_nsec)
			its.it_value.tv_nsec = 1000000;
	}
	timerfd_settime(a->tfd, 0, &its, NULL);
}

/* A snapshot that could not be taken fails the requests that wanted it. */
static void fail_waiting(struct agent *a, bool metrics, bool start, bool end, double t)
{
	struct agent_req **pp = &a->pending, *r;

	while ((r = *pp)) {
		bool failed = (r->state == REQ_QUEUED && r->kind == REQ_METRICS && metrics) ||
			      (r->state == REQ_QUEUED && r->kind != REQ_METRICS && start) ||
			      (r->state == REQ_WINDOW && r->due <= t + WINDOW_SLACK_S && end);

		if (!failed) {
			pp = &r->next;
			continue;
		}
		r->state = REQ_FAILED;
		*pp = r->next;
		agent_http__resume(r);
	}
}

void agent__on_wake(struct session *s, void *ctx)
{
	struct agent *a = ctx;
	struct agent_snap *start, *metrics, *end;
	bool want_metrics, want_start, want_end;
	double t = mono_now();
	uint64_t v;

	while (read(a->efd, &v, sizeof(v)) > 0)
		;
	while (read(a->tfd, &v, sizeof(v)) > 0)
		;
	pthread_mutex_lock(&a->lock);
	a->period_ns = session__period_ns(s);
	a->session_start = session__start_time(s);
	needs(a, t, &want_metrics, &want_start, &want_end);
	/* /metrics takes a snapshot at most every AGENT_SNAPSHOT_S: a client
	 * asking more often waits for the next one. */
	a->metrics_due = 0;
	if (want_metrics && !want_start && t - a->metrics_mono < AGENT_SNAPSHOT_S) {
		a->metrics_due = a->metrics_mono + AGENT_SNAPSHOT_S;
		want_metrics = false;
	}
	pthread_mutex_unlock(&a->lock);

	/* Outside the lock: the server's threads go on queueing meanwhile. A
	 * window's start serves /metrics too, unless function features need a
	 * snapshot of their own (symbolized and charged). */
	start = want_start ? take(a, s, SNAP_START) : NULL;
	if (a->charge)
		metrics = want_metrics ? take(a, s, SNAP_CHARGED) : NULL;
	else
		metrics = start ? snap_get(start) : want_metrics ? take(a, s, SNAP_PLAIN) : NULL;
	end = want_end ? take(a, s, SNAP_END) : NULL;

	pthread_mutex_lock(&a->lock);
	fail_waiting(a, want_metrics && !metrics, want_start && !start, want_end && !end, t);
	hand_over(a, metrics, start, end, t);
	if (metrics)
		a->metrics_mono = metrics->mono;
	arm(a, t);
	pthread_mutex_unlock(&a->lock);
	agent_snap__put(a, start);
	agent_snap__put(a, metrics);
	agent_snap__put(a, end);
	/* The snapshots the requests do not hold any more are given back now. */
	malloc_trim(0);
}

/* ---- lifecycle ------------------------------------------------------------------------ */

void agent__set_charge(struct agent *a, agent_charge_fn charge)
{
	a->charge = charge;
}

int agent__fd(const struct agent *a)
{
	return a->epfd;
}

static int open_fds(struct agent *a)
{
	struct epoll_event ev = {.events = EPOLLIN};

	a->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	a->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	a->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (a->efd < 0 || a->tfd < 0 || a->epfd < 0)
		return -errno;
	if (epoll_ctl(a->epfd, EPOLL_CTL_ADD, a->efd, &ev) ||
	    epoll_ctl(a->epfd, EPOLL_CTL_ADD, a->tfd, &ev))
		return -errno;
	return 0;
}

static int read_files(struct agent *a)
{
	if (a->o.tls_cert) {
		a->cert = agent_auth__read_private(a->o.tls_cert, "--tls-cert", false);
		a->key = a->cert ? agent_auth__read_private(a->o.tls_key, "--tls-key", true) : NULL;
		if (!a->key)
			return -EACCES;
	}
	if (a->o.auth_file)
		return agent_auth__load(a->o.auth_file, &a->creds, &a->nr_creds);
	return 0;
}

struct agent *agent__new(const struct agent_opts *o, agent_meta_fn meta, void *meta_ctx, int *err)
{
	struct agent *a = calloc(1, sizeof(*a));
	struct sockaddr_storage ss;
	socklen_t len;

	*err = -ENOMEM;
	if (!a)
		return NULL;
	/* One malloc arena for the server's threads too: an arena per thread
	 * kept what a scrape of 10,000 series had freed (RSS 12 MB more
	 * after a few scrapes, against 4 MB with one; docs/benchmarks.md). */
	mallopt(M_ARENA_MAX, 1);
	a->o = *o;
	a->meta = meta;
	a->meta_ctx = meta_ctx;
	a->efd = a->tfd = a->epfd = -1;
	pthread_mutex_init(&a->lock, NULL);
	pthread_mutex_init(&a->metrics_lock, NULL);
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&a->answered, &ca);
		pthread_condattr_destroy(&ca);
	}
	a->metrics = metrics__new(&o->metrics);
	if (!a->metrics)
		goto fail;
	*err = agent_addr__parse(o->listen, &ss, &len);
	if (!*err)
		*err = open_fds(a);
	if (*err) {
		log__err("agent: cannot start: %s", strerror(-*err));
		goto fail;
	}
	*err = read_files(a);
	if (!*err)
		*err = agent_http__start(a, (const struct sockaddr *)&ss, len);
	if (*err)
		goto fail;
	return a;
fail:
	agent__free(a);
	return NULL;
}

/* Waits (a->lock held) until the requests resumed to fail have had their
 * answer, or AGENT_STOP_WAIT_S has passed (a client that does not read). */
static void wait_answered(struct agent *a)
{
	struct timespec until;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += AGENT_STOP_WAIT_S;
	while (a->nr_failing)
		if (pthread_cond_timedwait(&a->answered, &a->lock, &until) == ETIMEDOUT)
			break;
}

void agent__stop(struct agent *a)
{
	struct agent_req *r;

	if (!a || !a->daemon)
		return;
	pthread_mutex_lock(&a->lock);
	a->stopping = true;
	/* The requests still waiting (windows not over) are answered 503
	 * before the server goes: resumed, they are served by its threads. */
	while ((r = a->pending)) {
		a->pending = r->next;
		r->state = REQ_FAILED;
		r->at_stop = true;
		a->nr_failing++;
		agent_http__resume(r);
	}
	a->nr_windows = 0;
	wait_answered(a);
	pthread_mutex_unlock(&a->lock);
	agent_http__stop(a);
}

void agent__free(struct agent *a)
{
	if (!a)
		return;
	agent__stop(a);
	metrics__free(a->metrics);
	agent_auth__free(a->creds, a->nr_creds);
	if (a->key)
		explicit_bzero(a->key, strlen(a->key));
	free(a->key);
	free(a->cert);
	if (a->efd >= 0)
		close(a->efd);
	if (a->tfd >= 0)
		close(a->tfd);
	if (a->epfd >= 0)
		close(a->epfd);
	pthread_cond_destroy(&a->answered);
	pthread_mutex_destroy(&a->lock);
	pthread_mutex_destroy(&a->metrics_lock);
	free(a);
}
