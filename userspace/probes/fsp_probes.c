// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "fsp_probes.h"

const char *const fsp_probe_names[FSP_PROBE__COUNT] = {
	[FSP_PROBE_MARK_ENTER] = "mark_enter",
	[FSP_PROBE_MARK_LEAVE] = "mark_leave",
	[FSP_PROBE_ANTIMARK_ENTER] = "antimark_enter",
	[FSP_PROBE_ANTIMARK_LEAVE] = "antimark_leave",
};
