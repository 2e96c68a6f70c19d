// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The profile file's reader, the native stacks of version 3
 * (profile_read.h, docs/profile-format.md): "modules", "locations",
 * "native_stacks", "native_samples", and the check that no core sample has
 * more native samples than samples. Every index is checked against the
 * table it names, with a message saying which and why, before the model
 * sees it; each module, location and native stack is in its table once, so
 * that file indexes are model indexes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "native.h"
#include "stack_family.h"
#include "profile_read.h"
#include "util.h"

/* Fails with "WHERE: " and a formatted message. */
static int rd_failf(struct rd *rd, const struct json_where *w, const char *field, const char *fmt,
		    ...) __attribute__((format(printf, 4, 5)));

static int rd_failf(struct rd *rd, const struct json_where *w, const char *field, const char *fmt,
		    ...)
{
	char path[160], msg[320];
	va_list ap;

	json_where__fmt(w, field, path, sizeof(path));
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return json_in__fail(&rd->js, "%s: %s", path, msg);
}

/* An index into a table of nr entries, named what ("location"); sect is the
 * table's section, which must come before (seen: it has). */
static int rd_index(struct rd *rd, const struct json_where *w, const char *field,
		    struct json_object *v, size_t nr, const char *what, const char *sect, int seen,
		    uint64_t *out)
{
	if (jv__u64(&rd->js, w, field, v, out))
		return -1;
	if (*out < nr)
		return 0;
	return rd_failf(rd, w, field, "%s index %" PRIu64 " is out of range (%zu %ss%s%s%s)", what,
			*out, nr, what, rd->seen & 1u << seen ? "" : "; \"",
			rd->seen & 1u << seen ? "" : sect,
			rd->seen & 1u << seen ? "" : "\" must come before it");
}

/* A GNU build-id as the model keeps it: lower-case hex of whole bytes. */
static bool rd_build_id_ok(const char *s)
{
	size_t n = strspn(s, "0123456789abcdef");

	return n && !s[n] && n % 2 == 0;
}

/* ---- modules: {"kind", "path", "build_id"} ------------------------------------- */

static int rd_module_kind(struct rd *rd, const struct json_where *w, struct json_object *o,
			  int *kind)
{
	char buf[176];
	const char *s;

	*kind = PROFILE_MODULE_USER;
	if (jf__str(&rd->js, w, o, "kind", false, &s))
		return -1;
	if (!s || !strcmp(s, "user"))
		return 0;
	if (!strcmp(s, "kernel")) {
		*kind = PROFILE_MODULE_KERNEL;
		return 0;
	}
	return jv__fail(&rd->js, w, "kind",
			"unknown module kind \"%s\" (expected \"user\" or \"kernel\")",
			json_in__msg_str(s, buf, sizeof(buf)));
}

int rd__module(struct rd *rd, size_t i)
{
	struct json_where w = {"modules", i, NULL, NO_IDX};
	struct profile_module m = {};
	struct json_object *o;
	char buf[176];
	int r = -1;

	if (json_in__record(&rd->js, &w, json_type_object, &o))
		return -1;
	if (rd_module_kind(rd, &w, o, &m.kind) || jf__str(&rd->js, &w, o, "path", false, &m.path) ||
	    jf__str(&rd->js, &w, o, "build_id", true, &m.build_id))
		goto cleanup;
	if (!m.path) {
		jf__missing(&rd->js, &w, "path");
		goto cleanup;
	}
	if (m.build_id && !rd_build_id_ok(m.build_id)) {
		jv__fail(&rd->js, &w, "build_id",
			 "\"%s\" is not a build-id (an even number of lower-case hex digits)",
			 json_in__msg_str(m.build_id, buf, sizeof(buf)));
		goto cleanup;
	}
	r = profile__add_module(rd->p, &m);
	if (r >= 0 && (size_t)r != i)
		r = rd_failf(rd, &w, NULL, "the same module as modules[%d] (each module once)", r);
	else if (r < 0)
		r = rd__add_err(rd, &w, r);
	else
		r = 0;
cleanup:
	json_object_put(o);
	return r;
}

/* ---- locations: [module, address, flags, [[function, file, line], ...]] ---------- */

