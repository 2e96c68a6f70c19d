// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The session's lifecycle (session.h): set-up in order, teardown, accessors.
 * Internals: session_int.h. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "log.h"
#include "procmaps.h"
#include "util.h"
#include "session_int.h"

_Static_assert(FSP_HIST_BUCKETS == PROFILE_HIST_BUCKETS,
	       "bpf/profiler.h and analysis/model/profile.h disagree on the histogram");

/* Numbers the features of the probe maps and names them "map:feature". */
static int number_features(struct session *s)
{
	size_t n = 0;

	s->feature_base = calloc(s->opts.nr_probemaps + 1, sizeof(*s->feature_base));
	s->probemap_found = calloc(s->opts.nr_probemaps + 1, sizeof(*s->probemap_found));
	for (size_t m = 0; m < s->opts.nr_probemaps; m++)
		n += s->opts.probemaps[m].probemap->nr_features;
	s->feature_names = calloc(n + 1, sizeof(*s->feature_names));
	s->frames_warned = calloc(n + 1, sizeof(*s->frames_warned));
	if (!s->feature_base || !s->probemap_found || !s->feature_names || !s->frames_warned)
		return -ENOMEM;
	for (size_t m = 0; m < s->opts.nr_probemaps; m++) {
		const struct probemap *pm = s->opts.probemaps[m].probemap;

		s->feature_base[m] = s->nr_feature_names;
		for (size_t f = 0; f < pm->nr_features; f++)
			probemap__full_name(pm, &pm->features[f],
					    s->feature_names[s->nr_feature_names++],
					    sizeof(s->feature_names[0]));
	}
	return 0;
}

struct session *session__new(const struct session_opts *opts, int *err)
{
	struct session *s = calloc(1, sizeof(*s));

	if (!s) {
		*err = -ENOMEM;
		return NULL;
	}
	s->opts = *opts;
	s->epfd = s->sigfd = s->switch_fd = -1;
	s->fork_link = SIZE_MAX;
	for (size_t i = 0; i < NR_PROGS; i++)
		s->prog_fds[i] = -1;
	s->child_status = -1;
	s->period_ns = fsp_period_ns(opts->frequency_hz);
	*err = number_features(s);
	if (!*err)
		*err = samplevars__init(s);
	if (!*err)
		*err = syswide__init(s);
	if (!*err)
		*err = funcev__new(s, &s->funcev);
	if (*err)
		goto cleanup;

	*err = loader__load(s);
	if (*err)
		goto cleanup;
	/* --events: what its traps cost, for the report to weigh them. */
	if (eventsel__measure(s))
		log__verbose("--events: cannot measure what a probe hit costs");
	*err = loop__setup(s);
	if (*err) {
		log__err("cannot set up the event loop: %s", strerror(-*err));
		goto cleanup;
	}
	*err = loader__open_sampler(s);
	if (*err)
		goto cleanup;
	s->start_mono = now(CLOCK_MONOTONIC);
	s->start_wall = now(CLOCK_REALTIME);
	return s;
cleanup:
	session__free(s);
	return NULL;
}

void session__free(struct session *s)
{
	if (!s)
		return;
	loop__release(s);
	loader__stop_sampler(s);
	/* No child is held stopped past the session (a vfork child of a
	 * launched command waits for its probes, loop.c). */
	if (s->rb && s->fork_link < s->nr_links) {
		close(s->links[s->fork_link].fd);
		s->links[s->fork_link] = (struct attachment){-1};
		s->closing = true;
		loop__consume(s);
	}
	/* Before the links go: the records say no more that we keep their
	 * stacks (v2.c). */
	v2__release(s);
	free(s->perf_fds);
	free(s->perf_links);
	if (s->switch_fd >= 0)
		close(s->switch_fd);
	attach__destroy_all(s);
	free(s->specs);
	free(s->probemap_sites);
	free(s->feature_base);
	free(s->probemap_found);
	free(s->frames_warned);
	free(s->feature_names);
	samplevars__free(s);
	free(s->event_sites);
	syswide__free(s);
	label__files_free(s);
	v2__free(s);
	retire__free(s);
	for (size_t i = 0; i < s->nr_targets; i++) {
		if (s->targets[i].pidfd >= 0)
			close(s->targets[i].pidfd);
		file_set__free(&s->targets[i].files);
		procmaps__free(s->targets[i].mappings, s->targets[i].nr_mappings);
	}
	free(s->targets);
	ring_buffer__free(s->rb);
	ring_buffer__free(s->native_rb);
	payloads__free(s->payloads);
	callrecs__free(s->callrecs);
	funcev__free(s->funcev);
	stacks__free(s->stacks);
	parts__free(s);
	if (s->skel) {
		profiler_bpf__destroy(s->skel);
		log__phase("unloaded the BPF programs and maps");
	}
	if (s->sigfd >= 0)
		close(s->sigfd);
	if (s->epfd >= 0)
		close(s->epfd);
	if (s->mask_set)
		sigprocmask(SIG_SETMASK, &s->old_mask, NULL);
	free(s);
}

const struct session_probemap *session__probemaps(const struct session *s, size_t *nr)
{
	*nr = s->opts.nr_probemaps;
	return s->opts.probemaps;
}

bool session__probemap_found(const struct session *s, size_t i)
{
	return i < s->opts.nr_probemaps && s->probemap_found[i];
}

const char *session__providers(const struct session *s)
{
	return s->providers;
}

int session__child_status(const struct session *s)
{
	return s->child_status;
}

unsigned int session__nr_sites(const struct session *s)
{
	return s->nr_sites;
}

uint64_t session__period_ns(const struct session *s)
{
	return s->period_ns;
}

double session__duration(const struct session *s)
{
	return (s->end_mono ? s->end_mono : now(CLOCK_MONOTONIC)) - s->start_mono;
}

double session__start_time(const struct session *s)
{
	return s->start_wall;
}

double session__end_time(const struct session *s)
{
	return s->end_wall ? s->end_wall : now(CLOCK_REALTIME);
}

size_t session__alive(const struct session *s, uint32_t *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nr_targets; i++) {
		if (!s->targets[i].alive)
			continue;
		if (n < max)
			out[n] = (uint32_t)s->targets[i].pid;
		n++;
	}
	return n;
}

/* ---- draining the maps --------------------------------------------------- */
