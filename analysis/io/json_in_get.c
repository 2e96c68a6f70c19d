// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Typed getters of the values json_in parses (json_in.h): each checks a
 * value's type and range, with a message naming where the value is. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "json_in.h"

const char *jv__type(struct json_object *v)
{
	switch (json_object_get_type(v)) {
	case json_type_null:
		return "null";
	case json_type_boolean:
		return "a boolean";
	case json_type_double:
		return "a real number";
	case json_type_int:
		return "an integer";
	case json_type_object:
		return "an object";
	case json_type_array:
		return "an array";
	case json_type_string:
		return "a string";
	}
	return "an unknown type";
}

/* s for a message: at most 40 bytes, control characters, quotes and
 * backslashes escaped, so that the message stays one line. */
const char *json_in__msg_str(const char *s, char *buf, size_t size)
{
	size_t i, n = 0;

	for (i = 0; s[i] && i < 40 && n + 8 < size; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c == 0x7f)
			n += snprintf(buf + n, size - n, "\\x%02x", c);
		else if (c == '"' || c == '\\')
			n += snprintf(buf + n, size - n, "\\%c", c);
		else
			buf[n++] = (char)c;
	}
	snprintf(buf + n, size - n, "%s", s[i] ? "..." : "");
	return buf;
}

int jv__fail(struct json_in *in, const struct json_where *w, const char *field, const char *fmt,
	     const char *arg)
{
	char path[160], msg[256];

	json_where__fmt(w, field, path, sizeof(path));
	snprintf(msg, sizeof(msg), fmt, arg);
	return json_in__fail(in, "%s: %s", path, msg);
}

/* A non-negative integer of at most 64 bits. */
int jv__u64(struct json_in *in, const struct json_where *w, const char *field,
	    struct json_object *v, uint64_t *out)
{
	char buf[176];

	if (json_object_is_type(v, json_type_int)) {
		/* json-c holds it as int64 when it fits, else as uint64 */
		if (json_object_get_int64(v) < 0)
			return jv__fail(in, w, field, "%s is negative", json_object_get_string(v));
		*out = json_object_get_uint64(v);
		return 0;
	}
	if (json_object_is_type(v, json_type_double))
		return jv__fail(in, w, field, "%s is not an integer",
				json_in__msg_str(json_object_get_string(v), buf, sizeof(buf)));
	return jv__fail(in, w, field, "expected a non-negative integer, got %s", jv__type(v));
}

int jv__u32(struct json_in *in, const struct json_where *w, const char *field,
	    struct json_object *v, uint32_t *out)
{
	uint64_t u;

	if (jv__u64(in, w, field, v, &u))
		return -1;
	if (u > UINT32_MAX)
		return jv__fail(in, w, field, "%s is out of range (at most 4294967295)",
				json_object_get_string(v));
	*out = (uint32_t)u;
	return 0;
}

/* A real; an integer is accepted, null reads as NaN (written for non-finite). */
int jv__real(struct json_in *in, const struct json_where *w, const char *field,
	     struct json_object *v, double *out)
{
	if (!v) {
		*out = NAN;
		return 0;
	}
	if (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)) {
		*out = json_object_get_double(v);
		return 0;
	}
	return jv__fail(in, w, field, "expected a number, got %s", jv__type(v));
}

/* A string of at most PROFILE_IO_MAX_STRING bytes without NUL; null gives
 * NULL when nullable. *out points into v. */
int jv__str(struct json_in *in, const struct json_where *w, const char *field,
	    struct json_object *v, bool nullable, const char **out)
{
	char len[32];
	size_t n;

	*out = NULL;
	if (!v && nullable)
		return 0;
	if (!json_object_is_type(v, json_type_string))
		return jv__fail(in, w, field,
				nullable ? "expected a string or null, got %s"
					 : "expected a string, got %s",
				jv__type(v));
	*out = json_object_get_string(v);
	n = (size_t)json_object_get_string_len(v);
	if (n > PROFILE_IO_MAX_STRING) {
		snprintf(len, sizeof(len), "%zu", n);
		return jv__fail(in, w, field,
				"a string of %s bytes, longer than the limit of 65536", len);
	}
	if (strlen(*out) != n)
		return jv__fail(in, w, field, "%s", "the string contains a NUL character");
	return 0;
}

/* A key string: "0x" (or "0X") and 1 to 16 hex digits; 0 or -1. */
static int parse_key(const char *s, size_t n, uint64_t *out)
{
	uint64_t k = 0;
	size_t i;

	if (n < 3 || n > 18 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return -1;
	for (i = 2; i < n; i++) {
		char c = s[i];
		unsigned int d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -1;
		k = k << 4 | d;
	}
	*out = k;
	return 0;
}

/* A stack key: a non-negative integer, or a key string (parse_key). */
int jv__key(struct json_in *in, const struct json_where *w, const char *field,
	    struct json_object *v, uint64_t *out)
{
	char buf[176];
	const char *s;

	if (!json_object_is_type(v, json_type_string))
		return jv__u64(in, w, field, v, out);
	s = json_object_get_string(v);
	if (!parse_key(s, (size_t)json_object_get_string_len(v), out))
		return 0;
	return jv__fail(in, w, field, "\"%s\" is not a key (\"0x\" and 1 to 16 hex digits)",
			json_in__msg_str(s, buf, sizeof(buf)));
}

/* Member field of record o; NULL (and *present false) when absent. */
struct json_object *jf__get(struct json_object *o, const char *field, bool *present)
{
	struct json_object *v = NULL;

	*present = json_object_object_get_ex(o, field, &v);
	return v;
}

int jf__missing(struct json_in *in, const struct json_where *w, const char *field)
{
	char path[160];

	json_where__fmt(w, NULL, path, sizeof(path));
	return json_in__fail(in, "%s: missing \"%s\"", path, field);
}

/* Optional (dflt) or required u64 / u32 member. */
int jf__u64(struct json_in *in, const struct json_where *w, struct json_object *o,
	    const char *field, bool required, uint64_t dflt, uint64_t *out)
{
	bool present;
	struct json_object *v = jf__get(o, field, &present);

	if (!present) {
		*out = dflt;
		return required ? jf__missing(in, w, field) : 0;
	}
	return jv__u64(in, w, field, v, out);
}

int jf__u32(struct json_in *in, const struct json_where *w, struct json_object *o,
	    const char *field, bool required, uint32_t *out)
{
	bool present;
	struct json_object *v = jf__get(o, field, &present);

	if (!present) {
		*out = 0;
		return required ? jf__missing(in, w, field) : 0;
	}
	return jv__u32(in, w, field, v, out);
}

/* Optional string member (absent: NULL). */
int jf__str(struct json_in *in, const struct json_where *w, struct json_object *o,
	    const char *field, bool nullable, const char **out)
{
	bool present;
	struct json_object *v = jf__get(o, field, &present);

	*out = NULL;
	return present ? jv__str(in, w, field, v, nullable, out) : 0;
}
