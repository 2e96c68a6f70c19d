/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Inside the metrics (metrics.h): the tables its files share.
 *
 *	metrics_input.c	a snapshot's cumulative values per (process, feature, instance)
 *	metrics_state.c	differences, the bound (admission, "other"), expiry
 *	metrics_compact.c	dropping what expired from the tables
 *	metrics_write.c	the exposition (text 0.0.4, OpenMetrics), escaping
 *
 * Strings are interned in m->strs (made valid UTF-8 first), so rows are
 * keyed by pointers. Owners are who values belong to: a process (comm,
 * pid), a process name (comm, 0), or the "other" label; insts are (feature,
 * instance) pairs, feature NULL for a process's totals. Rows hold values per
 * (owner, inst): the exported series, and each snapshot's cumulative
 * values (the previous one is kept to take differences from).
 */
#ifndef FSP_ANALYSIS_METRICS_INT_H
#define FSP_ANALYSIS_METRICS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hashmap.h"
#include "metrics.h"
#include "profile.h"

/* Latency buckets: le = 2^(METRICS_LE0_LOG2 + 2 j) ns (1.024 us, 4.1 us, ...,
 * 17.2 s), then the overflow (+Inf only). */
#define METRICS_BUCKETS 14
#define METRICS_LE0_LOG2 10
/* The pid of a process-name owner, and of the "other" process label. */
#define METRICS_PID_NONE 0
#define METRICS_PID_OTHER UINT32_MAX
#define METRICS_NO_FEAT SIZE_MAX

struct metrics_vals {
	uint64_t samples;
	uint64_t offcpu_ns;
	uint64_t calls; /* enters (a point event's hits) */
	uint64_t total_ns; /* of the calls left */
	/* The left calls' durations, METRICS_BUCKETS counts (not cumulative),
	 * NULL until the event view timed one: most keys have none, and rows
	 * are kept small (a row is 80 bytes; with thousands of series the
	 * agent holds three tables of them). Owned by the row. */
	uint64_t *bucket;
	bool events; /* the event view counted it */
	bool point; /* a point event: calls only */
};

/* What every exported key has: when it was last active, whether it has
 * gone (expired; its row waits for the next compaction). */
struct metrics_owner {
	const char *comm;
	uint32_t pid; /* METRICS_PID_NONE: a process name; METRICS_PID_OTHER */
	double active;
	bool alive; /* a process of it is alive (this update) */
	bool was_dead; /* seen with no process alive by an earlier update */
	bool admitted; /* a label of its own */
	bool gone;
};

struct metrics_feat {
	const char *feature;
	size_t nr_admitted; /* instances with a label of their own */
	double active;
	bool admitted;
	bool gone;
};

struct metrics_inst {
	const char *feature; /* NULL: the totals of a process */
	const char *instance;
	size_t feat; /* METRICS_NO_FEAT for the totals */
	double active;
	bool admitted;
	bool fold; /* an "other" instance */
	bool gone;
};

struct metrics_row {
	size_t owner, inst;
	struct metrics_vals v;
	double active;
	bool gone;
};

struct metrics_rows {
	struct metrics_row *rows;
	size_t n, cap;
	struct hashmap map; /* (owner, inst) -> index */
};

struct metrics {
	struct metrics_opts o;
	struct strtab *strs;
	const char *other; /* "other", interned */
	struct metrics_owner *owners;
	size_t nr_owners, cap_owners;
	struct hashmap owner_map; /* (comm, pid) -> index */
	struct metrics_feat *feats;
	size_t nr_feats, cap_feats;
	struct hashmap feat_map; /* (feature, 0) -> index */
	struct metrics_inst *insts;
	size_t nr_insts, cap_insts;
	struct hashmap inst_map; /* (feature, instance) -> index */
	size_t nr_admitted_owners, nr_admitted_feats;
	struct metrics_rows series; /* exported */
	struct metrics_rows prev_pid, prev_comm; /* the previous snapshot's cumulative values */
	size_t live_at_compaction; /* table entries kept by the last compaction */
	uint64_t diag[DIAG__COUNT]; /* the largest values seen */
	uint64_t period_ns;
	size_t nr_live, nr_folded;
	double now;
	bool updated;
};

/* metrics_state.c */
void metrics_rows__fini(struct metrics_rows *r);
/* The row of (owner, inst), added zeroed if new. NULL: out of memory. */
struct metrics_row *metrics_rows__get(struct metrics_rows *r, size_t owner, size_t inst);
struct metrics_row *metrics_rows__find(const struct metrics_rows *r, size_t owner, size_t inst);
/* The index of owner (comm interned, pid), added if new; -ENOMEM. */
int64_t metrics__owner(struct metrics *m, const char *comm, uint32_t pid);
/* The index of inst (strings interned; feature NULL: the totals), added if new. */
int64_t metrics__inst(struct metrics *m, const char *feature, const char *instance);
/* s made valid UTF-8 and interned (NULL: out of memory). */
const char *metrics__intern(struct metrics *m, const char *s);
/* Makes v->bucket (zeroed) if it has none: 0 or -ENOMEM. */
int metrics_vals__buckets(struct metrics_vals *v);
/* Frees v's buckets and zeroes it. */
void metrics_vals__clear(struct metrics_vals *v);
/* dst += src, field by field (saturating); dst gets buckets when src has
 * some (it cannot fail when dst has them already). 0 or -ENOMEM. */
int metrics_vals__add(struct metrics_vals *dst, const struct metrics_vals *src);
/* The latency bucket of the profile's log2 bucket b (profile.h). */
unsigned int metrics__bucket_of(unsigned int b);

/* metrics_compact.c */
/* Rebuilds the tables without what expired, when they have grown enough.
 * 0 or -ENOMEM (the tables are then as they were). */
int metrics__compact(struct metrics *m);
void metrics__tables_fini(struct metrics *m);

/* metrics_input.c */
/* The cumulative values of snapshot p per (process, inst) into pid_rows and
 * per (process name, inst) into comm_rows (both empty before); owners'
 * liveness from alive[0..nr) (sorted). 0 or -errno. */
int metrics__input(struct metrics *m, const struct profile *p, const uint32_t *alive, size_t nr,
		   struct metrics_rows *pid_rows, struct metrics_rows *comm_rows);

#endif /* FSP_ANALYSIS_METRICS_INT_H */
