// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libwl_dsoN.so - one of ten libraries with ABI v2 marks that wl_dsos links
 * (built from this file with -DWL_DSO=N): with the executable, more files
 * with marks than fsp-bpf reads of a process. wl_dsoN_run() runs feature
 * "dsoN" for a given time.
 */
#include "fsp.h"
#include "wl_dl.h"

#ifndef WL_DSO
#define WL_DSO 0
#endif
#define WL_CAT(a, b, c) a##b##c
#define WL_RUN(n) WL_CAT(wl_dso, n, _run)
#define WL_STR2(x) #x
#define WL_STR(x) WL_STR2(x)

void WL_RUN(WL_DSO)(const struct wl_dl_api *api, uint64_t ns);

void WL_RUN(WL_DSO)(const struct wl_dl_api *api, uint64_t ns)
{
	FSP_MARK_ENTER("dso" WL_STR(WL_DSO), "lib", 0);
	api->burn(ns);
	FSP_MARK_LEAVE("dso" WL_STR(WL_DSO), "lib", 0);
}
