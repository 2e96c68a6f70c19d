// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Probe maps (probemap.h, docs/probe-maps.md): the parser of map files, the
 * feature selection of --feature, and the template formatter.
 *
 * The parser reads line by line. Each line is a directive word and its
 * argument; "#" starts a comment (except inside the quotes of a quoted
 * instance template). Feature blocks are checked when they end, {outer:F}
 * references when the file ends (F may be defined later). Every error is one
 * line "PATH:LINE: what is wrong (what to do)" and -EINVAL.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probemap.h"
#include "utf8.h"
#include "util.h"

#define PROBEMAP_MAX_FILE (1U << 20) /* bytes of a map file */
#define SHOW_LEN 40 /* bytes of the file's text quoted in a message */

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
	D__COUNT,
};

static const char *const directive_names[D__COUNT] = {
	[D_MAP] = "map",	   [D_PROVIDER] = "provider", [D_DESCRIPTION] = "description",
	[D_FEATURE] = "feature",   [D_ENTER] = "enter",	      [D_LEAVE] = "leave",
	[D_INSTANCE] = "instance", [D_KIND] = "kind",	      [D_PAYLOAD] = "payload",
	[D_MATCH] = "match",	   [D_DEFAULT] = "default",   [D_FRAME] = "frame",
};

/* A piece of the text: not NUL-terminated. */
struct slice {
	const char *s;
	size_t n;
};

