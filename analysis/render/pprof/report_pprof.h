/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internal to the pprof renderer (report__pprof): its state and what its
 * files share. report_pprof.c: the tables (strings, functions, locations,
 * labels, samples), the core samples and events, packing and compression;
 * report_pprof_native.c: the native stacks (record --stacks) as real
 * Mapping, Location, Line and Function records above the feature and
 * instance frames.
 */
#ifndef FSP_ANALYSIS_REPORT_PPROF_H
#define FSP_ANALYSIS_REPORT_PPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hashmap.h"
#include "profile.pb-c.h"
#include "report.h"
#include "report_native.h"
#include "report_view.h"

/* The labels of one thread's samples: pid, nspid, tid, thread, process, source. */
#define PPROF_MAX_LABELS 6

/* Sample types: samples, cpu, [offcpu,] [calls, event_time]. */
#define PPROF_MAX_TYPES 5

/* thread_map's tid of a process's label set (event samples): no tid is. */
#define PPROF_PROCESS_LABELS (UINT64_C(1) << 32)

/* The mapping of fsp-bpf's own frames (features, instances, "(no
 * feature)"); the modules' mappings follow it. */
#define PPROF_OWN_MAPPING 1

struct pprof_labels {
	Perftools__Profiles__Label label[PPROF_MAX_LABELS];
	Perftools__Profiles__Label *ptr[PPROF_MAX_LABELS];
	size_t n;
};

struct pprof_sample {
	size_t loc_off, n_loc; /* its location ids, leaf first, in pprof_ctx.locpool */
	int64_t value[PPROF_MAX_TYPES]; /* samples, cpu ns, [offcpu ns,] [calls, event ns] */
	size_t labels; /* index in pprof_ctx.labels */
};

/* A Line of a Location: a function id and a source line (0: unknown). */
struct pprof_line {
	uint64_t func;
	int64_t line;
};

/* A Location (its id: index + 1). */
struct pprof_loc {
	uint64_t mapping; /* 0: none (JIT code) */
	uint64_t address;
	size_t line_off, n_line; /* in pprof_ctx.lines */
};

struct pprof_ctx {
	const struct profile *p; /* with a process filter, the filtered profile */
	const char *feature; /* --feature, NULL for all */
	const struct report_features *feat; /* the features it names */
	const struct profile *whole; /* before a process filter, NULL without */
	const struct report_opts *opts;
	uint64_t period; /* ns per sample */
	bool offcpu; /* the profile has off-CPU time: sample type offcpu */
	bool events; /* it has event records: sample types calls, event_time */
	size_t nr_types;

	char **strs; /* the string table, owned copies; strs[0] is "" */
	size_t nr_strs, cap_strs;
	struct hashmap str_map; /* (hash, k) -> index, k-th string of that hash */

	/* Functions (id: index + 1): one per feature, per (feature,
	 * instance), for (no feature), and per native function. */
	Perftools__Profiles__Function *funcs;
	size_t nr_funcs, cap_funcs;
	/* (feature string, instance string + 1 or 0) -> location index of
	 * that frame of fsp-bpf's own */
	struct hashmap func_map;
	uint64_t no_feature; /* location id of (no feature), 0 until needed */
	struct pprof_loc *locs;
	size_t nr_locs, cap_locs;
	struct pprof_line *lines;
	size_t nr_lines, cap_lines;

	struct pprof_labels *labels;
	size_t nr_labels, cap_labels;
	struct hashmap thread_map; /* (source << 32 | pid, tid) -> labels index */
	struct hashmap pcomms; /* (source, pid) -> main thread's comm */
	struct hashmap nspids; /* (source, pid) -> its PID in its namespace */

	struct pprof_sample *samples;
	size_t nr_samples, cap_samples;
	uint64_t *locpool;
	size_t nr_locpool, cap_locpool;

	/* native stacks (report_pprof_native.c) */
	bool has_native;
	struct native_view native;
	uint64_t *native_locs; /* per profile location: its Location id, 0: none yet */
	uint64_t *native_funcs; /* per native_view function: its Function id, 0: none yet */
	Perftools__Profiles__Mapping *maps; /* the modules' mappings (ids from 2) */
	size_t nr_maps, cap_maps;
	uint64_t *module_maps; /* per module: its mapping id, 0: none yet */
	/* (labels << 32 | native stack, instance << 32 | feature location)
	 * -> its pprof sample */
	struct hashmap native_samples;
	uint64_t *slot_locs; /* per charge of charges.h: its [instance, feature] ids, 0: unknown */
};

/* report_pprof.c */
int64_t clamp_i64(uint64_t v);
/* The index of s in the string table (made valid UTF-8), added when new. */
int64_t pprof_str(struct pprof_ctx *c, const char *s);
/* A new Function; its id or -errno. filename may be NULL. */
int64_t pprof_function(struct pprof_ctx *c, const char *name, const char *system_name,
		       const char *filename);
/* A new Location of lines[0..n) (innermost first); its id or -errno. */
int64_t pprof_location(struct pprof_ctx *c, uint64_t mapping, uint64_t address,
		       const struct pprof_line *lines, size_t n);
/* The locations of a charge: locs[0] its instance, locs[1] its feature. */
int pprof_charge_locs(struct pprof_ctx *c, const struct charge *ch, uint64_t *locs);
/* The location id of "(no feature)". */
int64_t pprof_no_feature(struct pprof_ctx *c);
/* The label set of a thread (see report_pprof.c); its index or -errno. */
int64_t pprof_thread(struct pprof_ctx *c, uint32_t source, uint32_t pid, uint64_t tid,
		     const char *comm, const char *pcomm);
/* A sample at locs (leaf first) of `count` core samples and off_ns off-CPU. */
int pprof_add(struct pprof_ctx *c, const uint64_t *locs, size_t n_loc, uint64_t count,
	      uint64_t off_ns, size_t labels);

/* report_pprof_native.c */
int pprof_native__init(struct pprof_ctx *c);
void pprof_native__fini(struct pprof_ctx *c);
/* One pprof sample per charge of each native sample (--feature's), located
 * [native frames..., instance, feature] or [native frames..., (no feature)]. */
int pprof_native__samples(struct pprof_ctx *c, const struct charges *charges);

/* Packs c into profile.proto, gzip-compressed, to out (report_pprof_write.c). */
int pprof_write(struct pprof_ctx *c, FILE *out);

#endif /* FSP_ANALYSIS_REPORT_PPROF_H */
