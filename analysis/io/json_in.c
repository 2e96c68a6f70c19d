// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Streaming JSON input (json_in.h): the input, the integer-overflow scan,
 * the structural scanner and the parse of values with json-c. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json_in.h"

void json_in__init(struct json_in *in, const char *name, char *err, size_t errlen)
{
	memset(in, 0, sizeof(*in));
	in->fd = -1;
	in->eof = true;
	in->chunk_size = JSON_IN_CHUNK;
	in->window = JSON_IN_WINDOW;
	in->name = name;
	in->err = err;
	in->errlen = errlen;
}

void json_in__set_buf(struct json_in *in, const char *buf, size_t len)
{
	in->data = buf;
	in->len = len;
}

void json_in__set_sizes(struct json_in *in, size_t chunk, size_t window)
{
	if (chunk)
		in->chunk_size = chunk;
	if (window)
		in->window = window < JSON_IN_UTF8_MAX ? JSON_IN_UTF8_MAX : window;
	if (in->window > JSON_IN_WINDOW)
		in->window = JSON_IN_WINDOW;
}

int json_in__set_fd(struct json_in *in, int fd)
{
	/* A chunk, and before it the tail of a character cut at its end. */
	in->chunk = malloc(in->chunk_size + JSON_IN_UTF8_MAX);
	if (!in->chunk)
		return json_in__fail(in, "out of memory");
	in->fd = fd;
	in->eof = false;
	in->data = in->chunk;
	return 0;
}

void json_in__fini(struct json_in *in)
{
	int i;

	for (i = 0; i <= PROFILE_IO_MAX_DEPTH; i++)
		if (in->tok[i])
			json_tokener_free(in->tok[i]);
	free(in->chunk);
	memset(in->tok, 0, sizeof(in->tok));
	in->chunk = NULL;
}

/* ---- the input ------------------------------------------------------------------------ */

