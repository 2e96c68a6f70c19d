/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The `fsp` USDT provider and its four probes (ABI v1, usdt/fsp.h). */
#ifndef FSP_PROBES_H
#define FSP_PROBES_H

#define FSP_PROVIDER "fsp"

/* The four probes of ABI v1, indexed by enum fsp_probe. */
enum fsp_probe {
	FSP_PROBE_MARK_ENTER,
	FSP_PROBE_MARK_LEAVE,
	FSP_PROBE_ANTIMARK_ENTER,
	FSP_PROBE_ANTIMARK_LEAVE,
	FSP_PROBE__COUNT,
};

extern const char *const fsp_probe_names[FSP_PROBE__COUNT];

#endif /* FSP_PROBES_H */
