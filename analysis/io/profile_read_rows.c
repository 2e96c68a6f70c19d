// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The profile file's reader, the rows (profile_read.h): the string table,
 * stacks (version 1: objects with strings; version 2: arrays of string-table
 * indexes), sample rows and events. Each row is one json-c value (one parse
 * is much cheaper than one per field), checked and added to the profile.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "profile_read.h"
#include "util.h"

/* A stack record as read; its frames are rd->frames (and rd->fidx), depth of them. */
struct stack_in {
	uint64_t id;
	uint32_t source, pid;
	uint64_t key;
	bool has_key;
	bool payloads_lost; /* "payloads_kept": false */
	size_t depth;
};

/* What a sample names as its stack. */
enum sample_stack {
	SS_EMPTY, /* null (or the key 0): the empty stack */
	SS_ID, /* a stack id (version 2: the stack must be known) */
	SS_KEY, /* the key of a stack that was not stored */
	SS_V1_ID, /* a version 1 stack id: key id + 1, checked later if need be */
};

/* A sample record as read. */
struct sample_in {
	uint32_t source, pid, tid;
	enum sample_stack by;
	uint64_t stack; /* the id or the key */
	uint64_t count, offcpu;
};

/*
 * A string-table index (or null when nullable: *out NO_IDX). The table must
 * have been read: "strings" comes before the sections that use it.
 */
static int jv_stridx(struct rd *rd, const struct json_where *w, const char *field,
		     struct json_object *v, bool nullable, size_t *out)
{
	char path[160];
	uint64_t idx;

	*out = NO_IDX;
	if (!v && nullable)
		return 0;
	if (!json_object_is_type(v, json_type_int))
		return jv__fail(&rd->js, w, field,
				nullable ? "expected a string index (an integer) or null, got %s"
					 : "expected a string index (an integer), got %s",
				jv__type(v));
	if (jv__u64(&rd->js, w, field, v, &idx))
		return -1;
	if (idx >= rd->nr_strs) {
		json_where__fmt(w, field, path, sizeof(path));
		return json_in__fail(
			&rd->js,
			"%s: string index %" PRIu64
			" is out of range (the string table has %zu strings%s)",
			path, idx, rd->nr_strs,
			rd->seen & 1u << TF_STRINGS ? "" : "; \"strings\" must come before it");
	}
	*out = (size_t)idx;
	return 0;
}

/* Optional string-table index member (absent: NO_IDX), see jv_stridx. */
static int jf_stridx(struct rd *rd, const struct json_where *w, struct json_object *o,
		     const char *field, bool nullable, size_t *out)
{
	bool present;
	struct json_object *v = jf__get(o, field, &present);

	*out = NO_IDX;
	return present ? jv_stridx(rd, w, field, v, nullable, out) : 0;
}

/* Room for a stack of depth frames (and their string indexes). 0 or -ENOMEM. */
static int rd_frames_room(struct rd *rd, size_t depth)
{
	if (fsp_grow((void **)&rd->frames, &rd->cap_frames, depth ? depth : 1, sizeof(*rd->frames)))
		return -ENOMEM;
	return fsp_grow((void **)&rd->fidx, &rd->cap_fidx, depth ? depth : 1, sizeof(*rd->fidx));
}

/* Appends s (len bytes) to the string table, strings[i]. */
static int rd_add_string(struct rd *rd, size_t i, const char *s, size_t len)
{
	char buf[176];
	const char *copy;
	bool added;
	size_t j;

	copy = strtab__intern_len(rd->stab, s, len, &added);
	if (!copy)
		return json_in__fail(&rd->js, "out of memory");
	if (!added) {
		/* readers may compare indexes for equality: each string once */
		for (j = 0; j < rd->nr_strs && rd->strs[j] != copy; j++)
			;
		return json_in__fail(&rd->js,
				     "strings[%zu]: \"%s\" is also strings[%zu] (each string once)",
				     i, json_in__msg_str(copy, buf, sizeof(buf)), j);
	}
	if (fsp_grow((void **)&rd->strs, &rd->cap_strs, rd->nr_strs + 1, sizeof(*rd->strs)))
		return json_in__fail(&rd->js, "out of memory");
	rd->strs[rd->nr_strs++] = copy;
	return 0;
}

