// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Function features in probe maps (docs/function-features.md): the
 * "function" and "antimark" lines of a feature block, the checks of such a
 * block, and their split from the features of probes after parsing.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "funcfeat.h"
#include "probemap.h"
#include "probemap_parse.h"

/* "instance caller|none" or one {global:SYMBOL} part, read at sample time. */
static int function_instance(struct parser *p, struct probemap_feature *f, struct block *b)
{
	bool lit = f->nr_parts == 1 && f->parts[0].type == PROBEMAP_PART_LIT;

	if (lit && !strcmp(f->parts[0].lit, "caller")) {
		f->nr_parts = 0;
		return 0;
	}
	if (lit && !strcmp(f->parts[0].lit, "none")) {
		f->nr_parts = 0;
		f->instance_none = true;
		return 0;
	}
	if (f->nr_parts == 1 && f->parts[0].type == PROBEMAP_PART_GLOBAL && !b->outer[0])
		return 0;
	return probemap_fail(p, b->lines[D_INSTANCE],
			     "function feature '%s' has no probe arguments: its instance is "
			     "\"caller\" (the call site, the default), \"none\" or one "
			     "{global:SYMBOL} (a `char *` variable read at each sample)",
			     f->name);
}

/* Checks a block of "function" lines: no probes, nothing probes give. */
int probemap_end_function_block(struct parser *p, struct probemap_feature *f, struct block *b)
{
	static const enum directive not_for_functions[] = {
		D_ENTER, D_LEAVE, D_EVENT, D_KIND, D_PAYLOAD, D_MATCH, D_FRAME, D_WHEN, D_CHARGE};

	for (size_t i = 0; i < sizeof(not_for_functions) / sizeof(not_for_functions[0]); i++) {
		enum directive d = not_for_functions[i];

		if (b->lines[d])
			return probemap_fail(p, b->lines[d],
					     "function feature '%s' cannot have '%s' (it is found "
					     "on native stacks, without probes)",
					     f->name, probemap_directive_names[d]);
	}
	if (b->lines[D_LABEL])
		return probemap_fail(p, b->lines[D_LABEL],
				     "function feature '%s' cannot have 'label sample' (a function "
				     "feature's {global:SYMBOL} instance is read at sample time "
				     "without it)",
				     f->name);
	if (!b->lines[D_FUNCTION])
		return probemap_fail(p, b->lines[D_ANTIMARK],
				     "feature '%s' has antimark functions but no \"function "
				     "FILE:PATTERN\" line",
				     f->name);
	f->function = true;
	return b->lines[D_INSTANCE] ? function_instance(p, f, b) : 0;
}

/* "function|antimark FILE:PATTERN[,PATTERN...]": checked as funcfeat__add does. */
int probemap_function_directive(struct parser *p, struct probemap_feature *f, enum directive d,
				struct slice arg)
{
	struct funcfeat *ff = funcfeat__new();
	char text[PROBEMAP_FUNCTION_LEN], msg[256];
	int err;

	if (f->nr_functions == PROBEMAP_MAX_FUNCTIONS) {
		funcfeat__free(ff);
		return probemap_fail(p, p->line,
				     "more than %d function and antimark lines in "
				     "feature '%s' (list several functions on one line)",
				     PROBEMAP_MAX_FUNCTIONS, f->name);
	}
	if (!ff)
		return probemap_fail(p, p->line, "out of memory");
	if (arg.n >= sizeof(text)) {
		funcfeat__free(ff);
		return probemap_fail(p, p->line, "'%s' line too long (at most %d bytes)",
				     probemap_directive_names[d], PROBEMAP_FUNCTION_LEN - 1);
	}
	memcpy(text, arg.s, arg.n);
	text[arg.n] = '\0';
	err = funcfeat__add(ff, f->name, d == D_ANTIMARK, text, FUNCFEAT_INSTANCE_CALLER, msg,
			    sizeof(msg));
	funcfeat__free(ff);
	if (err)
		return probemap_fail(p, p->line, "%s %s", probemap_directive_names[d], msg);
	memcpy(f->functions[f->nr_functions], text, arg.n + 1);
	f->function_antimark[f->nr_functions++] = d == D_ANTIMARK;
	return 0;
}

/* Moves the function features from features to functions; {outer:F} indexes follow. */
int probemap_split_functions(struct probemap *m)
{
	int to[PROBEMAP_MAX_FEATURES];
	size_t n = 0, nf = 0;

	m->functions = calloc(m->nr_features + 1, sizeof(*m->functions));
	if (!m->functions)
		return -ENOMEM;
	for (size_t i = 0; i < m->nr_features; i++)
		to[i] = m->features[i].function ? -1 : (int)n++;
	for (size_t i = 0; i < m->nr_features; i++) {
		struct probemap_feature *f = &m->features[i];

		if (f->function) {
			m->functions[nf++] = *f;
			continue;
		}
		if (f->outer >= 0)
			f->outer = to[f->outer];
		for (unsigned int k = 0; k < f->nr_when; k++)
			if (f->when[k].outer >= 0)
				f->when[k].outer = to[f->when[k].outer];
		m->features[to[i]] = *f;
	}
	m->nr_features = n;
	m->nr_functions = nf;
	return 0;
}
