// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The bodies of the agent's responses, rendered in the server's threads
 * from the snapshots the session's loop handed over: the metrics (updated
 * from the newest snapshot first), a window (the difference of its two
 * snapshots) as pprof or as the profile file, and fsp-bpf's own process
 * for the metrics (/proc/self).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "agent_int.h"
#include "log.h"
#include "profile_io.h"
#include "report.h"
#include "window.h"

/* Seconds since the epoch at boot (/proc/stat btime). */
static double boot_time(void)
{
	char line[256];
	double t = 0;
	FILE *f = fopen("/proc/stat", "re");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "btime ", 6))
			t = strtod(line + 6, NULL);
	if (f)
		fclose(f);
	return t;
}

static uint64_t count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	uint64_t n = 0;

	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n ? n - 1 : 0; /* not the directory's own */
}

/* fsp-bpf's CPU time, memory, descriptors and start (/proc/self/stat:
 * fields 14 utime, 15 stime, 22 starttime, 23 vsize, 24 rss). */
static void self_stats(struct metrics_self *s)
{
	double tick = (double)sysconf(_SC_CLK_TCK);
	unsigned long long ut = 0, st = 0, start = 0, vsize = 0, rss = 0;
	char buf[1024], *p;
	struct rlimit rl;
	FILE *f = fopen("/proc/self/stat", "re");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')'); /* after the comm, which may hold blanks */
	if (p && sscanf(p + 2,
			"%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d %*d %*d %*d "
			"%*d %llu %llu %llu",
			&ut, &st, &start, &vsize, &rss) == 5) {
		s->cpu_s = (ut + st) / tick;
		s->start_time_s = boot_time() + start / tick;
		s->vsize_bytes = vsize;
		s->rss_bytes = rss * (uint64_t)sysconf(_SC_PAGESIZE);
	}
	s->open_fds = count_fds();
	if (!getrlimit(RLIMIT_NOFILE, &rl))
		s->max_fds = rl.rlim_cur;
}

static int render_metrics(struct agent *a, struct agent_req *r, FILE *out)
{
	const struct agent_snap *s = r->end;
	struct metrics_info info = {
		.version = FSP_VERSION,
		.marks = s->marks,
		.targets = s->nr_alive,
	};
	int err = 0;

	pthread_mutex_lock(&a->lock);
	info.windows = a->nr_windows;
	info.period_ns = a->period_ns;
	info.start_time_s = a->session_start;
	pthread_mutex_unlock(&a->lock);
	info.offcpu = a->o.offcpu;
	self_stats(&info.self);
	pthread_mutex_lock(&a->metrics_lock);
	/* Requests may come back out of order: the newest snapshot counts. */
	if (s->mono > a->metrics_at) {
		err = metrics__update(a->metrics, s->p, s->mono, s->alive, s->nr_alive);
		if (!err)
			a->metrics_at = s->mono;
	}
	if (!err)
		err = metrics__write(a->metrics, out, r->format, &info);
	pthread_mutex_unlock(&a->metrics_lock);
	return err;
}

/* A window: the profile file (its function features' rules in its metadata,
 * charged by whoever reads it, as a saved profile), or pprof, charged. */
static int render_window(struct agent *a, struct agent_req *r, FILE *out)
{
	struct profile *w = profile__window(r->start->p, r->end->p, &(int){0});
	int err = 0;

	if (!w)
		return -ENOMEM;
	if (r->kind != REQ_JSON && a->charge)
		err = a->charge(w);
	if (!err)
		err = r->kind == REQ_JSON ? profile__write_json(out, w)
					  : report__pprof(out, w, NULL);
	profile__free(w);
	return err;
}

int agent_render(struct agent *a, struct agent_req *r, char **body, size_t *len, const char **type)
{
	FILE *out = open_memstream(body, len);
	int err;

	if (!out)
		return -errno;
	switch (r->kind) {
	case REQ_METRICS:
		err = render_metrics(a, r, out);
		*type = metrics__content_type(r->format);
		break;
	case REQ_JSON:
		err = render_window(a, r, out);
		*type = "application/json";
		break;
	default:
		err = render_window(a, r, out);
		*type = "application/octet-stream";
		break;
	}
	if (fclose(out) && !err)
		err = -EIO;
	if (err) {
		free(*body);
		*body = NULL;
	}
	return err;
}
