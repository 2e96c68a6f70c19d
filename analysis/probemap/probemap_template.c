// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Instance templates of probe maps both ways: the parser of "instance
 * TEMPLATE" lines into parts (probemap_parse.h), and the formatter of the
 * parts back to text (probemap__format_template).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "probemap_parse.h"

static int too_many_parts(struct parser *p)
{
	return probemap_fail(
		p, p->line,
		"instance template has more than %d parts (each placeholder is a part, and "
		"each %d bytes of literal text; shorten the template)",
		PROBEMAP_MAX_PARTS, PROBEMAP_LIT_LEN);
}

static int add_lit(struct parser *p, struct probemap_feature *f, char c)
{
	struct probemap_part *last = f->nr_parts ? &f->parts[f->nr_parts - 1] : NULL;

	if (!last || last->type != PROBEMAP_PART_LIT || last->len == PROBEMAP_LIT_LEN) {
		if (f->nr_parts == PROBEMAP_MAX_PARTS)
			return too_many_parts(p);
		last = &f->parts[f->nr_parts++];
		memset(last, 0, sizeof(*last));
		last->type = PROBEMAP_PART_LIT;
	}
	last->lit[last->len++] = c;
	last->lit[last->len] = 0;
	return 0;
}

/* An offset of "[OFF]": decimal or 0x hex, at most PROBEMAP_MAX_DEREF_OFF. */
static int deref_offset(struct slice t, unsigned int *out)
{
	uint64_t v;

	if (probemap_parse_uint(t, PROBEMAP_MAX_DEREF_OFF, &v))
		return -1;
	*out = (unsigned int)v;
	return 0;
}

/* "N[OFF][OFF]" of {str:...} and {int:...}: the argument and its reads. */
static int arg_ref(struct parser *p, struct slice v, struct slice whole, struct probemap_part *part)
{
	const char *br = memchr(v.s, '[', v.n);
	struct slice num = {v.s, br ? (size_t)(br - v.s) : v.n};
	char q[64];
	int arg;

	arg = probemap_arg_number(num);
	if (arg < 0)
		return probemap_bad_arg(p, num);
	part->arg = arg;
	while (br) {
		const char *close = memchr(br, ']', v.n - (br - v.s));
		struct slice off = {br + 1, close ? (size_t)(close - br - 1) : 0};

		if (!close)
			return probemap_fail(p, p->line, "unterminated '[' in %s (write [OFFSET])",
					     probemap_show(q, sizeof(q), whole));
		if (part->nr_deref == PROBEMAP_MAX_DEREF)
			return probemap_fail(p, p->line,
					     "%s reads memory more than %d times (at most %d "
					     "[OFFSET] after the argument)",
					     probemap_show(q, sizeof(q), whole), PROBEMAP_MAX_DEREF,
					     PROBEMAP_MAX_DEREF);
		if (deref_offset(off, &part->deref[part->nr_deref]))
			return probemap_fail(p, p->line,
					     "bad offset '%s' in %s (a number from 0 to %d, "
					     "decimal or 0x hex)",
					     probemap_show(q, sizeof(q), off),
					     probemap_show(q + 32, sizeof(q) - 32, whole),
					     PROBEMAP_MAX_DEREF_OFF);
		part->nr_deref++;
		br = close + 1;
		if (br == v.s + v.n)
			break;
		if (*br != '[')
			return probemap_fail(p, p->line,
					     "unexpected text after ']' in %s (an argument, then "
					     "[OFFSET]s)",
					     probemap_show(q, sizeof(q), whole));
	}
	return 0;
}

int probemap_parse_ref(struct parser *p, struct slice key, struct slice val, struct slice whole,
		       struct probemap_part *part)
{
	const char *comma;
	char q[64];

