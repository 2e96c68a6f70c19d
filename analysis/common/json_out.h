/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * JSON output shared by the JSON writers (the profile file, the diff report):
 * the stream with its first error, values made with json-c (strings made
 * valid UTF-8, reals in their shortest round-trip form), the framing of a
 * top-level object whose members and array records each take a line, and a
 * row buffer for records formatted by hand.
 *
 * Every function is a no-op once an error is recorded in err, so a writer
 * makes its calls unchecked and looks at the error once at the end
 * (json_out__end). Functions that make a value return NULL on failure with
 * err set; functions that take a value take it even then (NULL writes null).
 */
#ifndef FSP_ANALYSIS_JSON_OUT_H
#define FSP_ANALYSIS_JSON_OUT_H

#include <json-c/json.h>
#include <locale.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* How json_out__value serializes: compact, '/' unescaped. */
#define JSON_OUT_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

struct json_out {
	FILE *out;
	int err; /* first error: -ENOMEM or the -errno of a write */
	bool first; /* no member written yet in the top-level object */
	bool first_rec; /* no record written yet in the current array */
	char *scratch; /* strings made valid UTF-8 */
	size_t cap_scratch;
	char *row; /* the record being formatted (json_out__row_*) */
	size_t nr_row, cap_row;
	locale_t c_loc, old_loc;
};

/*
 * Starts writing to out: reals use '.' whatever the process's LC_NUMERIC
 * (the C locale until json_out__end) and out is locked. 0 or -ENOMEM.
 */
int json_out__begin(struct json_out *w, FILE *out);
/* Ends what json_out__begin started and frees the buffers; flushes out
 * unless an error was recorded. Returns the first error, 0 or -errno. */
int json_out__end(struct json_out *w);

/* The bytes at s as they are. */
void json_out__raw(struct json_out *w, const char *s, size_t len);
void json_out__puts(struct json_out *w, const char *s);
/* Serializes v (NULL: null) with json-c's flags, then frees it. */
void json_out__value_ext(struct json_out *w, struct json_object *v, int flags);
/* As json_out__value_ext with JSON_OUT_FLAGS. */
void json_out__value(struct json_out *w, struct json_object *v);

/* Values: a new object, array (with room for n elements), integer, boolean. */
struct json_object *json_out__object(struct json_out *w);
struct json_object *json_out__array(struct json_out *w, size_t n);
struct json_object *json_out__u64(struct json_out *w, uint64_t v);
struct json_object *json_out__bool(struct json_out *w, bool v);
/* A string value, made valid UTF-8 (json_out__utf8); NULL s gives NULL. */
struct json_object *json_out__str(struct json_out *w, const char *s);
/* The shortest decimal of 15, 16 or 17 significant digits that reads back
 * as d, always with a '.' or an exponent so that it reads as a real; NULL
 * (null) when d is not finite. */
struct json_object *json_out__real(struct json_out *w, double d);
/* Adds member k (a string constant) to o; v NULL adds null. Takes v. */
void json_out__add(struct json_out *w, struct json_object *o, const char *k, struct json_object *v);
/* Appends v (NULL: a failure, recorded) to array a. Takes v. */
void json_out__append(struct json_out *w, struct json_object *a, struct json_object *v);

/*
 * JSON strings are UTF-8: strings that are not (labels read from a target)
 * have each invalid byte replaced by U+FFFD. *s becomes a valid copy (valid
 * until the next call) when it is not valid itself; *len is its length.
 * 0, or -1 with err set.
 */
int json_out__utf8(struct json_out *w, const char **s, size_t *len);

/* The framing of a top-level object: a member on its own line (takes v);
 * an array of records, each on its own line after indent. */
void json_out__member(struct json_out *w, const char *k, struct json_object *v);
void json_out__begin_array(struct json_out *w, const char *k);
void json_out__record(struct json_out *w, struct json_object *rec, const char *indent);
void json_out__end_array(struct json_out *w);

/*
 * The row buffer: records that hold only integers, null and fixed ASCII
 * strings are formatted into it by hand (far cheaper than json-c objects),
 * then written as the next record of the current array, indented by four.
 */

/* Grows the row buffer for n more bytes (err set on failure). */
void json_out__row_reserve(struct json_out *w, size_t n);

/* Appends len bytes at s (inline: called for every field of every row). */
static inline void json_out__row_put(struct json_out *w, const char *s, size_t len)
{
	if (w->cap_row - w->nr_row < len)
		json_out__row_reserve(w, len);
	if (w->err)
		return;
	memcpy(w->row + w->nr_row, s, len);
	w->nr_row += len;
}

/* s: a string literal (sizeof gives its length) */
#define json_out__row_lit(w, s) json_out__row_put(w, "" s, sizeof(s) - 1)

static inline void json_out__row_u64(struct json_out *w, uint64_t v)
{
	char buf[24], *d = buf + sizeof(buf);

	do {
		*--d = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	json_out__row_put(w, d, (size_t)(buf + sizeof(buf) - d));
}

/* v as a "0x" hex string, which readers that hold numbers in doubles keep exact. */
void json_out__row_hex(struct json_out *w, uint64_t v);
void json_out__row_end(struct json_out *w);

#endif /* FSP_ANALYSIS_JSON_OUT_H */
