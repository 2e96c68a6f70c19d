// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The pprof profile (github.com/google/pprof profile.proto, gzip-compressed)
 * of an attributed profile, for `go tool pprof` and other pprof readers.
 * docs/output-formats.md describes what goes where.
 *
 * Each charge of the attribution rule is a pprof sample whose stack is
 * [instance, feature] (leaf first): an instance's flat time is its charged
 * time and a feature's cumulative time the feature's. A sample charged to two
 * nested features is two pprof samples, so pprof's total is the sum of the
 * charges plus the uncharged samples (at "(no feature)"), not the time taken.
 *
 * Off-CPU time (sample type offcpu) rides on the same samples; the event
 * view (calls, event_time) is one more sample per (process, feature,
 * instance) record, 0 in the other types, as the core samples are 0 in its.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "hashmap.h"
#include "profile.pb-c.h"
#include "report.h"
#include "report_util.h"
#include "report_view.h"
#include "utf8.h"
#include "util.h"

/* The labels of one thread's samples: pid, nspid, tid, thread, process, source. */
#define PPROF_MAX_LABELS 6

/* Sample types: samples, cpu, [offcpu,] [calls, event_time]. */
#define PPROF_MAX_TYPES 5

/* thread_map's tid of a process's label set (event samples): no tid is. */
#define PPROF_PROCESS_LABELS (UINT64_C(1) << 32)

struct pprof_labels {
	Perftools__Profiles__Label label[PPROF_MAX_LABELS];
	Perftools__Profiles__Label *ptr[PPROF_MAX_LABELS];
	size_t n;
};

struct pprof_sample {
	uint64_t loc[2]; /* location ids, leaf first */
	size_t n_loc;
	int64_t value[PPROF_MAX_TYPES]; /* samples, cpu ns, [offcpu ns,] [calls, event ns] */
	size_t labels; /* index in pprof_ctx.labels */
};

struct pprof_ctx {
	const struct profile *p; /* with a process filter, the filtered profile */
	const char *feature; /* --feature, NULL for all */
	const struct report_features *feat; /* the features it names */
	const struct profile *whole; /* before a process filter, NULL without */
	const struct report_opts *opts;
	uint64_t period; /* ns per sample */
	bool offcpu; /* the profile has off-CPU time: sample type offcpu */
	bool events; /* it has event records: sample types calls, event_time */
	size_t nr_types;

	char **strs; /* the string table, owned copies; strs[0] is "" */
	size_t nr_strs, cap_strs;
	struct hashmap str_map; /* (hash, k) -> index, k-th string of that hash */

	/* One function per feature, per (feature, instance) and for (no
	 * feature); location i + 1 shows function i + 1. */
	Perftools__Profiles__Function *funcs;
	size_t nr_funcs, cap_funcs;
	struct hashmap func_map; /* (feature string, instance string + 1 or 0) -> index */
	uint64_t no_feature; /* location id of (no feature), 0 until needed */

	struct pprof_labels *labels;
	size_t nr_labels, cap_labels;
	struct hashmap thread_map; /* (source << 32 | pid, tid) -> labels index */
	struct hashmap pcomms; /* (source, pid) -> main thread's comm */
	struct hashmap nspids; /* (source, pid) -> its PID in its namespace */

	struct pprof_sample *samples;
	size_t nr_samples, cap_samples;
};