#define LOC_FLAGS (PROFILE_LOC_DEBUGINFO | PROFILE_LOC_JIT)

/* Line j of a location: [function, file, line], function and file string
 * indexes or null; file and line may be left out. */
static int rd_line(struct rd *rd, size_t i, size_t j, struct json_object *a, struct profile_line *l)
{
	struct json_where w = {"locations", i, "lines", j};
	size_t n, fn = NO_IDX, file = NO_IDX;
	uint64_t line = 0;

	if (!json_object_is_type(a, json_type_array) || !(n = json_object_array_length(a)))
		return rd_failf(rd, &w, NULL, "expected [function, file, line], got %s",
				json_object_is_type(a, json_type_array) ? "an empty array"
									: jv__type(a));
	if (rd__stridx(rd, &w, "function", json_object_array_get_idx(a, 0), true, &fn) ||
	    (n > 1 && rd__stridx(rd, &w, "file", json_object_array_get_idx(a, 1), true, &file)) ||
	    (n > 2 && jv__u64(&rd->js, &w, "line", json_object_array_get_idx(a, 2), &line)))
		return -1;
	if (line > UINT32_MAX)
		return rd_failf(rd, &w, "line", "%" PRIu64 " is beyond 2^32-1", line);
	l->function = fn == NO_IDX ? NULL : rd->strs[fn];
	l->file = file == NO_IDX ? NULL : rd->strs[file];
	l->line = (uint32_t)line;
	return 0;
}

/* The lines column of location i into rd->lines. */
static int rd_lines(struct rd *rd, size_t i, struct json_object *v, size_t *nr)
{
	struct json_where w = {"locations", i, NULL, NO_IDX};

	*nr = 0;
	if (!v)
		return 0;
	if (!json_object_is_type(v, json_type_array))
		return jv__fail(&rd->js, &w, "lines", "expected an array, got %s", jv__type(v));
	*nr = json_object_array_length(v);
	if (*nr > PROFILE_IO_MAX_LINES)
		return rd_failf(rd, &w, "lines", "%zu functions, more than the limit of %d", *nr,
				PROFILE_IO_MAX_LINES);
	if (fsp_grow((void **)&rd->lines, &rd->cap_lines, *nr, sizeof(*rd->lines)))
		return json_in__fail(&rd->js, "out of memory");
	for (size_t j = 0; j < *nr; j++)
		if (rd_line(rd, i, j, json_object_array_get_idx(v, j), &rd->lines[j]))
			return -1;
	return 0;
}

/* Hands the strings location i used over to the profile's own copies,
 * which later locations then intern without hashing (as the stacks do). */
static void rd_location_strs(struct rd *rd, size_t i, struct json_object *v)
{
	struct profile_location loc;
	struct json_object *a;
	size_t j, idx;

	if (profile__location(rd->p, i, &loc))
		return;
	for (j = 0; j < loc.nr_lines; j++) {
		a = json_object_array_get_idx(v, j);
		idx = (size_t)json_object_get_uint64(json_object_array_get_idx(a, 0));
		if (loc.lines[j].function && idx < rd->nr_strs)
			rd->strs[idx] = loc.lines[j].function;
		idx = (size_t)json_object_get_uint64(json_object_array_get_idx(a, 1));
		if (loc.lines[j].file && idx < rd->nr_strs)
			rd->strs[idx] = loc.lines[j].file;
	}
}

static int rd_location_cols(struct rd *rd, size_t i, struct json_object *a,
			    struct profile_location *loc)
{
	struct json_where w = {"locations", i, NULL, NO_IDX};
	struct json_object *v = json_object_array_get_idx(a, 0);
	size_t n = json_object_array_length(a);
	uint64_t idx, flags;

