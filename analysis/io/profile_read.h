/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internal to the profile file's reader: its state and what its two files
 * share. profile_read.c reads the top level (dispatch, metadata, sources,
 * processes, threads) and does the checks that need the whole file;
 * profile_read_rows.c reads the rows (strings, stacks, samples, events).
 */
#ifndef FSP_ANALYSIS_PROFILE_READ_H
#define FSP_ANALYSIS_PROFILE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "json_in.h"
#include "native.h"
#include "profile.h"
#include "profile_format.h"
#include "strtab.h"

#define NO_IDX JSON_NO_IDX /* no index: of a json_where, of a string */

/* A version 1 sample naming a stack, checked once "stacks" is read (version
 * 1 allowed samples before stacks; its keys are ids + 1, known up front). */
struct stack_ref {
	size_t entry; /* index in "samples" */
	uint64_t stack; /* id the entry names */
	uint64_t key;
	uint32_t source, pid;
};

/* What a sample names as its stack. */
enum sample_stack {
	SS_EMPTY, /* null (or the key 0): the empty stack */
	SS_ID, /* a stack id (version 2: the stack must be known) */
	SS_KEY, /* the key of a stack that was not stored */
	SS_V1_ID, /* a version 1 stack id: key id + 1, checked later if need be */
};

/* The string-table indexes of a version 2 frame (NO_IDX: none). */
struct frame_idx {
	size_t feature, instance;
};

struct rd {
	struct json_in js; /* the input */

	/* the profile being built */
	struct profile *p;
	int version; /* as read; 0 until "version" is */
	uint32_t seen; /* bit per enum top_field / meta_field read */
	bool pids_added;
	bool stacks_done; /* "stacks" has been read */
	struct profile_meta meta; /* strings owned */
	uint64_t diag[DIAG__COUNT];
	uint32_t *pids; /* "pids", applied unless "processes" is present */
	size_t nr_pids, cap_pids;
	uint64_t total_samples; /* as declared */
	uint64_t sum_count, sum_offcpu;
	struct stack_ref *refs; /* version 1 sample -> stack checks waiting for "stacks" */
	size_t nr_refs, cap_refs;
	struct strtab *stab; /* the strings of "strings" */
	/* "strings" by index: stab's copy, replaced by the profile's own copy
	 * once a stack has used it, which the profile then interns by address */
	const char **strs;
	size_t nr_strs, cap_strs;
	struct profile_frame *frames; /* the stack being read */
	size_t cap_frames;
	struct frame_idx *fidx; /* its frames' string indexes */
	size_t cap_fidx;
	struct profile_line *lines; /* the lines of the location being read */
	size_t cap_lines;
	uint32_t *nlocs; /* the locations of the native stack being read */
	size_t cap_nlocs;
};

/* Records later add_* calls for source src (which must be known by now). */
int rd__use_source(struct rd *rd, const struct json_where *w, uint32_t src);
/* Fails with "WHERE: " and the message of -err (of a profile__add_*). */
int rd__add_err(struct rd *rd, const struct json_where *w, int err);
/* v1 files list their processes in "pids" only: they are source 0's, added
 * before the first record that would register a process itself. */
int rd__add_pids(struct rd *rd);
/* Checks that version 1 sample entry ref names a stack of its own. */
int rd__check_ref(struct rd *rd, const struct stack_ref *ref);

/* A string-table index (or null when nullable: *out NO_IDX). The table must
 * have been read: "strings" comes before the sections that use it. */
int rd__stridx(struct rd *rd, const struct json_where *w, const char *field, struct json_object *v,
	       bool nullable, size_t *out);
/* A row's mark stack column (version 2 "samples", "native_samples"): an id,
 * null or a key string. */
int rd__stack_col(struct rd *rd, const struct json_where *w, const char *col, struct json_object *v,
		  enum sample_stack *by, uint64_t *stack);
/* "calls" (version 4): the calls of record --calls (profile_calls_io.c). */
int rd__calls(struct rd *rd);
/* The key of stack id, which must be known and of (source, pid); w names
 * the row (sect and i). */
int rd__stack_key(struct rd *rd, const struct json_where *w, uint64_t id, uint32_t source,
		  uint32_t pid, uint64_t *key);

/* Element i of "strings", "stacks", "samples", "events" (rd->version's layout). */
int rd__string(struct rd *rd, size_t i);
int rd__stack(struct rd *rd, size_t i);
int rd__sample(struct rd *rd, size_t i);
int rd__event(struct rd *rd, size_t i);

/* Version 3 (profile_read_native.c): element i of "modules", "locations",
 * "native_stacks", "native_samples"; then the check that the native samples
 * of each core sample are at most its count. */
int rd__module(struct rd *rd, size_t i);
int rd__location(struct rd *rd, size_t i);
int rd__native_stack(struct rd *rd, size_t i);
int rd__native_sample(struct rd *rd, size_t i);
int rd__native_finish(struct rd *rd);
/* The fast path of "native_stacks" and "native_samples" rows
 * (profile_read_fast.c): 1 when row i was read and added, 0 when it is left
 * for the json-c path, -1 on a read error. */
int rd__fast_native_stack(struct rd *rd, size_t i);
int rd__fast_native_sample(struct rd *rd, size_t i);

#endif /* FSP_ANALYSIS_PROFILE_READ_H */
