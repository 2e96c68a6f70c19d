// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --events: what its traps cost, and --events=FEATURE,...: the features
 * whose ABI v2 marks trap.
 *
 * Exact counts of ABI v2 marks come from their ABI v1 probes (shadow sites,
 * attach.c), and each hit traps into the kernel, about a microsecond, where
 * the mark itself costs nanoseconds: a feature of short calls is slowed and
 * its share inflated. One semaphore arms every site of a file, so a choice
 * of features cannot be made by the semaphore; it is made by site. With
 * --events=FEATURE,... each shadow site has a link of its own; the kernel
 * side notes a site that fired for a feature not asked for (skip_sites) or
 * for one asked for (keep_sites), and the sites that only ever fired for
 * others are detached here, once a second: after its first hit, a mark of
 * another feature costs what it costs without --events.
 *
 * The cost of a hit is measured at the start: a uprobe with an empty program
 * (trap_cost) on a function of fsp-bpf's own, called with and without it.
 * The reports say when the traps cost much against the time a feature was
 * measured (analysis/render: the event view's note).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "log.h"
#include "usdt.h"
#include "util.h"
#include "session_int.h"

/* ---- the features asked for -------------------------------------------- */

int eventsel__hashes(const char *list, __u64 *out, unsigned int *nr)
{
	const char *p = list;

	*nr = 0;
	while (p && *p) {
		size_t len = strcspn(p, ",");

		if (!len || *nr == FSP_MAX_EVENT_FEATURES)
			return -EINVAL;
		/* The kernel side's label hash (labels.bpf.h). */
		out[(*nr)++] = fsp_fnv1a(p, len, FSP_FNV_OFFSET);
		p += len + (p[len] == ',');
	}
	return *nr ? 0 : -EINVAL;
}

bool eventsel__wanted(const struct session *s, const char *feature)
{
	const char *p = s->opts.event_features;
	size_t n = strlen(feature);

	if (!p)
		return true;
	while (*p) {
		size_t len = strcspn(p, ",");

		if (len == n && !strncmp(p, feature, n))
			return true;
		p += len + (p[len] == ',');
	}
	return false;
}

/* ---- detaching the sites of other features ------------------------------ */

/* The links one eventsel__drop() detaches, on a thread of their own. */
struct site_closer {
	int *fds;
	size_t n;
};

static void *close_sites(void *arg)
{
	struct site_closer *c = arg;

	for (size_t i = 0; i < c->n; i++)
		close(c->fds[i]);
	free(c->fds);
	free(c);
	return NULL;
}

/*
 * Detaching a uprobe link waits for an RCU grace period (50-100 ms here):
 * a dozen sites took the loop a second, during which no native stack was
 * read and a short-lived process was gone before its mappings were (all its
 * samples native_exited). The links are closed on a thread; without one,
 * here.
 */
static void close_later(struct session *s, struct site_closer *c)
{
	pthread_t th;

	if (!fsp_grow((void **)&s->site_closers, &s->cap_site_closers, s->nr_site_closers + 1,
		      sizeof(*s->site_closers)) &&
	    !pthread_create(&th, NULL, close_sites, c)) {
		s->site_closers[s->nr_site_closers++] = th;
		return;
	}
	close_sites(c);
}

void eventsel__join(struct session *s)
{
	for (size_t i = 0; i < s->nr_site_closers; i++)
		pthread_join(s->site_closers[i], NULL);
	free(s->site_closers);
	s->site_closers = NULL;
	s->nr_site_closers = s->cap_site_closers = 0;
}

void eventsel__drop(struct session *s)
{
	int skip, keep;
	__u32 key, last, *prev = NULL;
	unsigned int dropped = 0;
	struct site_closer *c;
	size_t cap = 0;
	__u8 v;

	if (!s->opts.event_features || !s->nr_event_sites)
		return;
	c = calloc(1, sizeof(*c));
	if (!c)
		return; /* at the next drop */
	skip = bpf_map__fd(s->skel->maps.skip_sites);
	keep = bpf_map__fd(s->skel->maps.keep_sites);
	while (!bpf_map_get_next_key(skip, prev, &key)) {
		size_t at;

		last = key;
		prev = &last;
		if (key >= s->nr_event_sites || s->event_sites[key] == SIZE_MAX ||
		    !bpf_map_lookup_elem(keep, &key, &v))
			continue;
		at = s->event_sites[key];
		if (at >= s->nr_links) {
			s->event_sites[key] = SIZE_MAX;
			continue;
		}
		if (fsp_grow((void **)&c->fds, &cap, c->n + 1, sizeof(*c->fds)))
			break; /* the others at the next drop */
		s->event_sites[key] = SIZE_MAX;
		/* Its hits trap no more once closed (the fd is its only
		 * reference). */
		c->fds[c->n++] = s->links[at].fd;
		s->links[at] = (struct attachment){-1};
		dropped++;
	}
	if (c->n)
		close_later(s, c);
	else
		close_sites(c);
	if (dropped)
		log__verbose("--events=%s: %u probe sites of other features detached (%u so far)",
			     s->opts.event_features, dropped, s->dropped_sites + dropped);
	s->dropped_sites += dropped;
}

/* ---- what a trap costs ---------------------------------------------------- */

/* The function the calibration probe is put on. */
__attribute__((noinline)) void eventsel__probed(void)
{
	__asm__ __volatile__("" ::: "memory");
}

/* The thread's CPU time (user and system: a trap's kernel time is the
 * thread's), which a preemption does not inflate as a wall clock would on
 * a busy machine. */
static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Seconds for n calls of the probed function. */
static double time_calls(unsigned int n)
{
	double t = cpu_s();

	for (unsigned int i = 0; i < n; i++)
		eventsel__probed();
	return cpu_s() - t;
}

/* The file offset of our own code at addr (/proc/self/maps). */
static int self_offset(uintptr_t addr, size_t *off)
{
	unsigned long long start, end, foff;
	char line[512], perms[8];
	FILE *f = fopen("/proc/self/maps", "re");
	int err = -ENOENT;

	if (!f)
		return -errno;
	while (err && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx %7s %llx", &start, &end, perms, &foff) == 4 &&
		    addr >= start && addr < end && perms[2] == 'x') {
			*off = addr - start + foff;
			err = 0;
		}
	}
	fclose(f);
	return err;
}

