/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internal to the profile file's writer (analysis/io): the string table the
 * writer builds before writing, shared by profile_write.c (the core samples
 * and events) and profile_write_native.c (the native stacks' sections).
 */
#ifndef FSP_ANALYSIS_PROFILE_WRITE_H
#define FSP_ANALYSIS_PROFILE_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "hashmap.h"
#include "json_out.h"
#include "profile.h"

struct strtab;

/*
 * The string table ("strings"): every feature name and instance label of the
 * stacks and events, then every function and source file name of the
 * locations, each once, in order of first use, as written (made valid
 * UTF-8 by json_out__utf8). The model's strings are interned, so a label is
 * looked up by address; two addresses whose written texts are equal (two
 * invalid byte sequences both written as U+FFFD) share one entry, since the
 * reader rejects a table with duplicates.
 */
struct pw_strings {
	struct hashmap by_addr; /* (model string address, 0) -> index */
	struct hashmap by_text; /* (address in text, 0) -> index */
	struct strtab *text; /* the written texts */
	const char **list; /* index -> written text */
	size_t nr, cap;
};

/* The index of s in the table, added when new; 0 with w->err set on failure. */
uint64_t pw__string(struct json_out *w, struct pw_strings *t, const char *s);

/* The head of a "samples" or "native_samples" row: "[source,pid,tid,stack"
 * where stack is the mark stack's id, null for the empty stack (key 0), the
 * key for a stack that was not stored. */
void pw__sample_head(struct json_out *w, uint32_t source, uint32_t pid, uint32_t tid, size_t stack,
		     uint64_t key);

/* Adds the locations' function and file names to the table (after the
 * stacks' and events' labels). */
void pw__native_strings(struct json_out *w, struct pw_strings *t, const struct profile *p);
/* The version 3 sections: "modules", "locations", "native_stacks",
 * "native_samples" (written after "events"). */
void pw__native(struct json_out *w, const struct profile *p, struct pw_strings *t);
/* "calls" (version 4), when p has them (profile_calls_io.c), and their
 * names in the string table. */
void pw__calls_strings(struct json_out *w, struct pw_strings *t, const struct profile *p);
void pw__calls(struct json_out *w, const struct profile *p, struct pw_strings *t);

#endif /* FSP_ANALYSIS_PROFILE_WRITE_H */