int rd__string(struct rd *rd, size_t i)
{
	struct json_where w = {"strings", i, NULL, NO_IDX};
	struct json_object *v;
	const char *s;
	int err;

	if (json_in__value(&rd->js, "a string", &v))
		return -1;
	err = jv__str(&rd->js, &w, NULL, v, false, &s);
	if (!err)
		err = rd_add_string(rd, i, s, (size_t)json_object_get_string_len(v));
	json_object_put(v);
	return err;
}

/* Frame j of version 1 stack i: an object; the strings point into o. */
static int rd_frame_v1(struct rd *rd, size_t i, size_t j, struct json_object *o)
{
	char buf[176];
	struct json_where w = {"stacks", i, "frames", j};
	struct profile_frame *fr = &rd->frames[j];
	const char *kind;
	char path[160];

	memset(fr, 0, sizeof(*fr));
	rd->fidx[j] = (struct frame_idx){NO_IDX, NO_IDX};
	if (!json_object_is_type(o, json_type_object)) {
		json_where__fmt(&w, NULL, path, sizeof(path));
		return json_in__fail(&rd->js, "%s: expected an object (a version 1 frame), got %s",
				     path, jv__type(o));
	}
	if (jf__str(&rd->js, &w, o, "kind", false, &kind) ||
	    jf__str(&rd->js, &w, o, "feature", false, &fr->feature) ||
	    jf__str(&rd->js, &w, o, "instance", true, &fr->instance) ||
	    jf__u64(&rd->js, &w, o, "payload", false, 0, &fr->payload))
		return -1;
	if (!kind)
		return jf__missing(&rd->js, &w, "kind");
	if (!fr->feature)
		return jf__missing(&rd->js, &w, "feature");
	if (!strcmp(kind, "mark"))
		fr->kind = PROFILE_MARK;
	else if (!strcmp(kind, "antimark"))
		fr->kind = PROFILE_ANTIMARK;
	else
		return jv__fail(&rd->js, &w, "kind",
				"unknown frame kind \"%s\" (expected \"mark\" or \"antimark\")",
				json_in__msg_str(kind, buf, sizeof(buf)));
	return 0;
}

/* Frame j of version 2 stack i: [kind, feature, instance, payload], the
 * last two optional, elements after them ignored (later revisions). */
static int rd_frame_v2(struct rd *rd, size_t i, size_t j, struct json_object *a)
{
	char buf[176];
	struct json_where w = {"stacks", i, "frames", j};
	struct profile_frame *fr = &rd->frames[j];
	struct frame_idx *x = &rd->fidx[j];
	const char *kind;
	char path[160];
	size_t n;

	memset(fr, 0, sizeof(*fr));
	*x = (struct frame_idx){NO_IDX, NO_IDX};
	json_where__fmt(&w, NULL, path, sizeof(path));
	if (!json_object_is_type(a, json_type_array))
		return json_in__fail(&rd->js, "%s: expected an array (a version 2 frame), got %s",
				     path, jv__type(a));
	n = json_object_array_length(a);
	if (n < 2)
		return json_in__fail(
			&rd->js,
			"%s: %zu element%s, expected [kind, feature, instance, payload] "
			"with at least kind and feature",
			path, n, n == 1 ? "" : "s");
	if (jv__str(&rd->js, &w, "kind", json_object_array_get_idx(a, 0), false, &kind) ||
	    jv_stridx(rd, &w, "feature", json_object_array_get_idx(a, 1), false, &x->feature) ||
	    (n > 2 &&
	     jv_stridx(rd, &w, "instance", json_object_array_get_idx(a, 2), true, &x->instance)) ||
	    (n > 3 &&
	     jv__u64(&rd->js, &w, "payload", json_object_array_get_idx(a, 3), &fr->payload)))
		return -1;
	if (!strcmp(kind, "m"))
		fr->kind = PROFILE_MARK;
	else if (!strcmp(kind, "a"))
		fr->kind = PROFILE_ANTIMARK;
	else if (!strcmp(kind, "c"))
		fr->kind = PROFILE_CHARGED;
	else
		return jv__fail(&rd->js, &w, "kind",
				"unknown frame kind \"%s\" (expected \"m\", \"a\" or \"c\")",
				json_in__msg_str(kind, buf, sizeof(buf)));
	fr->feature = rd->strs[x->feature];
	fr->instance = x->instance == NO_IDX ? NULL : rd->strs[x->instance];
	return 0;
}

