// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Merging profiles into one with a source per recording (merge.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge.h"
#include "native.h"
#include "output.h"
#include "util.h"

#define UNNAMED_TARGET "an unnamed target"

/* One source of a profile being merged: its metadata and diagnostics. */
struct merge_source {
	const struct profile_meta *meta;
	uint64_t diag[DIAG__COUNT];
};

/*
 * The sources of p: its source records, or p itself (its profile__meta and
 * diagnostics) when it is a single recording. *out is allocated (at least one
 * element); returns the number of sources or 0 on allocation failure.
 */
static size_t merge_sources(const struct profile *p, struct merge_source **out)
{
	size_t i, n = profile__nr_sources(p);
	struct profile_source ps;
	struct merge_source *s;
	int d;

	s = calloc(n ? n : 1, sizeof(*s));
	*out = s;
	if (!s)
		return 0;
	if (!n) {
		s[0].meta = profile__meta(p);
		for (d = 0; d < DIAG__COUNT; d++)
			s[0].diag[d] = profile__diag(p, d);
		return 1;
	}
	for (i = 0; i < n; i++) {
		/* i < n: profile__source cannot fail */
		profile__source(p, i, &ps);
		s[i].meta = ps.meta;
		memcpy(s[i].diag, ps.diag, sizeof(s[i].diag));
	}
	return n;
}

static const char *target_name(const struct profile_meta *m)
{
	return m && m->target ? m->target : UNNAMED_TARGET;
}

/* True when p holds nothing a merge would lose: a new profile__new(). */
static bool profile_blank(const struct profile *p)
{
	const struct profile_meta *m = profile__meta(p);

	return !profile__nr_sources(p) && !profile__nr_pids(p) && !profile__nr_threads(p) &&
	       !profile__nr_stacks(p) && !profile__nr_samples(p) && !m->target &&
	       !profile_meta__period_ns(m) && !m->start_time;
}

/* Writes the period-mismatch message: "every X ns" or "at an unknown period". */
static void period_err(char *err, size_t errlen, const char *target, uint64_t got, uint64_t want)
{
	char a[48], b[48];

	if (got)
		snprintf(a, sizeof(a), "every %" PRIu64 " ns", got);
	else
		snprintf(a, sizeof(a), "at an unknown period");
	if (want)
		snprintf(b, sizeof(b), "every %" PRIu64 " ns", want);
	else
		snprintf(b, sizeof(b), "at an unknown period");
	fsp_set_err(err, errlen,
		    "%s was sampled %s but the others %s: merge profiles of the same frequency",
		    target, a, b);
}

/* Source index s of src, mapped into dst (and made dst's current source). */
static int use_source(struct profile *dst, const uint32_t *map, size_t nr_map, uint32_t s)
{
	if (s >= nr_map)
		return -EINVAL;
	return profile__use_source(dst, map[s]);
}

/* Says which record of src could not be copied. */
static int copy_err(int ret, const char *what, size_t i, const struct profile *src, char *err,
		    size_t errlen)
{
	fsp_set_err(err, errlen, "cannot copy %s %zu of %s: %s", what, i,
		    target_name(profile__meta(src)), strerror(-ret));
	return ret;
}

/* Processes, with their namespace PIDs. */
static int merge_processes(struct profile *dst, const struct profile *src, const uint32_t *map,
			   size_t nr_map, char *err, size_t errlen)
{
	struct profile_process proc;
	int ret;

	for (size_t i = 0; i < profile__nr_pids(src); i++) {
		ret = profile__process(src, i, &proc);
		if (!ret)
			ret = use_source(dst, map, nr_map, proc.source);
		if (!ret)
			ret = profile__add_pid(dst, proc.pid);
		if (!ret && proc.nspid)
			ret = profile__set_process_nspid(dst, proc.pid, proc.nspid);
		if (ret)
			return copy_err(ret, "process", i, src, err, errlen);
	}
	return 0;
}

