// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The process filter of the renderers (report__filter: --comm, --pid) and
 * what every renderer starts from (report_scope).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"
#include "native.h"
#include "report_view.h"
#include "util.h"

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
	int n, err;

	memset(ps, 0, sizeof(*ps));
	ps->p = p;
	if (o->comm) {
		err = report_split_list(o->comm, &ps->comm_buf, &ps->comms, &ps->nr_comms);
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
	err = report_process_comms(p, &ps->pcomms);
	return err ? err : report_process_nspids(p, &ps->nspids);
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

/* Whether the records of process (source, pid) are copied: 1 (f's records
 * now go to that source), 0, or -errno. */
static int filter_keep(struct report_procsel *ps, struct profile *f, uint32_t source, uint32_t pid)
{
	int keep = procsel__keep(ps, source, pid);

	if (keep <= 0)
		return keep;
	keep = profile__use_source(f, source);
	return keep ? keep : 1;
}

/* Copies the processes and threads of p's kept processes to f. */
static int filter_tasks(struct profile *f, const struct profile *p, struct report_procsel *ps)
{
	struct profile_process pp;
	struct profile_thread t;
	size_t i;
	int keep, err = 0;

	for (i = 0; i < profile__nr_pids(p) && !err; i++) {
		err = profile__process(p, i, &pp);
		keep = err ? err : filter_keep(ps, f, pp.source, pp.pid);
		if (keep <= 0) {
			err = keep;
			continue;
		}
		err = profile__add_pid(f, pp.pid);
		if (!err && pp.nspid)
			err = profile__set_process_nspid(f, pp.pid, pp.nspid);
	}
	for (i = 0; i < profile__nr_threads(p) && !err; i++) {
		err = profile__thread(p, i, &t);
		keep = err ? err : filter_keep(ps, f, t.source, t.pid);
		if (keep <= 0) {
			err = keep;
			continue;
		}
		err = profile__add_thread(f, t.pid, t.tid, t.comm);
	}
	return err;
}

/* Copies the stacks, samples and events of p's kept processes to f. */
static int filter_records(struct profile *f, const struct profile *p, struct report_procsel *ps)
{
	struct profile_stack st;
	struct profile_sample s;
	struct profile_event ev;
	size_t i;
	int keep, err = 0;

	for (i = 0; i < profile__nr_stacks(p) && !err; i++) {
		err = profile__stack(p, i, &st);
		keep = err ? err : filter_keep(ps, f, st.source, st.pid);
		if (keep <= 0) {
			err = keep;
			continue;
		}
		err = profile__add_stack(f, st.pid, st.key, st.frames, st.depth);
		if (!err && st.flags)
			err = profile__set_stack_flags(f, profile__nr_stacks(f) - 1, st.flags);
	}
	for (i = 0; i < profile__nr_samples(p) && !err; i++) {
		err = profile__sample(p, i, &s);
		keep = err ? err : filter_keep(ps, f, s.source, s.pid);
		if (keep <= 0) {
			err = keep;
			continue;
		}
		err = profile__add_samples(f, s.pid, s.tid, s.key, s.count);
		if (!err || (err == -ENOENT && !s.known))
			err = profile__add_offcpu(f, s.pid, s.tid, s.key, s.offcpu_ns);
		/* samples of a stack p never stored stay unknown, and counted */
		if (err == -ENOENT && !s.known)
			err = 0;
	}
	for (i = 0; i < profile__nr_events(p) && !err; i++) {
		err = profile__event(p, i, &ev);
		keep = err ? err : filter_keep(ps, f, ev.source, ev.pid);
		if (keep <= 0) {
			err = keep;
			continue;
		}
		err = profile__add_events(f, ev.pid, ev.feature, ev.instance, ev.stats);
	}
	if (!err)
		err = profile__use_source(f, 0);
	return err;
}

/* Copies p's modules and locations to f; loc_map[i]: f's index of p's
 * location i. */
static int filter_locations(struct profile *f, const struct profile *p, uint32_t *loc_map)
{
	size_t i, nm = profile__nr_modules(p);
	uint32_t *mod_map = calloc(nm + 1, sizeof(*mod_map));
	struct profile_location loc;
	struct profile_module m;
	int r = 0;

	if (!mod_map)
		return -ENOMEM;
	for (i = 0; i < nm && r >= 0; i++) {
		r = profile__module(p, i, &m);
		if (!r)
			r = profile__add_module(f, &m);
		mod_map[i] = (uint32_t)r;
	}
	for (i = 0; i < profile__nr_locations(p) && r >= 0; i++) {
		r = profile__location(p, i, &loc);
		if (r)
			break;
		if (loc.module != PROFILE_NO_MODULE)
			loc.module = loc.module < nm ? mod_map[loc.module] : PROFILE_NO_MODULE;
		r = profile__add_location(f, &loc);
		loc_map[i] = (uint32_t)r;
	}
	free(mod_map);
	return r < 0 ? r : 0;
}

/* Copies p's native stacks (all: they are shared) and the native samples of
 * its kept processes to f. */
static int filter_native(struct profile *f, const struct profile *p, struct report_procsel *ps)
{
	size_t i, k, ns = profile__nr_native_stacks(p);
	uint32_t *loc_map = calloc(profile__nr_locations(p) + 1, sizeof(*loc_map)), *locs = NULL;
	size_t *stack_map = calloc(ns + 1, sizeof(*stack_map)), cap = 0;
	struct profile_native_sample s;
	struct profile_native_stack st;
	int keep, r = 0;

	if (!loc_map || !stack_map)
		r = -ENOMEM;
	if (!r)
		r = filter_locations(f, p, loc_map);
	for (i = 0; i < ns && r >= 0; i++) {
		r = profile__native_stack(p, i, &st);
		if (!r)
			r = fsp_grow((void **)&locs, &cap, st.depth + 1, sizeof(*locs));
		for (k = 0; !r && k < st.depth; k++)
			locs[k] = loc_map[st.locs[k]];
		st.locs = locs;
		if (!r)
			r = profile__add_native_stack(f, &st);
		stack_map[i] = (size_t)r;
	}
	for (i = 0; i < profile__nr_native_samples(p) && r >= 0; i++) {
		r = profile__native_sample(p, i, &s);
		keep = r ? r : filter_keep(ps, f, s.source, s.pid);
		if (keep <= 0) {
			r = keep;
			continue;
		}
		r = profile__add_native_samples(f, s.pid, s.tid, s.key, stack_map[s.stack],
						s.count);
	}
	free(loc_map);
	free(stack_map);
	free(locs);
	if (r >= 0)
		r = profile__use_source(f, 0);
	return r < 0 ? r : 0;
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
		err = filter_tasks(f, p, &ps);
	if (!err)
		err = filter_records(f, p, &ps);
	if (!err && profile__nr_native_samples(p))
		err = filter_native(f, p, &ps);
cleanup:
	procsel__fini(&ps);
	if (err) {
		profile__free(f);
		return err;
	}
	*out = f;
	return 0;
}

void report_scope__fini(struct report_scope *s)
{
	if (!s)
		return;
	report_features__fini(&s->feat);
	profile__free(s->filtered);
	memset(s, 0, sizeof(*s));
}

int report_scope__init(struct report_scope *s, const struct profile *p,
		       const struct report_opts *opts)
{
	int err;

	memset(s, 0, sizeof(*s));
	err = report__filter(p, opts, &s->filtered);
	if (err)
		return err;
	s->p = s->filtered ? s->filtered : p;
	s->whole = s->filtered ? p : NULL;
	s->feature = opts ? opts->feature : NULL;
	err = report_features__init(&s->feat, s->p, s->feature);
	if (err)
		report_scope__fini(s);
	return err;
}
