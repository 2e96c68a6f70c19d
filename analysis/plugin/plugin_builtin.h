/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internal: the built-in plug-ins (plugin_boundary.c, plugin_tasks.c,
 * plugin_backtrack.c) and what they share. They read the profile only
 * through the host table, as a plug-in shared object does (the charges of
 * each stack too); for their own tables and figures they use the analysis
 * library's hash maps, arrays, times and shares.
 */
#ifndef FSP_ANALYSIS_PLUGIN_BUILTIN_H
#define FSP_ANALYSIS_PLUGIN_BUILTIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fsp-plugin.h"
#include "output.h"
#include "util.h"

extern const struct fsp_plugin plugin_backtrack;
extern const struct fsp_plugin plugin_boundary;
extern const struct fsp_plugin plugin_tasks;

/* The charge of feature f (an interned pointer) in stack i by the
 * attribution rule (host->charges), NULL when the stack does not charge f
 * (no frame of f, or its top-most is an antimark). */
static inline const struct fsp_plugin_charge *pl_charge(const struct fsp_plugin_host *h,
							const struct fsp_plugin_profile *p,
							size_t i, const char *f)
{
	size_t n;
	const struct fsp_plugin_charge *c = h->charges(p, i, &n);

	for (size_t k = 0; k < n; k++)
		if (c[k].feature == f)
			return &c[k];
	return NULL;
}

/* On-CPU and off-CPU cost, summed (saturating). */
struct pl_cost {
	uint64_t samples;
	uint64_t offcpu_ns;
};

static inline void pl_cost_add(struct pl_cost *c, uint64_t samples, uint64_t offcpu_ns)
{
	c->samples = fsp_sat_add(c->samples, samples);
	c->offcpu_ns = fsp_sat_add(c->offcpu_ns, offcpu_ns);
}

/* qsort_r of n elements (base may be NULL when n is 0). */
static inline void pl_sort(void *base, size_t n, size_t size,
			   int (*cmp)(const void *, const void *, void *), void *ctx)
{
	if (n > 1)
		qsort_r(base, n, size, cmp, ctx);
}

/* Orders by descending cost: on-CPU plus off-CPU time, then samples. */
int pl_cost_cmp(const struct pl_cost *a, const struct pl_cost *b, uint64_t period_ns);

/*
 * The on-CPU and off-CPU cost of each distinct stack, summed over threads
 * (calloc'ed, info->nr_stacks of them; NULL on allocation failure).
 * Plug-ins that do not care about threads work per stack with it.
 */
struct pl_cost *pl_stack_costs(const struct fsp_plugin_host *h, const struct fsp_plugin_profile *p,
			       const struct fsp_plugin_info *info);

/* Whether a row of `samples` is under the --min-pct threshold (shown
 * folded in text and DOT). */
static inline bool pl_below(uint64_t samples, uint64_t total, double min_pct)
{
	return min_pct > 0 && report_pct(samples, total) < min_pct;
}

/* The standard members of a cost in JSON: samples, time_ms, pct, offcpu_ns
 * (prefix "" or e.g. "self_"). */
void pl_json_cost(const struct fsp_plugin_host *h, struct fsp_plugin_json *j, const char *prefix,
		  const struct pl_cost *c, const struct fsp_plugin_info *info);

/* lead, then "    1234.5  12.34%": the text columns of a cost (ms and share
 * of running time), 18 characters under the headers "%10s %7s". */
void pl_text_cost(FILE *out, const char *lead, uint64_t samples,
		  const struct fsp_plugin_info *info);

#endif /* FSP_ANALYSIS_PLUGIN_BUILTIN_H */
