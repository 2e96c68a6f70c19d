/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internal to the text report (report__text): its state and what its files
 * share. report_text.c: the header, the notes and messages, the
 * diagnostics, the entry point; report_text_features.c: the features and
 * instances of a block, --by feature, the wall-clock view;
 * report_text_sections.c: --by thread and --by process.
 */
#ifndef FSP_ANALYSIS_REPORT_TEXT_H
#define FSP_ANALYSIS_REPORT_TEXT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "report.h"
#include "report_view.h"

struct text_ctx {
	FILE *out;
	const struct profile *p; /* with a process filter, the filtered profile */
	const struct profile *whole; /* the profile before the filter, NULL without */
	const struct report_opts *opts;
	const struct attrib *a;
	double min_pct;
	enum report_order order;
	const char *feature; /* --feature, NULL for all */
	const struct report_features *feat; /* the features it names */
	size_t nr_selected; /* of them, those charged (in a) */
	uint64_t period; /* ns per sample */
	uint64_t total; /* the denominator: the attribution's samples */
	bool events; /* the profile has event records: calls columns */
	bool offcpu; /* the profile has off-CPU time: its column, the wall-clock view */
};

/* A list of features with its denominator: the whole report's, or one
 * thread's or process's in --by thread / process. */
struct text_block {
	const struct attrib *a;
	uint64_t total; /* samples of the block: what shares are of */
	const char *indent; /* prefix of each line */
	const char *of; /* what the shares are of: "running time", ... */
	const char *what; /* "thread" or "process" in a section, else NULL */
	bool events; /* calls columns (not in thread sections: events are per process) */
};

/* An entry to sort in the report's order; qsort passes no context, so each
 * entry carries the order. */
struct text_item {
	struct report_key key;
	const void *ptr;
	enum report_order order;
};

static inline const char *plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static inline double ms_of_ns(uint64_t ns)
{
	return (double)ns / 1e6;
}

static inline uint64_t event_ns(const struct profile_event_stats *st)
{
	return st ? st->total_ns : 0;
}

/* Whether st are the hits of a point event (a probe map's "event"): they
 * have no duration to weigh against --min-pct, their count is what they
 * tell, so they are never folded. */
static inline bool point_hits(const struct profile_event_stats *st)
{
	return st && st->point && st->enters;
}

/* report_text_features.c */

/* The features of a (or its instances of f when f is not NULL) in the
 * report's order. NULL on allocation failure. */
struct text_item *text_sorted(const struct text_ctx *c, const struct attrib *a,
			      const struct attrib_feature *f, size_t *n);
/*
 * Whether an entry is kept under --min-pct in a denominator of `total`
 * samples: when its samples, its event time or its off-CPU time is at least
 * min_pct of that (running time: total x period). Without running time
 * (no sample, or no period known), any event or off-CPU time keeps it.
 */
bool text_keep(const struct text_ctx *c, uint64_t total, uint64_t samples, uint64_t event_ns,
	       uint64_t offcpu_ns);
/* The features of a block: all (folding those under --min-pct), or those
 * of --feature, which the caller made sure b->a has. */
int text_block(struct text_ctx *c, const struct text_block *b);
/* Whether a has a feature --feature names. */
bool text_has_selected(const struct text_ctx *c, const struct attrib *a);
/* --by feature: the features of the whole attribution. */
int text_features(struct text_ctx *c);
/* The wall-clock view, when off-CPU time was recorded. */
int text_wall(struct text_ctx *c);

/* report_text_sections.c: --by thread or --by process. */
int text_sections(struct text_ctx *c, bool thread);

/* report_text_native.c: the native stacks' hottest functions per feature
 * and instance, or --function's callers and callees; nothing when the
 * profile has no native stack (-ENOENT with --function). */
int text_native(struct text_ctx *c);

/* report_text.c */

/* The names of --feature that were (found) or were not charged, joined by
 * " or ". */
void text_names(struct text_ctx *c, bool found);
/* "no feature NAME [or NAME...] in this profile", and the features it has
 * instead; -ENOENT. */
int text_missing(struct text_ctx *c);
/* "no feature NAME in this profile" for the names of a --feature list that
 * charged nothing, when others did (they are shown). */
void text_unknown(struct text_ctx *c);
/* Explains an empty report (no feature to list); true when it had to. */
bool text_empty(struct text_ctx *c);
/* The note under the features; `events` when calls columns were shown. */
void text_note(struct text_ctx *c, bool events);

/* Does a feature of a charge samples of other threads ("charge threads")? */
bool text_charges_others(const struct attrib *a);

#endif /* FSP_ANALYSIS_REPORT_TEXT_H */