/*
 * Stack i with json-c: one value (a record, at most PROFILE_IO_MAX_VALUE
 * bytes), since one parse is much cheaper than one per frame and field.
 * *o is the record (to put by the caller); version 1 frames point into it.
 */
static int rd_stack_json(struct rd *rd, size_t i, struct stack_in *in, struct json_object **o)
{
	struct json_where w = {"stacks", i, NULL, NO_IDX};
	struct json_object *frames, *v;
	bool present;
	size_t j;

	memset(in, 0, sizeof(*in));
	if (json_in__record(&rd->js, &w, json_type_object, o))
		return -1;
	if (jf__u64(&rd->js, &w, *o, "id", false, i, &in->id) ||
	    jf__u32(&rd->js, &w, *o, "pid", true, &in->pid))
		return -1;
	/* version 1 has no sources and no keys (stack i gets key i + 1) */
	if (rd->version >= 2) {
		if (jf__u32(&rd->js, &w, *o, "source", false, &in->source))
			return -1;
		v = jf__get(*o, "key", &in->has_key);
		if (in->has_key && jv__key(&rd->js, &w, "key", v, &in->key))
			return -1;
		v = jf__get(*o, "payloads_kept", &present);
		if (present && !json_object_is_type(v, json_type_boolean))
			return jv__fail(&rd->js, &w, "payloads_kept", "expected a boolean, got %s",
					jv__type(v));
		in->payloads_lost = present && !json_object_get_boolean(v);
	}
	frames = jf__get(*o, "frames", &present);
	if (!present)
		return jf__missing(&rd->js, &w, "frames");
	if (!json_object_is_type(frames, json_type_array))
		return jv__fail(&rd->js, &w, "frames", "expected an array, got %s",
				jv__type(frames));
	in->depth = json_object_array_length(frames);
	if (in->depth > PROFILE_IO_MAX_FRAMES)
		return json_in__fail(&rd->js,
				     "stacks[%zu].frames: %zu frames, more than the limit of %d", i,
				     in->depth, PROFILE_IO_MAX_FRAMES);
	if (rd_frames_room(rd, in->depth))
		return json_in__fail(&rd->js, "out of memory");
	for (j = 0; j < in->depth; j++) {
		v = json_object_array_get_idx(frames, j);
		if (rd->version >= 2 ? rd_frame_v2(rd, i, j, v) : rd_frame_v1(rd, i, j, v))
			return -1;
	}
	return 0;
}

