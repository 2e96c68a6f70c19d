// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * peg_demo - an arithmetic expression grammar in libpeg (peg.h), written the
 * way grammars often are first, with the common alternative tried first:
 *
 *   expr   <- term '+' expr / term
 *   term   <- factor '*' term / factor
 *   factor <- number / '(' expr ')'
 *
 *   peg_demo [MS]     parse an expression for about MS ms of CPU time (default 2000)
 *
 *   sudo fsp-bpf --plugin backtrack -- .output/examples/peg_demo
 *
 * Each expr and term without an operator is parsed twice: branch 0 parses
 * the term (factor) and fails on the missing '+' ('*'), branch 1 parses it
 * again. The backtrack plug-in shows that time as abandoned in branch 0 of
 * expr and term; factoring the prefix out (expr <- term ('+' expr)?)
 * removes it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "peg.h"

static uint64_t cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	uint64_t ms = argc > 1 ? strtoull(argv[1], NULL, 10) : 2000, start = cpu_ms();
	struct peg *g = peg_new();
	struct peg_node *expr = peg_rule(g, "expr"), *term = peg_rule(g, "term"), *factor;
	struct peg_node *number = peg_plus(g, peg_class(g, "0123456789")), *top;
	static char text[1 << 16];
	size_t len = 0;
	unsigned long parses = 0;

	factor = peg_choice(g, "factor", 2, number,
			    peg_seq(g, 3, peg_lit(g, "("), expr, peg_lit(g, ")")));
	peg_define(term,
		   peg_choice(g, "term", 2, peg_seq(g, 3, factor, peg_lit(g, "*"), term), factor));
	peg_define(expr,
		   peg_choice(g, "expr", 2, peg_seq(g, 3, term, peg_lit(g, "+"), expr), term));
	top = peg_seq(g, 2, expr, peg_end(g));
	if (!top)
		return 1;
	/* N*(N+N*(N+N))+(N*N+N)*N+... with numbers N of 1000 digits, so that
	 * matching a number is real work next to a probe's microsecond */
	for (const char *p = "N*(N+N*(N+N))+(N*N+N)*N+N*(N+N)+N"; *p; p++) {
		if (*p != 'N') {
			text[len++] = *p;
			continue;
		}
		for (int d = 0; d < 1000; d++, len++)
			text[len] = (char)('1' + (d * 7 + (int)len) % 9);
	}
	while (cpu_ms() - start < ms) {
		if (peg_parse(top, text, len) != (long)len)
			return 2;
		parses++;
	}
	printf("parsed %lu times an expression of %zu bytes\n", parses, len);
	peg_free(g);
	return 0;
}
