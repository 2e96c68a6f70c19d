// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The profile file's "calls" (version 4, record --calls, docs/profile-format.md):
 * the calls the samples fell in, each with its samples per stack, so that
 * `report --calls` works on a saved profile as on a live one.
 *
 *   "calls": {"dropped": N, "unknown": N, "dropped_calls": N,
 *             "list": [[pid, tid, call, feature, instance, samples, first_ns,
 *                       last_ns, exact_ns, [stack, count, ...]
 *                       (, [stack, native_stack, count, ...]
 *                       (, [stack, offcpu_ns, ...]))], ...]
 *             (, "weights": [[call, weight], ...])}
 *
 * feature and instance are indexes of "strings"; exact_ns 0: estimated. The
 * optional last column (record --calls --stacks): the call's samples by
 * stack and native stack (an index of "native_stacks"); the one after it
 * (--off-cpu), the call's off-CPU time by stack. dropped_calls and weights
 * (optional): the calls the bound dropped, and the calls (indexes of list)
 * that stand for more than one (calls.h, calls__bound).
 */
#include <errno.h>
#include <string.h>

#include "calls.h"
#include "json_in.h"
#include "profile_read.h"
#include "profile_write.h"

void pw__calls_strings(struct json_out *w, struct pw_strings *t, const struct profile *p)
{
	const struct calls *c = profile__calls(p);

	for (size_t i = 0; i < calls__nr(c) && !w->err; i++) {
		pw__string(w, t, calls__get(c, i)->feature);
		pw__string(w, t, calls__get(c, i)->instance);
	}
}

/* ,[stack, offcpu_ns, ...] of r's stacks with off-CPU time. */
static void pw_call_offcpu(struct json_out *w, const struct call_rec *r)
{
	bool first = true;

	json_out__row_lit(w, ",[");
	for (size_t k = 0; k < r->nr_stacks; k++) {
		if (!r->stacks[k].offcpu_ns)
			continue;
		if (!first)
			json_out__row_lit(w, ",");
		first = false;
		json_out__row_u64(w, r->stacks[k].stack);
		json_out__row_lit(w, ",");
		json_out__row_u64(w, r->stacks[k].offcpu_ns);
	}
	json_out__row_lit(w, "]");
}

/* [pid, tid, call, feature, instance, samples, first_ns, last_ns, exact_ns,
 * [stack, count, stack, count, ...]] in the row buffer. */
static void pw_call(struct json_out *w, struct pw_strings *t, const struct call_rec *r)
{
	const uint64_t cols[] = {r->pid,
				 r->tid,
				 r->id,
				 pw__string(w, t, r->feature),
				 pw__string(w, t, r->instance),
				 r->samples,
				 r->first_ns,
				 r->last_ns,
				 r->exact_ns};

	json_out__row_lit(w, "[");
	for (size_t k = 0; k < sizeof(cols) / sizeof(cols[0]); k++) {
		json_out__row_u64(w, cols[k]);
		json_out__row_lit(w, ",");
	}
	json_out__row_lit(w, "[");
	for (size_t k = 0; k < r->nr_stacks; k++) {
		if (k)
			json_out__row_lit(w, ",");
		json_out__row_u64(w, r->stacks[k].stack);
		json_out__row_lit(w, ",");
		json_out__row_u64(w, r->stacks[k].count);
	}
	json_out__row_lit(w, "]");
	if (r->nr_natives || r->offcpu_ns)
		json_out__row_lit(w, ",[");
	for (size_t k = 0; k < r->nr_natives; k++) {
		const uint64_t t[] = {r->natives[k].stack, r->natives[k].native,
				      r->natives[k].count};

		for (size_t j = 0; j < 3; j++) {
			if (k || j)
				json_out__row_lit(w, ",");
			json_out__row_u64(w, t[j]);
		}
	}
	if (r->nr_natives || r->offcpu_ns)
		json_out__row_lit(w, "]");
	if (r->offcpu_ns)
		pw_call_offcpu(w, r);
	json_out__row_lit(w, "]");
	json_out__row_end(w);
}

