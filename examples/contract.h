/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libcontract - argument and result checks at the boundaries between the
 * components of a program (a small design-by-contract library), marked
 * for fsp-bpf: its feature is "contract", and each check's mark names the
 * two parties and the check, "CLIENT->SERVER:CHECK", the convention the
 * boundary plug-in reads (fsp-bpf --plugin boundary; usdt/README.md).
 *
 *	static struct ct_boundary *app_matrix;
 *
 *	app_matrix = ct_boundary("app", "matrix");   // once
 *	...
 *	if (!ct_require_finite(app_matrix, v, n))     // app passes matrix a vector
 *		return -1;
 *	r = ct_call(app_matrix, "mul", matrix_mul, &args, mul_pre, mul_post);
 *
 * A failed check is a violation blamed on the client (ct_violations(),
 * ct_last_violation()); the checks never abort. Thread-safe.
 */
#ifndef CONTRACT_H
#define CONTRACT_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The boundary between the component `client` (the caller) and `server`
 * (the component called). Names are copied; a boundary lives until the
 * process ends (its labels must, for the profiler). Equal names give the
 * same boundary. NULL when out of memory. */
struct ct_boundary *ct_boundary(const char *client, const char *server);

/* Every element of v[0..n) is finite (no NaN, no infinity). */
bool ct_require_finite(const struct ct_boundary *b, const double *v, size_t n);

/* v[0..n) is sorted in non-decreasing order. */
bool ct_require_sorted(const struct ct_boundary *b, const int *v, size_t n);

/*
 * A checked call across boundary b: pre(arg) is checked before fn(arg),
 * post(arg, result) after it (either may be NULL). The checks are the
 * contract's cost; fn is the server's own work and is not (an antimark
 * around it), though checks at other boundaries inside fn are. `what`
 * names the contract (a string literal, or any string: it is interned).
 * Returns fn's result, or -1 without calling fn when pre fails.
 */
int ct_call(const struct ct_boundary *b, const char *what, int (*fn)(void *arg), void *arg,
	    bool (*pre)(const void *arg), bool (*post)(const void *arg, int result));

/* Violations so far, and the last one's description ("" when none). */
unsigned long ct_violations(void);
const char *ct_last_violation(void);

#ifdef __cplusplus
}
#endif

#endif /* CONTRACT_H */
