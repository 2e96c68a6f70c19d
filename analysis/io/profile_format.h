/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internal to the profile file's writer and reader (analysis/io): the
 * top-level fields of the format (docs/profile-format.md) and where the
 * metadata fields live in a profile_meta.
 */
#ifndef FSP_ANALYSIS_PROFILE_FORMAT_H
#define FSP_ANALYSIS_PROFILE_FORMAT_H

#include "profile.h"

/* The metadata fields, in the order they are written (top level and sources). */
enum meta_field {
	MF_TOOL_VERSION, /* the strings first */
	MF_TARGET,
	MF_COMMAND_LINE,
	MF_HOST,
	MF_KERNEL,
	MF_MARKS,
	MF_FUNCTION_FEATURES, /* the last string; written when not NULL */
	MF_START_TIME,
	MF_END_TIME,
	MF_DURATION,
	MF_FREQUENCY,
	MF_PERIOD,
	MF_EVENT_TRAP, /* written when not 0 */
	MF__COUNT,
};

/* The other top-level fields the reader knows, after the metadata ones
 * (bits of a mask of the fields seen). */
enum top_field {
	TF_VERSION = MF__COUNT,
	TF_TOOL,
	TF_SOURCES,
	TF_PIDS,
	TF_PROCESSES,
	TF_TOTAL_SAMPLES,
	TF_THREADS,
	TF_STRINGS,
	TF_STACKS,
	TF_SAMPLES,
	TF_EVENTS,
	TF_MODULES, /* version 3: native stacks (record --stacks) */
	TF_LOCATIONS,
	TF_NATIVE_STACKS,
	TF_NATIVE_SAMPLES,
	TF_CALLS, /* version 4: record --calls */
	TF_DIAGNOSTICS,
	TF__COUNT,
};

/* The name of field f, a meta_field or a top_field. */
const char *top_field__name(int f);
/* The field called name, TF__COUNT when none is (derived or unknown). */
int top_field__find(const char *name);

/* The string fields of a profile_meta, MF_TOOL_VERSION..MF_FUNCTION_FEATURES. */
const char **meta_field__str(struct profile_meta *m, enum meta_field f);
/* The real fields, MF_START_TIME..MF_DURATION. */
double *meta_field__real(struct profile_meta *m, enum meta_field f);

#endif /* FSP_ANALYSIS_PROFILE_FORMAT_H */