	memset(part, 0, sizeof(*part));
	part->len_arg = -1;
	if (slice_is(key, "global")) {
		part->type = PROBEMAP_PART_GLOBAL;
		return probemap_take_name(p, val, NAME_IDENT, "global symbol", part->sym);
	}
	if (!slice_is(key, "str") && !slice_is(key, "int"))
		return probemap_fail(
			p, p->line,
			"unknown placeholder '%s' (use {str:N}, {int:N}, {global:SYMBOL} or "
			"{outer:FEATURE}; '{{' for a literal brace)",
			probemap_show(q, sizeof(q), whole));
	part->type = key.s[0] == 's' ? PROBEMAP_PART_STR : PROBEMAP_PART_INT;
	comma = memchr(val.s, ',', val.n);
	if (comma) {
		struct slice opt = {comma + 1, val.n - (comma + 1 - val.s)};
		struct slice lkey = {opt.s, 4};
		struct slice larg = {opt.s + 4, opt.n >= 4 ? opt.n - 4 : 0};
		int l;

		if (part->type != PROBEMAP_PART_STR || opt.n < 4 || !slice_is(lkey, "len:"))
			return probemap_fail(p, p->line,
					     "unknown option '%s' in %s (only {str:N,len:L}: the "
					     "length in argument L)",
					     probemap_show(q, sizeof(q), opt),
					     probemap_show(q + 32, sizeof(q) - 32, whole));
		l = probemap_arg_number(larg);
		if (l < 0)
			return probemap_bad_arg(p, larg);
		part->len_arg = l;
		val.n = comma - val.s;
	}
	return arg_ref(p, val, whole, part);
}

/* The placeholder {body} at t.s[start..end] (end at its '}'). */
static int add_placeholder(struct parser *p, struct probemap_feature *f, struct block *b,
			   struct slice t, size_t start, size_t end)
{
	struct slice body = {t.s + start + 1, end - start - 1},
		     whole = {t.s + start, end - start + 1};
	const char *colon = memchr(body.s, ':', body.n);
	struct slice key = body, val = {NULL, 0};
	char q[64];
	int err;

	if (colon) {
		key.n = colon - body.s;
		val.s = colon + 1;
		val.n = body.n - key.n - 1;
	}
	if (colon && slice_is(key, "outer")) {
		if (start != 0 || end != t.n - 1)
			return probemap_fail(
				p, p->line,
				"%s must be the whole template (an {outer:F} instance is F's "
				"instance; it cannot be mixed with text)",
				probemap_show(q, sizeof(q), whole));
		return probemap_take_name(p, val, NAME_FEATURE, "outer feature", b->outer);
	}
	if (!colon)
		return probemap_fail(
			p, p->line,
			"unknown placeholder '%s' (use {str:N}, {int:N}, {global:SYMBOL} or "
			"{outer:FEATURE}; '{{' for a literal brace)",
			probemap_show(q, sizeof(q), whole));
	if (f->nr_parts == PROBEMAP_MAX_PARTS)
		return too_many_parts(p);
	err = probemap_parse_ref(p, key, val, whole, &f->parts[f->nr_parts]);
	if (!err)
		f->nr_parts++;
	return err;
}

int probemap_parse_template(struct parser *p, struct probemap_feature *f, struct block *b,
			    struct slice t)
{
	char q[64];
	size_t i;
	int err;

	t = trim(t);
	if (t.n && t.s[0] == '"') {
		const char *close = memchr(t.s + 1, '"', t.n - 1);
		struct slice after;

		if (!close)
			return probemap_fail(
				p, p->line,
				"unterminated quote in instance template (end it with '\"')");
		after.s = close + 1;
		after.n = t.n - (after.s - t.s);
		after = trim(uncomment(after));
		if (after.n)
			return probemap_fail(
				p, p->line,
				"unexpected text '%s' after the quoted template (a quoted "
				"template cannot hold '\"')",
				probemap_show(q, sizeof(q), after));
		t.s++;
		t.n = close - t.s;
	} else {
		t = trim(uncomment(t));
	}
	if (t.n == 0)
		return probemap_fail(p, p->line,
				     "empty instance template (remove the line for no instance)");
	for (i = 0; i < t.n; i++) {
		char c = t.s[i];

		if (c == '{' && i + 1 < t.n && t.s[i + 1] == '{') {
			err = add_lit(p, f, '{');
			i++;
		} else if (c == '}' && i + 1 < t.n && t.s[i + 1] == '}') {
			err = add_lit(p, f, '}');
			i++;
		} else if (c == '{') {
			const char *close = memchr(t.s + i, '}', t.n - i);

			if (!close)
				return probemap_fail(
					p, p->line,
					"unterminated '{' in instance template (close the "
					"placeholder with '}'; '{{' for a literal brace)");
			err = add_placeholder(p, f, b, t, i, close - t.s);
			i = close - t.s;
		} else if (c == '}') {
			return probemap_fail(
				p, p->line,
				"unmatched '}' in instance template ('}}' for a literal brace)");
		} else {
			err = add_lit(p, f, c);
		}
		if (err)
			return err;
	}
	return 0;
}

