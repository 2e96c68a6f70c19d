// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libpeg (peg.h): a PEG interpreter over a tree of nodes, marked for
 * fsp-bpf. Each attempt of a branch of an ordered choice runs under a mark
 * of feature "choice" (instance: the choice's name; payload: branch and
 * input offset, PEG_PAYLOAD), entered in the frame of the match() call that
 * tries it; everything the branch matches runs deeper, inside the mark. The
 * backtrack plug-in (fsp-bpf --plugin backtrack) finds, per choice and
 * branch, the time of attempts abandoned for a later branch at the same
 * offset.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <fsp/fsp.h>

#include "peg.h"

#define PEG_FEATURE "choice"

enum peg_kind { LIT, CLASS, SEQ, CHOICE, STAR, PLUS, OPT, NOT, END, FN, RULE };

struct peg_node {
	enum peg_kind kind;
	const char *name; /* CHOICE, RULE */
	char *text; /* LIT, CLASS */
	size_t len;
	struct peg_node **kids; /* SEQ, CHOICE; kids[0]: STAR, PLUS, OPT, NOT, RULE */
	int nr_kids;
	peg_match_fn fn;
	void *ctx;
	struct peg_node *next; /* the grammar's list of nodes */
};

struct peg {
	struct peg_node *nodes;
};

struct peg *peg_new(void)
{
	return calloc(1, sizeof(struct peg));
}

void peg_free(struct peg *g)
{
	struct peg_node *n, *next;

	if (!g)
		return;
	for (n = g->nodes; n; n = next) {
		next = n->next;
		free(n->text);
		free(n->kids);
		free(n);
	}
	free(g);
}

/* A node of g with room for nr kids (taken from ap when given). */
static struct peg_node *node(struct peg *g, enum peg_kind kind, int nr, va_list *ap)
{
	struct peg_node *n;
	int i;

	if (!g || nr < 0 || !(n = calloc(1, sizeof(*n))))
		return NULL;
	n->kind = kind;
	n->nr_kids = nr;
	if (nr && !(n->kids = calloc((size_t)nr, sizeof(*n->kids)))) {
		free(n);
		return NULL;
	}
	for (i = 0; ap && i < nr; i++)
		if (!(n->kids[i] = va_arg(*ap, struct peg_node *)))
			break;
	n->next = g->nodes;
	g->nodes = n;
	return ap && i < nr ? NULL : n; /* a NULL kid: an earlier failure */
}

static struct peg_node *unary(struct peg *g, enum peg_kind kind, struct peg_node *e)
{
	struct peg_node *n = e ? node(g, kind, 1, NULL) : NULL;

	if (n)
		n->kids[0] = e;
	return n;
}

static struct peg_node *text_node(struct peg *g, enum peg_kind kind, const char *s)
{
	struct peg_node *n = s ? node(g, kind, 0, NULL) : NULL;

	if (n && !(n->text = strdup(s)))
		return NULL; /* freed with the grammar */
	if (n)
		n->len = strlen(s);
	return n;
}

struct peg_node *peg_lit(struct peg *g, const char *s)
{
	return text_node(g, LIT, s);
}

struct peg_node *peg_class(struct peg *g, const char *chars)
{
	return text_node(g, CLASS, chars);
}

struct peg_node *peg_seq(struct peg *g, int n, ...)
{
	struct peg_node *r;
	va_list ap;

	va_start(ap, n);
	r = node(g, SEQ, n, &ap);
	va_end(ap);
	return r;
}

struct peg_node *peg_choice(struct peg *g, const char *name, int n, ...)
{
	struct peg_node *r;
	va_list ap;

	va_start(ap, n);
	r = node(g, CHOICE, n, &ap);
	va_end(ap);
	if (r)
		r->name = name;
	return r;
}

struct peg_node *peg_star(struct peg *g, struct peg_node *e)
{
	return unary(g, STAR, e);
}

struct peg_node *peg_plus(struct peg *g, struct peg_node *e)
{
	return unary(g, PLUS, e);
}

struct peg_node *peg_opt(struct peg *g, struct peg_node *e)
{
	return unary(g, OPT, e);
}

struct peg_node *peg_not(struct peg *g, struct peg_node *e)
{
	return unary(g, NOT, e);
}

struct peg_node *peg_end(struct peg *g)
{
	return node(g, END, 0, NULL);
}

struct peg_node *peg_fn(struct peg *g, peg_match_fn fn, void *ctx)
{
	struct peg_node *n = fn ? node(g, FN, 0, NULL) : NULL;

	if (n) {
		n->fn = fn;
		n->ctx = ctx;
	}
	return n;
}

struct peg_node *peg_rule(struct peg *g, const char *name)
{
	struct peg_node *n = node(g, RULE, 1, NULL);

	if (n)
		n->name = name;
	return n;
}

void peg_define(struct peg_node *rule, struct peg_node *body)
{
	if (rule && rule->kind == RULE)
		rule->kids[0] = body;
}

static long match(const struct peg_node *n, const char *in, size_t len, size_t pos);

/* Ordered choice: each branch under its mark, the first that matches wins. */
static long match_choice(const struct peg_node *n, const char *in, size_t len, size_t pos)
{
	for (int i = 0; i < n->nr_kids; i++) {
		long r;

		FSP_MARK_ENTER(PEG_FEATURE, n->name, PEG_PAYLOAD(i, pos));
		r = match(n->kids[i], in, len, pos);
		FSP_MARK_LEAVE(PEG_FEATURE, n->name, PEG_PAYLOAD(i, pos));
		if (r >= 0)
			return r;
	}
	return -1;
}

/* Zero or more (at least `min`) repetitions of e. */
static long match_repeat(const struct peg_node *e, const char *in, size_t len, size_t pos, int min)
{
	size_t at = pos;
	long r;
	int n = 0;

	while ((r = match(e, in, len, at)) > 0 || (r == 0 && !n)) {
		at += (size_t)r;
		n++;
		if (!r)
			break; /* an empty match repeats forever */
	}
	return n >= min ? (long)(at - pos) : -1;
}

static long match(const struct peg_node *n, const char *in, size_t len, size_t pos)
{
	long r = 0;

	if (!n)
		return -1;
	switch (n->kind) {
	case LIT:
		return len - pos >= n->len && !memcmp(in + pos, n->text, n->len) ? (long)n->len
										 : -1;
	case CLASS:
		return pos < len && in[pos] && strchr(n->text, in[pos]) ? 1 : -1;
	case SEQ:
		for (int i = 0; i < n->nr_kids; i++) {
			long k = match(n->kids[i], in, len, pos + (size_t)r);

			if (k < 0)
				return -1;
			r += k;
		}
		return r;
	case CHOICE:
		return match_choice(n, in, len, pos);
	case STAR:
		return match_repeat(n->kids[0], in, len, pos, 0);
	case PLUS:
		return match_repeat(n->kids[0], in, len, pos, 1);
	case OPT:
		r = match(n->kids[0], in, len, pos);
		return r < 0 ? 0 : r;
	case NOT:
		return match(n->kids[0], in, len, pos) < 0 ? 0 : -1;
	case END:
		return pos == len ? 0 : -1;
	case FN:
		return pos <= len ? n->fn(in, len, pos, n->ctx) : -1;
	case RULE:
		return match(n->kids[0], in, len, pos);
	}
	return -1;
}

long peg_parse(const struct peg_node *start, const char *in, size_t len)
{
	return in ? match(start, in, len, 0) : -1;
}
