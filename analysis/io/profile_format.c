// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The fields of the profile file (profile_format.h). */
#include <string.h>

#include "profile_format.h"

static const char *const field_names[TF__COUNT] = {
	[MF_TARGET] = "target",
	[MF_COMMAND_LINE] = "command_line",
	[MF_HOST] = "host",
	[MF_KERNEL] = "kernel",
	[MF_MARKS] = "marks",
	[MF_FUNCTION_FEATURES] = "function_features",
	[MF_TOOL_VERSION] = "tool_version",
	[MF_START_TIME] = "start_time",
	[MF_END_TIME] = "end_time",
	[MF_DURATION] = "duration_s",
	[MF_FREQUENCY] = "frequency_hz",
	[MF_PERIOD] = "period_ns",
	[MF_EVENT_TRAP] = "event_trap_ns",
	[TF_VERSION] = "version",
	[TF_TOOL] = "tool",
	[TF_SOURCES] = "sources",
	[TF_PIDS] = "pids",
	[TF_PROCESSES] = "processes",
	[TF_TOTAL_SAMPLES] = "total_samples",
	[TF_THREADS] = "threads",
	[TF_STRINGS] = "strings",
	[TF_STACKS] = "stacks",
	[TF_SAMPLES] = "samples",
	[TF_EVENTS] = "events",
	[TF_MODULES] = "modules",
	[TF_LOCATIONS] = "locations",
	[TF_NATIVE_STACKS] = "native_stacks",
	[TF_NATIVE_SAMPLES] = "native_samples",
	[TF_CALLS] = "calls",
	[TF_DIAGNOSTICS] = "diagnostics",
};

const char *top_field__name(int f)
{
	return f >= 0 && f < TF__COUNT ? field_names[f] : NULL;
}

int top_field__find(const char *name)
{
	int f;

	for (f = 0; f < TF__COUNT; f++)
		if (!strcmp(name, field_names[f]))
			break;
	return f;
}

const char **meta_field__str(struct profile_meta *m, enum meta_field f)
{
	switch (f) {
	case MF_TARGET:
		return &m->target;
	case MF_COMMAND_LINE:
		return &m->command_line;
	case MF_HOST:
		return &m->host;
	case MF_TOOL_VERSION:
		return &m->tool_version;
	case MF_KERNEL:
		return &m->kernel;
	case MF_FUNCTION_FEATURES:
		return &m->function_features;
	default:
		return &m->marks;
	}
}

double *meta_field__real(struct profile_meta *m, enum meta_field f)
{
	return f == MF_START_TIME ? &m->start_time
	       : f == MF_END_TIME ? &m->end_time
				  : &m->duration_s;
}
