// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* JSON output shared by the JSON writers (json_out.h). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json_out.h"
#include "utf8.h"

#define JSON_OUT_ADD (JSON_C_OBJECT_ADD_KEY_IS_NEW | JSON_C_OBJECT_KEY_IS_CONSTANT)

int json_out__begin(struct json_out *w, FILE *out)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
	w->first = true;
	w->c_loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	if (!w->c_loc)
		return -ENOMEM;
	w->old_loc = uselocale(w->c_loc);
	flockfile(out);
	errno = 0;
	return 0;
}

int json_out__end(struct json_out *w)
{
	int err = w->err;

	funlockfile(w->out);
	uselocale(w->old_loc);
	freelocale(w->c_loc);
	free(w->scratch);
	free(w->row);
	w->scratch = w->row = NULL;
	if (err)
		return err;
	errno = 0;
	if (fflush(w->out) || ferror(w->out))
		err = errno ? -errno : -EIO;
	return err;
}

void json_out__raw(struct json_out *w, const char *s, size_t len)
{
	if (w->err || !len)
		return;
	if (fwrite_unlocked(s, 1, len, w->out) != len)
		w->err = errno ? -errno : -EIO;
}

void json_out__puts(struct json_out *w, const char *s)
{
	json_out__raw(w, s, strlen(s));
}

void json_out__value_ext(struct json_out *w, struct json_object *v, int flags)
{
	const char *s;
	size_t len;

	if (!w->err) {
		s = json_object_to_json_string_length(v, flags, &len);
		if (s)
			json_out__raw(w, s, len);
		else
			w->err = -ENOMEM;
	}
	json_object_put(v);
}

void json_out__value(struct json_out *w, struct json_object *v)
{
	json_out__value_ext(w, v, JSON_OUT_FLAGS);
}

/* o, or NULL with -ENOMEM recorded when o is NULL (a failed allocation). */
static struct json_object *made(struct json_out *w, struct json_object *o)
{
	if (!o)
		w->err = -ENOMEM;
	return o;
}

struct json_object *json_out__object(struct json_out *w)
{
	return made(w, json_object_new_object());
}

struct json_object *json_out__array(struct json_out *w, size_t n)
{
	if (n > INT_MAX)
		return made(w, NULL);
	return made(w, json_object_new_array_ext(n ? (int)n : 1));
}

struct json_object *json_out__u64(struct json_out *w, uint64_t v)
{
	return made(w, json_object_new_uint64(v));
}

struct json_object *json_out__bool(struct json_out *w, bool v)
{
	return made(w, json_object_new_boolean(v));
}

int json_out__utf8(struct json_out *w, const char **s, size_t *len)
{
	size_t n = strlen(*s), need;
	char *d;

	*len = utf8__valid_len(*s, n);
	if (*len == n)
		return 0;
	need = UTF8_REPAIR_SIZE(n);
	if (need > w->cap_scratch) {
		d = realloc(w->scratch, need);
		if (!d) {
			w->err = -ENOMEM;
			return -1;
		}
		w->scratch = d;
		w->cap_scratch = need;
	}
	*len = utf8__repair(w->scratch, *s, n);
	*s = w->scratch;
	return 0;
}

struct json_object *json_out__str(struct json_out *w, const char *s)
{
	size_t len;

	if (!s || json_out__utf8(w, &s, &len))
		return NULL;
	if (len > INT_MAX)
		return made(w, NULL);
	return made(w, json_object_new_string_len(s, (int)len));
}

struct json_object *json_out__real(struct json_out *w, double d)
{
	char buf[40];
	int prec;

	if (!isfinite(d))
		return NULL;
	for (prec = 15; prec < 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	if (prec == 17)
		snprintf(buf, sizeof(buf), "%.17g", d);
	if (!strpbrk(buf, ".e"))
		strcat(buf, ".0");
	return made(w, json_object_new_double_s(d, buf));
}

void json_out__add(struct json_out *w, struct json_object *o, const char *k, struct json_object *v)
{
	if (!o || w->err) {
		json_object_put(v);
		return;
	}
	if (json_object_object_add_ex(o, k, v, JSON_OUT_ADD)) {
		json_object_put(v);
		w->err = -ENOMEM;
	}
}

void json_out__append(struct json_out *w, struct json_object *a, struct json_object *v)
{
	if (!a || w->err) {
		json_object_put(v);
		return;
	}
	if (!v || json_object_array_add(a, v)) {
		json_object_put(v);
		w->err = -ENOMEM;
	}
}

/* ---- framing ------------------------------------------------------------------ */

void json_out__member(struct json_out *w, const char *k, struct json_object *v)
{
	json_out__puts(w, w->first ? "\n  \"" : ",\n  \"");
	w->first = false;
	json_out__puts(w, k);
	json_out__puts(w, "\": ");
	json_out__value(w, v);
}

void json_out__begin_array(struct json_out *w, const char *k)
{
	json_out__puts(w, w->first ? "\n  \"" : ",\n  \"");
	w->first = false;
	json_out__puts(w, k);
	json_out__puts(w, "\": [");
	w->first_rec = true;
}

void json_out__record(struct json_out *w, struct json_object *rec, const char *indent)
{
	json_out__puts(w, w->first_rec ? "\n" : ",\n");
	w->first_rec = false;
	json_out__puts(w, indent);
	json_out__value(w, rec);
}

void json_out__end_array(struct json_out *w)
{
	json_out__puts(w, w->first_rec ? "]" : "\n  ]");
}

/* ---- the row buffer ------------------------------------------------------------ */

void json_out__row_reserve(struct json_out *w, size_t n)
{
	char *b;
	size_t cap;

	if (w->err || w->cap_row - w->nr_row >= n)
		return;
	cap = w->cap_row ? w->cap_row : 4096;
	while (cap - w->nr_row < n)
		cap *= 2;
	b = realloc(w->row, cap);
	if (!b) {
		w->err = -ENOMEM;
		return;
	}
	w->row = b;
	w->cap_row = cap;
}

void json_out__row_hex(struct json_out *w, uint64_t v)
{
	static const char hex[] = "0123456789abcdef";
	char buf[24], *d = buf + sizeof(buf);

	*--d = '"';
	do {
		*--d = hex[v & 15];
		v >>= 4;
	} while (v);
	*--d = 'x';
	*--d = '0';
	*--d = '"';
	json_out__row_put(w, d, (size_t)(buf + sizeof(buf) - d));
}

void json_out__row_end(struct json_out *w)
{
	json_out__puts(w, w->first_rec ? "\n    " : ",\n    ");
	w->first_rec = false;
	json_out__raw(w, w->row, w->nr_row);
	w->nr_row = 0;
}