	if (n < 3)
		return json_in__fail(&rd->js,
				     "locations[%zu]: %zu columns, expected 3 or 4 "
				     "([module, address, flags] and optionally lines)",
				     i, n);
	loc->module = PROFILE_NO_MODULE;
	if (v) {
		if (rd_index(rd, &w, "module", v, profile__nr_modules(rd->p), "module", "modules",
			     TF_MODULES, &idx))
			return -1;
		loc->module = (uint32_t)idx;
	}
	if (jv__key(&rd->js, &w, "address", json_object_array_get_idx(a, 1), &loc->address) ||
	    jv__u64(&rd->js, &w, "flags", json_object_array_get_idx(a, 2), &flags) ||
	    rd_lines(rd, i, n > 3 ? json_object_array_get_idx(a, 3) : NULL, &loc->nr_lines))
		return -1;
	/* flags of later revisions are ignored, as unknown fields are */
	loc->flags = (unsigned int)(flags & LOC_FLAGS);
	loc->lines = loc->nr_lines ? rd->lines : NULL;
	return 0;
}

int rd__location(struct rd *rd, size_t i)
{
	struct json_where w = {"locations", i, NULL, NO_IDX};
	struct profile_location loc = {};
	struct json_object *a;
	int r = -1;

	if (json_in__record(&rd->js, &w, json_type_array, &a))
		return -1;
	if (rd_location_cols(rd, i, a, &loc))
		goto cleanup;
	r = profile__add_location(rd->p, &loc);
	if (r >= 0 && (size_t)r != i) {
		r = rd_failf(rd, &w, NULL,
			     "the same module and address as locations[%d] (each location once)",
			     r);
	} else if (r < 0) {
		r = rd__add_err(rd, &w, r);
	} else {
		rd_location_strs(rd, i, json_object_array_get_idx(a, 3));
		r = 0;
	}
cleanup:
	json_object_put(a);
	return r;
}

/* ---- native stacks: [method, [location, ...], kernel, flags] -------------------- */

#define NATIVE_FLAGS PROFILE_NATIVE_TRUNCATED

static int rd_method(struct rd *rd, const struct json_where *w, struct json_object *v, int *method)
{
	char buf[176];
	const char *s;

	*method = 0;
	if (!v)
		return 0;
	if (jv__str(&rd->js, w, "method", v, false, &s))
		return -1;
	if (!strcmp(s, "fp"))
		*method = PROFILE_UNWIND_FP;
	else if (!strcmp(s, "dwarf"))
		*method = PROFILE_UNWIND_DWARF;
	else
		return jv__fail(
			&rd->js, w, "method",
			"unknown unwinding method \"%s\" (expected \"fp\", \"dwarf\" or null)",
			json_in__msg_str(s, buf, sizeof(buf)));
	return 0;
}

/* The locations column of native stack i into rd->nlocs. */
static int rd_native_locs(struct rd *rd, size_t i, struct json_object *v, size_t *depth)
{
	struct json_where w = {"native_stacks", i, "locations", NO_IDX};
	size_t nr = profile__nr_locations(rd->p);
	uint64_t idx;

	if (!json_object_is_type(v, json_type_array))
		return rd_failf(rd, &w, NULL, "expected an array of location indexes, got %s",
				jv__type(v));
	*depth = json_object_array_length(v);
	if (!*depth)
		return rd_failf(rd, &w, NULL, "empty (a native stack has at least one frame)");
	if (*depth > PROFILE_IO_MAX_NATIVE_FRAMES)
		return rd_failf(rd, &w, NULL, "%zu frames, more than the limit of %d", *depth,
				PROFILE_IO_MAX_NATIVE_FRAMES);
	if (fsp_grow((void **)&rd->nlocs, &rd->cap_nlocs, *depth, sizeof(*rd->nlocs)))
		return json_in__fail(&rd->js, "out of memory");
	for (size_t j = 0; j < *depth; j++) {
		w.j = j;
		if (rd_index(rd, &w, NULL, json_object_array_get_idx(v, j), nr, "location",
			     "locations", TF_LOCATIONS, &idx))
			return -1;
		rd->nlocs[j] = (uint32_t)idx;
	}
	return 0;
}

/* Version 4: the fifth column, the mark positions, into marks[NATIVE_MAX_MARKS]. */
#define NATIVE_MAX_MARKS 256