static int merge_threads(struct profile *dst, const struct profile *src, const uint32_t *map,
			 size_t nr_map, char *err, size_t errlen)
{
	struct profile_thread th;
	int ret;

	for (size_t i = 0; i < profile__nr_threads(src); i++) {
		ret = profile__thread(src, i, &th);
		if (!ret)
			ret = use_source(dst, map, nr_map, th.source);
		if (!ret)
			ret = profile__add_thread(dst, th.pid, th.tid, th.comm);
		if (ret)
			return copy_err(ret, "thread", i, src, err, errlen);
	}
	return 0;
}

static int merge_stacks(struct profile *dst, const struct profile *src, const uint32_t *map,
			size_t nr_map, char *err, size_t errlen)
{
	struct profile_stack st;
	int ret;

	for (size_t i = 0; i < profile__nr_stacks(src); i++) {
		ret = profile__stack(src, i, &st);
		if (!ret)
			ret = use_source(dst, map, nr_map, st.source);
		if (!ret)
			ret = profile__add_stack(dst, st.pid, st.key, st.frames, st.depth);
		if (!ret && st.flags)
			ret = profile__set_stack_flags(dst, profile__nr_stacks(dst) - 1, st.flags);
		if (ret)
			return copy_err(ret, "stack", i, src, err, errlen);
	}
	return 0;
}

/* Samples and off-CPU time; samples of a stack src never stored stay
 * unknown, and counted. */
static int merge_samples(struct profile *dst, const struct profile *src, const uint32_t *map,
			 size_t nr_map, char *err, size_t errlen)
{
	struct profile_sample s;
	int ret;

	for (size_t i = 0; i < profile__nr_samples(src); i++) {
		ret = profile__sample(src, i, &s);
		if (!ret)
			ret = use_source(dst, map, nr_map, s.source);
		if (!ret && (s.count || !s.offcpu_ns))
			ret = profile__add_samples(dst, s.pid, s.tid, s.key, s.count);
		if ((!ret || (ret == -ENOENT && !s.known)) && s.offcpu_ns)
			ret = profile__add_offcpu(dst, s.pid, s.tid, s.key, s.offcpu_ns);
		if (ret == -ENOENT && !s.known)
			ret = 0;
		if (ret)
			return copy_err(ret, "samples", i, src, err, errlen);
	}
	return 0;
}

/* The event view's calls. */
static int merge_events(struct profile *dst, const struct profile *src, const uint32_t *map,
			size_t nr_map, char *err, size_t errlen)
{
	struct profile_event ev;
	int ret;

	for (size_t i = 0; i < profile__nr_events(src); i++) {
		ret = profile__event(src, i, &ev);
		if (!ret)
			ret = use_source(dst, map, nr_map, ev.source);
		if (!ret)
			ret = profile__add_events(dst, ev.pid, ev.feature, ev.instance, ev.stats);
		if (ret)
			return copy_err(ret, "the calls", i, src, err, errlen);
	}
	return 0;
}

/* ---- native stacks: modules and locations shared, stacks and samples remapped ---- */

/* The index tables of src's native records in dst. */
struct native_map {
	uint32_t *modules;
	uint32_t *locs;
	size_t *stacks;
	uint32_t *buf; /* a remapped stack's locations */
};

static void native_map_free(struct native_map *m)
{
	free(m->modules);
	free(m->locs);
	free(m->stacks);
	free(m->buf);
}

static int native_map_alloc(struct native_map *m, const struct profile *src)
{
	size_t depth = 1;
	struct profile_native_stack s;

	for (size_t i = 0; i < profile__nr_native_stacks(src); i++)
		if (!profile__native_stack(src, i, &s) && s.depth > depth)
			depth = s.depth;
	m->modules = calloc(profile__nr_modules(src) + 1, sizeof(*m->modules));
	m->locs = calloc(profile__nr_locations(src) + 1, sizeof(*m->locs));
	m->stacks = calloc(profile__nr_native_stacks(src) + 1, sizeof(*m->stacks));
	m->buf = calloc(depth, sizeof(*m->buf));
	return m->modules && m->locs && m->stacks && m->buf ? 0 : -ENOMEM;
}

/* Modules dedup by kind, path and build-id; locations by module and address
 * (lines of src replace dst's when src has some: the later symbolization). */
