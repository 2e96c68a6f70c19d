// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Rows of an array found by a key pair, see rowtab.h. */
#include <errno.h>
#include <string.h>

#include "rowtab.h"
#include "util.h"

int rowtab__find_or_add(const struct rowtab *t, uint64_t a, uint64_t b, size_t *idx)
{
	size_t n = *t->nr;
	uint64_t found;
	int err;

	if (hashmap__find(t->map, a, b, &found)) {
		*idx = found;
		return 1;
	}
	/* Room first: a failure must not leave a mapped index without a row.
	 * From one row: a table per feature (its instances) holds one row most
	 * often, and 16 rows each took gigabytes for 10^6 features. */
	err = fsp_grow_from(t->rows, t->cap, n + 1, t->size, 1);
	if (!err && t->side)
		err = fsp_grow_from(t->side, t->side_cap, n + 1, t->side_size, 1);
	if (err)
		return err;
	err = hashmap__find_or_insert(t->map, a, b, n, NULL);
	if (err < 0)
		return err;
	memset((char *)*t->rows + n * t->size, 0, t->size);
	if (t->side)
		memset((char *)*t->side + n * t->side_size, 0, t->side_size);
	*t->nr = n + 1;
	*idx = n;
	return 0;
}