/* snprintf-like appending. */
struct outbuf {
	char *buf;
	size_t size, len;
};

static void put(struct outbuf *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void puts_(struct outbuf *o, const char *s)
{
	while (*s)
		put(o, *s++);
}

void probemap_format_ref(const struct probemap_part *part, char *buf, size_t size, size_t *len)
{
	struct outbuf o = {buf, size, *len};
	char num[16];

	if (part->type == PROBEMAP_PART_GLOBAL) {
		puts_(&o, "{global:");
		puts_(&o, part->sym);
		put(&o, '}');
		*len = o.len;
		return;
	}
	snprintf(num, sizeof(num), "%u", part->arg);
	puts_(&o, part->type == PROBEMAP_PART_STR ? "{str:" : "{int:");
	puts_(&o, num);
	for (unsigned int i = 0; i < part->nr_deref && i < PROBEMAP_MAX_DEREF; i++) {
		snprintf(num, sizeof(num), "[%u]", part->deref[i]);
		puts_(&o, num);
	}
	if (part->type == PROBEMAP_PART_STR && part->len_arg >= 0) {
		snprintf(num, sizeof(num), ",len:%d", part->len_arg);
		puts_(&o, num);
	}
	put(&o, '}');
	if (o.len < o.size)
		o.buf[o.len] = 0;
	*len = o.len;
}

int probemap__format_template(const struct probemap *m, const struct probemap_feature *f, char *buf,
			      size_t size)
{
	struct outbuf o = {buf, size, 0};
	bool quote_char = false, hash = false, edge_space = false, quoted;
	unsigned int i, j;

	if (f->outer >= 0 && (size_t)f->outer < m->nr_features) {
		puts_(&o, "{outer:");
		puts_(&o, m->features[f->outer].name);
		put(&o, '}');
		goto out;
	}
	for (i = 0; i < f->nr_parts; i++) {
		const struct probemap_part *part = &f->parts[i];

		if (part->type != PROBEMAP_PART_LIT || !part->len)
			continue;
		quote_char |= memchr(part->lit, '"', part->len) != NULL;
		hash |= memchr(part->lit, '#', part->len) != NULL;
		if ((i == 0 && is_space(part->lit[0])) ||
		    (i == f->nr_parts - 1 && is_space(part->lit[part->len - 1])))
			edge_space = true;
	}
	quoted = hash || edge_space;
	/* a quoted template cannot hold '"'; an unquoted one cannot start with
	 * it, hold '#' or begin or end with white space */
	if (quote_char && (quoted || (f->nr_parts && f->parts[0].type == PROBEMAP_PART_LIT &&
				      f->parts[0].lit[0] == '"'))) {
		if (size)
			buf[0] = 0;
		return -EINVAL;
	}
	if (quoted)
		put(&o, '"');
	for (i = 0; i < f->nr_parts; i++) {
		const struct probemap_part *part = &f->parts[i];

		switch (part->type) {
		case PROBEMAP_PART_LIT:
			for (j = 0; j < part->len; j++) {
				if (part->lit[j] == '{' || part->lit[j] == '}')
					put(&o, part->lit[j]);
				put(&o, part->lit[j]);
			}
			break;
		case PROBEMAP_PART_STR:
		case PROBEMAP_PART_INT:
		case PROBEMAP_PART_GLOBAL:
			probemap_format_ref(part, o.buf, o.size, &o.len);
			break;
		}
	}
	if (quoted)
		put(&o, '"');
out:
	if (size)
		buf[o.len < size ? o.len : size - 1] = 0;
	return (int)o.len;
}
