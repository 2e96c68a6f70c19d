// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The profile file's "calls" (version 4, record --calls, docs/profile-format.md):
 * the calls the samples fell in, each with its samples per stack, so that
 * `report --calls` works on a saved profile as on a live one.
 *
 *   "calls": {"dropped": N, "unknown": N,
 *             "list": [{"pid", "tid", "call", "feature", "instance", "samples",
 *                       "first_ns", "last_ns", "exact_ns" (--events, when known),
 *                       "stacks": [[stack id, count], ...]}, ...]}
 */
#include <errno.h>
#include <string.h>

#include "calls.h"
#include "json_in.h"
#include "profile_read.h"
#include "profile_write.h"

static struct json_object *pw_call(struct json_out *w, const struct call_rec *r)
{
	struct json_object *o = json_out__object(w), *st = json_out__array(w, r->nr_stacks);

	json_out__add(w, o, "pid", json_out__u64(w, r->pid));
	json_out__add(w, o, "tid", json_out__u64(w, r->tid));
	json_out__add(w, o, "call", json_out__u64(w, r->id));
	json_out__add(w, o, "feature", json_out__str(w, r->feature));
	json_out__add(w, o, "instance", json_out__str(w, r->instance));
	json_out__add(w, o, "samples", json_out__u64(w, r->samples));
	json_out__add(w, o, "first_ns", json_out__u64(w, r->first_ns));
	json_out__add(w, o, "last_ns", json_out__u64(w, r->last_ns));
	if (r->exact_ns)
		json_out__add(w, o, "exact_ns", json_out__u64(w, r->exact_ns));
	for (size_t k = 0; k < r->nr_stacks; k++) {
		struct json_object *pair = json_out__array(w, 2);

		json_out__append(w, pair, json_out__u64(w, r->stacks[k].stack));
		json_out__append(w, pair, json_out__u64(w, r->stacks[k].count));
		json_out__append(w, st, pair);
	}
	json_out__add(w, o, "stacks", st);
	return o;
}

void pw__calls(struct json_out *w, const struct profile *p)
{
	const struct calls *c = profile__calls(p);
	char head[128];

	if (!c)
		return;
	/* An object around an array of records, each on its own line: a
	 * reader takes them one at a time (a value is at most 4 MiB). */
	snprintf(head, sizeof(head), "\"calls\": {\"dropped\": %llu, \"unknown\": %llu, \"list\": [",
		 (unsigned long long)calls__dropped(c), (unsigned long long)calls__unknown(c));
	json_out__puts(w, w->first ? "\n  " : ",\n  ");
	w->first = false;
	json_out__puts(w, head);
	w->first_rec = true;
	for (size_t i = 0; i < calls__nr(c) && !w->err; i++)
		json_out__record(w, pw_call(w, calls__get(c, i)), "    ");
	json_out__puts(w, w->first_rec ? "]}" : "\n  ]}");
}

/* [stack id, count] pairs of call i (of pid) into c. */
static int rd_call_stacks(struct rd *rd, const struct json_where *w, struct json_object *a,
			  uint32_t pid, struct calls *c, size_t i)
{
	if (!a || !json_object_is_type(a, json_type_array))
		return jv__fail(&rd->js, w, "stacks", "expected an array, got %s", jv__type(a));
	for (size_t k = 0; k < json_object_array_length(a); k++) {
		struct json_object *pair = json_object_array_get_idx(a, k);
		uint64_t id, count, key;
		size_t stack;
		int err;

		if (!json_object_is_type(pair, json_type_array) ||
		    json_object_array_length(pair) != 2)
			return jv__fail(&rd->js, w, "stacks",
					"expected [stack, count] pairs, got %s", jv__type(pair));
		if (jv__u64(&rd->js, w, "stacks", json_object_array_get_idx(pair, 0), &id) ||
		    jv__u64(&rd->js, w, "stacks", json_object_array_get_idx(pair, 1), &count) ||
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

/* Call i of "list", the next record. */
static int rd_call(struct rd *rd, struct calls *c, size_t i)
{
	struct json_where w = {"calls", i, NULL, NO_IDX};
	struct call_rec r = {0};
	struct json_object *o;
	bool present;
	int err = -1;

	if (json_in__record(&rd->js, &w, json_type_object, &o))
		return -1;
	if (jf__u32(&rd->js, &w, o, "pid", true, &r.pid) ||
	    jf__u32(&rd->js, &w, o, "tid", true, &r.tid) ||
	    jf__u64(&rd->js, &w, o, "call", true, 0, &r.id) ||
	    jf__str(&rd->js, &w, o, "feature", false, &r.feature) ||
	    jf__str(&rd->js, &w, o, "instance", false, &r.instance) ||
	    jf__u64(&rd->js, &w, o, "samples", true, 0, &r.samples) ||
	    jf__u64(&rd->js, &w, o, "first_ns", true, 0, &r.first_ns) ||
	    jf__u64(&rd->js, &w, o, "last_ns", true, 0, &r.last_ns) ||
	    jf__u64(&rd->js, &w, o, "exact_ns", false, 0, &r.exact_ns))
		goto cleanup;
	if (!r.feature) {
		jf__missing(&rd->js, &w, "feature");
		goto cleanup;
	}
	if (!r.instance) {
		jf__missing(&rd->js, &w, "instance");
		goto cleanup;
	}
	err = calls__put(c, &r);
	if (err == -EEXIST)
		err = jv__fail(&rd->js, &w, "call", "%s: the same call twice", "call");
	else if (err)
		err = rd__add_err(rd, &w, err);
	else
		err = rd_call_stacks(rd, &w, jf__get(o, "stacks", &present), r.pid, c,
				     calls__nr(c) - 1);
cleanup:
	json_object_put(o);
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
	uint64_t dropped = 0, unknown = 0;
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
		else if (!strcmp(key, "list"))
			r = rd_list(rd, c);
		else
			r = json_in__skip(&rd->js);
	}
	if (r < 0) {
		calls__free(c);
		return -1;
	}
	calls__set_lost(c, dropped, unknown);
	profile__set_calls(rd->p, c);
	return 0;
}
