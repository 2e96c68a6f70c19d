/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libpeg - parsing expression grammars in C: build a grammar from nodes,
 * then match input against it. Its ordered choice backtracks: it tries the
 * branches in order and keeps the first that matches, so a branch that
 * fails late wastes everything it did. Marked for fsp-bpf: each attempt of
 * a branch of a choice is a mark of feature "choice" whose instance label is
 * the choice's name and whose payload packs the branch index and the input
 * offset, PEG_PAYLOAD(branch, offset): the convention the backtrack plug-in
 * reads (fsp-bpf --plugin backtrack; usdt/README.md), which shows the time
 * spent in branches later abandoned, per choice and branch.
 *
 *	struct peg *g = peg_new();
 *	struct peg_node *list = peg_rule(g, "list");
 *	struct peg_node *item = peg_choice(g, "item", 2, number, word);
 *
 *	peg_define(list, peg_choice(g, "list", 2,
 *				    peg_seq(g, 3, item, peg_lit(g, ","), list), item));
 *	n = peg_parse(list, text, strlen(text));   // length matched, or -1
 *	peg_free(g);
 *
 * A constructor given a NULL node (an earlier allocation failed) returns
 * NULL, and peg_parse(NULL, ...) returns -1: check the last one. Matching is
 * recursive (its depth grows with the input's nesting) and reentrant; a
 * grammar may be used by several threads at once.
 */
#ifndef PEG_H
#define PEG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The payload of a choice's mark: branch (bits 48-63), input offset (0-47). */
#define PEG_PAYLOAD(branch, offset)                                                                \
	((uint64_t)(branch) << 48 | ((uint64_t)(offset) & ((1ULL << 48) - 1)))

struct peg; /* a grammar: owns its nodes */
struct peg_node;

/* A terminal matched by C code: the length matched at in[pos..len), or -1. */
typedef long (*peg_match_fn)(const char *in, size_t len, size_t pos, void *ctx);

struct peg *peg_new(void);
void peg_free(struct peg *g); /* NULL-safe; its nodes go with it */

struct peg_node *peg_lit(struct peg *g, const char *s); /* the string s */
struct peg_node *peg_class(struct peg *g, const char *chars); /* one character of chars */
struct peg_node *peg_seq(struct peg *g, int n, ...); /* n nodes, each in turn */
/* Ordered choice of n nodes: the first that matches. `name` labels the
 * choice in profiles: a string literal (the profiler keeps its address). */
struct peg_node *peg_choice(struct peg *g, const char *name, int n, ...);
struct peg_node *peg_star(struct peg *g, struct peg_node *e); /* zero or more */
struct peg_node *peg_plus(struct peg *g, struct peg_node *e); /* one or more */
struct peg_node *peg_opt(struct peg *g, struct peg_node *e); /* zero or one */
struct peg_node *peg_not(struct peg *g, struct peg_node *e); /* e does not match here */
struct peg_node *peg_end(struct peg *g); /* the end of the input */
struct peg_node *peg_fn(struct peg *g, peg_match_fn fn, void *ctx);
/* A rule defined later, so that rules can refer to each other. */
struct peg_node *peg_rule(struct peg *g, const char *name);
void peg_define(struct peg_node *rule, struct peg_node *body);

/* Matches start against in[0..len) from offset 0: the length matched, or -1. */
long peg_parse(const struct peg_node *start, const char *in, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* PEG_H */
