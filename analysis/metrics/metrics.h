/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Feature costs as Prometheus metrics (the agent, `record --listen`,
 * docs/fleet.md): counters since the session started, per feature,
 * instance and process, kept within a bound on the number of series
 * whatever the targets do. Pure C: the agent feeds it snapshots of the
 * session (cumulative profiles) and writes the exposition it renders.
 *
 * Each update takes the snapshot's cumulative values per (process,
 * feature, instance) (the attribution rule: charges__of, model/charges.h), subtracts the
 * previous snapshot's and adds the differences to the exported series.
 * Exported counters therefore never go down, whatever happens to the
 * snapshot's records: a process's records folded into another by -a's
 * retirement, an instance folded into "other", a process label that
 * expired and came back. Where a record moves (a process folded into an
 * earlier one of the same name), the difference is taken per process name,
 * which the move keeps, so nothing is counted twice.
 *
 * The bound (metrics_opts): per feature at most max_instances instances
 * get series of their own, the others are summed into instance "other"; at
 * most max_features features and max_processes process labels likewise
 * (feature "other", process "other"). A feature, instance or process label
 * keeps its series while it is active, i.e. while one of its processes is
 * alive or its counters grow; one inactive for expire_s leaves the
 * exposition and frees its place. Labels are the strings read from the
 * targets, made valid UTF-8 (an invalid byte becomes U+FFFD) and escaped as
 * the format requires, so that no label can end its line or its value.
 */
#ifndef FSP_ANALYSIS_METRICS_H
#define FSP_ANALYSIS_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile.h"

#define METRICS_DEFAULT_MAX_INSTANCES 50
#define METRICS_DEFAULT_MAX_FEATURES 200
#define METRICS_DEFAULT_MAX_PROCESSES 100
#define METRICS_DEFAULT_EXPIRE_S 300
/* The label of what the bound folds. */
#define METRICS_OTHER "other"

struct metrics_opts {
	size_t max_instances; /* per feature; 0: METRICS_DEFAULT_MAX_INSTANCES */
	size_t max_features; /* 0: METRICS_DEFAULT_MAX_FEATURES */
	size_t max_processes; /* process labels; 0: METRICS_DEFAULT_MAX_PROCESSES */
	/* Process labels: the process name (its main thread's comm), or with
	 * by_pid the PID (label pid) and its name (label process). */
	bool by_pid;
	double expire_s; /* 0: METRICS_DEFAULT_EXPIRE_S */
};

struct metrics;

struct metrics *metrics__new(const struct metrics_opts *opts); /* NULL: out of memory */
void metrics__free(struct metrics *m); /* NULL-safe */

/*
 * Updates the counters from p, a cumulative snapshot of the session (a
 * single recording) taken at now_s (any clock, the same for every call;
 * later than the previous call's). alive[0..nr_alive) are the PIDs of the
 * targets alive when it was taken, sorted ascending. 0, -EINVAL or -ENOMEM
 * (then the counters are as before the call).
 */
int metrics__update(struct metrics *m, const struct profile *p, double now_s, const uint32_t *alive,
		    size_t nr_alive);

/* Series with labels of their own, and (feature, instance, process) keys
 * of the last snapshot summed into an "other" label by the bound. */
size_t metrics__nr_series(const struct metrics *m);
size_t metrics__nr_folded(const struct metrics *m);

enum metrics_format {
	METRICS_TEXT = 0, /* the Prometheus text format 0.0.4 */
	METRICS_OPENMETRICS, /* OpenMetrics 1.0.0 text */
};

/* The format an Accept header asks for (NULL: no header): OpenMetrics when
 * it names application/openmetrics-text with a q above text/plain's. */
enum metrics_format metrics__negotiate(const char *accept);
const char *metrics__content_type(enum metrics_format f);

/* fsp-bpf's own process (the Prometheus client libraries' process_*). */
struct metrics_self {
	double cpu_s;
	uint64_t rss_bytes;
	uint64_t vsize_bytes;
	uint64_t open_fds;
	uint64_t max_fds;
	double start_time_s; /* unix seconds */
};

/* What the exposition says about the session besides its counters. */
struct metrics_info {
	const char *version;
	const char *marks; /* session__marks, "" if none yet */
	uint64_t period_ns;
	double start_time_s; /* the session's, unix seconds */
	uint64_t targets; /* processes profiled now */
	uint64_t windows; /* profile windows under way (the agent's) */
	bool offcpu; /* --off-cpu: the off-CPU counters */
	struct metrics_self self;
};

/* The exposition of the last update (the session's diagnostics included),
 * in format f. 0 or -errno of the write. */
int metrics__write(const struct metrics *m, FILE *out, enum metrics_format f,
		   const struct metrics_info *info);

/* A label value as the formats write it between its quotes: invalid UTF-8
 * bytes as U+FFFD, backslash, double quote and line feed escaped. */
void metrics__fputs_label(const char *s, FILE *out);

#endif /* FSP_ANALYSIS_METRICS_H */
