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

#include "hashmap.h"
#include "report_pprof.h"
#include "utf8.h"
#include "util.h"

int64_t clamp_i64(uint64_t v)
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
int64_t pprof_str(struct pprof_ctx *c, const char *s)
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
int64_t pprof_function(struct pprof_ctx *c, const char *name, const char *system_name,
		       const char *filename)
{
	Perftools__Profiles__Function *f;
	int64_t n, sn, fn = 0;
	int err;

	n = pprof_str(c, name);
	if (n < 0)
		return n;
	sn = pprof_str(c, system_name);
	if (sn < 0)
		return sn;
	if (filename) {
		fn = pprof_str(c, filename);
		if (fn < 0)
			return fn;
	}
	err = fsp_grow((void **)&c->funcs, &c->cap_funcs, c->nr_funcs + 1, sizeof(*c->funcs));
	if (err)
		return err;
	f = &c->funcs[c->nr_funcs++];
	perftools__profiles__function__init(f);
	f->id = c->nr_funcs;
	f->name = n;
	f->system_name = sn;
	f->filename = fn;
	return (int64_t)f->id;
}

int64_t pprof_location(struct pprof_ctx *c, uint64_t mapping, uint64_t address,
		       const struct pprof_line *lines, size_t n)
{
	struct pprof_loc *l;
	int err;

	err = fsp_grow((void **)&c->locs, &c->cap_locs, c->nr_locs + 1, sizeof(*c->locs));
	if (!err)
		err = fsp_grow((void **)&c->lines, &c->cap_lines, c->nr_lines + n,
			       sizeof(*c->lines));
	if (err)
		return err;
	l = &c->locs[c->nr_locs++];
	l->mapping = mapping;
	l->address = address;
	l->line_off = c->nr_lines;
	l->n_line = n;
	memcpy(c->lines + c->nr_lines, lines, n * sizeof(*lines));
	c->nr_lines += n;
	return (int64_t)c->nr_locs;
}

/* The location id of a frame of fsp-bpf's own (a feature, an instance, "(no
 * feature)"): a function (name, system_name) keyed (a, b) at a location of
 * its own in the mapping of such frames, both created when new. Returns the
 * id (> 0) or -errno. */
static int64_t pprof_func(struct pprof_ctx *c, uint64_t a, uint64_t b, const char *name,
			  const char *system_name)
{
	struct pprof_line line = {0, 0};
	int64_t id, loc;
	uint64_t idx;
	int err;

	if (hashmap__find(&c->func_map, a, b, &idx))
		return (int64_t)idx + 1;
	id = pprof_function(c, name, system_name, NULL);
	if (id < 0)
		return id;
	line.func = (uint64_t)id;
	loc = pprof_location(c, PPROF_OWN_MAPPING, 0, &line, 1);
	if (loc < 0)
		return loc;
	err = hashmap__find_or_insert(&c->func_map, a, b, (uint64_t)loc - 1, NULL);
	return err < 0 ? err : loc;
}

/* The locations of a charge: [instance, feature]. */
int pprof_charge_locs(struct pprof_ctx *c, const struct charge *ch, uint64_t *locs)
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
int64_t pprof_thread(struct pprof_ctx *c, uint32_t source, uint32_t pid, uint64_t tid,
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

	if (fsp_grow((void **)&c->samples, &c->cap_samples, c->nr_samples + 1,
		     sizeof(*c->samples)) ||
	    fsp_grow((void **)&c->locpool, &c->cap_locpool, c->nr_locpool + n_loc,
		     sizeof(*c->locpool)))
		return NULL;
	s = &c->samples[c->nr_samples++];
	memset(s, 0, sizeof(*s));
	memcpy(c->locpool + c->nr_locpool, locs, n_loc * sizeof(*locs));
	s->loc_off = c->nr_locpool;
	s->n_loc = n_loc;
	c->nr_locpool += n_loc;
	s->labels = labels;
	return s;
}

/* A sample of `count` core samples and off_ns off-CPU time. */
int pprof_add(struct pprof_ctx *c, const uint64_t *locs, size_t n_loc, uint64_t count,
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
	struct charge ch;
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

int64_t pprof_no_feature(struct pprof_ctx *c)
{
	int64_t id;

	if (c->no_feature)
		return (int64_t)c->no_feature;
	id = pprof_func(c, UINT64_MAX - 1, UINT64_MAX - 1, REPORT_NO_FEATURE, REPORT_NO_FEATURE);
	if (id > 0)
		c->no_feature = (uint64_t)id;
	return id;
}

/* One pprof sample per charge of each core sample; uncharged ones at
 * "(no feature)" (but not with --feature). */
static int pprof_samples(struct pprof_ctx *c, const struct charges *charges)
{
	const struct charge *ch;
	struct profile_sample s;
	uint64_t locs[2], count;
	size_t i, j, n;
	int64_t labels, id;
	int err;

	for (i = 0; i < profile__nr_samples(c->p); i++) {
		err = profile__sample(c->p, i, &s);
		if (err)
			return err;
		/* with native stacks, the samples that have none (and the
		 * off-CPU time: native stacks are of on-CPU samples) */
		count = c->has_native ? c->native.rest[i] : s.count;
		if (c->has_native && !count && !s.offcpu_ns)
			continue;
		labels = pprof_thread(c, s.source, s.pid, s.tid, "", "");
		if (labels < 0)
			return (int)labels;
		ch = charges__of(charges, s.stack, &n);
		if (!n && !c->feature) {
			id = pprof_no_feature(c);
			if (id < 0)
				return (int)id;
			err = pprof_add(c, &c->no_feature, 1, count, s.offcpu_ns, (size_t)labels);
			if (err)
				return err;
		}
		for (j = 0; j < n; j++) {
			if (!report_features__has(c->feat, ch[j].feature))
				continue;
			err = pprof_charge_locs(c, &ch[j], locs);
			if (!err)
				err = pprof_add(c, locs, 2, count, s.offcpu_ns, (size_t)labels);
			if (err)
				return err;
		}
	}
	return 0;
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
	free(c->locpool);
	free(c->locs);
	free(c->lines);
	pprof_native__fini(c);
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
	struct charges charges = {};
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
	c.period = profile_meta__period_ns(profile__meta(c.p));
	c.offcpu = profile__total_offcpu_ns(c.p) > 0;
	c.events = profile__nr_events(c.p) > 0;
	empty = pprof_str(&c, ""); /* string_table[0] must be "" */
	err = empty < 0 ? (int)empty : charges__init(&charges, c.p);
	if (!err)
		err = pprof_threads(&c);
	if (!err)
		err = pprof_native__init(&c);
	if (!err)
		err = pprof_samples(&c, &charges);
	if (!err && c.has_native)
		err = pprof_native__samples(&c, &charges);
	if (!err)
		err = pprof_events(&c);
	if (!err && c.feature && !c.nr_samples)
		err = -ENOENT; /* nothing written: the caller says why */
	if (!err)
		err = pprof_write(&c, out);
	charges__fini(&charges);
	pprof_ctx_fini(&c);
	report_scope__fini(&scope);
	return err;
}
