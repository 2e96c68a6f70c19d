// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The words of a probe map (probemap_parse.h): directive names, names and
 * argument numbers checked, and the one-line error messages that quote the
 * file's text.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "probemap_parse.h"
#include "util.h"

#define SHOW_LEN 40 /* bytes of the file's text quoted in a message */

const char *const probemap_directive_names[D__COUNT] = {
	[D_MAP] = "map",	   [D_PROVIDER] = "provider", [D_DESCRIPTION] = "description",
	[D_FEATURE] = "feature",   [D_ENTER] = "enter",	      [D_LEAVE] = "leave",
	[D_INSTANCE] = "instance", [D_KIND] = "kind",	      [D_PAYLOAD] = "payload",
	[D_MATCH] = "match",	   [D_DEFAULT] = "default",   [D_FRAME] = "frame",
	[D_EVENT] = "event",	   [D_WHEN] = "when",	      [D_CHARGE] = "charge",
	[D_FUNCTION] = "function", [D_ANTIMARK] = "antimark", [D_LABEL] = "label",
};

int probemap_fail(struct parser *p, unsigned int line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fsp_set_err(p->err, p->err_size, "%s:%u: %s", p->path, line, msg);
	return -EINVAL;
}

const char *probemap_show(char *buf, size_t size, struct slice t)
{
	size_t n = t.n, i, o = 0;
	bool cut = false;

	if (n > SHOW_LEN) {
		n = SHOW_LEN;
		while (n > 0 && ((unsigned char)t.s[n] & 0xc0) == 0x80)
			n--;
		cut = true;
	}
	/* as it is: whoever prints the message escapes it (escape.h) */
	for (i = 0; i < n && o + 4 < size; i++)
		buf[o++] = t.s[i];
	if (cut && o + 4 <= size) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o] = 0;
	return buf;
}

static bool name_char(char c, enum name_kind kind)
{
	if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')
		return true;
	if (c == '-')
		return kind != NAME_IDENT;
	return kind != NAME_FEATURE && c >= 'A' && c <= 'Z';
}

int probemap_take_name(struct parser *p, struct slice t, enum name_kind kind, const char *what,
		       char *out)
{
	char q[64];
	size_t i;

	if (t.n == 0)
		return probemap_fail(p, p->line, "%s name missing", what);
	if (t.n >= PROBEMAP_NAME_LEN)
		return probemap_fail(p, p->line, "%s name '%s' too long (at most %d characters)",
				     what, probemap_show(q, sizeof(q), t), PROBEMAP_NAME_LEN - 1);
	for (i = 0; i < t.n; i++) {
		if (!name_char(t.s[i], kind)) {
			if (kind == NAME_FEATURE)
				return probemap_fail(
					p, p->line,
					"invalid %s name '%s' (lowercase letters, digits, '_' "
					"and '-' only)",
					what, probemap_show(q, sizeof(q), t));
			if (kind == NAME_MAP)
				return probemap_fail(
					p, p->line,
					"invalid %s name '%s' (letters, digits, '_' and '-' only)",
					what, probemap_show(q, sizeof(q), t));
			return probemap_fail(p, p->line,
					     "invalid %s name '%s' (letters, digits and '_' only)",
					     what, probemap_show(q, sizeof(q), t));
		}
	}
	memcpy(out, t.s, t.n);
	out[t.n] = 0;
	return 0;
}

int probemap_arg_number(struct slice t)
{
	int v = 0;
	size_t i;

	if (t.n == 0 || t.n > 2)
		return -1;
	for (i = 0; i < t.n; i++) {
		if (t.s[i] < '0' || t.s[i] > '9')
			return -1;
		v = v * 10 + (t.s[i] - '0');
	}
	return v <= PROBEMAP_MAX_ARG ? v : -1;
}

int probemap_parse_uint(struct slice t, uint64_t max, uint64_t *out)
{
	uint64_t v = 0, base = 10, d;
	size_t i = 0;

	if (t.n > 2 && t.s[0] == '0' && (t.s[1] == 'x' || t.s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i == t.n)
		return -1;
	for (; i < t.n; i++) {
		char c = t.s[i];

		if (c >= '0' && c <= '9')
			d = (uint64_t)(c - '0');
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = (uint64_t)(c - 'a' + 10);
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = (uint64_t)(c - 'A' + 10);
		else
			return -1;
		if (d > max || v > (max - d) / base)
			return -1;
		v = v * base + d;
	}
	*out = v;
	return 0;
}

int probemap_bad_arg(struct parser *p, struct slice t)
{
	char q[64];

	return probemap_fail(p, p->line,
			     "bad argument number '%s' (USDT arguments are numbered 0 to %d)",
			     probemap_show(q, sizeof(q), t), PROBEMAP_MAX_ARG);
}