/* What the parser remembers of a feature block besides the feature. */
struct block {
	unsigned int lines[D__COUNT]; /* line of each directive seen in the block, 0: not seen */
	char outer[PROBEMAP_NAME_LEN]; /* {outer:F}: F, resolved at the end */
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

static int fail(struct parser *p, unsigned int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct parser *p, unsigned int line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fsp_set_err(p->err, p->err_size, "%s:%u: %s", p->path, line, msg);
	return -EINVAL;
}

/* Text of the file for a message: at most SHOW_LEN bytes (cut at a UTF-8
 * character boundary, "..." appended), control characters as '?'. */
static const char *show(char *buf, size_t size, struct slice t)
{
	size_t n = t.n, i, o = 0;
	bool cut = false;

	if (n > SHOW_LEN) {
		n = SHOW_LEN;
		while (n > 0 && ((unsigned char)t.s[n] & 0xc0) == 0x80)
			n--;
		cut = true;
	}
	for (i = 0; i < n && o + 4 < size; i++) {
		unsigned char c = t.s[i];

		buf[o++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	if (cut && o + 4 <= size) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o] = 0;
	return buf;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static struct slice trim(struct slice t)
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
static struct slice uncomment(struct slice t)
{
	const char *hash = memchr(t.s, '#', t.n);

	if (hash)
		t.n = hash - t.s;
	return t;
}

/* Splits the first whitespace-delimited word off t (t is trimmed). */
static struct slice first_word(struct slice *t)
{
	struct slice w = {t->s, 0};

	while (w.n < t->n && !is_space(t->s[w.n]))
		w.n++;
	t->s += w.n;
	t->n -= w.n;
	*t = trim(*t);
	return w;
}

static bool slice_is(struct slice t, const char *s)
{
	return t.n == strlen(s) && !memcmp(t.s, s, t.n);
}

/* ---- checks of the whole text ------------------------------------------------------------- */

static int check_text(struct parser *p, const char *text, size_t len)
{
	const unsigned char *s = (const unsigned char *)text;
	unsigned int line = 1;
	size_t i = 0, n;

	if (len > PROBEMAP_MAX_FILE)
		return fail(p, 1, "file too large: %zu bytes (a map file is at most 1 MiB)", len);
	while (i < len && (is_space(text[i]) || text[i] == '\n'))
		i++;
	if (i == len)
		return fail(p, 1, "empty file (a map file starts with \"map NAME\")");
	i = 0;
	while (i < len) {
		if (s[i] == 0)
			return fail(p, line, "NUL byte (a map file is UTF-8 text)");
		if (s[i] == '\n')
			line++;
		n = utf8__seq(s + i, len - i);
		if (!n)
			return fail(p, line, "invalid UTF-8 (a map file is UTF-8 text)");
		i += n;
	}
	return 0;
}

/* ---- names and numbers -------------------------------------------------------------------- */

enum name_kind {
	NAME_IDENT, /* map, provider, probe: [A-Za-z0-9_]+ */
	NAME_FEATURE, /* [a-z0-9_-]+ */
};

static bool name_char(char c, enum name_kind kind)
{
	if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')
		return true;
	if (kind == NAME_FEATURE)
		return c == '-';
	return c >= 'A' && c <= 'Z';
}

/* Copies a valid name into out (PROBEMAP_NAME_LEN bytes); what says what it
 * names ("map", "probe", ...) in messages. */
static int take_name(struct parser *p, struct slice t, enum name_kind kind, const char *what,
		     char *out)
{
	char q[64];
	size_t i;

	if (t.n == 0)
		return fail(p, p->line, "%s name missing", what);
	if (t.n >= PROBEMAP_NAME_LEN)
		return fail(p, p->line, "%s name '%s' too long (at most %d characters)", what,
			    show(q, sizeof(q), t), PROBEMAP_NAME_LEN - 1);
	for (i = 0; i < t.n; i++) {
		if (!name_char(t.s[i], kind)) {
			if (kind == NAME_FEATURE)
				return fail(p, p->line,
					    "invalid %s name '%s' (lowercase letters, digits, '_' "
					    "and '-' only)",
					    what, show(q, sizeof(q), t));
			return fail(p, p->line,
				    "invalid %s name '%s' (letters, digits and '_' only)", what,
				    show(q, sizeof(q), t));
		}
	}
	memcpy(out, t.s, t.n);
	out[t.n] = 0;
	return 0;
}

/* An argument number 0..PROBEMAP_MAX_ARG in decimal, else -1. */
static int arg_number(struct slice t)
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

static int bad_arg(struct parser *p, struct slice t)
{
	char q[64];

	return fail(p, p->line, "bad argument number '%s' (USDT arguments are numbered 0 to %d)",
		    show(q, sizeof(q), t), PROBEMAP_MAX_ARG);
}

/* ---- instance templates ------------------------------------------------------------------- */

static int too_many_parts(struct parser *p)
{
	return fail(p, p->line,
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

/* The placeholder {body} at t.s[start..end] (end at its '}'). */
static int add_placeholder(struct parser *p, struct probemap_feature *f, struct block *b,
			   struct slice t, size_t start, size_t end)
{
	struct slice body = {t.s + start + 1, end - start - 1},
		     whole = {t.s + start, end - start + 1};
	const char *colon = memchr(body.s, ':', body.n);
	struct slice key = body, val = {NULL, 0};
	struct probemap_part *part;
	char q[64];
	int arg;

	if (colon) {
		key.n = colon - body.s;
		val.s = colon + 1;
		val.n = body.n - key.n - 1;
	}
	if (colon && slice_is(key, "outer")) {
		if (start != 0 || end != t.n - 1)
			return fail(p, p->line,
				    "%s must be the whole template (an {outer:F} instance is F's "
				    "instance; it cannot be mixed with text)",
				    show(q, sizeof(q), whole));
		return take_name(p, val, NAME_FEATURE, "outer feature", b->outer);
	}
	if (colon && slice_is(key, "global")) {
		if (f->nr_parts == PROBEMAP_MAX_PARTS)
			return too_many_parts(p);
		part = &f->parts[f->nr_parts];
		memset(part, 0, sizeof(*part));
		part->type = PROBEMAP_PART_GLOBAL;
		f->nr_parts++;
		return take_name(p, val, NAME_IDENT, "global symbol", part->sym);
	}
	if (!colon || !(slice_is(key, "str") || slice_is(key, "int")))
		return fail(p, p->line,
			    "unknown placeholder '%s' (use {str:N}, {int:N}, {global:SYMBOL} or "
			    "{outer:FEATURE}; '{{' for a literal brace)",
			    show(q, sizeof(q), whole));
	arg = arg_number(val);
	if (arg < 0)
		return bad_arg(p, val);
	if (f->nr_parts == PROBEMAP_MAX_PARTS)
		return too_many_parts(p);
	part = &f->parts[f->nr_parts++];
	memset(part, 0, sizeof(*part));
	part->type = key.s[0] == 's' ? PROBEMAP_PART_STR : PROBEMAP_PART_INT;
	part->arg = arg;
	return 0;
}

/* The template of an instance line: t is the rest of the line after
 * "instance", comment included (a quoted template may hold '#'). */
static int parse_template(struct parser *p, struct probemap_feature *f, struct block *b,
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
			return fail(p, p->line,
				    "unterminated quote in instance template (end it with '\"')");
		after.s = close + 1;
		after.n = t.n - (after.s - t.s);
		after = trim(uncomment(after));
		if (after.n)
			return fail(p, p->line,
				    "unexpected text '%s' after the quoted template (a quoted "
				    "template cannot hold '\"')",
				    show(q, sizeof(q), after));
		t.s++;
		t.n = close - t.s;
	} else {
		t = trim(uncomment(t));
	}
	if (t.n == 0)
		return fail(p, p->line,
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
				return fail(p, p->line,
					    "unterminated '{' in instance template (close the "
					    "placeholder with '}'; '{{' for a literal brace)");
			err = add_placeholder(p, f, b, t, i, close - t.s);
			i = close - t.s;
		} else if (c == '}') {
			return fail(
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

/* ---- directives --------------------------------------------------------------------------- */

static struct probemap_feature *cur_feature(struct parser *p)
{
	return &p->m->features[p->cur];
}

/* A directive whose argument is one keyword (kind, match, default). */
static int keyword_arg(struct parser *p, enum directive d, struct slice arg, struct slice *word)
{
	char q[64], q2[64];

	*word = first_word(&arg);
	if (word->n == 0)
		return fail(p, p->line, "'%s' needs an argument (%s)", directive_names[d],
			    d == D_KIND	   ? "kind mark or kind antimark"
			    : d == D_MATCH ? "match instance"
					   : "default off");
	if (arg.n)
		return fail(p, p->line, "unexpected text '%s' after '%s %s' (one per line)",
			    show(q, sizeof(q), arg), directive_names[d],
			    show(q2, sizeof(q2), *word));
	return 0;
}

/* A directive whose argument is one name. */
static int name_arg(struct parser *p, enum directive d, struct slice arg, enum name_kind kind,
		    char *out)
{
	struct slice w = first_word(&arg);
	char q[64];

	if (w.n == 0)
		return fail(p, p->line, "'%s' needs a name (%s NAME)", directive_names[d],
			    directive_names[d]);
	if (arg.n)
		return fail(p, p->line,
			    "unexpected text '%s' after the %s name (one name per line)",
			    show(q, sizeof(q), arg), directive_names[d]);
	return take_name(p, w, kind, d == D_ENTER || d == D_LEAVE ? "probe" : directive_names[d],
			 out);
}

/* Checks the open feature block once it is complete. */
static int end_block(struct parser *p)
{
	struct probemap_feature *f;
	struct block *b;

	if (p->cur < 0)
		return 0;
	f = cur_feature(p);
	b = &p->blocks[p->cur];
	if (!b->lines[D_ENTER])
		return fail(p, f->line, "feature '%s' has no enter probe (add \"enter PROBE\")",
			    f->name);
	if (!b->lines[D_LEAVE])
		return fail(p, f->line, "feature '%s' has no leave probe (add \"leave PROBE\")",
			    f->name);
	if (!strcmp(f->enter, f->leave))
		return fail(p, b->lines[D_LEAVE],
			    "feature '%s' enters and leaves at the same probe '%s' (a probe "
			    "cannot both enter and leave)",
			    f->name, f->leave);
	if (f->kind == PROBEMAP_ANTIMARK) {
		if (b->lines[D_INSTANCE])
			return fail(p, b->lines[D_INSTANCE],
				    "antimark feature '%s' cannot have an instance (remove it, or "
				    "use \"kind mark\")",
				    f->name);
		if (b->lines[D_PAYLOAD])
			return fail(p, b->lines[D_PAYLOAD],
				    "antimark feature '%s' cannot have a payload (remove it, or "
				    "use \"kind mark\")",
				    f->name);
		if (b->lines[D_MATCH])
			return fail(
				p, b->lines[D_MATCH],
				"antimark feature '%s' has no instance to match (remove \"match "
				"instance\", or use \"kind mark\")",
				f->name);
	}
	if (b->lines[D_MATCH] && !f->nr_parts)
		return fail(
			p, b->lines[D_MATCH],
			"'match instance' in feature '%s' needs an instance template with "
			"{str:N}, {int:N} or {global:SYMBOL} parts (not {outer:F}; add \"instance "
			"TEMPLATE\")",
			f->name);
	return 0;
}

static int block_directive(struct parser *p, enum directive d, struct slice arg)
{
	struct probemap_feature *f = cur_feature(p);
	struct block *b = &p->blocks[p->cur];
	struct slice w;
	char q[64];
	int err, n;

	if (b->lines[d])
		return fail(p, p->line, "second '%s' in feature '%s' (the first is at line %u)",
			    directive_names[d], f->name, b->lines[d]);
	b->lines[d] = p->line;
	switch (d) {
	case D_ENTER:
		return name_arg(p, d, arg, NAME_IDENT, f->enter);
	case D_LEAVE:
		return name_arg(p, d, arg, NAME_IDENT, f->leave);
	case D_INSTANCE:
		return parse_template(p, f, b, arg);
	case D_KIND:
		err = keyword_arg(p, d, arg, &w);
		if (err)
			return err;
		if (slice_is(w, "mark"))
			f->kind = PROBEMAP_MARK;
		else if (slice_is(w, "antimark"))
			f->kind = PROBEMAP_ANTIMARK;
		else
			return fail(p, p->line, "unknown kind '%s' (kind mark or kind antimark)",
				    show(q, sizeof(q), w));
		return 0;
	case D_PAYLOAD:
		w = first_word(&arg);
		if (w.n == 0)
			return fail(p, p->line, "'payload' needs an argument number (payload N)");
		if (arg.n)
			return fail(
				p, p->line,
				"unexpected text '%s' after the payload argument (one per line)",
				show(q, sizeof(q), arg));
		n = arg_number(w);
		if (n < 0)
			return bad_arg(p, w);
		f->payload_arg = n;
		return 0;
	case D_MATCH:
		err = keyword_arg(p, d, arg, &w);
		if (err)
			return err;
		if (!slice_is(w, "instance"))
			return fail(p, p->line,
				    "unknown match '%s' (the only form is \"match instance\")",
				    show(q, sizeof(q), w));
		f->match_instance = true;
		return 0;
	case D_DEFAULT:
		err = keyword_arg(p, d, arg, &w);
		if (err)
			return err;
		if (!slice_is(w, "off"))
			return fail(p, p->line,
				    "unknown default '%s' (the only form is \"default off\")",
				    show(q, sizeof(q), w));
		f->default_off = true;
		return 0;
	case D_FRAME:
		err = keyword_arg(p, d, arg, &w);
		if (err)
			return err;
		if (slice_is(w, "caller"))
			f->frame_caller = true;
		else if (!slice_is(w, "probe"))
			return fail(p, p->line,
				    "unknown frame '%s' (expected \"frame probe\" or "
				    "\"frame caller\")",
				    show(q, sizeof(q), w));
		return 0;
	default:
		return -EINVAL; /* not reached */
	}
}

static int feature_directive(struct parser *p, struct slice arg)
{
	struct probemap *m = p->m;
	struct probemap_feature *f;
	char name[PROBEMAP_NAME_LEN];
	size_t i;
	int err;

	err = end_block(p);
	if (err)
		return err;
	if (!p->header_lines[D_PROVIDER])
		return fail(p, p->line,
			    "feature before 'provider' (add \"provider NAME\" after \"map\")");
	err = name_arg(p, D_FEATURE, arg, NAME_FEATURE, name);
	if (err)
		return err;
	for (i = 0; i < m->nr_features; i++)
		if (!strcmp(m->features[i].name, name))
			return fail(p, p->line,
				    "duplicate feature '%s' (the first is at line %u; rename one)",
				    name, m->features[i].line);
	if (m->nr_features == PROBEMAP_MAX_FEATURES)
		return fail(p, p->line, "too many features (at most %d in a map; split the map)",
			    PROBEMAP_MAX_FEATURES);
	p->cur = m->nr_features++;
	f = cur_feature(p);
	memcpy(f->name, name, sizeof(name));
	f->kind = PROBEMAP_MARK;
	f->payload_arg = -1;
	f->outer = -1;
	f->line = p->line;
	return 0;
}

static int header_directive(struct parser *p, enum directive d, struct slice arg)
{
	struct probemap *m = p->m;
	char q[64];

	if (p->header_lines[d])
		return fail(p, p->line, "second '%s' (the first is at line %u)", directive_names[d],
			    p->header_lines[d]);
	if (p->cur >= 0)
		return fail(p, p->line, "'%s' after a feature (put it before the first feature)",
			    directive_names[d]);
	p->header_lines[d] = p->line;
	switch (d) {
	case D_MAP:
		return name_arg(p, d, arg, NAME_IDENT, m->name);
	case D_PROVIDER:
		return name_arg(p, d, arg, NAME_IDENT, m->provider);
	default:
		arg = trim(arg);
		if (arg.n == 0)
			return fail(p, p->line, "'description' needs text (description TEXT)");
		if (arg.n >= PROBEMAP_DESC_LEN)
			return fail(p, p->line, "description '%s' too long (at most %d bytes)",
				    show(q, sizeof(q), arg), PROBEMAP_DESC_LEN - 1);
		memcpy(m->description, arg.s, arg.n);
		m->description[arg.n] = 0;
		return 0;
	}
}

static int parse_line(struct parser *p, struct slice line)
{
	struct slice word, arg;
	enum directive d;
	char q[64];

	line = trim(line);
	if (line.n == 0 || line.s[0] == '#')
		return 0;
	word.s = line.s;
	word.n = 0;
	while (word.n < line.n && !is_space(line.s[word.n]) && line.s[word.n] != '#')
		word.n++;
	arg.s = line.s + word.n;
	arg.n = line.n - word.n;
	for (d = 0; d < D__COUNT; d++)
		if (slice_is(word, directive_names[d]))
			break;
	if (d == D__COUNT)
		return fail(p, p->line,
			    "unknown directive '%s' (map, provider, description, feature, enter, "
			    "leave, instance, kind, payload, match, default or frame)",
			    show(q, sizeof(q), word));
	if (d != D_MAP && !p->header_lines[D_MAP])
		return fail(p, p->line, "'%s' before 'map' (a map file starts with \"map NAME\")",
			    directive_names[d]);
	if (d != D_INSTANCE)
		arg = trim(uncomment(arg));
	switch (d) {
	case D_MAP:
	case D_PROVIDER:
	case D_DESCRIPTION:
		return header_directive(p, d, arg);
	case D_FEATURE:
		return feature_directive(p, arg);
	default:
		if (p->cur < 0)
			return fail(p, p->line,
				    "'%s' outside a feature (start a block with \"feature NAME\")",
				    directive_names[d]);
		return block_directive(p, d, arg);
	}
}

/* After the last line: the last block, the header, {outer:F} references. */
static int finish(struct parser *p)
{
	struct probemap *m = p->m;
	size_t i;
	int err;

	err = end_block(p);
	if (err)
		return err;
	if (!p->header_lines[D_MAP])
		return fail(p, p->line, "no 'map' directive (a map file starts with \"map NAME\")");
	if (!p->header_lines[D_PROVIDER])
		return fail(p, p->line,
			    "no 'provider' directive (add \"provider NAME\" after \"map\")");
	if (!m->nr_features)
		return fail(p, p->line, "map '%s' has no feature (add \"feature NAME\" blocks)",
			    m->name);
	for (i = 0; i < m->nr_features; i++) {
		struct probemap_feature *f = &m->features[i];
		const struct block *b = &p->blocks[i];
		int o;

		if (!b->outer[0])
			continue;
		o = probemap__feature_index(m, b->outer);
		if ((size_t)o == i)
			return fail(
				p, b->lines[D_INSTANCE],
				"feature '%s' is its own {outer:%s} (name an enclosing feature)",
				f->name, b->outer);
		if (o < 0)
			return fail(
				p, b->lines[D_INSTANCE],
				"{outer:%s} of feature '%s' names no feature of map '%s' (define "
				"feature '%s' or fix the name)",
				b->outer, f->name, m->name, b->outer);
		if (m->features[o].kind != PROBEMAP_MARK)
			return fail(
				p, b->lines[D_INSTANCE],
				"{outer:%s} of feature '%s' names an antimark (an outer feature "
				"must be a mark, which has instances)",
				b->outer, f->name);
		f->outer = o;
	}
	return 0;
}

int probemap__parse(const char *text, size_t len, const char *path, struct probemap **out,
		    char *err, size_t err_size)
{
	struct parser p = {
		.path = path ? path : "<string>",
		.err = err,
		.err_size = err_size,
		.line = 1,
		.cur = -1,
	};
	size_t pos = 0;
	int ret;

	*out = NULL;
	if (!text && len)
		return fail(&p, 1, "no text");
	ret = check_text(&p, text, len);
	if (ret)
		return ret;
	p.m = calloc(1, sizeof(*p.m));
	p.blocks = calloc(PROBEMAP_MAX_FEATURES, sizeof(*p.blocks));
	if (p.m) {
		p.m->features = calloc(PROBEMAP_MAX_FEATURES, sizeof(*p.m->features));
		p.m->path = strdup(p.path);
	}
	if (!p.m || !p.blocks || !p.m->features || !p.m->path) {
		fsp_set_err(err, err_size, "%s: out of memory", p.path);
		ret = -ENOMEM;
		goto out;
	}
	for (;;) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		struct slice line = {text + pos, nl ? (size_t)(nl - text) - pos : len - pos};

		ret = parse_line(&p, line);
		if (ret || !nl)
			break;
		pos = nl - text + 1;
		if (pos == len)
			break; /* a final newline ends the last line */
		p.line++;
	}
	if (!ret)
		ret = finish(&p);
out:
	free(p.blocks);
	if (ret) {
		probemap__free(p.m);
		return ret;
	}
	*out = p.m;
	return 0;
}

int probemap__load(const char *path, struct probemap **out, char *err, size_t err_size)
{
	size_t len = 0, cap = PROBEMAP_MAX_FILE + 1;
	struct stat st;
	char *buf;
	ssize_t n;
	int fd, ret;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		fsp_set_err(err, err_size, "%s: %s", path, strerror(-ret));
		return ret;
	}
	if (fstat(fd, &st)) {
		ret = -errno;
		close(fd);
		fsp_set_err(err, err_size, "%s: %s", path, strerror(-ret));
		return ret;
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		fsp_set_err(err, err_size, "%s: Is a directory (name a .map file)", path);
		return -EISDIR;
	}
	if (S_ISREG(st.st_mode) && st.st_size > PROBEMAP_MAX_FILE) {
		close(fd);
		fsp_set_err(err, err_size,
			    "%s:1: file too large: %lld bytes (a map file is at most 1 MiB)", path,
			    (long long)st.st_size);
		return -EINVAL;
	}
	buf = malloc(cap);
	if (!buf) {
		close(fd);
		fsp_set_err(err, err_size, "%s: out of memory", path);
		return -ENOMEM;
	}
	/* read at most one byte more than allowed: a longer file is an error */
	while (len < cap) {
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			fsp_set_err(err, err_size, "%s: %s", path, strerror(-ret));
			free(buf);
			close(fd);
			return ret;
		}
		if (n == 0)
			break;
		len += n;
	}
	close(fd);
	ret = probemap__parse(buf, len, path, out, err, err_size);
	free(buf);
	return ret;
}

void probemap__free(struct probemap *m)
{
	if (!m)
		return;
	free(m->features);
	free(m->path);
	free(m);
}

int probemap__feature_index(const struct probemap *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->nr_features; i++)
		if (!strcmp(m->features[i].name, name))
			return (int)i;
	return -1;
}

const struct probemap_feature *probemap__feature(const struct probemap *m, const char *name)
{
	int i = probemap__feature_index(m, name);

	return i < 0 ? NULL : &m->features[i];
}

int probemap__full_name(const struct probemap *m, const struct probemap_feature *f, char *buf,
			size_t size)
{
	return snprintf(buf, size, "%s:%s", m->name, f->name);
}

/* The index of the feature an entry of a --feature list names, -1 if none
 * of this map: "NAME" or "MAP:NAME". */
static int select_entry(const struct probemap *m, struct slice e)
{
	const char *colon = memchr(e.s, ':', e.n);
	char name[PROBEMAP_NAME_LEN];

	if (colon) {
		struct slice map = {e.s, colon - e.s};

		if (!slice_is(map, m->name))
			return -1;
		e.n -= colon + 1 - e.s;
		e.s = colon + 1;
	}
	if (e.n >= sizeof(name))
		return -1;
	memcpy(name, e.s, e.n);
	name[e.n] = 0;
	return probemap__feature_index(m, name);
}

int probemap__select(const struct probemap *m, const char *list, bool *enabled, int *unknown)
{
	struct slice rest = {list ? list : "", list ? strlen(list) : 0};
	int nr = 0, bad = 0;
	size_t i;

	for (i = 0; i < m->nr_features; i++)
		enabled[i] = false;
	rest = trim(rest);
	if (rest.n == 0) {
		for (i = 0; i < m->nr_features; i++) {
			enabled[i] = !m->features[i].default_off;
			nr += enabled[i];
		}
		if (unknown)
			*unknown = 0;
		return nr;
	}
	while (rest.s) {
		const char *comma = memchr(rest.s, ',', rest.n);
		struct slice e = {rest.s, comma ? (size_t)(comma - rest.s) : rest.n};
		int idx;

		if (comma) {
			rest.n -= comma + 1 - rest.s;
			rest.s = comma + 1;
		} else {
			rest.s = NULL;
		}
		e = trim(e);
		if (e.n == 0)
			continue; /* "a,,b", a trailing comma */
		idx = select_entry(m, e);
		if (idx < 0) {
			bad++;
			continue;
		}
		if (!enabled[idx])
			nr++;
		enabled[idx] = true;
	}
	if (unknown)
		*unknown = bad;
	return nr;
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

int probemap__format_template(const struct probemap *m, const struct probemap_feature *f, char *buf,
			      size_t size)
{
	struct outbuf o = {buf, size, 0};
	bool quote_char = false, hash = false, edge_space = false, quoted;
	unsigned int i, j;
	char num[16];

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
			snprintf(num, sizeof(num), "%u", part->arg);
			puts_(&o, part->type == PROBEMAP_PART_STR ? "{str:" : "{int:");
			puts_(&o, num);
			put(&o, '}');
			break;
		case PROBEMAP_PART_GLOBAL:
			puts_(&o, "{global:");
			puts_(&o, part->sym);
			put(&o, '}');
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