/* Records the first error (later ones are consequences). Returns -1. */
int json_in__fail(struct json_in *in, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (in->failed)
		return -1;
	in->failed = true;
	if (!in->err || !in->errlen)
		return -1;
	n = snprintf(in->err, in->errlen, "%s: ", in->name);
	if (n < 0 || (size_t)n >= in->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(in->err + n, in->errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

unsigned long long json_in__off(const struct json_in *in)
{
	return in->base + in->pos;
}

/*
 * Reads the next chunk of the file after the keep bytes at pos (at most the
 * start of a character cut by the chunk's end), which move to the front.
 * 1, 0 at the end of the file, -1 on error.
 */
static int in_read(struct json_in *in)
{
	size_t keep = in->len - in->pos;
	ssize_t n;

	if (in->fd < 0 || in->eof)
		return 0;
	memmove(in->chunk, in->chunk + in->pos, keep);
	in->base += in->pos;
	in->pos = 0;
	in->len = keep;
	do {
		n = read(in->fd, in->chunk + keep, in->chunk_size);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return json_in__fail(in, "read error at byte %llu: %s", json_in__off(in) + keep,
				     strerror(errno));
	if (!n) {
		in->eof = true;
		return 0;
	}
	in->len += (size_t)n;
	if (in->base + in->len > PROFILE_IO_MAX_FILE)
		return json_in__fail(in, "file too large: more than %llu bytes (the limit)",
				     (unsigned long long)PROFILE_IO_MAX_FILE);
	return 1;
}

/* Makes data available at pos: 1, 0 at the end of the input, -1 on error. */
static int in_fill(struct json_in *in)
{
	if (in->pos < in->len)
		return 1;
	return in_read(in);
}

/* The bytes at the end of s[0..n) that start a UTF-8 character without
 * ending it (0 to 3): json-c must get them with the rest of the character. */
static size_t utf8_cut_tail(const char *s, size_t n)
{
	for (size_t k = 1; k < JSON_IN_UTF8_MAX && k <= n; k++) {
		unsigned char c = s[n - k];
		size_t need;

		if ((c & 0xc0) == 0x80)
			continue; /* a continuation byte: look further back */
		if (c < 0xc0)
			return 0; /* ASCII: nothing cut */
		need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
		return need > k ? k : 0;
	}
	return 0;
}

/*
 * The bytes at pos to give json-c in one call: at most the window, and not
 * ending inside a character while more input follows (json-c validates
 * UTF-8 per call: the bytes of a character split between two calls are
 * rejected). Reads on when only such a tail is left. 0 at the end of the
 * input, -1 on error.
 */
static ssize_t in_slice(struct json_in *in)
{
	for (;;) {
		size_t n = in->len - in->pos, cut;
		bool more = n > in->window || (in->fd >= 0 && !in->eof);
		int r;

		if (n > in->window)
			n = in->window;
		cut = more ? utf8_cut_tail(in->data + in->pos, n) : 0;
		if (n > cut)
			return (ssize_t)(n - cut);
		/* Only the start of a character is left in the chunk (or nothing). */
		r = in_read(in);
		if (r < 0)
			return -1;
		if (!r)
			return (ssize_t)(in->len - in->pos);
	}
}

static int in_truncated(struct json_in *in)
{
	return json_in__fail(in, "truncated: the file ends at byte %llu inside the profile",
			     json_in__off(in));
}

/* Skips white space; *c is the next byte. 1, 0 at the end of the input, -1. */
int json_in__peek(struct json_in *in, int *c)
{
	int r;

	for (;;) {
		r = in_fill(in);
		if (r <= 0)
			return r;
		while (in->pos < in->len) {
			char ch = in->data[in->pos];

			if (ch != ' ' && ch != '\n' && ch != '\r' && ch != '\t') {
				*c = (unsigned char)ch;
				return 1;
			}
			in->pos++;
		}
	}
}

int json_in__more(struct json_in *in, int *c)
{
	int r = json_in__peek(in, c);

	if (r < 0)
		return -1;
	return r ? 0 : in_truncated(in);
}

static const char *char_name(int c, char *buf, size_t size)
{
	if (c > 0x20 && c < 0x7f)
		snprintf(buf, size, "'%c'", c);
	else
		snprintf(buf, size, "byte 0x%02x", (unsigned int)c);
	return buf;
}

static int in_unexpected(struct json_in *in, int c, const char *expected)
{
	char buf[16];

	return json_in__fail(in, "invalid JSON at byte %llu: %s where %s was expected",
			     json_in__off(in), char_name(c, buf, sizeof(buf)), expected);
}

void json_where__fmt(const struct json_where *w, const char *field, char *buf, size_t size)
{
	int n = 0;

	buf[0] = 0;
	if (w && w->sect) {
		n = snprintf(buf, size, "%s", w->sect);
		if (w->i != JSON_NO_IDX && n >= 0 && (size_t)n < size)
			n += snprintf(buf + n, size - n, "[%zu]", w->i);
		if (w->sub && n >= 0 && (size_t)n < size)
			n += snprintf(buf + n, size - n, ".%s", w->sub);
		if (w->j != JSON_NO_IDX && n >= 0 && (size_t)n < size)
			n += snprintf(buf + n, size - n, "[%zu]", w->j);
	}
	if (field && n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - n, "%s%s", n ? "." : "", field);
}

/* ---- the integer-overflow scan -------------------------------------------------------- */

static void ns_reset(struct json_numscan *ns)
{
	memset(ns, 0, sizeof(*ns));
}

/* Ends the literal being scanned; -1 (message set) when it overflows. */
static int ns_end(struct json_in *in)
{
	struct json_numscan *ns = &in->ns;
	static const char umax[] = "18446744073709551615", imin[] = "9223372036854775808";
	bool over;

	ns->in_num = false;
	if (ns->frac)
		return 0; /* a real: json-c reads it as a double */
	if (ns->neg)
		over = ns->nd > 19 || (ns->nd == 19 && memcmp(ns->digits, imin, 19) > 0);
	else
		over = ns->nd > 20 || (ns->nd == 20 && memcmp(ns->digits, umax, 20) > 0);
	if (!over)
		return 0;
	return json_in__fail(in, "the integer at byte %llu (%s%.20s...) does not fit in 64 bits",
			     (unsigned long long)ns->start, ns->neg ? "-" : "", ns->digits);
}

/* Scans n bytes at s, the first at input offset off. Tight loops over the
 * bytes of strings and between literals: this sees every byte of the file. */
static int ns_scan(struct json_in *in, const char *s, size_t n, uint64_t off)
{
	struct json_numscan *ns = &in->ns;
	size_t i = 0;
	char c;

	while (i < n) {
		if (ns->in_str) {
			if (ns->esc) {
				ns->esc = false;
				i++;
				continue;
			}
			while (i < n && s[i] != '"' && s[i] != '\\' && (unsigned char)s[i] >= 0x20)
				i++;
			if (i == n)
				break;
			if ((unsigned char)s[i] < 0x20) /* json-c lets them through */
				return json_in__fail(
					in,
					"invalid JSON at byte %llu: a control character "
					"(0x%02x) in a string",
					(unsigned long long)(off + i), (unsigned char)s[i]);
			if (s[i++] == '\\')
				ns->esc = true;
			else
				ns->in_str = false;
			continue;
		}
		c = s[i];
		if (ns->in_num) {
			if ((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' ||
			    c == '+' || c == '-')
				ns->last = c;
			if (c >= '0' && c <= '9') {
				if (!ns->frac && ns->nd < sizeof(ns->digits) - 1)
					ns->digits[ns->nd] = c;
				ns->nd += !ns->frac;
				i++;
				continue;
			}
			if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
				ns->frac = true;
				i++;
				continue;
			}
			if (ns_end(in))
				return -1;
		}
		if (c == '"') {
			ns->in_str = true;
		} else if (c == '-' || (c >= '0' && c <= '9')) {
			ns->in_num = true;
			ns->last = c;
			ns->neg = c == '-';
			ns->frac = false;
			ns->nd = 0;
			ns->start = off + i;
			memset(ns->digits, 0, sizeof(ns->digits));
			if (c != '-')
				ns->digits[ns->nd++] = c;
		}
		i++;
	}
	return 0;
}

/* ---- values and containers --------------------------------------------------------------- */

static json_tokener *in_tok(struct json_in *in)
{
	json_tokener **t = &in->tok[in->depth];

	if (*t) {
		json_tokener_reset(*t);
		return *t;
	}
	/* the value may nest as deep as the scanner's room allows */
	*t = json_tokener_new_ex(PROFILE_IO_MAX_DEPTH - in->depth + 1);
	if (*t)
		json_tokener_set_flags(*t, JSON_TOKENER_STRICT | JSON_TOKENER_ALLOW_TRAILING_CHARS |
						   JSON_TOKENER_VALIDATE_UTF8);
	return *t;
}

/*
 * One json-c call on the n bytes at pos; *used: the bytes of them it used.
 * json-c 0.16 resumes a number cut by the end of its previous call as if it
 * could take a sign ("12", then "-4]", reads the number "12-4"), where in one
 * call the number ends at the '-' (and the '-' is an error). So when the
 * previous slice ended inside a number literal, not right after its 'e',
 * and a '-' comes next, json-c is given a blank instead: that ends the
 * number as one call does, and uses nothing of the input (*fake).
 */
static struct json_object *in_parse(struct json_in *in, json_tokener *tok, size_t n, size_t *used,
				    bool *fake)
{
	const struct json_numscan *ns = &in->ns;
	struct json_object *o;

	*fake = ns->in_num && ns->last != 'e' && ns->last != 'E' && in->data[in->pos] == '-';
	if (*fake) {
		o = json_tokener_parse_ex(tok, " ", 1);
		*used = 0;
		return o;
	}
	o = json_tokener_parse_ex(tok, in->data + in->pos, (int)n);
	*used = json_tokener_get_parse_end(tok);
	return o;
}

/*
 * Parses the JSON value at the current position with json-c. *out is the
 * value (NULL for null); 0 or -1 (message set). what names it in messages.
 */
int json_in__value(struct json_in *in, const char *what, struct json_object **out)
{
	unsigned long long start = json_in__off(in);
	enum json_tokener_error jerr;
	struct json_object *o;
	json_tokener *tok;
	size_t n, used;
	uint64_t fed = 0;
	ssize_t slice;
	bool fake;

	*out = NULL;
	tok = in_tok(in);
	if (!tok)
		return json_in__fail(in, "out of memory");
	ns_reset(&in->ns);
	for (;;) {
		slice = in_slice(in);
		if (slice < 0)
			return -1;
		if (!slice)
			return in_truncated(in);
		n = (size_t)slice;
		o = in_parse(in, tok, n, &used, &fake);
		jerr = json_tokener_get_error(tok);
		if (jerr == json_tokener_success && fed + used > PROFILE_IO_MAX_VALUE) {
			json_object_put(o);
			return json_in__fail(in,
					     "%s at byte %llu is longer than %d bytes (the limit)",
					     what, start, PROFILE_IO_MAX_VALUE);
		}
		if (jerr == json_tokener_success) {
			if (ns_scan(in, in->data + in->pos, used, json_in__off(in)) ||
			    (in->ns.in_num && ns_end(in))) {
				json_object_put(o);
				return -1;
			}
			in->pos += used;
			*out = o;
			return 0;
		}
		if (jerr != json_tokener_continue) {
			in->pos += used;
			if (jerr == json_tokener_error_depth)
				return json_in__fail(in,
						     "nesting deeper than %d levels at byte %llu",
						     PROFILE_IO_MAX_DEPTH, json_in__off(in));
			return json_in__fail(in, "invalid JSON at byte %llu: %s", json_in__off(in),
					     json_tokener_error_desc(jerr));
		}
		if (fake) { /* the number ended, the input is where it was */
			if (ns_end(in))
				return -1;
			continue;
		}
		if (ns_scan(in, in->data + in->pos, n, json_in__off(in)))
			return -1;
		in->pos += n;
		fed += n;
		if (fed > PROFILE_IO_MAX_VALUE)
			return json_in__fail(in,
					     "%s at byte %llu is longer than %d bytes (the limit)",
					     what, start, PROFILE_IO_MAX_VALUE);
	}
}

/* Enters the object ('{') or array ('[') that must come next. */
int json_in__enter(struct json_in *in, char open, const struct json_where *w, const char *field)
{
	char path[160];
	int c;

	if (json_in__more(in, &c))
		return -1;
	if (c != open) {
		json_where__fmt(w, field, path, sizeof(path));
		return json_in__fail(in, "%s: expected %s at byte %llu", path,
				     open == '{' ? "an object" : "an array", json_in__off(in));
	}
	if (in->depth >= PROFILE_IO_MAX_DEPTH)
		return json_in__fail(in, "nesting deeper than %d levels at byte %llu",
				     PROFILE_IO_MAX_DEPTH, json_in__off(in));
	in->pos++;
	in->depth++;
	return 0;
}

/*
 * Steps to the next member or element of the container being read: 1 when
 * one follows, 0 when close ('}' or ']') ended the container, -1 on error.
 * *n counts the members seen.
 */
int json_in__next(struct json_in *in, char close, size_t *n)
{
	int c;

	if (json_in__more(in, &c))
		return -1;
	if (c == close) {
		in->pos++;
		in->depth--;
		return 0;
	}
	if (*n) {
		if (c != ',')
			return in_unexpected(in, c, close == '}' ? "',' or '}'" : "',' or ']'");
		in->pos++;
	}
	(*n)++;
	return 1;
}

/* The key of the next member and its ':'. Keys longer than the buffer, or
 * with a NUL, are returned as "" (no known field). */
int json_in__key(struct json_in *in, char *buf, size_t size)
{
	struct json_object *k;
	const char *s;
	size_t len;
	int c;

	if (json_in__more(in, &c))
		return -1;
	if (c != '"')
		return in_unexpected(in, c, "a quoted member name");
	if (json_in__value(in, "a member name", &k))
		return -1;
	s = json_object_get_string(k);
	len = (size_t)json_object_get_string_len(k);
	buf[0] = 0;
	if (len < size && strlen(s) == len)
		memcpy(buf, s, len + 1);
	json_object_put(k);
	if (json_in__more(in, &c))
		return -1;
	if (c != ':')
		return in_unexpected(in, c, "':'");
	in->pos++;
	return 0;
}

/*
 * Skips any value (validating it). Arrays, and objects near the top, are
 * walked by the scanner, so that an unknown or derived field of any size
 * (the features' instance lists) takes no memory; objects deeper than
 * records, and scalars, are parsed by json-c in one call each (a call per
 * scalar would cost far more).
 */
int json_in__skip(struct json_in *in)
{
	struct json_object *v;
	char key[8];
	size_t n = 0;
	int c, r;

	if (json_in__more(in, &c))
		return -1;
	if (c == '[' || (c == '{' && in->depth < 3)) {
		if (json_in__enter(in, (char)c, NULL, NULL))
			return -1;
		while ((r = json_in__next(in, c == '{' ? '}' : ']', &n)) > 0) {
			if (c == '{' && json_in__key(in, key, sizeof(key)))
				return -1;
			if (json_in__skip(in))
				return -1;
		}
		return r;
	}
	if (json_in__value(in, "a value", &v))
		return -1;
	json_object_put(v);
	return 0;
}

/* One record of an array: a value of type want (an object or an array). */
int json_in__record(struct json_in *in, const struct json_where *w, enum json_type want,
		    struct json_object **o)
{
	char path[160];

	if (json_in__value(in, "a record", o))
		return -1;
	if (json_object_is_type(*o, want))
		return 0;
	json_where__fmt(w, NULL, path, sizeof(path));
	json_in__fail(in, "%s: expected %s, got %s", path,
		      want == json_type_array ? "an array" : "an object", jv__type(*o));
	json_object_put(*o);
	*o = NULL;
	return -1;
}
