// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Views of a profile shared by the renderers: words, orders, names, charges. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"
#include "report_util.h"
#include "report_view.h"
#include "util.h"

/* The index of s in names (n of them), or -EINVAL. */
static int parse_word(const char *s, const char *const *names, int n)
{
	for (int i = 0; s && i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -EINVAL;
}

int report_by__parse(const char *s, enum report_by *out)
{
	static const char *const names[] = {
		[REPORT_BY_FEATURE] = "feature",
		[REPORT_BY_THREAD] = "thread",
		[REPORT_BY_PROCESS] = "process",
	};
	int i = parse_word(s, names, 3);

	if (i < 0 || !out)
		return -EINVAL;
	*out = i;
	return 0;
}

int report_order__parse(const char *s, enum report_order *out)
{
	static const char *const names[] = {
		[REPORT_ORDER_COST] = "cost",
		[REPORT_ORDER_SAMPLES] = "samples",
		[REPORT_ORDER_NAME] = "name",
	};
	int i = parse_word(s, names, 3);

	if (i < 0 || !out)
		return -EINVAL;
	*out = i;
	return 0;
}

int report_value__parse(const char *s, enum report_value *out)
{
	static const char *const names[] = {
		[REPORT_VALUE_SAMPLES] = "samples",
		[REPORT_VALUE_OFFCPU] = "offcpu",
		[REPORT_VALUE_WALL] = "wall",
	};
	int i = parse_word(s, names, 3);

	if (i < 0 || !out)
		return -EINVAL;
	*out = i;
	return 0;
}

uint64_t report_cost_ns(uint64_t samples, uint64_t period_ns)
{
	if (period_ns && samples > UINT64_MAX / period_ns)
		return UINT64_MAX;
	return samples * period_ns;
}

uint64_t report_charged_ns(uint64_t samples, uint64_t offcpu_ns, uint64_t period_ns)
{
	return report_sat_add(report_cost_ns(samples, period_ns), offcpu_ns);
}

int report_key__cmp(enum report_order o, const struct report_key *a, const struct report_key *b)
{
	int c = 0;

	switch (o) {
	case REPORT_ORDER_COST:
		/* Cost is its own key (it includes off-CPU time); samples only
		 * break its ties, and order alone when no period is known. */
		c = fsp_cmp_u64(b->cost_ns, a->cost_ns);
		if (!c)
			c = fsp_cmp_u64(b->samples, a->samples);
		break;
	case REPORT_ORDER_SAMPLES:
		c = fsp_cmp_u64(b->samples, a->samples);
		break;
	case REPORT_ORDER_NAME:
		break;
	}
	return c ? c : strcmp(a->name, b->name);
}

/* qsort passes no context to its comparison: each element carries the order
 * (no global state, so renderers may run on several threads at once). */
struct sort_thread {
	struct report_thread t;
	enum report_order o;
};

static int cmp_ids(uint32_t sa, uint32_t pa, uint32_t ta, uint32_t sb, uint32_t pb, uint32_t tb)
{
	int c = fsp_cmp_u64(sa, sb);

	if (!c)
		c = fsp_cmp_u64(pa, pb);
	return c ? c : fsp_cmp_u64(ta, tb);
}

static int cmp_thread(const void *x, const void *y)
{
	const struct sort_thread *a = x, *b = y;
	int c = report_key__cmp(a->o, &a->t.key, &b->t.key);

	return c ? c : cmp_ids(a->t.source, a->t.pid, a->t.tid, b->t.source, b->t.pid, b->t.tid);
}

struct sort_process {
	struct report_process pr;
	enum report_order o;
};

static int cmp_process(const void *x, const void *y)
{
	const struct sort_process *a = x, *b = y;
	int c = report_key__cmp(a->o, &a->pr.key, &b->pr.key);

	return c ? c : cmp_ids(a->pr.source, a->pr.pid, 0, b->pr.source, b->pr.pid, 0);
}

/* The off-CPU time of each thread of p, in profile__thread order, into
 * off[nr_threads] (zeroed first). 0 or -errno. */
static int thread_offcpu(const struct profile *p, uint64_t *off)
{
	size_t i, n = profile__nr_threads(p);
	struct hashmap index = HASHMAP_INIT;
	struct profile_thread pt;
	struct profile_sample s;
	uint64_t idx;
	int err = 0;

	memset(off, 0, n * sizeof(*off));
	if (!profile__total_offcpu_ns(p))
		return 0;
	for (i = 0; i < n; i++) {
		err = profile__thread(p, i, &pt);
		if (err)
			goto cleanup;
		err = hashmap__find_or_insert(&index, (uint64_t)pt.source << 32 | pt.pid, pt.tid, i,
					      NULL);
		if (err < 0)
			goto cleanup;
		err = 0;
	}
	for (i = 0; i < profile__nr_samples(p); i++) {
		err = profile__sample(p, i, &s);
		if (err)
			goto cleanup;
		/* every sample's thread is registered */
		if (s.offcpu_ns &&
		    hashmap__find(&index, (uint64_t)s.source << 32 | s.pid, s.tid, &idx))
			off[idx] = report_sat_add(off[idx], s.offcpu_ns);
	}
cleanup:
	hashmap__fini(&index);
	return err;
}

/* (source, pid) -> nspid of the processes of p that have one. 0 or -errno. */
static int process_nspids(const struct profile *p, struct hashmap *map)
{
	struct profile_process pp;
	size_t i;
	int err;

	for (i = 0; i < profile__nr_pids(p); i++) {
		err = profile__process(p, i, &pp);
		if (err)
			return err;
		if (!pp.nspid)
			continue;
		err = hashmap__find_or_insert(map, pp.source, pp.pid, pp.nspid, NULL);
		if (err < 0)
			return err;
	}
	return 0;
}

int report_threads(const struct profile *p, enum report_order o, struct report_thread **out,
		   size_t *nr)
{
	size_t i, n = profile__nr_threads(p);
	uint64_t period = report_period_ns(profile__meta(p));
	struct hashmap nspids = HASHMAP_INIT;
	struct sort_thread *s = NULL;
	struct report_thread *t = NULL;
	struct profile_thread pt;
	uint64_t *off = NULL, ns;
	int err = 0;

	*out = NULL;
	*nr = 0;
	if (!n)
		return 0;
	s = calloc(n, sizeof(*s));
	t = calloc(n, sizeof(*t));
	off = calloc(n, sizeof(*off));
	if (!s || !t || !off) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = thread_offcpu(p, off);
	if (!err)
		err = process_nspids(p, &nspids);
	if (err)
		goto cleanup;
	for (i = 0; i < n; i++) {
		err = profile__thread(p, i, &pt);
		if (err)
			goto cleanup;
		s[i].o = o;
		s[i].t.source = pt.source;
		s[i].t.pid = pt.pid;
		if (hashmap__find(&nspids, pt.source, pt.pid, &ns))
			s[i].t.nspid = (uint32_t)ns;
		s[i].t.tid = pt.tid;
		s[i].t.comm = pt.comm;
		s[i].t.offcpu_ns = off[i];
		s[i].t.key.samples = pt.samples;
		s[i].t.key.cost_ns = report_charged_ns(pt.samples, off[i], period);
		s[i].t.key.name = pt.comm;
	}
	qsort(s, n, sizeof(*s), cmp_thread);
	for (i = 0; i < n; i++)
		t[i] = s[i].t;
	*out = t;
	*nr = n;
	t = NULL;
cleanup:
	hashmap__fini(&nspids);
	free(s);
	free(t);
	free(off);
	return err;
}

int report_processes(const struct profile *p, enum report_order o, struct report_process **out,
		     size_t *nr)
{
	size_t i, n = profile__nr_pids(p), nt = profile__nr_threads(p);
	size_t ne = profile__nr_events(p);
	struct hashmap index = HASHMAP_INIT;
	uint64_t period = report_period_ns(profile__meta(p));
	struct report_process *pr = NULL;
	struct sort_process *s = NULL;
	struct profile_process pp;
	struct profile_thread pt;
	struct profile_event ev;
	uint64_t idx, *off = NULL;
	int err = 0;

	*out = NULL;
	*nr = 0;
	if (!n && !ne)
		return 0;
	/* room for processes known only by their events */
	s = calloc(n + ne, sizeof(*s));
	pr = calloc(n + ne, sizeof(*pr));
	off = calloc(nt ? nt : 1, sizeof(*off));
	if (!s || !pr || !off) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = thread_offcpu(p, off);
	if (err)
		goto cleanup;
	for (i = 0; i < n; i++) {
		err = profile__process(p, i, &pp);
		if (err)
			goto cleanup;
		err = hashmap__find_or_insert(&index, pp.source, pp.pid, i, NULL);
		if (err < 0)
			goto cleanup;
		err = 0;
		s[i].o = o;
		s[i].pr.source = pp.source;
		s[i].pr.pid = pp.pid;
		s[i].pr.nspid = pp.nspid;
		s[i].pr.comm = "";
	}
	for (i = 0; i < ne; i++) {
		err = profile__event(p, i, &ev);
		if (err)
			goto cleanup;
		err = hashmap__find_or_insert(&index, ev.source, ev.pid, n, NULL);
		if (err < 0)
			goto cleanup;
		if (!err) {
			s[n].o = o;
			s[n].pr.source = ev.source;
			s[n].pr.pid = ev.pid;
			s[n].pr.comm = "";
			n++;
		}
		err = 0;
	}
	for (i = 0; i < nt; i++) {
		struct report_process *r;

		err = profile__thread(p, i, &pt);
		if (err)
			goto cleanup;
		if (!hashmap__find(&index, pt.source, pt.pid, &idx))
			continue; /* every thread's process is registered */
		r = &s[idx].pr;
		r->key.samples += pt.samples;
		r->offcpu_ns = report_sat_add(r->offcpu_ns, off[i]);
		r->nr_threads++;
		if (pt.tid == pt.pid)
			r->comm = pt.comm;
	}
	for (i = 0; i < n; i++) {
		s[i].pr.key.cost_ns =
			report_charged_ns(s[i].pr.key.samples, s[i].pr.offcpu_ns, period);
		s[i].pr.key.name = s[i].pr.comm;
	}
	qsort(s, n, sizeof(*s), cmp_process);
	for (i = 0; i < n; i++)
		pr[i] = s[i].pr;
	*out = pr;
	*nr = n;
	pr = NULL;
cleanup:
	hashmap__fini(&index);
	free(s);
	free(pr);
	free(off);
	return err;
}

bool report_source_name(const struct profile *p, uint32_t source, char *buf, size_t size)
{
	struct profile_source src, other;
	size_t i, n = profile__nr_sources(p);
	const char *host;
	bool shared = false;

	if (profile__source(p, source, &src) || !src.meta->host || !*src.meta->host) {
		snprintf(buf, size, "source %u", source);
		return false;
	}
	host = src.meta->host;
	for (i = 0; i < n && !shared; i++)
		shared = i != source && !profile__source(p, i, &other) && other.meta->host &&
			 !strcmp(other.meta->host, host);
	if (shared)
		snprintf(buf, size, "%s#%u", host, source);
	else
		snprintf(buf, size, "%s", host);
	return true;
}

void report_pid_name(const struct profile *p, uint32_t source, uint32_t pid, char *buf, size_t size)
{
	char src[256];

	if (profile__nr_sources(p) <= 1) {
		snprintf(buf, size, "%u", pid);
		return;
	}
	report_source_name(p, source, src, sizeof(src));
	snprintf(buf, size, "%s:%u", src, pid);
}

void report_charges__fini(struct report_charges *c)
{
	if (!c)
		return;
	free(c->first);
	free(c->charges);
	memset(c, 0, sizeof(*c));
}

int report_charges__init(struct report_charges *c, const struct profile *p)
{
	size_t i, j, k, n = profile__nr_stacks(p), nr = 0, cap = 0;
	struct profile_stack st;
	int err = 0;

	memset(c, 0, sizeof(*c));
	c->first = calloc(n + 1, sizeof(*c->first));
	if (!c->first)
		return -ENOMEM;
	c->nr_stacks = n;
	for (i = 0; i < n; i++) {
		err = profile__stack(p, i, &st);
		if (err)
			goto cleanup;
		c->first[i] = nr;
		err = fsp_grow((void **)&c->charges, &cap, nr + st.depth, sizeof(*c->charges));
		if (err)
			goto cleanup;
		/* Top-down: the first frame seen of a feature decides for it.
		 * Feature names are interned by the profile: equal names are
		 * equal pointers. */
		for (j = st.depth; j-- > 0;) {
			const struct profile_frame *fr = &st.frames[j];
			bool decided = false;

			for (k = j + 1; k < st.depth && !decided; k++)
				decided = st.frames[k].feature == fr->feature;
			if (decided || fr->kind != PROFILE_MARK)
				continue;
			c->charges[nr].feature = fr->feature;
			/* As attrib.c: the label "(no instance)" is the NULL instance. */
			c->charges[nr].instance =
				fr->instance && strcmp(fr->instance, ATTRIB_NO_INSTANCE)
					? fr->instance
					: ATTRIB_NO_INSTANCE;
			nr++;
		}
	}
	c->first[n] = nr;
cleanup:
	if (err)
		report_charges__fini(c);
	return err;
}

const struct report_charge *report_charges__of(const struct report_charges *c, size_t stack,
					       size_t *n)
{
	*n = 0;
	if (stack == PROFILE_NO_STACK || stack >= c->nr_stacks)
		return NULL;
	*n = c->first[stack + 1] - c->first[stack];
	return *n ? c->charges + c->first[stack] : NULL;
}

bool report_feature_matches(const char *filter, const char *name)
{
	const char *colon;

	if (!strcmp(filter, name))
		return true;
	/* "plan" also names a mapped feature "postgresql:plan". */
	colon = strchr(name, ':');
	return colon && !strchr(filter, ':') && !strcmp(colon + 1, filter);
}

const struct attrib_feature *report_find_feature(const struct attrib *a, const char *name)
{
	const struct attrib_feature *f;
	size_t i;

	for (i = 0; i < attrib__nr_features(a); i++) {
		f = attrib__feature(a, i);
		if (report_feature_matches(name, f->name))
			return f;
	}
	return NULL;
}

/* ---- lists of the view options: --feature, --comm, --pid ------------------------ */

/* The non-empty elements of the comma-separated list s, each once, in order,
 * into names (pointers into *buf, which the caller frees with names). 0 or
 * -ENOMEM. */
static int split_list(const char *s, char **buf, const char ***names, size_t *nr)
{
	size_t i, n = 0, cap = 1;
	char *b, *tok, *save = NULL;
	const char **v;

	*buf = NULL;
	*names = NULL;
	*nr = 0;
	for (i = 0; s[i]; i++)
		cap += s[i] == ',';
	b = strdup(s);
	v = calloc(cap, sizeof(*v));
	if (!b || !v) {
		free(b);
		free(v);
		return -ENOMEM;
	}
	for (tok = strtok_r(b, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < n && strcmp(v[i], tok); i++)
			;
		if (i == n)
			v[n++] = tok;
	}
	*buf = b;
	*names = v;
	*nr = n;
	return 0;
}

int report_pids__parse(const char *s, uint32_t *out, size_t max)
{
	uint64_t v = 0;
	size_t n = 0;
	bool digits = false;

	if (!s)
		return -EINVAL;
	for (;; s++) {
		if (*s >= '0' && *s <= '9') {
			v = v * 10 + (uint64_t)(*s - '0');
			if (v > REPORT_PID_MAX)
				return -EINVAL;
			digits = true;
			continue;
		}
		if (*s && *s != ',')
			return -EINVAL;
		if (digits) {
			if (!v || n >= INT32_MAX)
				return -EINVAL;
			if (n < max)
				out[n] = (uint32_t)v;
			n++;
		}
		if (!*s)
			break;
		v = 0;
		digits = false;
	}
	return n ? (int)n : -EINVAL;
}

/* Whether a frame or an event record of p names feature `name`. */
static bool profile_has_feature(const struct profile *p, const char *name)
{
	struct profile_stack st;
	struct profile_event ev;
	size_t i, j;

	for (i = 0; i < profile__nr_stacks(p); i++) {
		if (profile__stack(p, i, &st))
			continue;
		for (j = 0; j < st.depth; j++) {
			if (!strcmp(st.frames[j].feature, name))
				return true;
		}
	}
	for (i = 0; i < profile__nr_events(p); i++) {
		if (!profile__event(p, i, &ev) && !strcmp(ev.feature, name))
			return true;
	}
	return false;
}

int report_features__init(struct report_features *s, const struct profile *p, const char *arg)
{
	memset(s, 0, sizeof(*s));
	if (!arg) {
		s->all = true;
		return 0;
	}
	if (strchr(arg, ',') && profile_has_feature(p, arg)) {
		/* a name with a comma, not a list */
		s->buf = strdup(arg);
		s->names = calloc(1, sizeof(*s->names));
		if (!s->buf || !s->names) {
			report_features__fini(s);
			return -ENOMEM;
		}
		s->names[0] = s->buf;
		s->nr = 1;
		return 0;
	}
	return split_list(arg, &s->buf, &s->names, &s->nr);
}

void report_features__fini(struct report_features *s)
{
	if (!s)
		return;
	free(s->buf);
	free(s->names);
	memset(s, 0, sizeof(*s));
}

bool report_features__has(const struct report_features *s, const char *name)
{
	size_t i;

	if (s->all)
		return true;
	for (i = 0; i < s->nr; i++) {
		if (report_feature_matches(s->names[i], name))
			return true;
	}
	return false;
}

/* ---- process filters: report__filter -------------------------------------------- */

/* The kernel keeps comms of at most 15 bytes (TASK_COMM_LEN - 1). */
#define REPORT_COMM_LEN 15

struct report_procsel {
	const struct profile *p;
	const char **comms; /* NULL: no comm filter */
	size_t nr_comms;
	char *comm_buf;
	uint32_t *pids; /* NULL: no pid filter */
	size_t nr_pids;
	struct hashmap pcomms; /* (source, pid) -> main thread's comm (pointer) */
	struct hashmap nspids; /* (source, pid) -> nspid, when it has one */
	struct hashmap decided; /* (source, pid) -> 1 kept, 2 not */
};

static void procsel__fini(struct report_procsel *ps)
{
	free(ps->comm_buf);
	free(ps->comms);
	free(ps->pids);
	hashmap__fini(&ps->pcomms);
	hashmap__fini(&ps->nspids);
	hashmap__fini(&ps->decided);
}

static int procsel__init(struct report_procsel *ps, const struct profile *p,
			 const struct report_opts *o)
{
	struct profile_thread t;
	size_t i;
	int n, err;

	memset(ps, 0, sizeof(*ps));
	ps->p = p;
	if (o->comm) {
		err = split_list(o->comm, &ps->comm_buf, &ps->comms, &ps->nr_comms);
		if (err)
			return err;
		if (!ps->nr_comms)
			return -EINVAL;
	}
	if (o->pid) {
		n = report_pids__parse(o->pid, NULL, 0);
		if (n < 0)
			return n;
		ps->pids = calloc((size_t)n, sizeof(*ps->pids));
		if (!ps->pids)
			return -ENOMEM;
		ps->nr_pids = (size_t)report_pids__parse(o->pid, ps->pids, (size_t)n);
	}
	for (i = 0; i < profile__nr_threads(p); i++) {
		err = profile__thread(p, i, &t);
		if (err)
			return err;
		if (t.tid != t.pid || !*t.comm)
			continue;
		err = hashmap__find_or_insert(&ps->pcomms, t.source, t.pid,
					      (uint64_t)(uintptr_t)t.comm, NULL);
		if (err < 0)
			return err;
	}
	return process_nspids(p, &ps->nspids);
}

static bool procsel__comm_matches(const struct report_procsel *ps, const char *comm)
{
	size_t i, len;

	for (i = 0; i < ps->nr_comms; i++) {
		if (!strcmp(ps->comms[i], comm))
			return true;
		/* "my-long-program-name" was named "my-long-program" */
		len = strlen(ps->comms[i]);
		if (len > REPORT_COMM_LEN && strlen(comm) == REPORT_COMM_LEN &&
		    !strncmp(ps->comms[i], comm, REPORT_COMM_LEN))
			return true;
	}
	return false;
}

static bool procsel__pid_matches(const struct report_procsel *ps, uint32_t pid, uint32_t nspid)
{
	size_t i;

	for (i = 0; i < ps->nr_pids; i++) {
		if (ps->pids[i] == pid || (nspid && ps->pids[i] == nspid))
			return true;
	}
	return false;
}

/* Whether process (source, pid) is kept: 1, 0, or -ENOMEM. */
static int procsel__keep(struct report_procsel *ps, uint32_t source, uint32_t pid)
{
	const char *comm = "";
	uint64_t v, nspid = 0;
	bool keep = true;
	int err;

	if (hashmap__find(&ps->decided, source, pid, &v))
		return v == 1;
	if (ps->comms) {
		if (hashmap__find(&ps->pcomms, source, pid, &v))
			comm = (const char *)(uintptr_t)v;
		keep = procsel__comm_matches(ps, comm);
	}
	if (keep && ps->pids) {
		hashmap__find(&ps->nspids, source, pid, &nspid);
		keep = procsel__pid_matches(ps, pid, (uint32_t)nspid);
	}
	err = hashmap__find_or_insert(&ps->decided, source, pid, keep ? 1 : 2, NULL);
	return err < 0 ? err : keep;
}

/* Copies p's metadata, sources and diagnostics to f. */
static int filter_meta(struct profile *f, const struct profile *p)
{
	struct profile_source src;
	size_t i;
	int d, err;

	err = profile__set_meta(f, profile__meta(p));
	if (err)
		return err;
	for (d = 0; d < DIAG__COUNT; d++)
		profile__set_diag(f, d, profile__diag(p, d));
	for (i = 0; i < profile__nr_sources(p); i++) {
		err = profile__source(p, i, &src);
		if (err)
			return err;
		err = profile__add_source(f, src.meta, src.diag);
		if (err < 0)
			return err;
	}
	return 0;
}

/* Copies the records of p's kept processes to f (report__filter). */
static int filter_records(struct profile *f, const struct profile *p, struct report_procsel *ps)
{
	struct profile_process pp;
	struct profile_thread t;
	struct profile_stack st;
	struct profile_sample s;
	struct profile_event ev;
	size_t i;
	int keep, err = 0;

	for (i = 0; i < profile__nr_pids(p) && !err; i++) {
		err = profile__process(p, i, &pp);
		keep = err ? 0 : procsel__keep(ps, pp.source, pp.pid);
		if (keep <= 0) {
			err = err ? err : keep;
			continue;
		}
		err = profile__use_source(f, pp.source);
		if (!err)
			err = profile__add_pid(f, pp.pid);
		if (!err && pp.nspid)
			err = profile__set_process_nspid(f, pp.pid, pp.nspid);
	}
	for (i = 0; i < profile__nr_threads(p) && !err; i++) {
		err = profile__thread(p, i, &t);
		keep = err ? 0 : procsel__keep(ps, t.source, t.pid);
		if (keep <= 0) {
			err = err ? err : keep;
			continue;
		}
		err = profile__use_source(f, t.source);
		if (!err)
			err = profile__add_thread(f, t.pid, t.tid, t.comm);
	}
	for (i = 0; i < profile__nr_stacks(p) && !err; i++) {
		err = profile__stack(p, i, &st);
		keep = err ? 0 : procsel__keep(ps, st.source, st.pid);
		if (keep <= 0) {
			err = err ? err : keep;
			continue;
		}
		err = profile__use_source(f, st.source);
		if (!err)
			err = profile__add_stack(f, st.pid, st.key, st.frames, st.depth);
	}
	for (i = 0; i < profile__nr_samples(p) && !err; i++) {
		err = profile__sample(p, i, &s);
		keep = err ? 0 : procsel__keep(ps, s.source, s.pid);
		if (keep <= 0) {
			err = err ? err : keep;
			continue;
		}
		err = profile__use_source(f, s.source);
		if (!err)
			err = profile__add_samples(f, s.pid, s.tid, s.key, s.count);
		if (!err || (err == -ENOENT && !s.known))
			err = profile__add_offcpu(f, s.pid, s.tid, s.key, s.offcpu_ns);
		/* samples of a stack p never stored stay unknown, and counted */
		if (err == -ENOENT && !s.known)
			err = 0;
	}
	for (i = 0; i < profile__nr_events(p) && !err; i++) {
		err = profile__event(p, i, &ev);
		keep = err ? 0 : procsel__keep(ps, ev.source, ev.pid);
		if (keep <= 0) {
			err = err ? err : keep;
			continue;
		}
		err = profile__use_source(f, ev.source);
		if (!err)
			err = profile__add_events(f, ev.pid, ev.feature, ev.instance, ev.stats);
	}
	if (!err)
		err = profile__use_source(f, 0);
	return err;
}

int report__filter(const struct profile *p, const struct report_opts *opts, struct profile **out)
{
	struct report_procsel ps;
	struct profile *f = NULL;
	int err;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!p)
		return -EINVAL;
	if (!opts || (!opts->comm && !opts->pid))
		return 0;
	err = procsel__init(&ps, p, opts);
	if (err)
		goto cleanup;
	f = profile__new();
	if (!f) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = filter_meta(f, p);
	if (!err)
		err = filter_records(f, p, &ps);
cleanup:
	procsel__fini(&ps);
	if (err) {
		profile__free(f);
		return err;
	}
	*out = f;
	return 0;
}
