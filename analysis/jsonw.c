// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Streaming JSON writer, see jsonw.h. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jsonw.h"

void jsonw__init(struct jsonw *w, FILE *out)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
}

static void jsonw__put(struct jsonw *w, const char *s, size_t n)
{
	fwrite_unlocked(s, 1, n, w->out);
}

static void jsonw__indent(struct jsonw *w)
{
	int i;

	putc_unlocked('\n', w->out);
	for (i = 0; i < w->depth; i++)
		jsonw__put(w, "  ", 2);
}

/* Separator and indentation before a value or a key. */
static void jsonw__before(struct jsonw *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (w->depth == 0) {
		if (w->nonempty[0])
			w->err = -EINVAL; /* a second top-level value */
		w->nonempty[0] = true;
		return;
	}
	if (w->nonempty[w->depth])
		putc_unlocked(',', w->out);
	w->nonempty[w->depth] = true;
	if (!w->compact[w->depth])
		jsonw__indent(w);
}

static void jsonw__begin(struct jsonw *w, char c, bool compact)
{
	jsonw__before(w);
	putc_unlocked(c, w->out);
	if (w->depth + 1 >= JSONW_MAX_DEPTH) {
		w->err = -EINVAL;
		return;
	}
	compact = compact || (w->depth && w->compact[w->depth]);
	w->depth++;
	w->nonempty[w->depth] = false;
	w->compact[w->depth] = compact;
}

static void jsonw__end(struct jsonw *w, char c)
{
	if (w->depth == 0 || w->after_key) {
		w->err = -EINVAL;
		return;
	}
	w->depth--;
	if (w->nonempty[w->depth + 1] && !w->compact[w->depth + 1])
		jsonw__indent(w);
	putc_unlocked(c, w->out);
	if (w->depth == 0)
		putc_unlocked('\n', w->out);
}

void jsonw__begin_object(struct jsonw *w, bool compact)
{
	jsonw__begin(w, '{', compact);
}

void jsonw__end_object(struct jsonw *w)
{
	jsonw__end(w, '}');
}

void jsonw__begin_array(struct jsonw *w, bool compact)
{
	jsonw__begin(w, '[', compact);
}

void jsonw__end_array(struct jsonw *w)
{
	jsonw__end(w, ']');
}

/* Length of the valid UTF-8 sequence at s, 0 if invalid. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned int c = s[0];
	size_t n, i;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

static void jsonw__quoted(struct jsonw *w, const char *str)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	char esc[6];
	size_t n;

	putc_unlocked('"', w->out);
	while (*s) {
		if (*s >= 0x20 && *s < 0x80 && *s != '"' && *s != '\\') {
			putc_unlocked(*s++, w->out);
			continue;
		}
		switch (*s) {
		case '"':
			jsonw__put(w, "\\\"", 2);
			break;
		case '\\':
			jsonw__put(w, "\\\\", 2);
			break;
		case '\n':
			jsonw__put(w, "\\n", 2);
			break;
		case '\t':
			jsonw__put(w, "\\t", 2);
			break;
		case '\r':
			jsonw__put(w, "\\r", 2);
			break;
		default:
			if (*s < 0x20) {
				memcpy(esc, "\\u00", 4);
				esc[4] = hex[*s >> 4];
				esc[5] = hex[*s & 0xf];
				jsonw__put(w, esc, 6);
				break;
			}
			n = utf8_len(s);
			if (!n) {
				jsonw__put(w, "\\ufffd", 6);
				break;
			}
			jsonw__put(w, (const char *)s, n);
			s += n;
			continue;
		}
		s++;
	}
	putc_unlocked('"', w->out);
}

void jsonw__key(struct jsonw *w, const char *key)
{
	if (w->depth == 0 || w->after_key) {
		w->err = -EINVAL;
		return;
	}
	jsonw__before(w);
	jsonw__quoted(w, key);
	putc_unlocked(':', w->out);
	if (!w->compact[w->depth])
		putc_unlocked(' ', w->out);
	w->after_key = true;
}

void jsonw__string(struct jsonw *w, const char *s)
{
	if (!s) {
		jsonw__null(w);
		return;
	}
	jsonw__before(w);
	jsonw__quoted(w, s);
}

void jsonw__u64(struct jsonw *w, uint64_t v)
{
	char buf[24], *p = buf + sizeof(buf);

	jsonw__before(w);
	do {
		*--p = '0' + v % 10;
		v /= 10;
	} while (v);
	jsonw__put(w, p, buf + sizeof(buf) - p);
}

void jsonw__double(struct jsonw *w, double v)
{
	char buf[32];
	int n;

	if (!isfinite(v)) {
		jsonw__null(w);
		return;
	}
	jsonw__before(w);
	n = snprintf(buf, sizeof(buf), "%.15g", v);
	if (strtod(buf, NULL) != v)
		n = snprintf(buf, sizeof(buf), "%.17g", v);
	jsonw__put(w, buf, n);
}

void jsonw__null(struct jsonw *w)
{
	jsonw__before(w);
	jsonw__put(w, "null", 4);
}

int jsonw__finish(struct jsonw *w)
{
	if (w->err)
		return w->err;
	if (w->depth || w->after_key || !w->nonempty[0])
		return -EINVAL;
	return 0;
}
