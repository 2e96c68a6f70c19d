/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Internal to the probe-map parser (probemap.h): its state, the slices of
 * the file's text it works on, and the helpers its files share: probemap.c
 * (the text, the directives, the file), probemap_lex.c (words, names,
 * numbers, messages), probemap_template.c (instance templates).
 */
#ifndef FSP_ANALYSIS_PROBEMAP_PARSE_H
#define FSP_ANALYSIS_PROBEMAP_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "probemap.h"

#define PROBEMAP_MAX_FILE (1U << 20) /* bytes of a map file */

enum directive {
	D_MAP,
	D_PROVIDER,
	D_DESCRIPTION,
	D_FEATURE,
	D_ENTER,
	D_LEAVE,
	D_INSTANCE,
	D_KIND,
	D_PAYLOAD,
	D_MATCH,
	D_DEFAULT,
	D_FRAME,
	D_EVENT,
	D_WHEN,
	D_CHARGE,
	D_FUNCTION,
	D_ANTIMARK,
	D_LABEL,
	D__COUNT,
};

/* The directive words, by enum directive. */
extern const char *const probemap_directive_names[D__COUNT];

/* A piece of the text: not NUL-terminated. */
struct slice {
	const char *s;
	size_t n;
};

/* What the parser remembers of a feature block besides the feature. */
struct block {
	unsigned int lines[D__COUNT]; /* line of each directive seen in the block, 0: not seen */
	char outer[PROBEMAP_NAME_LEN]; /* {outer:F}: F, resolved at the end */
	char when_outer[PROBEMAP_MAX_WHEN][PROBEMAP_NAME_LEN]; /* "when {outer:F} ...": F */
	unsigned int when_lines[PROBEMAP_MAX_WHEN];
};

struct parser {
	const char *path;
	char *err;
	size_t err_size;
	unsigned int line; /* the current line, 1-based */
	struct probemap *m;
	struct block *blocks; /* one per feature */
	unsigned int header_lines[D__COUNT]; /* map, provider, description */
	int cur; /* the open feature block, -1 before the first */
};

/* A line "PATH:LINE: msg" into p->err; returns -EINVAL. */
int probemap_fail(struct parser *p, unsigned int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Text of the file for a message: at most 40 bytes (cut at a UTF-8
 * character boundary, "..." appended), as it is: messages are escaped
 * where they are printed (log.h, escape.h). */
const char *probemap_show(char *buf, size_t size, struct slice t);

static inline bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static inline struct slice trim(struct slice t)
{
	while (t.n && is_space(*t.s)) {
		t.s++;
		t.n--;
	}
	while (t.n && is_space(t.s[t.n - 1]))
		t.n--;
	return t;
}

/* t up to its first '#'. */
static inline struct slice uncomment(struct slice t)
{
	const char *hash = memchr(t.s, '#', t.n);

	if (hash)
		t.n = hash - t.s;
	return t;
}

/* Splits the first whitespace-delimited word off t (t is trimmed). */
static inline struct slice first_word(struct slice *t)
{
	struct slice w = {t->s, 0};

	while (w.n < t->n && !is_space(t->s[w.n]))
		w.n++;
	t->s += w.n;
	t->n -= w.n;
	*t = trim(*t);
	return w;
}

static inline bool slice_is(struct slice t, const char *s)
{
	return t.n == strlen(s) && !memcmp(t.s, s, t.n);
}

enum name_kind {
	NAME_IDENT, /* provider, probe, symbol: [A-Za-z0-9_]+ */
	NAME_FEATURE, /* [a-z0-9_-]+ */
	NAME_MAP, /* [A-Za-z0-9_-]+ */
};

/* Copies a valid name into out (PROBEMAP_NAME_LEN bytes); what says what it
 * names ("map", "probe", ...) in messages. */
int probemap_take_name(struct parser *p, struct slice t, enum name_kind kind, const char *what,
		       char *out);

/* An argument number 0..PROBEMAP_MAX_ARG in decimal, else -1. */
int probemap_arg_number(struct slice t);

/* An unsigned number, decimal or 0x hex, at most max: 0 with *out, else -1. */
int probemap_parse_uint(struct slice t, uint64_t max, uint64_t *out);

/* "bad argument number" for t; -EINVAL. */
int probemap_bad_arg(struct parser *p, struct slice t);

/* The template of an instance line into f (and b->outer for {outer:F}): t
 * is the rest of the line after "instance", comment included (a quoted
 * template may hold '#'). */
int probemap_parse_template(struct parser *p, struct probemap_feature *f, struct block *b,
			    struct slice t);

/* One placeholder {key:val} but {outer:F} into part: {str:N[OFF]..,len:L},
 * {int:N[OFF]..}, {global:SYMBOL}. whole is the placeholder as written,
 * for messages. */
int probemap_parse_ref(struct parser *p, struct slice key, struct slice val, struct slice whole,
		       struct probemap_part *part);

/* "when OPERAND OP VALUE" (probemap_rules.c): t is the rest of the line,
 * comment included (a quoted value may hold '#'). */
int probemap_parse_when(struct parser *p, struct probemap_feature *f, struct block *b,
			struct slice t);

/* "charge threads PATTERN" (probemap_rules.c). */
int probemap_parse_charge(struct parser *p, struct probemap_feature *f, struct slice t);

/* A quoted "..." or bare text up to a comment: the value of "when" and
 * "charge" (probemap_rules.c). */
int probemap_text_arg(struct parser *p, struct slice t, const char *what, struct slice *out);

/* Appends the placeholder of part ({str:...}, {int:...}, {global:...}) to
 * buf[*len..size) (snprintf-like: *len may pass size). */
void probemap_format_ref(const struct probemap_part *part, char *buf, size_t size, size_t *len);

/* probemap_function.c: function features. */
int probemap_end_function_block(struct parser *p, struct probemap_feature *f, struct block *b);
int probemap_function_directive(struct parser *p, struct probemap_feature *f, enum directive d,
				struct slice arg);
int probemap_split_functions(struct probemap *m);

#endif /* FSP_ANALYSIS_PROBEMAP_PARSE_H */
