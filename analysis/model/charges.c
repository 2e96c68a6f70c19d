// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The attribution rule: the charges of a mark stack (charges.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "charges.h"
#include "funcfeat.h"
#include "util.h"

size_t charges__stack(const struct profile_frame *frames, size_t depth, struct charge *out)
{
	size_t n = 0;

	/* Top-down: the first frame seen of a feature decides for it. Feature
	 * names are interned by the profile: equal names are equal pointers.
	 * Stacks are shallow (the recorder keeps at most 64 frames), so the
	 * features decided so far are found by a scan of frames above. */
	for (size_t i = depth; i-- > 0;) {
		const struct profile_frame *fr = &frames[i];
		bool decided = false;

		for (size_t k = i + 1; k < depth && !decided; k++)
			decided = frames[k].feature == fr->feature;
		if (decided || (fr->kind != PROFILE_MARK && fr->kind != PROFILE_CHARGED))
			continue;
		/* a function feature's variable read at sample time, not a
		 * feature: funcfeat__apply drops it; a view that did not apply
		 * the rules (the agent's snapshots) charges nothing to it */
		if (funcfeat__is_var_feature(fr->feature))
			continue;
		out[n].feature = fr->feature;
		out[n].instance = fr->instance && strcmp(fr->instance, ATTRIB_NO_INSTANCE)
					  ? fr->instance
					  : ATTRIB_NO_INSTANCE;
		out[n].frame = i;
		out[n].why = fr->kind == PROFILE_CHARGED ? CHARGE_OTHER_THREAD : CHARGE_MARK;
		n++;
	}
	return n;
}

void charges__fini(struct charges *c)
{
	if (!c)
		return;
	free(c->first);
	free(c->charges);
	memset(c, 0, sizeof(*c));
}

int charges__init(struct charges *c, const struct profile *p)
{
	size_t i, n = profile__nr_stacks(p), nr = 0, cap = 0;
	struct profile_stack st;
	int err = 0;

	memset(c, 0, sizeof(*c));
	c->first = calloc(n + 1, sizeof(*c->first));
	if (!c->first)
		return -ENOMEM;
	c->nr_stacks = n;
	for (i = 0; i < n; i++) {
		err = profile__stack(p, i, &st);
		if (err)
			goto cleanup;
		c->first[i] = nr;
		err = fsp_grow((void **)&c->charges, &cap, nr + st.depth, sizeof(*c->charges));
		if (err)
			goto cleanup;
		nr += charges__stack(st.frames, st.depth, c->charges + nr);
	}
	c->first[n] = nr;
cleanup:
	if (err)
		charges__fini(c);
	return err;
}

const struct charge *charges__of(const struct charges *c, size_t stack, size_t *n)
{
	*n = 0;
	if (stack == PROFILE_NO_STACK || stack >= c->nr_stacks)
		return NULL;
	*n = c->first[stack + 1] - c->first[stack];
	return *n ? c->charges + c->first[stack] : NULL;
}