/* Adds stack i as read (by either path). */
static int rd_add_stack(struct rd *rd, size_t i, const struct stack_in *in)
{
	struct json_where w = {"stacks", i, NULL, NO_IDX};
	uint64_t key = in->has_key ? in->key : (uint64_t)i + 1;
	struct profile_stack st;
	size_t j;
	int r;

	if (in->id != i)
		return json_in__fail(&rd->js,
				     "stacks[%zu].id: %" PRIu64
				     ", but ids are the stacks' positions (%zu)",
				     i, in->id, i);
	if (in->has_key && !in->key)
		return json_in__fail(&rd->js, "stacks[%zu].key: 0 is the empty stack's key", i);
	if (rd__add_pids(rd) || rd__use_source(rd, &w, in->source))
		return -1;
	r = profile__add_stack(rd->p, in->pid, key, rd->frames, in->depth);
	if (r == -EEXIST)
		return json_in__fail(
			&rd->js,
			"stacks[%zu]: a second stack of source %u, pid %u with key 0x%" PRIx64, i,
			in->source, in->pid, key);
	if (!r && in->payloads_lost)
		r = profile__set_stack_flags(rd->p, profile__nr_stacks(rd->p) - 1,
					     PROFILE_STACK_PAYLOADS_LOST);
	if (r)
		return rd__add_err(rd, &w, r);
	/* From now on the strings this stack used are given to the profile as
	 * its own copies, which it interns without hashing them. */
	if (rd->version >= 2 && !profile__stack(rd->p, profile__nr_stacks(rd->p) - 1, &st)) {
		for (j = 0; j < st.depth && j < in->depth; j++) {
			rd->strs[rd->fidx[j].feature] = st.frames[j].feature;
			if (rd->fidx[j].instance != NO_IDX && st.frames[j].instance)
				rd->strs[rd->fidx[j].instance] = st.frames[j].instance;
		}
	}
	return 0;
}

int rd__stack(struct rd *rd, size_t i)
{
	struct json_object *o = NULL;
	struct stack_in in;
	int err;

	err = rd_stack_json(rd, i, &in, &o);
	if (!err)
		err = rd_add_stack(rd, i, &in);
	json_object_put(o);
	return err;
}

/* Checks that version 1 sample entry ref names a stack of its own (source,
 * pid, key). */
int rd__check_ref(struct rd *rd, const struct stack_ref *ref)
{
	struct profile_stack st;
	size_t nr = profile__nr_stacks(rd->p);

	if (ref->stack >= nr)
		return json_in__fail(
			&rd->js, "samples[%zu].stack: unknown stack id %" PRIu64 " (%zu stacks)",
			ref->entry, ref->stack, nr);
	if (profile__stack(rd->p, ref->stack, &st))
		return json_in__fail(&rd->js, "out of memory");
	if (st.source != ref->source || st.pid != ref->pid || st.key != ref->key)
		return json_in__fail(&rd->js,
				     "samples[%zu]: stack %" PRIu64
				     " is source %u, pid %u, key 0x%" PRIx64
				     ", not the sample's source %u, pid %u, key 0x%" PRIx64,
				     ref->entry, ref->stack, st.source, st.pid, st.key, ref->source,
				     ref->pid, ref->key);
	return 0;
}

/* The columns of a version 2 sample row, for messages. */
static const char *const sample_cols[] = {"source", "pid", "tid", "stack", "count", "offcpu_ns"};

/* Sample i of a version 2 file with json-c: a row, see sample_cols; columns
 * after them are ignored (later revisions). */
static int rd_sample_json(struct rd *rd, size_t i, struct sample_in *in)
{
	struct json_where w = {"samples", i, NULL, NO_IDX};
	struct json_object *a, *v;
	int err = -1;
	size_t n;

	memset(in, 0, sizeof(*in));
	if (json_in__record(&rd->js, &w, json_type_array, &a))
		return -1;
	n = json_object_array_length(a);
	if (n < 5) {
		json_in__fail(&rd->js,
			      "samples[%zu]: %zu columns, expected 5 or 6 "
			      "([source, pid, tid, stack, count] and optionally offcpu_ns)",
			      i, n);
		goto cleanup;
	}
	if (jv__u32(&rd->js, &w, sample_cols[0], json_object_array_get_idx(a, 0), &in->source) ||
	    jv__u32(&rd->js, &w, sample_cols[1], json_object_array_get_idx(a, 1), &in->pid) ||
	    jv__u32(&rd->js, &w, sample_cols[2], json_object_array_get_idx(a, 2), &in->tid))
		goto cleanup;
	v = json_object_array_get_idx(a, 3);
	if (!v) {
		in->by = SS_EMPTY;
	} else if (json_object_is_type(v, json_type_string)) {
		if (jv__key(&rd->js, &w, sample_cols[3], v, &in->stack))
			goto cleanup;
		in->by = in->stack ? SS_KEY : SS_EMPTY;
	} else if (json_object_is_type(v, json_type_int)) {
		if (jv__u64(&rd->js, &w, sample_cols[3], v, &in->stack))
			goto cleanup;
		in->by = SS_ID;
	} else {
		jv__fail(&rd->js, &w, sample_cols[3],
			 "expected a stack id, null or a key string, got %s", jv__type(v));
		goto cleanup;
	}
	if (jv__u64(&rd->js, &w, sample_cols[4], json_object_array_get_idx(a, 4), &in->count) ||
	    (n > 5 &&
	     jv__u64(&rd->js, &w, sample_cols[5], json_object_array_get_idx(a, 5), &in->offcpu)))
		goto cleanup;
	err = 0;
cleanup:
	json_object_put(a);
	return err;
}