/* , "weights": [[call, weight], ...] of the calls that stand for more than
 * one (calls__bound's sample), if any. */
static void pw_weights(struct json_out *w, const struct calls *c)
{
	bool any = false;
	char buf[64];

	for (size_t i = 0; i < calls__nr(c) && !w->err; i++) {
		double wt = calls__get(c, i)->weight;

		if (wt == 1 || !(wt > 0))
			continue;
		if (!any) {
			json_out__puts(w, ", \"weights\": [");
			w->first_rec = true;
		}
		any = true;
		snprintf(buf, sizeof(buf), "[%zu,%.9g]", i, wt);
		json_out__row_put(w, buf, strlen(buf));
		json_out__row_end(w);
	}
	if (any)
		json_out__puts(w, "\n  ]");
}

void pw__calls(struct json_out *w, const struct profile *p, struct pw_strings *t)
{
	const struct calls *c = profile__calls(p);
	char head[128];

	if (!c)
		return;
	/* An object around an array of rows, each on its own line: a reader
	 * takes them one at a time (a value is at most 4 MiB). */
	snprintf(head, sizeof(head),
		 "\"calls\": {\"dropped\": %llu, \"unknown\": %llu, \"dropped_calls\": %llu, "
		 "\"list\": [",
		 (unsigned long long)calls__dropped(c), (unsigned long long)calls__unknown(c),
		 (unsigned long long)calls__dropped_calls(c));
	json_out__puts(w, w->first ? "\n  " : ",\n  ");
	w->first = false;
	json_out__puts(w, head);
	w->first_rec = true;
	for (size_t i = 0; i < calls__nr(c) && !w->err; i++)
		pw_call(w, t, calls__get(c, i));
	json_out__puts(w, w->first_rec ? "]" : "\n  ]");
	pw_weights(w, c);
	json_out__puts(w, "}");
}

/* [stack, count, ...] of call i (of pid) into c. */
static int rd_call_stacks(struct rd *rd, const struct json_where *w, struct json_object *a,
			  uint32_t pid, struct calls *c, size_t i)
{
	size_t n = a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 1;

	if (!a || !json_object_is_type(a, json_type_array) || n % 2)
		return jv__fail(&rd->js, w, "stacks", "expected [stack, count, ...] pairs, got %s",
				jv__type(a));
	for (size_t k = 0; k < n; k += 2) {
		uint64_t id, count, key;
		size_t stack;
		int err;

		if (jv__u64(&rd->js, w, "stacks", json_object_array_get_idx(a, k), &id) ||
		    jv__u64(&rd->js, w, "stacks", json_object_array_get_idx(a, k + 1), &count) ||
		    rd__stack_key(rd, w, id, 0, pid, &key))
			return -1;
		if (profile__find_stack(rd->p, pid, key, &stack))
			return jv__fail(&rd->js, w, "stacks", "%s: no such stack", "id");
		err = calls__put_stack(c, i, stack, count);
		if (err)
			return rd__add_err(rd, w, err);
	}
	return 0;
}

/* [stack, native_stack, count, ...] of call i (of pid) into c. */
static int rd_call_natives(struct rd *rd, const struct json_where *w, struct json_object *a,
			   uint32_t pid, struct calls *c, size_t i)
{
	size_t n = a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 1;

	if (!a || !json_object_is_type(a, json_type_array) || n % 3)
		return jv__fail(&rd->js, w, "natives",
				"expected [stack, native_stack, count, ...] triples, got %s",
				jv__type(a));
	for (size_t k = 0; k < n; k += 3) {
		uint64_t id, native, count, key;
		size_t stack;
		int err;

		if (jv__u64(&rd->js, w, "natives", json_object_array_get_idx(a, k), &id) ||
		    jv__u64(&rd->js, w, "natives", json_object_array_get_idx(a, k + 1), &native) ||
		    jv__u64(&rd->js, w, "natives", json_object_array_get_idx(a, k + 2), &count) ||
		    rd__stack_key(rd, w, id, 0, pid, &key))
			return -1;
		if (profile__find_stack(rd->p, pid, key, &stack))
			return jv__fail(&rd->js, w, "natives", "%s: no such stack", "id");
		if (native >= profile__nr_native_stacks(rd->p))
			return jv__fail(&rd->js, w, "natives", "%s: no such native stack",
					"native_stack");
		err = calls__put_native(c, i, stack, (size_t)native, count);
		if (err)
			return rd__add_err(rd, w, err);
	}
	return 0;
}

