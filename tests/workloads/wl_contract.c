// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_contract - drives examples/libcontract (checks at component boundaries)
 * for the boundary plug-in's test, measuring the checking cost per boundary.
 *
 *   wl_contract TRUTH MS    run cycles for MS ms of CPU time, write the truth
 *
 * Components app, matrix and blas. One cycle (lengths drawn from ranges, so
 * that sampling instants are not locked to the phases):
 *
 *   app's own work, unmarked                        0.5-1.5 ms
 *   ct_require_finite(app->matrix) on a vector      150k-450k doubles
 *   ct_call(app->matrix, "mul"):
 *       precondition (the workload's predicate)     0.2-0.6 ms   charged to app->matrix
 *       matrix_mul, the server's work (antimark)    0.5-1.5 ms   charged to no boundary
 *         ct_require_sorted(matrix->blas)           400k-1.2M ints, nested: matrix->blas
 *       postcondition                               0.1-0.4 ms   charged to app->matrix
 *
 * Library calls are timed from outside: [a, d] around the call holds the
 * check and the library's own overhead (label lookup, probes), which a
 * sampler may charge either way. That overhead is measured at start by
 * calibration calls that check nothing (a boundary of its own, calib->calib),
 * H per call; each call's truth is (d - a) - H / 2 with H ambiguous. For
 * ct_call, the time inside matrix_mul (its nested check included) is taken
 * off too.
 *
 * Truth keys: cpu_total_ns, edge.app.matrix.{ns,ambig_ns},
 * edge.matrix.blas.{ns,ambig_ns}, check.app.matrix.{finite,mul}.{ns,ambig_ns},
 * check.matrix.blas.sorted.{ns,ambig_ns}, mul_whole.{ns,ambig_ns} (the "mul"
 * contract with matrix_mul but its nested check: what ignoring the antimark
 * would charge),
 * calib_call_ns, calib_ctcall_ns, cycles, violations.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include "contract.h"
#include "wl_common.h"

#define US 1000ULL
#define MAX_VEC 450000
#define MAX_INTS 1200000
#define CALIB_CALLS 2000

static double vec[MAX_VEC];
static int ints[MAX_INTS];
static struct ct_boundary *app_matrix, *matrix_blas;
static struct wl_acc finite, mul, sorted, mul_whole;
static uint64_t rng = 0x2545f4914f6cdd1dULL;
static uint64_t h_call, h_ctcall; /* calibrated overhead of a call, ns */

static uint64_t jitter(uint64_t lo, uint64_t hi)
{
	return wl_rand_range(&rng, lo, hi);
}

/* A call timed from outside, [a, d], of which `inner` ns belong elsewhere
 * and h ns (the library's overhead) may be charged either way. */
static void span_call(struct wl_acc *acc, uint64_t a, uint64_t d, uint64_t inner, uint64_t h)
{
	acc->ns += (d - a) - inner - h / 2;
	acc->ambig_ns += h;
}

struct mul_args {
	size_t n_ints;
	uint64_t inside_ns; /* CPU time inside matrix_mul */
	uint64_t sorted_ns; /* of which in its check of blas */
};

static bool mul_pre(const void *arg)
{
	(void)arg;
	wl_burn(jitter(200 * US, 600 * US));
	return true;
}

static bool mul_post(const void *arg, int result)
{
	(void)arg;
	wl_burn(jitter(100 * US, 400 * US));
	return result == 0;
}

/* The server's work: not the contract's cost, but it checks its own call
 * into blas, which is matrix->blas's. */
static int matrix_mul(void *arg)
{
	struct mul_args *m = arg;
	uint64_t e1 = wl_thread_ns(), a, d;
	bool ok;

	wl_burn(jitter(500 * US, 1500 * US));
	a = wl_thread_ns();
	ok = ct_require_sorted(matrix_blas, ints, m->n_ints);
	d = wl_thread_ns();
	span_call(&sorted, a, d, 0, h_call);
	m->sorted_ns = d - a;
	m->inside_ns = wl_thread_ns() - e1;
	return ok ? 0 : -1;
}

static int nothing(void *arg)
{
	(void)arg;
	return 0;
}

/* The overhead of a library call that checks nothing, per call. */
static void calibrate(void)
{
	struct ct_boundary *calib = ct_boundary("calib", "calib");
	uint64_t t;

	if (!calib)
		wl_die("out of memory");
	t = wl_thread_ns();
	for (int i = 0; i < CALIB_CALLS; i++)
		ct_require_finite(calib, vec, 0);
	h_call = (wl_thread_ns() - t) / CALIB_CALLS;
	t = wl_thread_ns();
	for (int i = 0; i < CALIB_CALLS; i++)
		ct_call(calib, "nothing", nothing, NULL, NULL, NULL);
	h_ctcall = (wl_thread_ns() - t) / CALIB_CALLS;
}

static void cycle(void)
{
	struct mul_args m = {.n_ints = jitter(400000, MAX_INTS)};
	uint64_t a, d;

	wl_burn(jitter(500 * US, 1500 * US));
	a = wl_thread_ns();
	ct_require_finite(app_matrix, vec, jitter(150000, MAX_VEC));
	d = wl_thread_ns();
	span_call(&finite, a, d, 0, h_call);

	a = wl_thread_ns();
	ct_call(app_matrix, "mul", matrix_mul, &m, mul_pre, mul_post);
	d = wl_thread_ns();
	span_call(&mul, a, d, m.inside_ns, h_ctcall);
	span_call(&mul_whole, a, d, m.sorted_ns, h_ctcall);
}

int main(int argc, char **argv)
{
	struct wl_acc app_matrix_acc = {0, 0};
	uint64_t ms, start, cycles = 0, total;
	FILE *f;

	if (argc != 3)
		wl_die("usage: wl_contract TRUTH MS");
	ms = wl_arg_u64(argv[2], "MS");
	for (size_t i = 0; i < MAX_VEC; i++)
		vec[i] = (double)i * 0.5;
	for (size_t i = 0; i < MAX_INTS; i++)
		ints[i] = (int)(i / 3);
	app_matrix = ct_boundary("app", "matrix");
	matrix_blas = ct_boundary("matrix", "blas");
	if (!app_matrix || !matrix_blas)
		wl_die("out of memory");
	calibrate();
	start = wl_thread_ns();
	while (wl_thread_ns() - start < ms * WL_NS_PER_MS) {
		cycle();
		cycles++;
	}
	total = wl_process_ns();

	wl_acc_add(&app_matrix_acc, &finite);
	wl_acc_add(&app_matrix_acc, &mul);
	f = wl_out_open(argv[1]);
	wl_out_u64(f, "cpu_total_ns", total);
	wl_out_u64(f, "cycles", cycles);
	wl_out_u64(f, "violations", ct_violations());
	wl_out_u64(f, "calib_call_ns", h_call);
	wl_out_u64(f, "calib_ctcall_ns", h_ctcall);
	wl_out_acc(f, "edge.app.matrix", &app_matrix_acc);
	wl_out_acc(f, "edge.matrix.blas", &sorted);
	wl_out_acc(f, "check.app.matrix.finite", &finite);
	wl_out_acc(f, "check.app.matrix.mul", &mul);
	wl_out_acc(f, "check.matrix.blas.sorted", &sorted);
	wl_out_acc(f, "mul_whole", &mul_whole);
	return wl_out_close(f, argv[1]) || wl_integrity_errors() ? 3 : 0;
}
