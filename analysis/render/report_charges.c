// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The charges of each distinct mark stack of a profile (report_view.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report_view.h"
#include "util.h"

void report_charges__fini(struct report_charges *c)
{
	if (!c)
		return;
	free(c->first);
	free(c->charges);
	memset(c, 0, sizeof(*c));
}

int report_charges__init(struct report_charges *c, const struct profile *p)
{
	size_t i, j, k, n = profile__nr_stacks(p), nr = 0, cap = 0;
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
		/* Top-down: the first frame seen of a feature decides for it.
		 * Feature names are interned by the profile: equal names are
		 * equal pointers. */
		for (j = st.depth; j-- > 0;) {
			const struct profile_frame *fr = &st.frames[j];
			bool decided = false;

			for (k = j + 1; k < st.depth && !decided; k++)
				decided = st.frames[k].feature == fr->feature;
			if (decided || (fr->kind != PROFILE_MARK && fr->kind != PROFILE_CHARGED))
				continue;
			c->charges[nr].feature = fr->feature;
			/* As attrib.c: the label "(no instance)" is the NULL instance. */
			c->charges[nr].instance =
				fr->instance && strcmp(fr->instance, ATTRIB_NO_INSTANCE)
					? fr->instance
					: ATTRIB_NO_INSTANCE;
			nr++;
		}
	}
	c->first[n] = nr;
cleanup:
	if (err)
		report_charges__fini(c);
	return err;
}

const struct report_charge *report_charges__of(const struct report_charges *c, size_t stack,
					       size_t *n)
{
	*n = 0;
	if (stack == PROFILE_NO_STACK || stack >= c->nr_stacks)
		return NULL;
	*n = c->first[stack + 1] - c->first[stack];
	return *n ? c->charges + c->first[stack] : NULL;
}