static int rd_native_marks(struct rd *rd, size_t i, struct json_object *v, uint16_t *marks,
			   size_t depth, size_t *n)
{
	struct json_where w = {"native_stacks", i, "marks", NO_IDX};
	uint64_t pos;

	if (!json_object_is_type(v, json_type_array))
		return rd_failf(rd, &w, NULL, "expected an array of frame indexes, got %s",
				jv__type(v));
	*n = json_object_array_length(v);
	if (*n > NATIVE_MAX_MARKS)
		return rd_failf(rd, &w, NULL, "%zu marks, more than the limit of %d", *n,
				NATIVE_MAX_MARKS);
	for (size_t j = 0; j < *n; j++) {
		w.j = j;
		if (jv__u64(&rd->js, &w, NULL, json_object_array_get_idx(v, j), &pos))
			return -1;
		if (pos >= depth && pos != PROFILE_MARK_BELOW)
			return rd_failf(rd, &w, NULL,
					"%" PRIu64 " is no frame of a stack of %zu (nor %d, below "
					"every frame)",
					pos, depth, PROFILE_MARK_BELOW);
		marks[j] = (uint16_t)pos;
	}
	return 0;
}

static int rd_native_cols(struct rd *rd, size_t i, struct json_object *a,
			  struct profile_native_stack *s, uint16_t *marks)
{
	struct json_where w = {"native_stacks", i, NULL, NO_IDX};
	size_t n = json_object_array_length(a);
	uint64_t kernel = 0, flags = 0;

	if (n < 2)
		return json_in__fail(&rd->js,
				     "native_stacks[%zu]: %zu column%s, expected 2 to 4 "
				     "([method, locations] and optionally kernel, flags)",
				     i, n, n == 1 ? "" : "s");
	if (rd_method(rd, &w, json_object_array_get_idx(a, 0), &s->method) ||
	    rd_native_locs(rd, i, json_object_array_get_idx(a, 1), &s->depth) ||
	    (n > 2 && jv__u64(&rd->js, &w, "kernel", json_object_array_get_idx(a, 2), &kernel)) ||
	    (n > 3 && jv__u64(&rd->js, &w, "flags", json_object_array_get_idx(a, 3), &flags)) ||
	    (n > 4 && rd->version >= 4 &&
	     rd_native_marks(rd, i, json_object_array_get_idx(a, 4), marks, s->depth,
			     &s->nr_marks)))
		return -1;
	s->mark_pos = s->nr_marks ? marks : NULL;
	if (kernel > s->depth)
		return rd_failf(rd, &w, "kernel", "%" PRIu64 " kernel frames of a stack of %zu",
				kernel, s->depth);
	if (!s->method && kernel < s->depth)
		return rd_failf(rd, &w, "method",
				"null, but the stack has user frames (only a kernel-only stack "
				"has no unwinding method)");
	s->locs = rd->nlocs;
	s->nr_kernel = (size_t)kernel;
	s->flags = (unsigned int)(flags & NATIVE_FLAGS); /* later flags ignored */
	return 0;
}

int rd__native_stack(struct rd *rd, size_t i)
{
	struct json_where w = {"native_stacks", i, NULL, NO_IDX};
	struct profile_native_stack s = {};
	uint16_t marks[NATIVE_MAX_MARKS];
	struct json_object *a;
	int r = -1;

	r = rd__fast_native_stack(rd, i);
	if (r)
		return r < 0 ? -1 : 0;
	r = -1;
	if (json_in__record(&rd->js, &w, json_type_array, &a))
		return -1;
	if (rd_native_cols(rd, i, a, &s, marks))
		goto cleanup;
	r = profile__add_native_stack(rd->p, &s);
	if (r >= 0 && (size_t)r != i)
		r = rd_failf(rd, &w, NULL, "the same as native_stacks[%d] (each native stack once)",
			     r);
	else if (r < 0)
		r = rd__add_err(rd, &w, r);
	else
		r = 0;
cleanup:
	json_object_put(a);
	return r;
}

/* ---- native samples: [source, pid, tid, stack, native_stack, count] ------------- */

static const char *const nsample_cols[] = {"source", "pid",	     "tid",
					   "stack",  "native_stack", "count"};