static int merge_code(struct profile *dst, const struct profile *src, struct native_map *nm,
		      char *err, size_t errlen)
{
	struct profile_location loc;
	struct profile_module mod;
	int ret;

	for (size_t i = 0; i < profile__nr_modules(src); i++) {
		ret = profile__module(src, i, &mod);
		if (!ret)
			ret = profile__add_module(dst, &mod);
		if (ret < 0)
			return copy_err(ret, "module", i, src, err, errlen);
		nm->modules[i] = (uint32_t)ret;
	}
	for (size_t i = 0; i < profile__nr_locations(src); i++) {
		ret = profile__location(src, i, &loc);
		if (!ret && loc.module != PROFILE_NO_MODULE)
			loc.module = nm->modules[loc.module];
		if (!ret)
			ret = profile__add_location(dst, &loc);
		if (ret < 0)
			return copy_err(ret, "location", i, src, err, errlen);
		nm->locs[i] = (uint32_t)ret;
	}
	return 0;
}

/* Native stacks with their locations remapped, then the native samples
 * under their new sources and stacks. */
static int merge_native_samples(struct profile *dst, const struct profile *src,
				struct native_map *nm, const uint32_t *map, size_t nr_map,
				char *err, size_t errlen)
{
	struct profile_native_sample ns;
	struct profile_native_stack s;
	int ret;

	for (size_t i = 0; i < profile__nr_native_stacks(src); i++) {
		ret = profile__native_stack(src, i, &s);
		for (size_t j = 0; !ret && j < s.depth; j++)
			nm->buf[j] = nm->locs[s.locs[j]];
		s.locs = nm->buf;
		if (!ret)
			ret = profile__add_native_stack(dst, &s);
		if (ret < 0)
			return copy_err(ret, "native stack", i, src, err, errlen);
		nm->stacks[i] = (size_t)ret;
	}
	for (size_t i = 0; i < profile__nr_native_samples(src); i++) {
		ret = profile__native_sample(src, i, &ns);
		if (!ret)
			ret = use_source(dst, map, nr_map, ns.source);
		if (!ret)
			ret = profile__add_native_samples(dst, ns.pid, ns.tid, ns.key,
							  nm->stacks[ns.stack], ns.count);
		if (ret)
			return copy_err(ret, "native samples", i, src, err, errlen);
	}
	return 0;
}

static int merge_native(struct profile *dst, const struct profile *src, const uint32_t *map,
			size_t nr_map, char *err, size_t errlen)
{
	struct native_map nm = {};
	int ret;

	if (!profile__nr_native_samples(src) && !profile__nr_locations(src) &&
	    !profile__nr_modules(src))
		return 0;
	ret = native_map_alloc(&nm, src);
	if (ret)
		fsp_set_err(err, errlen, "merge: out of memory");
	if (!ret)
		ret = merge_code(dst, src, &nm, err, errlen);
	if (!ret)
		ret = merge_native_samples(dst, src, &nm, map, nr_map, err, errlen);
	native_map_free(&nm);
	return ret;
}

/* Copies the records of src, source s to map[s]. */
static int merge_records(struct profile *dst, const struct profile *src, const uint32_t *map,
			 size_t nr_map, char *err, size_t errlen)
{
	int ret = merge_processes(dst, src, map, nr_map, err, errlen);

	if (!ret)
		ret = merge_threads(dst, src, map, nr_map, err, errlen);
	if (!ret)
		ret = merge_stacks(dst, src, map, nr_map, err, errlen);
	if (!ret)
		ret = merge_samples(dst, src, map, nr_map, err, errlen);
	if (!ret)
		ret = merge_events(dst, src, map, nr_map, err, errlen);
	if (!ret)
		ret = merge_native(dst, src, map, nr_map, err, errlen);
	if (ret)
		return ret;
	return profile__use_source(dst, 0);
}

/* Every source of src was sampled at the period want (set by the first when
 * !have_want). */