/* Sample i of a version 1 file: an object {pid, tid, stack, count}. */
static int rd_sample_v1(struct rd *rd, size_t i, struct sample_in *in)
{
	struct json_where w = {"samples", i, NULL, NO_IDX};
	struct json_object *o, *v;
	bool present;
	int err = -1;

	memset(in, 0, sizeof(*in));
	if (json_in__record(&rd->js, &w, json_type_object, &o))
		return -1;
	if (jf__u32(&rd->js, &w, o, "pid", true, &in->pid) ||
	    jf__u32(&rd->js, &w, o, "tid", true, &in->tid) ||
	    jf__u64(&rd->js, &w, o, "count", true, 0, &in->count))
		goto cleanup;
	v = jf__get(o, "stack", &present);
	in->by = v ? SS_V1_ID : SS_EMPTY;
	if (v && jv__u64(&rd->js, &w, "stack", v, &in->stack))
		goto cleanup;
	err = 0;
cleanup:
	json_object_put(o);
	return err;
}

/* Adds sample i as read. */
static int rd_add_sample(struct rd *rd, size_t i, const struct sample_in *in)
{
	struct json_where w = {"samples", i, NULL, NO_IDX};
	struct profile_stack st;
	struct stack_ref ref;
	uint64_t key = 0;
	size_t nr;
	int err;

	if (in->count > UINT64_MAX - rd->sum_count)
		return json_in__fail(
			&rd->js, "samples[%zu].count: the sample counts add up to more than 2^64-1",
			i);
	if (in->offcpu > UINT64_MAX - rd->sum_offcpu)
		return json_in__fail(
			&rd->js,
			"samples[%zu].offcpu_ns: the off-CPU times add up to more than 2^64-1 ns",
			i);
	rd->sum_count += in->count;
	rd->sum_offcpu += in->offcpu;
	if (rd__add_pids(rd) || rd__use_source(rd, &w, in->source))
		return -1;

	switch (in->by) {
	case SS_EMPTY:
		break;
	case SS_KEY:
		key = in->stack;
		break;
	case SS_ID:
		/* version 2: the stack's key; stacks come first */
		nr = profile__nr_stacks(rd->p);
		if (in->stack >= nr)
			return json_in__fail(
				&rd->js,
				"samples[%zu].stack: unknown stack id %" PRIu64 " (%zu stacks%s)",
				i, in->stack, nr,
				rd->stacks_done ? "" : " so far; \"stacks\" must come before it");
		if (profile__stack(rd->p, in->stack, &st))
			return json_in__fail(&rd->js, "out of memory");
		if (st.source != in->source || st.pid != in->pid)
			return json_in__fail(
				&rd->js,
				"samples[%zu]: stack %" PRIu64
				" is source %u, pid %u, not the sample's source %u, pid %u",
				i, in->stack, st.source, st.pid, in->source, in->pid);
		key = st.key;
		break;
	case SS_V1_ID:
		/* version 1: stack i has key i + 1; checked once the stacks are known */
		key = in->stack + 1;
		ref = (struct stack_ref){i, in->stack, key, in->source, in->pid};
		if (rd->stacks_done) {
			if (rd__check_ref(rd, &ref))
				return -1;
		} else {
			if (fsp_grow((void **)&rd->refs, &rd->cap_refs, rd->nr_refs + 1,
				     sizeof(*rd->refs)))
				return json_in__fail(&rd->js, "out of memory");
			rd->refs[rd->nr_refs++] = ref;
		}
		break;
	}
	/* -ENOENT: a key of no stack (an unknown stack), kept as such */
	err = profile__add_samples(rd->p, in->pid, in->tid, key, in->count);
	if (!err || err == -ENOENT)
		err = profile__add_offcpu(rd->p, in->pid, in->tid, key, in->offcpu);
	if (err && err != -ENOENT)
		return rd__add_err(rd, &w, err);
	return 0;
}