/* [stack, offcpu_ns, ...] of call i (of pid) into c. */
static int rd_call_offcpu(struct rd *rd, const struct json_where *w, struct json_object *a,
			  uint32_t pid, struct calls *c, size_t i)
{
	size_t n = a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 1;

	if (!a || !json_object_is_type(a, json_type_array) || n % 2)
		return jv__fail(&rd->js, w, "offcpu",
				"expected [stack, offcpu_ns, ...] pairs, got %s", jv__type(a));
	for (size_t k = 0; k < n; k += 2) {
		uint64_t id, ns, key;
		size_t stack;
		int err;

		if (jv__u64(&rd->js, w, "offcpu", json_object_array_get_idx(a, k), &id) ||
		    jv__u64(&rd->js, w, "offcpu", json_object_array_get_idx(a, k + 1), &ns) ||
		    rd__stack_key(rd, w, id, 0, pid, &key))
			return -1;
		if (profile__find_stack(rd->p, pid, key, &stack))
			return jv__fail(&rd->js, w, "offcpu", "%s: no such stack", "id");
		err = calls__put_offcpu(c, i, stack, ns);
		if (err)
			return rd__add_err(rd, w, err);
	}
	return 0;
}

static const char *const call_cols[] = {"pid",	   "tid",      "call",	  "feature",  "instance",
					"samples", "first_ns", "last_ns", "exact_ns", "stacks"};

/* Call i of "list", the next row. */
static int rd_call(struct rd *rd, struct calls *c, size_t i)
{
	struct json_where w = {"calls", i, NULL, NO_IDX};
	uint64_t v[9];
	size_t fi, ii;
	struct call_rec r = {0};
	struct json_object *a;
	int err = -1;

	if (json_in__record(&rd->js, &w, json_type_array, &a))
		return -1;
	if (json_object_array_length(a) < 10 || json_object_array_length(a) > 12) {
		jv__fail(&rd->js, &w, NULL, "expected a row of 10 to 12 columns, got %s",
			 "another");
		goto cleanup;
	}
	for (size_t k = 0; k < 9; k++) {
		if (k == 3 || k == 4)
			continue;
		if (jv__u64(&rd->js, &w, call_cols[k], json_object_array_get_idx(a, k), &v[k]))
			goto cleanup;
	}
	if (rd__stridx(rd, &w, "feature", json_object_array_get_idx(a, 3), false, &fi) ||
	    rd__stridx(rd, &w, "instance", json_object_array_get_idx(a, 4), false, &ii))
		goto cleanup;
	if (v[0] > UINT32_MAX || v[1] > UINT32_MAX) {
		jv__fail(&rd->js, &w, "pid", "%s: not a process and thread id", "pid or tid");
		goto cleanup;
	}
	r = (struct call_rec){.pid = (uint32_t)v[0],
			      .tid = (uint32_t)v[1],
			      .id = v[2],
			      .feature = rd->strs[fi],
			      .instance = rd->strs[ii],
			      .samples = v[5],
			      .first_ns = v[6],
			      .last_ns = v[7],
			      .exact_ns = v[8]};
	err = calls__put(c, &r);
	if (err == -EEXIST)
		err = jv__fail(&rd->js, &w, "call", "%s: the same call twice", "call");
	else if (err)
		err = rd__add_err(rd, &w, err);
	else
		err = rd_call_stacks(rd, &w, json_object_array_get_idx(a, 9), r.pid, c,
				     calls__nr(c) - 1);
	if (!err && json_object_array_length(a) >= 11)
		err = rd_call_natives(rd, &w, json_object_array_get_idx(a, 10), r.pid, c,
				      calls__nr(c) - 1);
	if (!err && json_object_array_length(a) == 12)
		err = rd_call_offcpu(rd, &w, json_object_array_get_idx(a, 11), r.pid, c,
				     calls__nr(c) - 1);
cleanup:
	json_object_put(a);
	return err ? -1 : 0;
}