static int check_periods(const struct merge_source *srcs, size_t nr_srcs, bool have_want,
			 uint64_t want, char *err, size_t errlen)
{
	for (size_t i = 0; i < nr_srcs; i++) {
		uint64_t got = profile_meta__period_ns(srcs[i].meta);

		if (!have_want) {
			want = got; /* the first source sets the period */
			have_want = true;
		}
		if (got != want) {
			period_err(err, errlen, target_name(srcs[i].meta), got, want);
			return -EINVAL;
		}
	}
	return 0;
}

/* dst can take src's samples and nr_new more sources. Every count of dst is
 * bounded by its total: checking it suffices. */
static int check_limits(const struct profile *dst, const struct profile *src, size_t nr_new,
			char *err, size_t errlen)
{
	uint64_t dst_total = profile__total_samples(dst), src_total = profile__total_samples(src);

	if (dst_total > UINT64_MAX - src_total) {
		fsp_set_err(err, errlen,
			    "merging %s would overflow the sample count: %" PRIu64 " + %" PRIu64
			    " samples exceed %" PRIu64,
			    target_name(profile__meta(src)), dst_total, src_total, UINT64_MAX);
		return -EOVERFLOW;
	}
	if (profile__nr_sources(dst) + nr_new > INT32_MAX) {
		fsp_set_err(err, errlen, "merging %s: too many sources",
			    target_name(profile__meta(src)));
		return -E2BIG;
	}
	return 0;
}

int profile__merge(struct profile *dst, const struct profile *src, char *err, size_t errlen)
{
	struct merge_source *srcs = NULL, *olds = NULL;
	uint64_t want = 0;
	size_t i, nr_srcs, nr_olds;
	uint32_t *map = NULL;
	bool have_want, convert;
	int ret;

	if (!dst || !src || dst == src) {
		ret = -EINVAL;
		fsp_set_err(err, errlen, "merge: invalid arguments");
		goto cleanup;
	}
	nr_srcs = merge_sources(src, &srcs);
	if (!nr_srcs) {
		ret = -ENOMEM;
		fsp_set_err(err, errlen, "merge: out of memory");
		goto cleanup;
	}

	/* The period dst already has: its first source's, or its own recording's. */
	have_want = !profile_blank(dst);
	convert = have_want && !profile__nr_sources(dst);
	if (have_want) {
		nr_olds = merge_sources(dst, &olds);
		if (!nr_olds) {
			ret = -ENOMEM;
			fsp_set_err(err, errlen, "merge: out of memory");
			goto cleanup;
		}
		want = profile_meta__period_ns(olds[0].meta);
	}
	ret = check_periods(srcs, nr_srcs, have_want, want, err, errlen);
	if (!ret)
		ret = check_limits(dst, src, convert + nr_srcs, err, errlen);
	if (ret)
		goto cleanup;

	map = calloc(nr_srcs, sizeof(*map));
	if (!map) {
		ret = -ENOMEM;
		fsp_set_err(err, errlen, "merge: out of memory");
		goto cleanup;
	}
	/* A recording in dst becomes source 0: its records already are. */
	if (convert) {
		ret = profile__add_source(dst, olds[0].meta, olds[0].diag);
		if (ret < 0) {
			fsp_set_err(err, errlen, "merge: cannot add a source: %s", strerror(-ret));
			goto cleanup;
		}
	}
	for (i = 0; i < nr_srcs; i++) {
		ret = profile__add_source(dst, srcs[i].meta, srcs[i].diag);
		if (ret < 0) {
			fsp_set_err(err, errlen, "merge: cannot add a source: %s", strerror(-ret));
			goto cleanup;
		}
		map[i] = (uint32_t)ret;
	}
	ret = merge_records(dst, src, map, nr_srcs, err, errlen);

cleanup:
	free(map);
	free(olds);
	free(srcs);
	return ret;
}

/* a + b, saturating at UINT64_MAX. */
/* The string all sources share for field `off` of profile_meta, else NULL. */
static const char *common_string(const struct profile *p, size_t n, size_t off)
{
	const char *first = NULL, *s;
	struct profile_source ps;
	size_t i;

	for (i = 0; i < n; i++) {
		profile__source(p, i, &ps);
		s = *(const char *const *)((const char *)ps.meta + off);
		if (!s)
			return NULL;
		if (!i)
			first = s;
		else if (strcmp(first, s))
			return NULL;
	}
	return first;
}

