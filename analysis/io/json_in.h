/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Streaming JSON input for the profile file's reader (internal to
 * analysis/io). A json-c tree of a whole profile takes ten to twenty times
 * the file's size, so none is built: a small structural scanner walks the
 * containers the reader asks it to enter (json_in__enter / __next / __key)
 * only to find where each record (one string, stack, sample row, ...)
 * begins and ends; every record and scalar is parsed by a depth-limited
 * json_tokener (json_in__value), fed from the input in chunks. Memory is
 * then one chunk plus one record. (json-c does all the parsing of values:
 * the scanner only splits the containers.)
 *
 * The input is a memory buffer or a file descriptor read JSON_IN_CHUNK bytes at a
 * time. Errors are one-line messages "NAME: what" in the caller's buffer;
 * the first one is kept (later ones are its consequences) and every
 * function returns -1 after it. The typed getters (jv__*, jf__*) check a
 * parsed value and name it in their messages by a json_where.
 */
#ifndef FSP_ANALYSIS_JSON_IN_H
#define FSP_ANALYSIS_JSON_IN_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile_io.h"

#define JSON_IN_CHUNK (256 * 1024) /* bytes read from a file at a time */
#define JSON_IN_WINDOW (1 << 20) /* bytes given to json-c at a time: its lengths are int */
/* The longest UTF-8 sequence: json-c checks UTF-8 within each call only, so
 * a call never ends inside a character while more input can follow. */
#define JSON_IN_UTF8_MAX 4
#define JSON_NO_IDX SIZE_MAX

/*
 * json-c clamps integers beyond 64 bits to INT64_MIN / UINT64_MAX without an
 * error, so the bytes given to it are scanned for integer literals too long
 * for 64 bits. Strings are skipped; the state survives chunk boundaries.
 */
struct json_numscan {
	bool in_str, esc;
	bool in_num, neg, frac;
	char last; /* the literal's last byte so far */
	unsigned int nd; /* digits of the integer part */
	char digits[24]; /* the first of them */
	uint64_t start; /* offset of the literal */
};

struct json_in {
	/* input: a memory buffer (fd < 0) or a file read in chunks */
	int fd;
	const char *data;
	size_t pos, len;
	uint64_t base; /* input offset of data[0] */
	char *chunk; /* chunk_size bytes, and room for the tail of a character */
	size_t chunk_size; /* bytes read at a time (JSON_IN_CHUNK) */
	size_t window; /* bytes given to json-c at a time (JSON_IN_WINDOW) */
	bool eof;

	/* parsing */
	int depth; /* containers the scanner is inside */
	json_tokener *tok[PROFILE_IO_MAX_DEPTH + 1]; /* one per depth, made when needed */
	struct json_numscan ns;

	/* messages */
	const char *name; /* of the input */
	char *err;
	size_t errlen;
	bool failed;
};

/* Where a value is, for messages: sect[i].sub[j] (JSON_NO_IDX: no index). */
struct json_where {
	const char *sect;
	size_t i;
	const char *sub;
	size_t j;
};

/* An input of nothing yet, named name in messages to err (may be NULL). */
void json_in__init(struct json_in *in, const char *name, char *err, size_t errlen);
/* The input is the len bytes at buf. */
void json_in__set_buf(struct json_in *in, const char *buf, size_t len);
/* The input is read from fd. 0, or -1 (out of memory). */
int json_in__set_fd(struct json_in *in, int fd);
/* Other sizes than JSON_IN_CHUNK and JSON_IN_WINDOW (0: keep the default),
 * for tests of the boundaries; before json_in__set_fd. The window is at
 * least JSON_IN_UTF8_MAX bytes. */
void json_in__set_sizes(struct json_in *in, size_t chunk, size_t window);
/* Frees what the input holds (not fd). */
void json_in__fini(struct json_in *in);