/* A counter of "calls" (dropped, unknown). */
static int rd_counter(struct rd *rd, const char *field, uint64_t *out)
{
	static const struct json_where top = {"calls", NO_IDX, NULL, NO_IDX};
	struct json_object *v = NULL;
	int r;

	if (json_in__value(&rd->js, "an integer", &v))
		return -1;
	r = jv__u64(&rd->js, &top, field, v, out);
	json_object_put(v);
	return r;
}

/* "weights": [[call, weight], ...] (after "list"), one record at a time. */
static int rd_weights(struct rd *rd, struct calls *c)
{
	struct json_where w = {"calls", NO_IDX, "weights", NO_IDX};
	size_t n = 0;
	int r;

	if (json_in__enter(&rd->js, '[', &w, NULL))
		return -1;
	while ((r = json_in__next(&rd->js, ']', &n)) > 0) {
		struct json_object *a;
		uint64_t i;
		double wt;

		w.j = n - 1;
		if (json_in__record(&rd->js, &w, json_type_array, &a))
			return -1;
		r = json_object_array_length(a) != 2
			    ? jv__fail(&rd->js, &w, NULL, "expected [call, weight], got %s",
				       "another")
			    : jv__u64(&rd->js, &w, "call", json_object_array_get_idx(a, 0), &i) ||
				      jv__real(&rd->js, &w, "weight",
					       json_object_array_get_idx(a, 1), &wt);
		if (!r && (i >= calls__nr(c) || !(wt >= 1)))
			r = jv__fail(&rd->js, &w, NULL, "%s",
				     "not a call of \"list\" and a weight of 1 or more");
		if (!r)
			calls__set_weight(c, (size_t)i, wt);
		json_object_put(a);
		if (r)
			return -1;
	}
	return r;
}

/* "list": the calls, one record at a time. */
static int rd_list(struct rd *rd, struct calls *c)
{
	struct json_where w = {"calls", NO_IDX, "list", NO_IDX};
	size_t n = 0;
	int r;

	if (json_in__enter(&rd->js, '[', &w, NULL))
		return -1;
	while ((r = json_in__next(&rd->js, ']', &n)) > 0)
		if (rd_call(rd, c, n - 1))
			return -1;
	return r;
}

int rd__calls(struct rd *rd)
{
	static const struct json_where top = {"calls", NO_IDX, NULL, NO_IDX};
	uint64_t dropped = 0, unknown = 0, dropped_calls = 0;
	struct calls *c;
	char key[32];
	size_t n = 0;
	int r;

	if (!rd->stacks_done)
		return json_in__fail(&rd->js, "\"calls\" comes before \"stacks\"");
	c = calls__new(0);
	if (!c)
		return json_in__fail(&rd->js, "out of memory");
	r = json_in__enter(&rd->js, '{', &top, NULL);
	while (!r && (r = json_in__next(&rd->js, '}', &n)) > 0) {
		r = json_in__key(&rd->js, key, sizeof(key));
		if (r)
			break;
		if (!strcmp(key, "dropped"))
			r = rd_counter(rd, "dropped", &dropped);
		else if (!strcmp(key, "unknown"))
			r = rd_counter(rd, "unknown", &unknown);
		else if (!strcmp(key, "dropped_calls"))
			r = rd_counter(rd, "dropped_calls", &dropped_calls);
		else if (!strcmp(key, "list"))
			r = rd_list(rd, c);
		else if (!strcmp(key, "weights"))
			r = rd_weights(rd, c);
		else
			r = json_in__skip(&rd->js);
	}
	if (r < 0) {
		calls__free(c);
		return -1;
	}
	calls__set_lost(c, dropped, unknown);
	calls__set_dropped_calls(c, dropped_calls);
	profile__set_calls(rd->p, c);
	return 0;
}
