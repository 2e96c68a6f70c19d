/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Function features (funcfeat.h) applied to a profile: each native sample's
 * *merged stack* — its mark frames and its native frames, a function
 * feature's frames made marks and antimarks of it — becomes a mark stack of
 * the profile, so that every view charges it by the one rule (charges.h).
 * docs/function-features.md.
 */
#ifndef FSP_ANALYSIS_FUNCFEAT_APPLY_H
#define FSP_ANALYSIS_FUNCFEAT_APPLY_H

#include "funcfeat.h"
#include "profile.h"

/*
 * Applies the rules to p's native samples: each native sample whose merged
 * stack has a function-feature frame moves, with its core samples, to that
 * merged stack (a new mark stack of its process). Core samples without a
 * native stack are left as they are. Also records the rules in p's metadata
 * (function_features). 0 or -errno.
 */
int funcfeat__apply(const struct funcfeat *ff, struct profile *p);

/*
 * The instance of a function feature's call made from profile location loc
 * (a caller's frame: a return address less one), as funcfeat__apply names
 * the call sites of native samples: "FUNC (FILE:LINE)" of its innermost
 * line, "FUNC" without a line, "FILE+0xADDR" without a function. The event
 * view of function features (--events) names its call sites with it.
 * 0 or -ENOENT (no such location).
 */
int funcfeat__call_site(const struct profile *p, size_t loc, char *buf, size_t size);

#endif /* FSP_ANALYSIS_FUNCFEAT_APPLY_H */
