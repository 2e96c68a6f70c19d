/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internal streaming JSON writer. The JSON profile can hold millions of core
 * samples, so it is written as it goes rather than built as a json-c tree.
 * Containers opened "compact" (and everything inside them) are written on
 * one line; the others put each member on its own indented line.
 */
#ifndef FSP_ANALYSIS_JSONW_H
#define FSP_ANALYSIS_JSONW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSONW_MAX_DEPTH 16

struct jsonw {
	FILE *out;
	int depth;
	int err; /* first error: -EINVAL on misuse; write errors are seen by the caller */
	bool after_key;
	bool nonempty[JSONW_MAX_DEPTH];
	bool compact[JSONW_MAX_DEPTH];
};

void jsonw__init(struct jsonw *w, FILE *out);

void jsonw__begin_object(struct jsonw *w, bool compact);
void jsonw__end_object(struct jsonw *w);
void jsonw__begin_array(struct jsonw *w, bool compact);
void jsonw__end_array(struct jsonw *w);

/* The key of the next value in an object. */
void jsonw__key(struct jsonw *w, const char *key);

/* s NULL writes null. Invalid UTF-8 bytes are written as U+FFFD. */
void jsonw__string(struct jsonw *w, const char *s);
void jsonw__u64(struct jsonw *w, uint64_t v);
/* The shortest decimal that reads back as v; null when v is not finite. */
void jsonw__double(struct jsonw *w, double v);
void jsonw__null(struct jsonw *w);

/* 0 when the document is complete and was used correctly, else -EINVAL. */
int jsonw__finish(struct jsonw *w);

#endif /* FSP_ANALYSIS_JSONW_H */
