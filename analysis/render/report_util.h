/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Internal helpers shared by the renderers. */
#ifndef FSP_ANALYSIS_REPORT_UTIL_H
#define FSP_ANALYSIS_REPORT_UTIL_H

#include <errno.h>
#include <locale.h>
#include <stdint.h>
#include <stdio.h>

#include "profile.h"
#include "util.h"

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
	return fsp_period_ns(m->frequency_hz);
}

static inline double report_ms(uint64_t samples, uint64_t period_ns)
{
	return (double)samples * (double)period_ns / 1e6;
}

static inline double report_pct(uint64_t part, uint64_t total)
{
	return total ? 100.0 * (double)part / (double)total : 0.0;
}

/* Runs the renderers in the C locale: '.' decimal points whatever the caller's. */
struct c_locale {
	locale_t c, old;
};

static inline int c_locale__enter(struct c_locale *l)
{
	l->c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	if (!l->c)
		return -ENOMEM;
	l->old = uselocale(l->c);
	return 0;
}

static inline void c_locale__leave(struct c_locale *l)
{
	uselocale(l->old);
	freelocale(l->c);
}

/* 0 when everything written to out reached it, else -errno. */
static inline int flush_status(FILE *out)
{
	if (fflush(out) || ferror(out))
		return errno ? -errno : -EIO;
	return 0;
}

#endif /* FSP_ANALYSIS_REPORT_UTIL_H */
