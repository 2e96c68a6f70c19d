/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internal: what the renderers share to present views of a profile
 * (report.h): the order of entries, the names of sources, processes and
 * threads (report_view.c), the features --feature selects
 * (report_features.c), the process filter and what every renderer starts
 * from (report_filter.c). They charge samples by the charges of each
 * distinct mark stack (charges.h).
 */
#ifndef FSP_ANALYSIS_REPORT_VIEW_H
#define FSP_ANALYSIS_REPORT_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "attrib.h"
#include "charges.h"
#include "hashmap.h"
#include "profile.h"
#include "report.h"
#include "util.h"

/* Label of the samples charged to no feature (folded stacks, pprof). */
#define REPORT_NO_FEATURE "(no feature)"

/* What an entry (feature, instance, thread, process) is ordered by. */
struct report_key {
	uint64_t cost_ns; /* charged time */
	uint64_t samples; /* sampled count */
	const char *name; /* never NULL */
};

/* Charged time of `samples` samples of period_ns each, saturating. */
uint64_t report_cost_ns(uint64_t samples, uint64_t period_ns);
/* The cost of --order cost: on-CPU time (samples x period) plus off-CPU
 * time, saturating. */
uint64_t report_charged_ns(uint64_t samples, uint64_t offcpu_ns, uint64_t period_ns);

/* < 0 when a comes before b in order o, 0 when the keys are equal (callers
 * break such ties by ids). cost: descending cost_ns, then descending samples
 * (which decide alone when the period is unknown); samples: descending
 * samples; name: ascending bytes; then by name for cost and samples. */
int report_key__cmp(enum report_order o, const struct report_key *a, const struct report_key *b);

struct report_thread {
	uint32_t source;
	uint32_t pid;
	uint32_t nspid; /* its process's PID in its own namespace, 0: unknown or same */
	uint32_t tid;
	const char *comm; /* "" when unknown */
	uint64_t offcpu_ns; /* the thread's off-CPU time */
	struct report_key key; /* name: comm; cost_ns: on-CPU + off-CPU time */
};

struct report_process {
	uint32_t source;
	uint32_t pid;
	uint32_t nspid; /* its PID in its own namespace, 0: unknown or same */
	const char *comm; /* its main thread's (tid == pid) comm, "" when unknown */
	size_t nr_threads;
	uint64_t offcpu_ns; /* of its threads */
	struct report_key key; /* name: comm; cost_ns: on-CPU + off-CPU time */
};

/* The profile's threads and processes (with the samples and off-CPU time of
 * their threads; processes known only by event records too), sorted in
 * order o, ties by (source, pid, tid). *out is the caller's to free (NULL
 * when there are none). 0 or -ENOMEM. */
int report_threads(const struct profile *p, enum report_order o, struct report_thread **out,
		   size_t *nr);
int report_processes(const struct profile *p, enum report_order o, struct report_process **out,
		     size_t *nr);

/* (source, pid) -> nspid of the processes of p that have one, into map. 0
 * or -errno. */
int report_process_nspids(const struct profile *p, struct hashmap *map);
/* (source, pid) -> the comm of the process's main thread (tid == pid; a
 * pointer into p) of the processes whose main thread has one. 0 or -errno. */
int report_process_comms(const struct profile *p, struct hashmap *map);

/* A source's name in a merged profile: its host when no other source has
 * that host, "HOST#N" when another has, "source N" when it has no host.
 * Returns true when the name holds the host (a label from the target). */
bool report_source_name(const struct profile *p, uint32_t source, char *buf, size_t size);
/* A process's name: "PID", or "SOURCE:PID" when p has several sources. */
void report_pid_name(const struct profile *p, uint32_t source, uint32_t pid, char *buf,
		     size_t size);

/* The feature of attribution a that `name` (a --feature name) selects: the
 * same name, or the part after "MAP:" of a mapped feature ("plan" selects
 * "postgresql:plan"). NULL when none was charged. */
const struct attrib_feature *report_find_feature(const struct attrib *a, const char *name);

/* The features report_opts.feature selects. */
struct report_features {
	bool all; /* no --feature: every feature */
	const char **names; /* else these, each once, in the order given */
	size_t nr;
	char *buf; /* the names' storage */
};

/* Splits arg (NULL: every feature) into names; arg is one name when a
 * feature of p (a frame or an event record) has exactly that name. 0 or
 * -ENOMEM. */
int report_features__init(struct report_features *s, const struct profile *p, const char *arg);
void report_features__fini(struct report_features *s); /* NULL-safe, idempotent */
bool report_features__has(const struct report_features *s, const char *name);

/* The non-empty elements of the comma-separated list s, each once, in
 * order, into names (pointers into *buf, which the caller frees with
 * names). 0 or -ENOMEM. */
int report_split_list(const char *s, char **buf, const char ***names, size_t *nr);

/* What a renderer shows: the profile after the process filter of its
 * options (report__filter) and the features of --feature in it. */
struct report_scope {
	const struct profile *p; /* the filtered profile, else the caller's */
	const struct profile *whole; /* the caller's when a filter is in effect, else NULL */
	const char *feature; /* report_opts.feature, NULL for all */
	struct report_features feat; /* the features it names */
	struct profile *filtered; /* owned */
};

/* Filters p by opts (may be NULL) and splits its --feature list. 0, or
 * -EINVAL / -ENOMEM as report__filter (s then holds nothing). */
int report_scope__init(struct report_scope *s, const struct profile *p,
		       const struct report_opts *opts);
void report_scope__fini(struct report_scope *s); /* NULL-safe, idempotent */

#endif /* FSP_ANALYSIS_REPORT_VIEW_H */
