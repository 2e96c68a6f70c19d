// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target of the profile-file reader (make fuzz). Each input is
 * parsed; a rejected one must come with a one-line message naming the file.
 * What parses is attributed and written, and the written file
 * must read back and write again to the same bytes (the writer's output is
 * always readable, and reading normalizes in one step).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attrib.h"
#include "profile_io.h"

static char *write_mem(const struct profile *p, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		abort();
	if (profile__write_json(f, p))
		abort();
	if (fclose(f))
		abort();
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512] = "", *t1, *t2;
	struct profile *p, *q;
	struct attrib *a;
	size_t l1, l2;

	p = profile__parse_json((const char *)data, size, "fuzz.json", err, sizeof(err));
	if (!p) {
		if (strncmp(err, "fuzz.json: ", 11) || strchr(err, '\n'))
			abort();
		return 0;
	}
	a = attrib__compute(p, NULL);
	if (!a)
		abort();
	attrib__free(a);
	t1 = write_mem(p, &l1);
	q = profile__parse_json(t1, l1, "rewritten.json", err, sizeof(err));
	if (!q) {
		fprintf(stderr, "the written profile does not read back: %s\n", err);
		abort();
	}
	t2 = write_mem(q, &l2);
	if (l1 != l2 || memcmp(t1, t2, l1)) {
		fprintf(stderr, "writing the profile read back gives other bytes\n");
		abort();
	}
	free(t1);
	free(t2);
	profile__free(q);
	profile__free(p);
	return 0;
}