int rd__sample(struct rd *rd, size_t i)
{
	struct sample_in in;

	if (rd->version >= 2 ? rd_sample_json(rd, i, &in) : rd_sample_v1(rd, i, &in))
		return -1;
	return rd_add_sample(rd, i, &in);
}

int rd__event(struct rd *rd, size_t i)
{
	struct json_where w = {"events", i, NULL, NO_IDX};
	struct json_where wh = {"events", i, "hist", NO_IDX};
	struct profile_event_stats st = {};
	struct json_object *o, *h;
	size_t feature, instance;
	uint32_t src, pid;
	size_t b, n;
	bool present;
	int err = -1;

	if (json_in__record(&rd->js, &w, json_type_object, &o))
		return -1;
	if (jf__u32(&rd->js, &w, o, "source", false, &src) ||
	    jf__u32(&rd->js, &w, o, "pid", true, &pid) ||
	    jf_stridx(rd, &w, o, "feature", false, &feature) ||
	    jf_stridx(rd, &w, o, "instance", true, &instance) ||
	    jf__u64(&rd->js, &w, o, "enters", false, 0, &st.enters) ||
	    jf__u64(&rd->js, &w, o, "leaves", false, 0, &st.leaves) ||
	    jf__u64(&rd->js, &w, o, "total_ns", false, 0, &st.total_ns) ||
	    jf__u64(&rd->js, &w, o, "max_ns", false, 0, &st.max_ns))
		goto cleanup;
	if (feature == NO_IDX) {
		jf__missing(&rd->js, &w, "feature");
		goto cleanup;
	}
	h = jf__get(o, "hist", &present);
	if (present) {
		if (!json_object_is_type(h, json_type_array)) {
			jv__fail(&rd->js, &w, "hist", "expected an array, got %s", jv__type(h));
			goto cleanup;
		}
		n = json_object_array_length(h);
		if (n > PROFILE_HIST_BUCKETS) {
			json_in__fail(&rd->js,
				      "events[%zu].hist: %zu buckets, more than the %d known", i, n,
				      PROFILE_HIST_BUCKETS);
			goto cleanup;
		}
		for (b = 0; b < n; b++) {
			wh.j = b;
			if (jv__u64(&rd->js, &wh, NULL, json_object_array_get_idx(h, b),
				    &st.hist[b]))
				goto cleanup;
		}
	}
	h = jf__get(o, "point", &present);
	if (present) {
		if (!json_object_is_type(h, json_type_boolean)) {
			jv__fail(&rd->js, &w, "point", "expected true or false, got %s",
				 jv__type(h));
			goto cleanup;
		}
		st.point = json_object_get_boolean(h);
	}
	if (rd__add_pids(rd) || rd__use_source(rd, &w, src))
		goto cleanup;
	err = profile__add_events(rd->p, pid, rd->strs[feature],
				  instance == NO_IDX ? NULL : rd->strs[instance], &st);
	if (err) {
		rd__add_err(rd, &w, err);
		err = -1;
	}
cleanup:
	json_object_put(o);
	return err;
}
