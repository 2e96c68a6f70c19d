/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * From a probe map's feature (analysis/probemap/probemap.h) and one USDT site of its
 * enter or leave probe to what the BPF side runs at that site (struct
 * fsp_map_site, bpf/profiler.h).
 */
#ifndef FSP_PROBEMAP_SITES_H
#define FSP_PROBEMAP_SITES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>

#include "probemap.h"
#include "profiler.h"
#include "usdt.h"

/* The identifier of the session's mapped feature number n. */
static inline uint64_t probemap_sites__feature_id(uint32_t n)
{
	return FSP_ID_SYNTH | FSP_ID_FEATURE | n;
}

static inline bool probemap_sites__is_feature_id(uint64_t id)
{
	return (id & (FSP_ID_SYNTH | FSP_ID_FEATURE)) == (FSP_ID_SYNTH | FSP_ID_FEATURE);
}

/* A label interned by a mapped probe (in the labels map under tgid 0). */
static inline bool probemap_sites__is_label_id(uint64_t id)
{
	return (id & (FSP_ID_SYNTH | FSP_ID_FEATURE)) == FSP_ID_SYNTH;
}

/*
 * The identifier the kernel side gives a mapped probe's label of these
 * bytes (bpf/mapped.bpf.h map_label()): what a "when" compares a string
 * operand's label with.
 */
uint64_t probemap_sites__label_id(const char *text, size_t len);

/*
 * Fills out for a site of feature f's enter (leave false) or leave probe.
 * feature_id and outer_id (the id of f's {outer:...} feature, if any) are
 * the session's; the file of the site, where {global:SYMBOL} parts and the
 * call frame are looked up, is read through kpath (the descriptor's path of
 * the mapped file) and named path in messages. Returns 0, or -EINVAL when
 * the site's probe does not have an argument the feature reads or the file
 * lacks a global, with "why" saying which.
 */
int probemap_sites__build(const struct probemap *m, const struct probemap_feature *f, bool leave,
			  const char *path, const char *kpath, const struct usdt_site *site,
			  uint64_t feature_id, uint64_t outer_id, struct fsp_map_site *out,
			  char *why, size_t why_size);

#endif /* FSP_PROBEMAP_SITES_H */
