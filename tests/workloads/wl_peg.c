// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_peg - drives examples/libpeg (a PEG parser with ordered choice) for the
 * backtrack plug-in's test, measuring the time of abandoned branches.
 *
 *   wl_peg TRUTH MS    parse the same document for MS ms of CPU time
 *
 * The grammar, with both classic backtracking mistakes:
 *
 *   list <- item ',' list / item      choice "list": at the last item, branch 0
 *                                     parses the item, fails on ',', and branch 1
 *                                     parses the same item again
 *   item <- number / word             choice "item": on a word, the number
 *                                     matcher scans it before failing
 *
 * The document "12,abc,7,de,345,xyz". number and word are C matchers that
 * burn CPU (number 0.8-1.2 ms, word 1.2-1.8 ms, drawn per call) and measure
 * it; knowing the document, they know which branches their time is in:
 *
 *   item 0 (number) abandoned: number's time on a word
 *   list 0 abandoned:          the matchers' time at the last item's offset
 *                              during the first attempt (list's branch 0)
 *   list 1 (in branch):        the same during the second attempt
 *
 * Every (list, 0) visit but the last succeeds; the matchers' time is all
 * inside some (list, 0) attempt (the outer ones). The parser's own time
 * inside the marks (literals, sequences, the probes) is the parses' CPU
 * time less the matchers': ambiguous, written as overhead_ns.
 *
 * Truth keys: cpu_total_ns, parses, overhead_ns,
 * branch.{list,item}.{0,1}.{ns,abandoned_ns}, visit_blind_ns (what a
 * plug-in that ignored offsets would call abandoned in list 0: all of it).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peg.h"
#include "wl_common.h"

#define US 1000ULL

static const char doc[] = "12,abc,7,de,345,xyz";
static size_t last_item; /* offset of the last item */
static unsigned int done_at_last; /* matches at last_item in this parse */
static uint64_t rng = 0x9e3779b97f4a7c15ULL;
/* [site][branch]: 0 list, 1 item */
static uint64_t in_branch[2][2], abandoned[2][2];
static uint64_t matchers_ns;

static size_t run_of(const char *in, size_t len, size_t pos, int (*cls)(int))
{
	size_t n = 0;

	while (pos + n < len && cls((unsigned char)in[pos + n]))
		n++;
	return n;
}

/* Charges t ns of a matcher at pos (item branch `branch`, matched or not). */
static void account(size_t pos, int branch, bool matched, uint64_t t)
{
	bool at_last = pos == last_item, second = at_last && done_at_last > 0;

	matchers_ns += t;
	in_branch[1][branch] += t;
	if (branch == 0 && !matched)
		abandoned[1][0] += t; /* word comes after: number was abandoned */
	in_branch[0][0] += t; /* every matcher runs inside the outer list 0 */
	if (second)
		in_branch[0][1] += t;
	else if (at_last)
		abandoned[0][0] += t; /* list 0 at the last item, abandoned for list 1 */
	if (at_last && matched)
		done_at_last++;
}

static long matcher(const char *in, size_t len, size_t pos, int branch, int (*cls)(int),
		    uint64_t lo, uint64_t hi)
{
	uint64_t t0 = wl_thread_ns(), t1;
	size_t n;

	wl_burn(wl_rand_range(&rng, lo, hi));
	n = run_of(in, len, pos, cls);
	t1 = wl_thread_ns();
	account(pos, branch, n > 0, t1 - t0);
	return n ? (long)n : -1;
}

static long number(const char *in, size_t len, size_t pos, void *ctx)
{
	(void)ctx;
	return matcher(in, len, pos, 0, isdigit, 800 * US, 1200 * US);
}

static long word(const char *in, size_t len, size_t pos, void *ctx)
{
	(void)ctx;
	return matcher(in, len, pos, 1, isalpha, 1200 * US, 1800 * US);
}

int main(int argc, char **argv)
{
	struct peg *g = peg_new();
	struct peg_node *list = peg_rule(g, "list"), *item, *top;
	uint64_t ms, start, parses = 0, parse_ns = 0, a, total;
	static const char *const site[2] = {"list", "item"};
	char key[64];
	FILE *f;

	if (argc != 3)
		wl_die("usage: wl_peg TRUTH MS");
	ms = wl_arg_u64(argv[2], "MS");
	item = peg_choice(g, "item", 2, peg_fn(g, number, NULL), peg_fn(g, word, NULL));
	peg_define(list,
		   peg_choice(g, "list", 2, peg_seq(g, 3, item, peg_lit(g, ","), list), item));
	top = peg_seq(g, 2, list, peg_end(g));
	if (!top)
		wl_die("out of memory");
	last_item = strrchr(doc, ',') + 1 - doc;
	start = wl_thread_ns();
	while (wl_thread_ns() - start < ms * WL_NS_PER_MS) {
		done_at_last = 0;
		a = wl_thread_ns();
		if (peg_parse(top, doc, strlen(doc)) != (long)strlen(doc))
			wl_die("the document does not parse");
		parse_ns += wl_thread_ns() - a;
		parses++;
	}
	total = wl_process_ns();
	peg_free(g);

	f = wl_out_open(argv[1]);
	wl_out_u64(f, "cpu_total_ns", total);
	wl_out_u64(f, "parses", parses);
	wl_out_u64(f, "overhead_ns", parse_ns - matchers_ns);
	for (int s = 0; s < 2; s++) {
		for (int b = 0; b < 2; b++) {
			snprintf(key, sizeof(key), "branch.%s.%d.ns", site[s], b);
			wl_out_u64(f, key, in_branch[s][b]);
			snprintf(key, sizeof(key), "branch.%s.%d.abandoned_ns", site[s], b);
			wl_out_u64(f, key, abandoned[s][b]);
		}
	}
	wl_out_u64(f, "visit_blind_ns", in_branch[0][0]);
	return wl_out_close(f, argv[1]) || wl_integrity_errors() ? 3 : 0;
}