/* Runs of CALIBRATION_CALLS calls, with the probe and without; the fastest
 * of each counts (a run short enough that an interrupt rarely falls in it). */
#define CALIBRATION_CALLS 200
#define CALIBRATION_RUNS 30

int eventsel__measure(struct session *s)
{
	double plain = 1e9, probed = 1e9;
	__u64 o, cookie = 0;
	size_t off;
	int err, link;

	if (!s->opts.v2_events)
		return 0;
	err = self_offset((uintptr_t)eventsel__probed, &off);
	if (err)
		return err;
	o = off;
	link = usdt__link(PROG_FD(s, trap_cost), "/proc/self/exe", &o, NULL, &cookie, 1, getpid());
	if (link < 0)
		return link;
	for (int r = 0; r < CALIBRATION_RUNS; r++) {
		double t = time_calls(CALIBRATION_CALLS);

		probed = t < probed ? t : probed;
	}
	close(link);
	for (int r = 0; r < CALIBRATION_RUNS; r++) {
		double t = time_calls(CALIBRATION_CALLS);

		plain = t < plain ? t : plain;
	}
	s->trap_ns = probed > plain ? (uint64_t)((probed - plain) / CALIBRATION_CALLS * 1e9) : 0;
	log__verbose("--events: a probe hit costs about %llu ns here",
		     (unsigned long long)s->trap_ns);
	return 0;
}

uint64_t session__trap_ns(const struct session *s)
{
	return s->trap_ns;
}
