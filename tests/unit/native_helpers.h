/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Helpers of the unit tests of native stacks (analysis/model/native.h). */
#ifndef FSP_UNIT_NATIVE_HELPERS_H
#define FSP_UNIT_NATIVE_HELPERS_H

#include "native.h"

static inline int add_mod(struct profile *p, int kind, const char *path, const char *bid)
{
	struct profile_module m = {.kind = kind, .path = path, .build_id = bid};

	return profile__add_module(p, &m);
}

static inline int add_nstack(struct profile *p, const uint32_t *locs, size_t depth,
			     size_t nr_kernel, int method, unsigned int flags)
{
	struct profile_native_stack s = {.locs = locs,
					 .depth = depth,
					 .nr_kernel = nr_kernel,
					 .method = method,
					 .flags = flags};

	return profile__add_native_stack(p, &s);
}

#endif /* FSP_UNIT_NATIVE_HELPERS_H */
