// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The rules of a feature beyond its probes and template (probemap.h,
 * docs/probe-maps.md): "when OPERAND OP VALUE" conditions on the enter,
 * "charge threads PATTERN", and the helpers both sides of fsp-bpf share
 * about them (thread-name patterns, providers).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "probemap_parse.h"

int probemap_text_arg(struct parser *p, struct slice t, const char *what, struct slice *out)
{
	char q[64];

	t = trim(t);
	if (t.n && t.s[0] == '"') {
		const char *close = memchr(t.s + 1, '"', t.n - 1);
		struct slice after;

		if (!close)
			return probemap_fail(p, p->line,
					     "unterminated quote in %s (end it with '\"')", what);
		after.s = close + 1;
		after.n = t.n - (after.s - t.s);
		after = trim(uncomment(after));
		if (after.n)
			return probemap_fail(p, p->line,
					     "unexpected text '%s' after the quoted %s (a quoted "
					     "text cannot hold '\"')",
					     probemap_show(q, sizeof(q), after), what);
		out->s = t.s + 1;
		out->n = close - out->s;
		return 0;
	}
	*out = trim(uncomment(t));
	return 0;
}

static const char *const cmp_names[] = {
	[PROBEMAP_EQ] = "==", [PROBEMAP_NE] = "!=", [PROBEMAP_LT] = "<",
	[PROBEMAP_LE] = "<=", [PROBEMAP_GT] = ">",  [PROBEMAP_GE] = ">=",
};

static int parse_cmp(struct slice w)
{
	for (int i = PROBEMAP_EQ; i <= PROBEMAP_GE; i++)
		if (slice_is(w, cmp_names[i]))
			return i;
	return -1;
}