/* "merge of N profiles: T1, T2, ..." into buf (MERGE_TARGET_MAX bytes). */
static void merge_target(const struct profile *p, size_t n, char *buf)
{
	static const char more[] = ", ...";
	struct profile_source ps;
	size_t i, len, pos;
	const char *t;

	pos = (size_t)snprintf(buf, MERGE_TARGET_MAX, "merge of %zu %s: ", n,
			       n == 1 ? "profile" : "profiles");
	for (i = 0; i < n && pos < MERGE_TARGET_MAX; i++) {
		profile__source(p, i, &ps);
		t = target_name(ps.meta);
		len = strlen(t) + (i ? 2 : 0);
		/* keep room for ", ..." unless this is the last target */
		if (len > MERGE_TARGET_MAX - 1 - pos ||
		    (i + 1 < n && len + sizeof(more) - 1 > MERGE_TARGET_MAX - 1 - pos)) {
			if (sizeof(more) <= MERGE_TARGET_MAX - pos)
				memcpy(buf + pos, i ? more : more + 2, sizeof(more) - (i ? 0 : 2));
			return;
		}
		pos += (size_t)snprintf(buf + pos, MERGE_TARGET_MAX - pos, "%s%s", i ? ", " : "",
					t);
	}
}

int profile__merge_finish(struct profile *dst, const char *command_line, char *err, size_t errlen)
{
	struct profile_meta m = {};
	struct profile_source ps;
	uint64_t diag[DIAG__COUNT] = {};
	char *target = NULL;
	size_t i, n;
	int d, ret;

	if (!dst) {
		ret = -EINVAL;
		fsp_set_err(err, errlen, "merge: invalid arguments");
		goto cleanup;
	}
	n = profile__nr_sources(dst);
	if (!n) {
		ret = -EINVAL;
		fsp_set_err(err, errlen, "merge: no profile was merged");
		goto cleanup;
	}
	target = malloc(MERGE_TARGET_MAX);
	if (!target) {
		ret = -ENOMEM;
		fsp_set_err(err, errlen, "merge: out of memory");
		goto cleanup;
	}
	merge_target(dst, n, target);
	m.target = target;
	m.command_line = command_line;
	m.host = common_string(dst, n, offsetof(struct profile_meta, host));
	m.kernel = common_string(dst, n, offsetof(struct profile_meta, kernel));
	m.marks = common_string(dst, n, offsetof(struct profile_meta, marks));
	m.function_features =
		common_string(dst, n, offsetof(struct profile_meta, function_features));
	m.tool_version = FSP_VERSION;

	for (i = 0; i < n; i++) {
		profile__source(dst, i, &ps);
		if (!i) {
			m.frequency_hz = ps.meta->frequency_hz;
			m.period_ns = profile_meta__period_ns(ps.meta);
			m.start_time = ps.meta->start_time;
			m.end_time = ps.meta->end_time;
		}
		if (profile_meta__period_ns(ps.meta) != m.period_ns) {
			ret = -EINVAL;
			period_err(err, errlen, target_name(ps.meta),
				   profile_meta__period_ns(ps.meta), m.period_ns);
			goto cleanup;
		}
		if (ps.meta->frequency_hz != m.frequency_hz)
			m.frequency_hz = 0;
		if (ps.meta->start_time > 0 &&
		    (m.start_time <= 0 || ps.meta->start_time < m.start_time))
			m.start_time = ps.meta->start_time;
		if (ps.meta->end_time > m.end_time)
			m.end_time = ps.meta->end_time;
		m.duration_s += ps.meta->duration_s;
		for (d = 0; d < DIAG__COUNT; d++)
			diag[d] = fsp_sat_add(diag[d], ps.diag[d]);
	}
	ret = profile__set_meta(dst, &m);
	if (ret) {
		fsp_set_err(err, errlen, "merge: cannot set the metadata: %s", strerror(-ret));
		goto cleanup;
	}
	for (d = 0; d < DIAG__COUNT; d++)
		profile__set_diag(dst, d, diag[d]);

cleanup:
	free(target);
	return ret;
}