int rd__native_sample(struct rd *rd, size_t i)
{
	struct json_where w = {"native_samples", i, NULL, NO_IDX};
	uint64_t stack = 0, key = 0, nstack, count;
	uint32_t source, pid, tid;
	enum sample_stack by;
	struct json_object *a;
	size_t n;
	int r = -1;

	r = rd__fast_native_sample(rd, i);
	if (r)
		return r < 0 ? -1 : 0;
	r = -1;
	if (json_in__record(&rd->js, &w, json_type_array, &a))
		return -1;
	n = json_object_array_length(a);
	if (n < 6) {
		json_in__fail(&rd->js,
			      "native_samples[%zu]: %zu columns, expected 6 "
			      "([source, pid, tid, stack, native_stack, count])",
			      i, n);
		goto cleanup;
	}
	if (jv__u32(&rd->js, &w, nsample_cols[0], json_object_array_get_idx(a, 0), &source) ||
	    jv__u32(&rd->js, &w, nsample_cols[1], json_object_array_get_idx(a, 1), &pid) ||
	    jv__u32(&rd->js, &w, nsample_cols[2], json_object_array_get_idx(a, 2), &tid) ||
	    rd__stack_col(rd, &w, nsample_cols[3], json_object_array_get_idx(a, 3), &by, &stack) ||
	    rd_index(rd, &w, nsample_cols[4], json_object_array_get_idx(a, 4),
		     profile__nr_native_stacks(rd->p), "native stack", "native_stacks",
		     TF_NATIVE_STACKS, &nstack) ||
	    jv__u64(&rd->js, &w, nsample_cols[5], json_object_array_get_idx(a, 5), &count) ||
	    rd__use_source(rd, &w, source))
		goto cleanup;
	if (by == SS_KEY)
		key = stack;
	else if (by == SS_ID && rd__stack_key(rd, &w, stack, source, pid, &key))
		goto cleanup;
	r = profile__add_native_samples(rd->p, pid, tid, key, (size_t)nstack, count);
	r = r ? rd__add_err(rd, &w, r) : 0;
cleanup:
	json_object_put(a);
	return r;
}

/* ---- whole-file check: native samples <= samples, per (thread, stack family) ---------- */

/* A native sample names its core sample's stack family (stack_family.h):
 * the recorder splits a stack's samples by payload vector, not its native
 * samples. So the check is per thread and family (family_groups). */

/* Per group: its core samples. NULL on allocation failure. */
static uint64_t *ns_core(struct rd *rd, struct family_groups *g)
{
	size_t n = profile__nr_samples(rd->p), k;
	uint64_t *left = calloc(n ? n : 1, sizeof(*left));
	struct profile_sample s;

	for (size_t i = 0; left && i < n; i++) {
		if (profile__sample(rd->p, i, &s) ||
		    family_groups__of(g, s.source, s.pid, s.tid, s.stack, s.key, true, &k)) {
			free(left);
			return NULL;
		}
		left[k] += s.count; /* the reader checked that the total fits */
	}
	return left;
}

int rd__native_finish(struct rd *rd)
{
	size_t n = profile__nr_native_samples(rd->p), k = 0;
	struct profile_native_sample ns;
	struct family_groups *g;
	uint64_t *left = NULL;
	int r = 0, found;

	if (!n)
		return 0;
	g = family_groups__new(rd->p);
	if (g)
		left = ns_core(rd, g);
	if (!left)
		r = json_in__fail(&rd->js, "out of memory");
	for (size_t i = 0; i < n && !r; i++) {
		if (profile__native_sample(rd->p, i, &ns))
			continue;
		found = family_groups__of(g, ns.source, ns.pid, ns.tid, ns.mark_stack, ns.key,
					  false, &k);
		if (found == -ENOMEM)
			r = json_in__fail(&rd->js, "out of memory");
		else if (found || left[k] < ns.count)
			r = json_in__fail(&rd->js,
					  "corrupt: native_samples count more samples of source "
					  "%u, pid %u, tid %u with mark stack key 0x%" PRIx64
					  " than \"samples\" (%s with its frames)",
					  ns.source, ns.pid, ns.tid, ns.key,
					  found ? "none" : "fewer");
		else
			left[k] -= ns.count;
	}
	free(left);
	family_groups__free(g);
	return r;
}
