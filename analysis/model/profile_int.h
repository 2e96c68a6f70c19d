/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The profile model's own state, for its implementation files (profile.c,
 * native.c): struct profile, whose records (profile.c) and native tables
 * (native.c) each file keeps to itself, and a mark stack lookup by source.
 * Not for callers outside analysis/model: they see profile.h's opaque
 * struct and its accessors.
 */
#ifndef FSP_ANALYSIS_PROFILE_INT_H
#define FSP_ANALYSIS_PROFILE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "hashmap.h"
#include "profile.h"

struct strtab;
struct profile_source_rec;
struct profile_process_rec;
struct profile_thread_rec;
struct profile_stack_rec;
struct profile_sample_rec;
struct profile_event_rec;
struct profile_native;
struct calls;

struct profile {
	struct strtab *strs;
	struct profile_meta meta; /* strings owned (strdup) */

	struct profile_source_rec *sources;
	size_t nr_sources, cap_sources;
	uint32_t cur; /* the source add_* calls record for */

	struct profile_process_rec *pids;
	size_t nr_pids, cap_pids;
	struct hashmap pid_map; /* (PKEY, 0) -> index */

	struct profile_thread_rec *threads;
	size_t nr_threads, cap_threads;
	struct hashmap thread_map; /* (PKEY, tid) -> index */

	struct profile_stack_rec *stacks;
	size_t nr_stacks, cap_stacks;
	struct hashmap stack_map; /* (PKEY, key) -> index */
	struct profile_frame *frames; /* frames of all stacks, back to back */
	size_t nr_frames, cap_frames;

	struct profile_sample_rec *samples;
	size_t nr_samples, cap_samples;
	struct hashmap sample_map; /* (thread index, key) -> index */

	uint64_t total;
	uint64_t total_offcpu;
	uint64_t diag[DIAG__COUNT];

	struct profile_event_rec *events;
	size_t nr_events, cap_events;
	struct hashmap event_map; /* (PKEY, hash(feature, instance)) -> first index */

	struct profile_native *native; /* native stacks (native.c); NULL: none */
	struct calls *calls; /* the slow-call view's calls (calls.c); NULL: none */
};

/* The id of mark stack key of (source, pid), or PROFILE_NO_STACK. */
size_t profile__stack_of(const struct profile *p, uint32_t source, uint32_t pid, uint64_t key);

/* The native tables, p->native (NULL until the first native record): the
 * profile owns them and frees them with this in profile__free. NULL-safe. */
void profile_native__free(struct profile_native *n);

/* Function features (funcfeat_apply.c): moves count of sample record
 * `from`'s samples to the same thread's record of mark stack key (of the
 * same source), leaving the totals as they are. 0 or -errno. */
int profile__move_samples(struct profile *p, size_t from, uint64_t key, uint64_t count);
/* Gives native sample i the mark stack key keys[i] (merging records made
 * equal). 0 or -ENOMEM. */
int profile__native_rekey(struct profile *p, const uint64_t *keys);

#endif /* FSP_ANALYSIS_PROFILE_INT_H */
