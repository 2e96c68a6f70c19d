// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The profile file's writer, the native stacks (version 3,
 * docs/profile-format.md): "modules" as objects (few, read by people),
 * "locations", "native_stacks" and "native_samples" as rows formatted
 * directly in the row buffer, with function and file names as indexes into
 * the shared string table.
 */
#include "native.h"
#include "profile_write.h"

void pw__native_strings(struct json_out *w, struct pw_strings *t, const struct profile *p)
{
	struct profile_location loc;
	size_t i, j;

	for (i = 0; i < profile__nr_locations(p) && !w->err; i++) {
		if (profile__location(p, i, &loc))
			continue;
		for (j = 0; j < loc.nr_lines; j++) {
			if (loc.lines[j].function)
				pw__string(w, t, loc.lines[j].function);
			if (loc.lines[j].file)
				pw__string(w, t, loc.lines[j].file);
		}
	}
}

static void pw_modules(struct json_out *w, const struct profile *p)
{
	struct profile_module m;
	struct json_object *o;
	size_t i;

	json_out__begin_array(w, "modules");
	for (i = 0; i < profile__nr_modules(p) && !w->err; i++) {
		if (profile__module(p, i, &m))
			continue;
		o = json_out__object(w);
		json_out__add(
			w, o, "kind",
			json_out__str(w, m.kind == PROFILE_MODULE_KERNEL ? "kernel" : "user"));
		json_out__add(w, o, "path", json_out__str(w, m.path));
		if (m.build_id)
			json_out__add(w, o, "build_id", json_out__str(w, m.build_id));
		json_out__record(w, o, "    ");
	}
	json_out__end_array(w);
}

/* A string column: the index of s, or null. */
static void pw_str_col(struct json_out *w, struct pw_strings *t, const char *s)
{
	if (s)
		json_out__row_u64(w, pw__string(w, t, s));
	else
		json_out__row_lit(w, "null");
}

/* Location rows: [module, address, flags, [[function, file, line], ...]],
 * the lines left out when there are none. */
static void pw_locations(struct json_out *w, const struct profile *p, struct pw_strings *t)
{
	struct profile_location loc;
	size_t i, j;

	json_out__begin_array(w, "locations");
	for (i = 0; i < profile__nr_locations(p) && !w->err; i++) {
		if (profile__location(p, i, &loc))
			continue;
		json_out__row_lit(w, "[");
		if (loc.module == PROFILE_NO_MODULE)
			json_out__row_lit(w, "null");
		else
			json_out__row_u64(w, loc.module);
		json_out__row_lit(w, ",");
		json_out__row_hex(w, loc.address);
		json_out__row_lit(w, ",");
		json_out__row_u64(w, loc.flags);
		if (loc.nr_lines)
			json_out__row_lit(w, ",[");
		for (j = 0; j < loc.nr_lines; j++) {
			if (j)
				json_out__row_lit(w, ",");
			json_out__row_lit(w, "[");
			pw_str_col(w, t, loc.lines[j].function);
			json_out__row_lit(w, ",");
			pw_str_col(w, t, loc.lines[j].file);
			json_out__row_lit(w, ",");
			json_out__row_u64(w, loc.lines[j].line);
			json_out__row_lit(w, "]");
		}
		if (loc.nr_lines)
			json_out__row_lit(w, "]");
		json_out__row_lit(w, "]");
		json_out__row_end(w);
	}
	json_out__end_array(w);
}

/* Native stack rows: [method, [location, ...], kernel, flags, [mark, ...]],
 * the last three left out when 0 or empty (marks first, then flags). */
static void pw_native_stacks(struct json_out *w, const struct profile *p)
{
	struct profile_native_stack s;
	size_t i, j;

	json_out__begin_array(w, "native_stacks");
	for (i = 0; i < profile__nr_native_stacks(p) && !w->err; i++) {
		if (profile__native_stack(p, i, &s))
			continue;
		if (s.method == PROFILE_UNWIND_FP)
			json_out__row_lit(w, "[\"fp\",[");
		else if (s.method == PROFILE_UNWIND_DWARF)
			json_out__row_lit(w, "[\"dwarf\",[");
		else
			json_out__row_lit(w, "[null,[");
		for (j = 0; j < s.depth; j++) {
			if (j)
				json_out__row_lit(w, ",");
			json_out__row_u64(w, s.locs[j]);
		}
		json_out__row_lit(w, "]");
		if (s.nr_kernel || s.flags || s.nr_marks) {
			json_out__row_lit(w, ",");
			json_out__row_u64(w, s.nr_kernel);
		}
		if (s.flags || s.nr_marks) {
			json_out__row_lit(w, ",");
			json_out__row_u64(w, s.flags);
		}
		if (s.nr_marks) {
			json_out__row_lit(w, ",[");
			for (j = 0; j < s.nr_marks; j++) {
				if (j)
					json_out__row_lit(w, ",");
				json_out__row_u64(w, s.mark_pos[j]);
			}
			json_out__row_lit(w, "]");
		}
		json_out__row_lit(w, "]");
		json_out__row_end(w);
	}
	json_out__end_array(w);
}

/* Native sample rows: [source, pid, tid, stack, native_stack, count], stack
 * as in "samples". */
static void pw_native_samples(struct json_out *w, const struct profile *p)
{
	struct profile_native_sample s;
	size_t i;

	json_out__begin_array(w, "native_samples");
	for (i = 0; i < profile__nr_native_samples(p) && !w->err; i++) {
		if (profile__native_sample(p, i, &s))
			continue;
		pw__sample_head(w, s.source, s.pid, s.tid, s.mark_stack, s.key);
		json_out__row_lit(w, ",");
		json_out__row_u64(w, s.stack);
		json_out__row_lit(w, ",");
		json_out__row_u64(w, s.count);
		json_out__row_lit(w, "]");
		json_out__row_end(w);
	}
	json_out__end_array(w);
}

void pw__native(struct json_out *w, const struct profile *p, struct pw_strings *t)
{
	pw_modules(w, p);
	pw_locations(w, p, t);
	pw_native_stacks(w, p);
	pw_native_samples(w, p);
}
