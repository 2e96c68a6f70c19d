// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The escaping of outside text in human-readable output (escape.h). */
#include <string.h>

#include "escape.h"
#include "utf8.h"

/* Longest escaped unit: \UHHHHHHHH. */
#define UNIT_MAX 10

/* The valid code points the rule escapes (escape.h says why). */
static bool escaped_cp(uint32_t cp)
{
	if (cp >= 0x80 && cp <= 0x9f) /* C1 controls */
		return true;
	if (cp == 0x061c || cp == 0x200b || cp == 0x200e || cp == 0x200f || cp == 0xfeff)
		return true;
	if ((cp >= 0x2028 && cp <= 0x202e) || /* separators, bidi embeddings, overrides */
	    (cp >= 0x2060 && cp <= 0x206f) || /* word joiner ... isolates, deprecated */
	    (cp >= 0xfff9 && cp <= 0xfffb)) /* interlinear annotation */
		return true;
	/* noncharacters */
	return (cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) == 0xfffe;
}

/* The code point of the valid sequence u[0..len). */
static uint32_t decode(const unsigned char *u, size_t len)
{
	static const unsigned char lead_mask[] = {0, 0x7f, 0x1f, 0x0f, 0x07};
	uint32_t cp = u[0] & lead_mask[len];
	size_t i;

	for (i = 1; i < len; i++)
		cp = cp << 6 | (u[i] & 0x3f);
	return cp;
}

enum escape_kind escape__unit(const char *s, size_t n, size_t *len, uint32_t *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t l;

	*len = 1;
	*cp = u[0];
	if (u[0] < 0x80)
		return u[0] < 0x20 || u[0] == 0x7f ? ESCAPE_BYTE : ESCAPE_KEEP;
	l = utf8__seq(u, n);
	if (!l)
		return ESCAPE_BYTE;
	*len = l;
	*cp = decode(u, l);
	return escaped_cp(*cp) ? ESCAPE_CHAR : ESCAPE_KEEP;
}

/* Bytes written as they are, without looking further: printable ASCII but
 * the backslash. */
static bool plain(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '\\';
}

static char hex(unsigned int v)
{
	return "0123456789abcdef"[v & 0xf];
}

/* The escaped text of the unit at s[0..n) into out (UNIT_MAX bytes, not
 * terminated): its length; *len the bytes of s it stands for. */
static size_t unit_text(const char *s, size_t n, size_t *len, char *out)
{
	uint32_t cp;
	size_t o = 0;
	int digits;

	switch (escape__unit(s, n, len, &cp)) {
	case ESCAPE_KEEP:
		if (*s == '\\') {
			out[0] = out[1] = '\\';
			return 2;
		}
		memcpy(out, s, *len);
		return *len;
	case ESCAPE_BYTE:
		digits = 2;
		out[o++] = '\\';
		out[o++] = 'x';
		break;
	case ESCAPE_CHAR:
	default:
		digits = cp > 0xffff ? 8 : 4;
		out[o++] = '\\';
		out[o++] = cp > 0xffff ? 'U' : 'u';
		break;
	}
	while (digits--)
		out[o++] = hex(cp >> (4 * digits));
	return o;
}

size_t escape__str(char *buf, size_t size, const char *s)
{
	size_t n = s ? strlen(s) : 0, i, len, ulen, o = 0;
	bool full = !size;
	char unit[UNIT_MAX];

	for (i = 0; i < n; i += len) {
		ulen = unit_text(s + i, n - i, &len, unit);
		/* a unit is written whole or not at all, nor any after it */
		if (!full && o + ulen < size) {
			memcpy(buf + o, unit, ulen);
		} else if (!full) {
			buf[o] = 0;
			full = true;
		}
		o += ulen;
	}
	if (!full)
		buf[o] = 0;
	return o;
}

size_t escape__width(const char *s)
{
	size_t n = s ? strlen(s) : 0, i, len, w = 0;
	char unit[UNIT_MAX];
	uint32_t cp;

	for (i = 0; i < n; i += len) {
		if (escape__unit(s + i, n - i, &len, &cp) == ESCAPE_KEEP)
			w += s[i] == '\\' ? 2 : 1;
		else
			w += unit_text(s + i, n - i, &len, unit);
	}
	return w;
}

void escape__fwrite(const char *s, size_t n, FILE *out)
{
	size_t i = 0, run, len, ulen;
	char unit[UNIT_MAX];

	while (i < n) {
		/* a run of plain bytes in one write: most labels are one */
		for (run = 0; i + run < n && plain((unsigned char)s[i + run]); run++)
			;
		if (run) {
			fwrite(s + i, 1, run, out);
			i += run;
			continue;
		}
		ulen = unit_text(s + i, n - i, &len, unit);
		fwrite(unit, 1, ulen, out);
		i += len;
	}
}

void escape__fputs(const char *s, FILE *out)
{
	if (s)
		escape__fwrite(s, strlen(s), out);
}

void escape__fpad(const char *s, size_t width, FILE *out)
{
	size_t w = escape__width(s);

	escape__fputs(s, out);
	for (; w < width; w++)
		fputc(' ', out);
}