/* An integer: optional '-', decimal or 0x hex, within 64 bits. */
static int parse_int(struct slice t, int64_t *out)
{
	bool neg = t.n && t.s[0] == '-';
	uint64_t v;

	if (neg) {
		t.s++;
		t.n--;
	}
	if (probemap_parse_uint(t, neg ? (uint64_t)INT64_MAX + 1 : UINT64_MAX, &v))
		return -1;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

/* The operand of "when": argN[OFF].. (an integer), or one placeholder. */
static int when_operand(struct parser *p, struct block *b, unsigned int k, struct slice w,
			struct probemap_when *c)
{
	char q[64];

	c->outer = -1;
	if (w.n > 3 && !memcmp(w.s, "arg", 3) && w.s[3] >= '0' && w.s[3] <= '9') {
		struct slice key = {"int", 3}, val = {w.s + 3, w.n - 3};

		return probemap_parse_ref(p, key, val, w, &c->operand);
	}
	if (w.n >= 2 && w.s[0] == '{' && w.s[w.n - 1] == '}') {
		struct slice body = {w.s + 1, w.n - 2}, key = body, val = {NULL, 0};
		const char *colon = memchr(body.s, ':', body.n);

		if (colon) {
			key.n = colon - body.s;
			val.s = colon + 1;
			val.n = body.n - key.n - 1;
			if (slice_is(key, "outer")) {
				c->is_string = true;
				return probemap_take_name(p, val, NAME_FEATURE, "outer feature",
							  b->when_outer[k]);
			}
			return probemap_parse_ref(p, key, val, w, &c->operand);
		}
	}
	return probemap_fail(p, p->line,
			     "unknown operand '%s' in 'when' (argN, or one placeholder: {int:N}, "
			     "{str:N}, {global:SYMBOL}, {outer:FEATURE})",
			     probemap_show(q, sizeof(q), w));
}

int probemap_parse_when(struct parser *p, struct probemap_feature *f, struct block *b,
			struct slice t)
{
	struct probemap_when *c;
	struct slice w, op, value;
	char q[64];
	int cmp, err;

	if (f->nr_when == PROBEMAP_MAX_WHEN)
		return probemap_fail(p, p->line,
				     "more than %d 'when' in feature '%s' (all must hold: keep "
				     "the ones that matter)",
				     PROBEMAP_MAX_WHEN, f->name);
	c = &f->when[f->nr_when];
	memset(c, 0, sizeof(*c));
	t = trim(t);
	w = first_word(&t);
	op = first_word(&t);
	if (!w.n || !op.n || w.s[0] == '#' || op.s[0] == '#')
		return probemap_fail(p, p->line,
				     "'when' needs a condition (when OPERAND OP VALUE, e.g. when "
				     "arg0 == 1)");
	err = when_operand(p, b, f->nr_when, w, c);
	if (err)
		return err;
	if (c->operand.type == PROBEMAP_PART_STR || c->operand.type == PROBEMAP_PART_GLOBAL)
		c->is_string = true;
	cmp = parse_cmp(op);
	if (cmp < 0)
		return probemap_fail(p, p->line, "unknown comparison '%s' (==, !=, <, <=, > or >=)",
				     probemap_show(q, sizeof(q), op));
	c->op = cmp;
	err = probemap_text_arg(p, t, "'when' value", &value);
	if (err)
		return err;
	if (!value.n && !c->is_string)
		return probemap_fail(p, p->line, "'when' needs a value after '%s'", cmp_names[cmp]);
	if (c->is_string) {
		if (cmp != PROBEMAP_EQ && cmp != PROBEMAP_NE)
			return probemap_fail(p, p->line, "'%s' compares a string (use == or !=)",
					     cmp_names[cmp]);
		if (value.n >= PROBEMAP_WHEN_TEXT)
			return probemap_fail(p, p->line,
					     "'when' text too long (at most %d bytes, as a label)",
					     PROBEMAP_WHEN_TEXT - 1);
		memcpy(c->value_text, value.s, value.n);
		c->value_text[value.n] = 0;
	} else if (parse_int(value, &c->value)) {
		return probemap_fail(p, p->line,
				     "bad number '%s' in 'when' (an integer: decimal or 0x hex, "
				     "within 64 bits)",
				     probemap_show(q, sizeof(q), value));
	}
	b->when_lines[f->nr_when] = p->line;
	f->nr_when++;
	return 0;
}

int probemap_parse_charge(struct parser *p, struct probemap_feature *f, struct slice t)
{
	struct slice w, pat;
	const char *star;
	char q[64];
	int err;

	t = trim(t);
	w = first_word(&t);
	if (!slice_is(w, "threads"))
		return probemap_fail(p, p->line,
				     "unknown charge '%s' (the only form is \"charge threads "
				     "PATTERN\")",
				     probemap_show(q, sizeof(q), w));
	err = probemap_text_arg(p, t, "thread pattern", &pat);
	if (err)
		return err;
	if (!pat.n)
		return probemap_fail(p, p->line,
				     "'charge threads' needs a pattern (\"*\" for every thread, "
				     "\"GC Thread#*\" for those whose name starts so)");
	star = memchr(pat.s, '*', pat.n);
	if (star && star != pat.s + pat.n - 1)
		return probemap_fail(p, p->line,
				     "'*' only at the end of thread pattern '%s' (a prefix: "
				     "\"GC Thread#*\")",
				     probemap_show(q, sizeof(q), pat));
	if (pat.n - (star ? 1 : 0) > PROBEMAP_PATTERN_LEN - 2)
		return probemap_fail(p, p->line,
				     "thread pattern '%s' too long (a thread name has at most %d "
				     "bytes)",
				     probemap_show(q, sizeof(q), pat), PROBEMAP_PATTERN_LEN - 2);
	memcpy(f->charge, pat.s, pat.n);
	f->charge[pat.n] = 0;
	return 0;
}

bool probemap__pattern_match(const char *pattern, const char *comm)
{
	size_t n = strlen(pattern);

	if (n && pattern[n - 1] == '*')
		return !strncmp(pattern, comm, n - 1);
	return !strcmp(pattern, comm);
}

bool probemap__has_provider(const struct probemap *m, const char *provider)
{
	for (unsigned int i = 0; i < m->nr_providers; i++)
		if (!strcmp(m->providers[i], provider))
			return true;
	return false;
}

int probemap__format_when(const struct probemap *m, const struct probemap_when *w, char *buf,
			  size_t size)
{
	size_t len = 0;
	int n;

	if (size)
		buf[0] = 0;
	if (w->outer >= 0 && (size_t)w->outer < m->nr_features)
		n = snprintf(buf, size, "{outer:%s}", m->features[w->outer].name);
	else if (w->operand.type == PROBEMAP_PART_INT && !w->operand.nr_deref)
		n = snprintf(buf, size, "arg%u", w->operand.arg);
	else
		n = (probemap_format_ref(&w->operand, buf, size, &len), (int)len);
	len = n;
	if (w->is_string)
		n = snprintf(len < size ? buf + len : NULL, len < size ? size - len : 0,
			     " %s \"%s\"", cmp_names[w->op], w->value_text);
	else
		n = snprintf(len < size ? buf + len : NULL, len < size ? size - len : 0,
			     " %s %" PRId64, cmp_names[w->op], w->value);
	return (int)len + n;
}
