/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Internal helpers shared by the renderers. */
#ifndef FSP_ANALYSIS_REPORT_UTIL_H
#define FSP_ANALYSIS_REPORT_UTIL_H

#include <stdint.h>

#include "profile.h"

#ifndef FSP_VERSION
#define FSP_VERSION "unknown"
#endif

/* Nanoseconds one sample stands for: period_ns, else 1e9 / frequency rounded. */
static inline uint64_t report_period_ns(const struct profile_meta *m)
{
	if (!m)
		return 0;
	if (m->period_ns)
		return m->period_ns;
	if (m->frequency_hz)
		return (1000000000ULL + m->frequency_hz / 2) / m->frequency_hz;
	return 0;
}

static inline double report_ms(uint64_t samples, uint64_t period_ns)
{
	return (double)samples * (double)period_ns / 1e6;
}

static inline double report_pct(uint64_t part, uint64_t total)
{
	return total ? 100.0 * (double)part / (double)total : 0.0;
}

#endif /* FSP_ANALYSIS_REPORT_UTIL_H */
