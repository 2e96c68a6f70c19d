/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What every writer of output shares (the renderers, the profile file, the
 * plug-ins' sections): the C locale they run in, the status of a stream
 * written to, the tool's version, and times and shares of sample counts.
 */
#ifndef FSP_ANALYSIS_OUTPUT_H
#define FSP_ANALYSIS_OUTPUT_H

#include <errno.h>
#include <locale.h>
#include <stdint.h>
#include <stdio.h>

#ifndef FSP_VERSION
#define FSP_VERSION "unknown"
#endif

/* Milliseconds of `samples` samples of period_ns each. */
static inline double report_ms(uint64_t samples, uint64_t period_ns)
{
	return (double)samples * (double)period_ns / 1e6;
}

/* part as a percentage of total (0 when total is 0). */
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

#endif /* FSP_ANALYSIS_OUTPUT_H */
