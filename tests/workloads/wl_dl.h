/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The interface between wl_dlopen and libwl_dl.so. The library is built on its
 * own (no wl_common.c), so the program hands it its clock and burner.
 */
#ifndef WL_DL_H
#define WL_DL_H

#include <stdint.h>

struct wl_dl_api {
	uint64_t (*thread_ns)(void);
	uint64_t (*burn)(uint64_t ns);
	uint64_t (*rand_range)(uint64_t *state, uint64_t lo, uint64_t hi);
};

struct wl_dl_result {
	uint64_t feature_ns; /* in "dlfeature", with half the ambiguous time */
	uint64_t feature_ambig_ns; /* enter/leave brackets */
	uint64_t latency_ns; /* thread CPU until the library saw its semaphore raised */
	uint64_t cycles;
	uint64_t cycles_unarmed; /* cycles that started before that */
	uint64_t enters_fired; /* marks entered with the probe firing */
	uint64_t leaves_fired; /* and left */
};

/* Runs the library's feature for ms ms of thread CPU time. */
typedef void (*wl_dl_run_fn)(const struct wl_dl_api *api, uint64_t ms, struct wl_dl_result *out);
#define WL_DL_RUN "wl_dl_run"

/* libwl_prov.so: non-zero once a profiler armed its wlprov:work__start probe. */
typedef unsigned short (*wl_prov_armed_fn)(void);
#define WL_PROV_ARMED "wl_prov_armed"

#endif /* WL_DL_H */