static int64_t clamp_i64(uint64_t v)
{
	return v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

/* The index of s in the string table, added when new; -ENOMEM on failure. */
static int64_t pprof_str_valid(struct pprof_ctx *c, const char *s)
{
	uint64_t h = fsp_hash_str(s), idx, k;
	char *dup;
	int err;

	for (k = 0; hashmap__find(&c->str_map, h, k, &idx); k++) {
		if (!strcmp(c->strs[idx], s))
			return (int64_t)idx;
	}
	err = fsp_grow((void **)&c->strs, &c->cap_strs, c->nr_strs + 1, sizeof(*c->strs));
	if (err)
		return err;
	dup = strdup(s);
	if (!dup)
		return -ENOMEM;
	err = hashmap__find_or_insert(&c->str_map, h, k, c->nr_strs, NULL);
	if (err < 0) {
		free(dup);
		return err;
	}
	c->strs[c->nr_strs] = dup;
	return (int64_t)c->nr_strs++;
}

/*
 * The same for any s: proto3 strings must be valid UTF-8, so each byte that
 * starts no valid sequence becomes U+FFFD, as in the JSON profile (a pprof
 * of a profile file equals the pprof of the session that wrote it). Other
 * bytes, controls included, are kept: readers escape them for display.
 */
static int64_t pprof_str(struct pprof_ctx *c, const char *s)
{
	size_t n = strlen(s);
	int64_t idx;
	char *fixed;

	if (utf8__valid_len(s, n) == n)
		return pprof_str_valid(c, s);
	fixed = malloc(UTF8_REPAIR_SIZE(n));
	if (!fixed)
		return -ENOMEM;
	utf8__repair(fixed, s, n);
	idx = pprof_str_valid(c, fixed);
	free(fixed);
	return idx;
}

/* The location id of function (name, system_name) keyed (a, b): created
 * when new. Returns the id (> 0) or -errno. */
static int64_t pprof_func(struct pprof_ctx *c, uint64_t a, uint64_t b, const char *name,
			  const char *system_name)
{
	Perftools__Profiles__Function *f;
	int64_t n, sn;
	uint64_t idx;
	int err;

	if (hashmap__find(&c->func_map, a, b, &idx))
		return (int64_t)idx + 1;
	n = pprof_str(c, name);
	if (n < 0)
		return n;
	sn = pprof_str(c, system_name);
	if (sn < 0)
		return sn;
	err = fsp_grow((void **)&c->funcs, &c->cap_funcs, c->nr_funcs + 1, sizeof(*c->funcs));
	if (err)
		return err;
	err = hashmap__find_or_insert(&c->func_map, a, b, c->nr_funcs, NULL);
	if (err < 0)
		return err;
	f = &c->funcs[c->nr_funcs++];
	perftools__profiles__function__init(f);
	f->id = c->nr_funcs;
	f->name = n;
	f->system_name = sn;
	return (int64_t)f->id;
}

/* The locations of a charge: [instance, feature]. */
static int pprof_charge_locs(struct pprof_ctx *c, const struct report_charge *ch, uint64_t *locs)
{
	int64_t fs, is, id;
	char *name = NULL;
	uint64_t idx;

	fs = pprof_str(c, ch->feature);
	if (fs < 0)
		return (int)fs;
	is = pprof_str(c, ch->instance);
	if (is < 0)
		return (int)is;
	id = pprof_func(c, (uint64_t)fs, 0, ch->feature, ch->feature);
	if (id < 0)
		return (int)id;
	locs[1] = (uint64_t)id;
	if (hashmap__find(&c->func_map, (uint64_t)fs, (uint64_t)is + 1, &idx)) {
		locs[0] = idx + 1;
		return 0;
	}
	/* Named with its feature: instance labels (often file:line) repeat
	 * across features, and pprof merges functions of equal names. */
	if (asprintf(&name, "%s: %s", ch->feature, ch->instance) < 0)
		return -ENOMEM;
	id = pprof_func(c, (uint64_t)fs, (uint64_t)is + 1, name, ch->instance);
	free(name);
	if (id < 0)
		return (int)id;
	locs[0] = (uint64_t)id;
	return 0;
}

/* Adds a label with a string (str != NULL) or a number. */
static int pprof_label(struct pprof_ctx *c, struct pprof_labels *l, const char *key,
		       const char *str, int64_t num)
{
	Perftools__Profiles__Label *lb = &l->label[l->n];
	int64_t k, s = 0;

	k = pprof_str(c, key);
	if (k < 0)
		return (int)k;
	if (str) {
		s = pprof_str(c, str);
		if (s < 0)
			return (int)s;
	}
	perftools__profiles__label__init(lb);
	lb->key = k;
	lb->str = s;
	lb->num = str ? 0 : num;
	l->n++;
	return 0;
}

/* The labels of thread (source, pid, tid) named comm in a process named
 * pcomm ("" when unknown); tid PPROF_PROCESS_LABELS: of the process, without
 * tid and thread. Returns the index of the set or -errno. */
static int64_t pprof_thread(struct pprof_ctx *c, uint32_t source, uint32_t pid, uint64_t tid,
			    const char *comm, const char *pcomm)
{
	struct pprof_labels *l;
	char src[300];
	uint64_t idx, nspid;
	int err;

	if (hashmap__find(&c->thread_map, (uint64_t)source << 32 | pid, tid, &idx))
		return (int64_t)idx;
	err = fsp_grow((void **)&c->labels, &c->cap_labels, c->nr_labels + 1, sizeof(*c->labels));
	if (err)
		return err;
	l = &c->labels[c->nr_labels];
	l->n = 0;
	err = pprof_label(c, l, "pid", NULL, pid);
	if (!err && hashmap__find(&c->nspids, source, pid, &nspid))
		err = pprof_label(c, l, "nspid", NULL, (int64_t)nspid);
	if (!err && tid != PPROF_PROCESS_LABELS)
		err = pprof_label(c, l, "tid", NULL, (int64_t)tid);
	if (!err && *comm)
		err = pprof_label(c, l, "thread", comm, 0);
	if (!err && *pcomm)
		err = pprof_label(c, l, "process", pcomm, 0);
	if (!err && profile__nr_sources(c->p) > 1) {
		report_source_name(c->p, source, src, sizeof(src));
		err = pprof_label(c, l, "source", src, 0);
	}
	if (err)
		return err;
	err = hashmap__find_or_insert(&c->thread_map, (uint64_t)source << 32 | pid, tid,
				      c->nr_labels, NULL);
	if (err < 0)
		return err;
	return (int64_t)c->nr_labels++;
}

/* The comm of process (source, pid)'s main thread, "" when unknown. */
static const char *pprof_pcomm(const struct pprof_ctx *c, uint32_t source, uint32_t pid)
{
	uint64_t v;

	if (hashmap__find(&c->pcomms, source, pid, &v))
		return (const char *)(uintptr_t)v;
	return "";
}

/* Label sets of every thread of the profile, in its thread order. */
static int pprof_threads(struct pprof_ctx *c)
{
	struct profile_thread t;
	int64_t idx;
	size_t i;
	int err = 0;

	err = report_process_nspids(c->p, &c->nspids);
	if (!err)
		err = report_process_comms(c->p, &c->pcomms);
	if (err)
		return err;
	for (i = 0; i < profile__nr_threads(c->p); i++) {
		err = profile__thread(c->p, i, &t);
		if (err)
			return err;
		idx = pprof_thread(c, t.source, t.pid, t.tid, t.comm,
				   pprof_pcomm(c, t.source, t.pid));
		if (idx < 0)
			return (int)idx;
	}
	return 0;
}

/* A new sample at locs with labels, all its values 0. NULL on failure. */
static struct pprof_sample *pprof_new(struct pprof_ctx *c, const uint64_t *locs, size_t n_loc,
				      size_t labels)
{
	struct pprof_sample *s;

	if (fsp_grow((void **)&c->samples, &c->cap_samples, c->nr_samples + 1, sizeof(*c->samples)))
		return NULL;
	s = &c->samples[c->nr_samples++];
	memset(s, 0, sizeof(*s));
	memcpy(s->loc, locs, n_loc * sizeof(*locs));
	s->n_loc = n_loc;
	s->labels = labels;
	return s;
}

/* A sample of `count` core samples and off_ns off-CPU time. */
static int pprof_add(struct pprof_ctx *c, const uint64_t *locs, size_t n_loc, uint64_t count,
		     uint64_t off_ns, size_t labels)
{
	struct pprof_sample *s = pprof_new(c, locs, n_loc, labels);

	if (!s)
		return -ENOMEM;
	s->value[0] = clamp_i64(count);
	s->value[1] = clamp_i64(report_cost_ns(count, c->period));
	if (c->offcpu)
		s->value[2] = clamp_i64(off_ns);
	return 0;
}

/* One sample per event record (of --feature's feature only), located
 * [instance, feature], labeled with its process: values calls, event_time. */
static int pprof_events(struct pprof_ctx *c)
{
	struct report_charge ch;
	struct pprof_sample *s;
	struct profile_event ev;
	int64_t labels;
	uint64_t locs[2];
	size_t i, at = c->offcpu ? 3 : 2;
	int err;

	for (i = 0; i < profile__nr_events(c->p); i++) {
		err = profile__event(c->p, i, &ev);
		if (err)
			return err;
		if (!report_features__has(c->feat, ev.feature))
			continue;
		labels = pprof_thread(c, ev.source, ev.pid, PPROF_PROCESS_LABELS, "",
				      pprof_pcomm(c, ev.source, ev.pid));
		if (labels < 0)
			return (int)labels;
		ch.feature = ev.feature;
		ch.instance = ev.instance ? ev.instance : ATTRIB_NO_INSTANCE;
		err = pprof_charge_locs(c, &ch, locs);
		if (err)
			return err;
		s = pprof_new(c, locs, 2, (size_t)labels);
		if (!s)
			return -ENOMEM;
		s->value[at] = clamp_i64(ev.stats->enters);
		s->value[at + 1] = clamp_i64(ev.stats->total_ns);
	}
	return 0;
}

/* One pprof sample per charge of each core sample; uncharged ones at
 * "(no feature)" (but not with --feature). */
static int pprof_samples(struct pprof_ctx *c, const struct report_charges *charges)
{
	const struct report_charge *ch;
	struct profile_sample s;
	uint64_t locs[2];
	size_t i, j, n;
	int64_t labels, id;
	int err;

	for (i = 0; i < profile__nr_samples(c->p); i++) {
		err = profile__sample(c->p, i, &s);
		if (err)
			return err;
		labels = pprof_thread(c, s.source, s.pid, s.tid, "", "");
		if (labels < 0)
			return (int)labels;
		ch = report_charges__of(charges, s.stack, &n);
		if (!n && !c->feature) {
			if (!c->no_feature) {
				id = pprof_func(c, UINT64_MAX - 1, UINT64_MAX - 1,
						REPORT_NO_FEATURE, REPORT_NO_FEATURE);
				if (id < 0)
					return (int)id;
				c->no_feature = (uint64_t)id;
			}
			err = pprof_add(c, &c->no_feature, 1, s.count, s.offcpu_ns, (size_t)labels);
			if (err)
				return err;
		}
		for (j = 0; j < n; j++) {
			if (!report_features__has(c->feat, ch[j].feature))
				continue;
			err = pprof_charge_locs(c, &ch[j], locs);
			if (!err)
				err = pprof_add(c, locs, 2, s.count, s.offcpu_ns, (size_t)labels);
			if (err)
				return err;
		}
	}
	return 0;
}

/* Seconds as nanoseconds, rounded, 0 when unknown or out of range. The whole
 * seconds are converted apart: a double holds unix time to the microsecond,
 * not unix time in nanoseconds. (No libm: the archive links without it.) */
static int64_t pprof_nanos(double s)
{
	int64_t whole;

	if (!(s > 0) || s >= 9.2e9)
		return 0;
	whole = (int64_t)s;
	return whole * 1000000000 + (int64_t)((s - (double)whole) * 1e9 + 0.5);
}

/* "filter: comm X and pid Y: N of M processes, S of T samples": what a
 * process filter kept. The string's index or -ENOMEM. */
static int64_t pprof_filter_comment(struct pprof_ctx *c)
{
	const struct report_opts *o = c->opts;
	char *line = NULL;
	int64_t idx;

	if (asprintf(&line,
		     "filter:%s%s%s%s%s: %zu of %zu processes, %" PRIu64 " of %" PRIu64 " samples",
		     o->comm ? " comm " : "", o->comm ? o->comm : "",
		     o->comm && o->pid ? " and" : "", o->pid ? " pid " : "", o->pid ? o->pid : "",
		     profile__nr_pids(c->p), profile__nr_pids(c->whole),
		     profile__total_samples(c->p), profile__total_samples(c->whole)) < 0)
		return -ENOMEM;
	idx = pprof_str(c, line);
	free(line);
	return idx;
}

/* "fsp-bpf VERSION: feature profile of TARGET". The string's index or
 * -ENOMEM. */
static int64_t pprof_title_comment(struct pprof_ctx *c)
{
	const struct profile_meta *m = profile__meta(c->p);
	char *line = NULL;
	int64_t idx;

	if (asprintf(&line, "fsp-bpf %s: feature profile of %s",
		     m->tool_version ? m->tool_version : FSP_VERSION,
		     m->target ? m->target : "an unnamed target") < 0)
		return -ENOMEM;
	idx = pprof_str(c, line);
	free(line);
	return idx;
}

/* Appends the comment of string idx (< 0: its error) to comment[*n]. */
static int pprof_comment(int64_t *comment, size_t *n, int64_t idx)
{
	if (idx < 0)
		return (int)idx;
	comment[(*n)++] = idx;
	return 0;
}

static int pprof_comments(struct pprof_ctx *c, int64_t *comment, size_t *n)
{
	int err;

	*n = 0;
	err = pprof_comment(comment, n, pprof_title_comment(c));
	if (!err && c->whole)
		err = pprof_comment(comment, n, pprof_filter_comment(c));
	if (!err)
		err = pprof_comment(comment, n,
				    pprof_str(c,
					      "each sample is charged to every feature with a "
					      "live mark: a sample in n nested features counts n "
					      "times in the totals"));
	if (!err && c->offcpu)
		err = pprof_comment(
			comment, n,
			pprof_str(c, "offcpu: off-CPU time (blocked, sleeping, waiting "
				     "for a CPU), charged by the same rule as the samples"));
	if (!err && c->events)
		err = pprof_comment(
			comment, n,
			pprof_str(c, "calls, event_time: exact counts and durations of "
				     "the calls, from the probes, in samples of their own"));
	return err;
}

/* Deflates buf into out as one gzip member (mtime 0: the same profile gives
 * the same bytes). */
static int pprof_gzip(FILE *out, const uint8_t *buf, size_t len)
{
	unsigned char chunk[16384];
	size_t left = len, take, have;
	z_stream zs = {};
	int zerr, err = 0;

	/* Fastest deflate: a 20% larger file, written in half the time (bench/files.sh). */
	zerr = deflateInit2(&zs, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
	if (zerr != Z_OK)
		return zerr == Z_MEM_ERROR ? -ENOMEM : -EIO;
	zs.next_in = (Bytef *)buf;
	do {
		if (!zs.avail_in && left) {
			take = left > (1U << 30) ? (1U << 30) : left;
			zs.avail_in = (uInt)take;
			left -= take;
		}
		zs.next_out = chunk;
		zs.avail_out = sizeof(chunk);
		zerr = deflate(&zs, left ? Z_NO_FLUSH : Z_FINISH);
		if (zerr == Z_STREAM_ERROR) {
			err = -EIO;
			break;
		}
		have = sizeof(chunk) - zs.avail_out;
		if (have && fwrite(chunk, 1, have, out) != have) {
			err = errno ? -errno : -EIO;
			break;
		}
	} while (zerr != Z_STREAM_END);
	deflateEnd(&zs);
	return err;
}

/* The protobuf-c view of the collected profile: the message and the arrays
 * of structures and pointers it wants, over the tables of pprof_ctx. */
struct pprof_pack {
	Perftools__Profiles__Profile prof;
	Perftools__Profiles__ValueType types[PPROF_MAX_TYPES + 1], *type_ptrs[PPROF_MAX_TYPES];
	Perftools__Profiles__Mapping map, *map_ptr;
	int64_t comment[5];
	Perftools__Profiles__Sample *samples, **sample_ptrs;
	Perftools__Profiles__Location *locs, **loc_ptrs;
	Perftools__Profiles__Line *lines, **line_ptrs;
	Perftools__Profiles__Function **func_ptrs;
};

/* The sample types (and the period type after them); *cpu the string of
 * "cpu". Strings are added here, in this order, before the comments'. */
static int pprof_pack_types(struct pprof_ctx *c, struct pprof_pack *pk, int64_t *cpu)
{
	int64_t v[10];
	size_t i, n;

	v[0] = pprof_str(c, "samples");
	v[1] = pprof_str(c, "count");
	v[2] = pprof_str(c, "cpu");
	v[3] = pprof_str(c, "nanoseconds");
	n = 4;
	if (c->offcpu) {
		v[n++] = pprof_str(c, "offcpu");
		v[n++] = v[3];
	}
	if (c->events) {
		v[n++] = pprof_str(c, "calls");
		v[n++] = v[1];
		v[n++] = pprof_str(c, "event_time");
		v[n++] = v[3];
	}
	for (i = 0; i < n; i++) {
		if (v[i] < 0)
			return (int)v[i];
	}
	c->nr_types = n / 2;
	for (i = 0; i <= c->nr_types; i++)
		perftools__profiles__value_type__init(&pk->types[i]);
	for (i = 0; i < c->nr_types; i++) {
		pk->types[i].type = v[2 * i];
		pk->types[i].unit = v[2 * i + 1];
		pk->type_ptrs[i] = &pk->types[i];
	}
	pk->types[c->nr_types] = pk->types[1]; /* the period type */
	*cpu = v[2];
	return 0;
}

/* Everything of the message but its samples and locations. */
static int pprof_pack_header(struct pprof_ctx *c, struct pprof_pack *pk)
{
	const struct profile_meta *m = profile__meta(c->p);
	Perftools__Profiles__Profile *prof = &pk->prof;
	int64_t cpu = 0;
	size_t n;
	int err;

	/* Every string first: the table must not grow after it is shared. */
	err = pprof_pack_types(c, pk, &cpu);
	if (!err)
		err = pprof_comments(c, pk->comment, &n);
	if (err)
		return err;
	prof->n_sample_type = c->nr_types;
	prof->sample_type = pk->type_ptrs;
	/* Readers show the last type unless told: cpu stays the default. */
	if (c->nr_types > 2)
		prof->default_sample_type = cpu;
	prof->period_type = &pk->types[c->nr_types];
	prof->period = clamp_i64(c->period);
	prof->time_nanos = pprof_nanos(m->start_time);
	prof->duration_nanos = pprof_nanos(m->duration_s);
	prof->n_comment = n;
	prof->comment = pk->comment;
	/* One mapping for all locations, marked symbolized: without it pprof
	 * makes one up and warns that its binary is unknown. */
	pk->map.id = 1;
	pk->map.has_functions = 1;
	pk->map_ptr = &pk->map;
	prof->n_mapping = 1;
	prof->mapping = &pk->map_ptr;
	prof->n_string_table = c->nr_strs;
	prof->string_table = c->strs;
	return 0;
}

/* The samples, one location (of one line) per function, the functions. */
static int pprof_pack_tables(struct pprof_ctx *c, struct pprof_pack *pk)
{
	size_t i, n;

	pk->samples = calloc(c->nr_samples + 1, sizeof(*pk->samples));
	pk->sample_ptrs = calloc(c->nr_samples + 1, sizeof(*pk->sample_ptrs));
	pk->locs = calloc(c->nr_funcs + 1, sizeof(*pk->locs));
	pk->loc_ptrs = calloc(c->nr_funcs + 1, sizeof(*pk->loc_ptrs));
	pk->lines = calloc(c->nr_funcs + 1, sizeof(*pk->lines));
	pk->line_ptrs = calloc(c->nr_funcs + 1, sizeof(*pk->line_ptrs));
	pk->func_ptrs = calloc(c->nr_funcs + 1, sizeof(*pk->func_ptrs));
	if (!pk->samples || !pk->sample_ptrs || !pk->locs || !pk->loc_ptrs || !pk->lines ||
	    !pk->line_ptrs || !pk->func_ptrs)
		return -ENOMEM;
	for (i = 0; i < c->nr_labels; i++) {
		for (n = 0; n < c->labels[i].n; n++)
			c->labels[i].ptr[n] = &c->labels[i].label[n];
	}
	for (i = 0; i < c->nr_samples; i++) {
		struct pprof_sample *s = &c->samples[i];
		struct pprof_labels *l = &c->labels[s->labels];
		Perftools__Profiles__Sample *ps = &pk->samples[i];

		perftools__profiles__sample__init(ps);
		ps->n_location_id = s->n_loc;
		ps->location_id = s->loc;
		ps->n_value = c->nr_types;
		ps->value = s->value;
		ps->n_label = l->n;
		ps->label = l->ptr;
		pk->sample_ptrs[i] = ps;
	}
	for (i = 0; i < c->nr_funcs; i++) {
		perftools__profiles__line__init(&pk->lines[i]);
		pk->lines[i].function_id = c->funcs[i].id;
		pk->line_ptrs[i] = &pk->lines[i];
		perftools__profiles__location__init(&pk->locs[i]);
		pk->locs[i].id = c->funcs[i].id;
		pk->locs[i].mapping_id = pk->map.id;
		pk->locs[i].n_line = 1;
		pk->locs[i].line = &pk->line_ptrs[i];
		pk->loc_ptrs[i] = &pk->locs[i];
		pk->func_ptrs[i] = &c->funcs[i];
	}
	pk->prof.n_sample = c->nr_samples;
	pk->prof.sample = pk->sample_ptrs;
	pk->prof.n_location = c->nr_funcs;
	pk->prof.location = pk->loc_ptrs;
	pk->prof.n_function = c->nr_funcs;
	pk->prof.function = pk->func_ptrs;
	return 0;
}

static void pprof_pack_fini(struct pprof_pack *pk)
{
	free(pk->samples);
	free(pk->sample_ptrs);
	free(pk->locs);
	free(pk->loc_ptrs);
	free(pk->lines);
	free(pk->line_ptrs);
	free(pk->func_ptrs);
}

/* Packs the collected profile and writes it compressed. */
static int pprof_write(struct pprof_ctx *c, FILE *out)
{
	struct pprof_pack pk = {
		.prof = PERFTOOLS__PROFILES__PROFILE__INIT,
		.map = PERFTOOLS__PROFILES__MAPPING__INIT,
	};
	uint8_t *buf = NULL;
	size_t len;
	int err;

	err = pprof_pack_header(c, &pk);
	if (!err)
		err = pprof_pack_tables(c, &pk);
	if (err)
		goto cleanup;
	len = perftools__profiles__profile__get_packed_size(&pk.prof);
	buf = malloc(len ? len : 1);
	if (!buf) {
		err = -ENOMEM;
		goto cleanup;
	}
	if (perftools__profiles__profile__pack(&pk.prof, buf) != len) {
		err = -EIO;
		goto cleanup;
	}
	errno = 0;
	err = pprof_gzip(out, buf, len);
	if (!err)
		err = flush_status(out);
cleanup:
	free(buf);
	pprof_pack_fini(&pk);
	return err;
}

static void pprof_ctx_fini(struct pprof_ctx *c)
{
	size_t i;

	for (i = 0; i < c->nr_strs; i++)
		free(c->strs[i]);
	free(c->strs);
	hashmap__fini(&c->str_map);
	free(c->funcs);
	hashmap__fini(&c->func_map);
	free(c->labels);
	hashmap__fini(&c->thread_map);
	hashmap__fini(&c->pcomms);
	hashmap__fini(&c->nspids);
	free(c->samples);
}

int report__pprof(FILE *out, const struct profile *p, const struct report_opts *opts)
{
	struct pprof_ctx c = {
		.str_map = HASHMAP_INIT,
		.func_map = HASHMAP_INIT,
		.thread_map = HASHMAP_INIT,
		.pcomms = HASHMAP_INIT,
		.nspids = HASHMAP_INIT,
	};
	struct report_charges charges = {};
	struct report_scope scope;
	int64_t empty;
	int err;

	if (!out || !p)
		return -EINVAL;
	/* A process filter: the samples and events of the filtered profile. */
	err = report_scope__init(&scope, p, opts);
	if (err)
		return err;
	c.p = scope.p;
	c.whole = scope.whole;
	c.opts = opts;
	c.feature = scope.feature;
	c.feat = &scope.feat;
	c.period = report_period_ns(profile__meta(c.p));
	c.offcpu = profile__total_offcpu_ns(c.p) > 0;
	c.events = profile__nr_events(c.p) > 0;
	empty = pprof_str(&c, ""); /* string_table[0] must be "" */
	err = empty < 0 ? (int)empty : report_charges__init(&charges, c.p);
	if (!err)
		err = pprof_threads(&c);
	if (!err)
		err = pprof_samples(&c, &charges);
	if (!err)
		err = pprof_events(&c);
	if (!err && c.feature && !c.nr_samples)
		err = -ENOENT; /* nothing written: the caller says why */
	if (!err)
		err = pprof_write(&c, out);
	report_charges__fini(&charges);
	pprof_ctx_fini(&c);
	report_scope__fini(&scope);
	return err;
}
