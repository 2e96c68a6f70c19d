/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Attribution: the samples (and off-CPU time) of a profile or of one process
 * or thread, charged to features and instances by the attribution rule
 * (docs/attribution.md, "The rule"; charges.h applies it to each stack) and summed.
 */
#ifndef FSP_ANALYSIS_ATTRIB_H
#define FSP_ANALYSIS_ATTRIB_H

#include <stddef.h>
#include <stdint.h>

#include "charges.h"
#include "profile.h"

struct attrib_instance {
	const char *name; /* ATTRIB_NO_INSTANCE: marks that passed no instance */
	uint64_t samples;
	uint64_t offcpu_ns; /* off-CPU time charged by the same rule */
	/* of samples, those charged through a mark of another thread of the
	 * process ("charge threads" in a probe map: PROFILE_CHARGED) */
	uint64_t other_samples;
	/* The event view (exact counts and durations from the probes), summed
	 * over the selected processes; NULL when no events were recorded. */
	const struct profile_event_stats *events;
};

struct attrib_feature {
	const char *name;
	uint64_t samples; /* == sum of its instances' samples */
	uint64_t offcpu_ns; /* == sum of its instances' offcpu_ns */
	uint64_t other_samples; /* == sum of its instances' other_samples */
	const struct profile_event_stats *events; /* sum of its instances'; NULL if none */
	size_t nr_instances;
	const struct attrib_instance *instances; /* descending samples, then name */
};

struct attrib_opts {
	/* Restrict to one process when pid != 0, to one thread when tid != 0
	 * (both may be given). The denominator is then the selection's samples. */
	uint32_t pid;
	uint32_t tid;
	uint32_t source; /* with pid: the process's source (profile.h) */
};

struct attrib;

/* opts may be NULL. Returns NULL on allocation failure. */
struct attrib *attrib__compute(const struct profile *p, const struct attrib_opts *opts);
void attrib__free(struct attrib *a); /* NULL-safe */

/* Samples in the denominator (all samples of the selection, charged or not). */
uint64_t attrib__total_samples(const struct attrib *a);
/* Samples charged to no feature at all. */
uint64_t attrib__uncharged_samples(const struct attrib *a);
/* Off-CPU time of the selection, and the part charged to no feature. */
uint64_t attrib__total_offcpu_ns(const struct attrib *a);
uint64_t attrib__uncharged_offcpu_ns(const struct attrib *a);

size_t attrib__nr_features(const struct attrib *a);
/* Features in descending samples, then by name. Only features charged
 * something (a sample, off-CPU time) or with recorded events are listed (one
 * seen only under its antimarks is not). Events are per process: with a tid
 * selection they are left out. */
const struct attrib_feature *attrib__feature(const struct attrib *a, size_t i);

#endif /* FSP_ANALYSIS_ATTRIB_H */