/* Records the first error, "NAME: " and the message. Returns -1. */
int json_in__fail(struct json_in *in, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The input offset of the next byte. */
unsigned long long json_in__off(const struct json_in *in);

/* Skips white space; *c is the next byte. 1, 0 at the end of the input, -1. */
int json_in__peek(struct json_in *in, int *c);
/* As json_in__peek where more must come: 0, or -1 (the end: truncated). */
int json_in__more(struct json_in *in, int *c);

/* Parses the JSON value at the current position with json-c. *out is the
 * value (NULL for null); 0 or -1. what names it in messages. */
int json_in__value(struct json_in *in, const char *what, struct json_object **out);
/* A value of type want (an object or an array): a record of an array. */
int json_in__record(struct json_in *in, const struct json_where *w, enum json_type want,
		    struct json_object **o);
/* Enters the object ('{') or array ('[') that must come next. */
int json_in__enter(struct json_in *in, char open, const struct json_where *w, const char *field);
/* Steps to the next member or element of the container being read: 1 when
 * one follows, 0 when close ('}' or ']') ended the container, -1 on error.
 * *n counts the members seen. */
int json_in__next(struct json_in *in, char close, size_t *n);
/* The key of the next member and its ':'. Keys longer than the buffer, or
 * with a NUL, are returned as "" (no known field). */
int json_in__key(struct json_in *in, char *buf, size_t size);
/* Skips any value, validating it. */
int json_in__skip(struct json_in *in);

/* w and field as "sect[i].sub[j].field", for messages. */
void json_where__fmt(const struct json_where *w, const char *field, char *buf, size_t size);
/* s for a message: at most 40 bytes, control characters, quotes and
 * backslashes escaped, so that the message stays one line. */
const char *json_in__msg_str(const char *s, char *buf, size_t size);

/* ---- typed getters of parsed values (json_in_get.c) ---------------------------------- */

/* "an integer", "a string", ... */
const char *jv__type(struct json_object *v);
/* Fails with "WHERE.field: " and fmt, formatted with arg. */
int jv__fail(struct json_in *in, const struct json_where *w, const char *field, const char *fmt,
	     const char *arg);
/* A non-negative integer of at most 64 (32) bits. */
int jv__u64(struct json_in *in, const struct json_where *w, const char *field,
	    struct json_object *v, uint64_t *out);
int jv__u32(struct json_in *in, const struct json_where *w, const char *field,
	    struct json_object *v, uint32_t *out);
/* A real; an integer is accepted, null reads as NaN (written for non-finite). */
int jv__real(struct json_in *in, const struct json_where *w, const char *field,
	     struct json_object *v, double *out);
/* A string of at most PROFILE_IO_MAX_STRING bytes without NUL; null gives
 * NULL when nullable. *out points into v. */
int jv__str(struct json_in *in, const struct json_where *w, const char *field,
	    struct json_object *v, bool nullable, const char **out);
/* A stack key: a non-negative integer, or "0x" (or "0X") and 1 to 16 hex digits. */
int jv__key(struct json_in *in, const struct json_where *w, const char *field,
	    struct json_object *v, uint64_t *out);

/* Member field of object o; NULL (and *present false) when absent. */
struct json_object *jf__get(struct json_object *o, const char *field, bool *present);
/* Fails with "WHERE: missing \"field\"". */
int jf__missing(struct json_in *in, const struct json_where *w, const char *field);
/* Optional (dflt; 0 for u32) or required integer member. */
int jf__u64(struct json_in *in, const struct json_where *w, struct json_object *o,
	    const char *field, bool required, uint64_t dflt, uint64_t *out);
int jf__u32(struct json_in *in, const struct json_where *w, struct json_object *o,
	    const char *field, bool required, uint32_t *out);
/* Optional string member (absent: NULL), see jv__str. */
int jf__str(struct json_in *in, const struct json_where *w, struct json_object *o,
	    const char *field, bool nullable, const char **out);

#endif /* FSP_ANALYSIS_JSON_IN_H */
