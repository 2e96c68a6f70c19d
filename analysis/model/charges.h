/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The attribution rule (docs/attribution.md, "The rule"), in one place: the charges of
 * a mark stack. For every feature with a frame in the stack, its top-most
 * frame decides: a mark charges the feature and that mark's instance, a mark
 * of another thread of the process (PROFILE_CHARGED, a probe map's "charge
 * threads") charges them too and says so, an antimark charges nothing.
 * Features are identified by name, instances by name within a feature (the
 * profile interns them: equal names are equal pointers).
 *
 * Attribution (attrib.h), the diff (diff.h), every renderer and the plug-in
 * host (fsp-plugin.h) charge samples through this, and nothing else.
 */
#ifndef FSP_ANALYSIS_CHARGES_H
#define FSP_ANALYSIS_CHARGES_H

#include <stddef.h>

#include "profile.h"

/* The instance name of marks entered without one (a NULL instance): the
 * label "(no instance)" and a NULL instance are one instance. */
#define ATTRIB_NO_INSTANCE "(no instance)"

/* Why a frame charges its feature. */
enum charge_why {
	CHARGE_MARK = 1, /* a mark of the sampled thread */
	CHARGE_OTHER_THREAD, /* a mark of another thread (PROFILE_CHARGED) */
};

/* One feature a stack charges. */
struct charge {
	const char *feature; /* the profile's interned name */
	const char *instance; /* never NULL: ATTRIB_NO_INSTANCE for none */
	size_t frame; /* the charged frame: the feature's top-most (frames[frame]) */
	enum charge_why why;
};

/*
 * The charges of the mark stack frames[0..depth) (bottom..top) into out
 * (room for depth charges): one per feature whose top-most frame is a mark
 * (of this thread or another), the top-most charged frame first; a feature
 * whose top-most frame is an antimark has none. Returns how many.
 */
size_t charges__stack(const struct profile_frame *frames, size_t depth, struct charge *out);

/* The charges of every distinct stack of a profile, computed once. */
struct charges {
	size_t nr_stacks;
	size_t *first; /* nr_stacks + 1 offsets into charges */
	struct charge *charges;
};

/* 0, or -ENOMEM / -errno of the model (c then holds nothing). */
int charges__init(struct charges *c, const struct profile *p);
void charges__fini(struct charges *c); /* NULL-safe, idempotent */
/* The charges of stack id `stack` (PROFILE_NO_STACK: none): *n of them, as
 * charges__stack orders them; NULL when none. Each is charges[k] for an
 * index k below first[nr_stacks]: callers may keep per-charge tables. */
const struct charge *charges__of(const struct charges *c, size_t stack, size_t *n);

#endif /* FSP_ANALYSIS_CHARGES_H */
