// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Probe maps (probemap.h, docs/probe-maps.md): the parser of map files, its
 * checks of the whole text, the directives, the file. Words, names and
 * messages are in probemap_lex.c, instance templates in probemap_template.c,
 * lookups and the selection of --feature in probemap_select.c.
 *
 * The parser reads line by line. Each line is a directive word and its
 * argument; "#" starts a comment (except inside the quotes of a quoted
 * instance template). Feature blocks are checked when they end, {outer:F}
 * references when the file ends (F may be defined later). Every error is one
 * line "PATH:LINE: what is wrong (what to do)" and -EINVAL.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probemap.h"
#include "utf8.h"
#include "util.h"
#include "probemap_parse.h"

/* ---- checks of the whole text ------------------------------------------------------------- */

static int check_text(struct parser *p, const char *text, size_t len)
{
	const unsigned char *s = (const unsigned char *)text;
	unsigned int line = 1;
	size_t i = 0, n;

	if (len > PROBEMAP_MAX_FILE)
		return probemap_fail(
			p, 1, "file too large: %zu bytes (a map file is at most 1 MiB)", len);
	while (i < len && (is_space(text[i]) || text[i] == '\n'))
		i++;
	if (i == len)
		return probemap_fail(p, 1, "empty file (a map file starts with \"map NAME\")");
	i = 0;
	while (i < len) {
		if (s[i] == 0)
			return probemap_fail(p, line, "NUL byte (a map file is UTF-8 text)");
		if (s[i] == '\n')
			line++;
		n = utf8__seq(s + i, len - i);
		if (!n)
			return probemap_fail(p, line, "invalid UTF-8 (a map file is UTF-8 text)");
		i += n;
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
		return probemap_fail(p, p->line, "'%s' needs an argument (%s)",
				     probemap_directive_names[d],
				     d == D_KIND    ? "kind mark or kind antimark"
				     : d == D_MATCH ? "match instance"
						    : "default off");
	if (arg.n)
		return probemap_fail(p, p->line,
				     "unexpected text '%s' after '%s %s' (one per line)",
				     probemap_show(q, sizeof(q), arg), probemap_directive_names[d],
				     probemap_show(q2, sizeof(q2), *word));
	return 0;
}

/* A directive whose argument is one name. */
static int name_arg(struct parser *p, enum directive d, struct slice arg, enum name_kind kind,
		    char *out)
{
	struct slice w = first_word(&arg);
	char q[64];

	if (w.n == 0)
		return probemap_fail(p, p->line, "'%s' needs a name (%s NAME)",
				     probemap_directive_names[d], probemap_directive_names[d]);
	if (arg.n)
		return probemap_fail(p, p->line,
				     "unexpected text '%s' after the %s name (one name per line)",
				     probemap_show(q, sizeof(q), arg), probemap_directive_names[d]);
	return probemap_take_name(
		p, w, kind, d == D_ENTER || d == D_LEAVE ? "probe" : probemap_directive_names[d],
		out);
}

/* "enter/leave/event [PROVIDER:]PROBE": the probe and its provider's index. */
static int probe_arg(struct parser *p, enum directive d, struct slice arg, char *out,
		     unsigned int *provider)
{
	struct slice all = arg, w = first_word(&arg), prov;
	char name[PROBEMAP_NAME_LEN], q[64];
	const char *colon;
	int err;

	*provider = 0;
	colon = w.n ? memchr(w.s, ':', w.n) : NULL;
	if (!colon)
		return name_arg(p, d, all, NAME_IDENT, out);
	if (arg.n)
		return probemap_fail(p, p->line,
				     "unexpected text '%s' after the %s name (one name per line)",
				     probemap_show(q, sizeof(q), arg), probemap_directive_names[d]);
	prov.s = w.s;
	prov.n = colon - w.s;
	err = probemap_take_name(p, prov, NAME_IDENT, "provider", name);
	if (err)
		return err;
	if (!probemap__has_provider(p->m, name))
		return probemap_fail(p, p->line,
				     "provider '%s' of probe '%s' is not the map's (add it to the "
				     "\"provider\" line)",
				     name, probemap_show(q, sizeof(q), w));
	for (unsigned int i = 0; i < p->m->nr_providers; i++)
		if (!strcmp(p->m->providers[i], name))
			*provider = i;
	w.n -= prov.n + 1;
	w.s = colon + 1;
	return name_arg(p, d, w, NAME_IDENT, out);
}

/* The checks of a point event ("event PROBE") once its block is complete. */
static int end_event_block(struct parser *p, struct probemap_feature *f, struct block *b)
{
	static const enum directive not_for_events[] = {D_ENTER, D_LEAVE, D_KIND,   D_PAYLOAD,
							D_MATCH, D_FRAME, D_CHARGE, D_LABEL};

	for (size_t i = 0; i < sizeof(not_for_events) / sizeof(not_for_events[0]); i++) {
		enum directive d = not_for_events[i];

		if (b->lines[d])
			return probemap_fail(p, b->lines[d],
					     "point event '%s' cannot have '%s' (an event counts "
					     "each hit of its probe: it has no extent)",
					     f->name, probemap_directive_names[d]);
	}
	return 0;
}

/* "label sample": its template is one {global:S} part, read by the sampler;
 * a leave cannot match it (the frame's instance is not the probe's). */
static int check_label_sample(struct parser *p, struct probemap_feature *f, struct block *b)
{
	if (f->kind == PROBEMAP_ANTIMARK)
		return probemap_fail(p, b->lines[D_LABEL],
				     "antimark feature '%s' has no instance to read at sample time "
				     "(remove \"label sample\", or use \"kind mark\")",
				     f->name);
	if (f->nr_parts != 1 || f->parts[0].type != PROBEMAP_PART_GLOBAL)
		return probemap_fail(p, b->lines[D_LABEL],
				     "'label sample' in feature '%s' needs an instance template of "
				     "one {global:SYMBOL} part (the variable the sampler reads; "
				     "\"instance {global:SYMBOL}\")",
				     f->name);
	if (b->lines[D_MATCH])
		return probemap_fail(p, b->lines[D_MATCH],
				     "'match instance' in feature '%s' cannot match an instance "
				     "read at sample time (remove it, or \"label sample\")",
				     f->name);
	return 0;
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
	if (b->lines[D_FUNCTION] || b->lines[D_ANTIMARK])
		return probemap_end_function_block(p, f, b);
	if (!p->header_lines[D_PROVIDER])
		return probemap_fail(
			p, f->line,
			"feature '%s' needs a 'provider' for its probes (add \"provider NAME\" "
			"after \"map\", or make it a function feature with \"function "
			"FILE:PATTERN\")",
			f->name);
	if (f->point)
		return end_event_block(p, f, b);
	if (!b->lines[D_ENTER])
		return probemap_fail(p, f->line,
				     "feature '%s' has no enter probe (add \"enter PROBE\")",
				     f->name);
	if (!b->lines[D_LEAVE])
		return probemap_fail(p, f->line,
				     "feature '%s' has no leave probe (add \"leave PROBE\")",
				     f->name);
	if (!strcmp(f->enter, f->leave))
		return probemap_fail(
			p, b->lines[D_LEAVE],
			"feature '%s' enters and leaves at the same probe '%s' (a probe "
			"cannot both enter and leave)",
			f->name, f->leave);
	if (f->kind == PROBEMAP_ANTIMARK) {
		if (b->lines[D_INSTANCE])
			return probemap_fail(
				p, b->lines[D_INSTANCE],
				"antimark feature '%s' cannot have an instance (remove it, or "
				"use \"kind mark\")",
				f->name);
		if (b->lines[D_PAYLOAD])
			return probemap_fail(
				p, b->lines[D_PAYLOAD],
				"antimark feature '%s' cannot have a payload (remove it, or "
				"use \"kind mark\")",
				f->name);
		if (b->lines[D_MATCH])
			return probemap_fail(
				p, b->lines[D_MATCH],
				"antimark feature '%s' has no instance to match (remove \"match "
				"instance\", or use \"kind mark\")",
				f->name);
		if (b->lines[D_WHEN] || b->lines[D_CHARGE])
			return probemap_fail(
				p, b->lines[D_WHEN] ? b->lines[D_WHEN] : b->lines[D_CHARGE],
				"antimark feature '%s' cannot have '%s' (remove it, or use "
				"\"kind mark\")",
				f->name, b->lines[D_WHEN] ? "when" : "charge");
	}
	if (b->lines[D_LABEL])
		return check_label_sample(p, f, b);
	if (b->lines[D_MATCH] && !f->nr_parts)
		return probemap_fail(
			p, b->lines[D_MATCH],
			"'match instance' in feature '%s' needs an instance template with "
			"{str:N}, {int:N} or {global:SYMBOL} parts (not {outer:F}; add \"instance "
			"TEMPLATE\")",
			f->name);
	return 0;
}

/* "payload N". */
static int payload_directive(struct parser *p, struct probemap_feature *f, struct slice arg)
{
	struct slice w = first_word(&arg);
	char q[64];
	int n;

	if (w.n == 0)
		return probemap_fail(p, p->line, "'payload' needs an argument number (payload N)");
	if (arg.n)
		return probemap_fail(
			p, p->line,
			"unexpected text '%s' after the payload argument (one per line)",
			probemap_show(q, sizeof(q), arg));
	n = probemap_arg_number(w);
	if (n < 0)
		return probemap_bad_arg(p, w);
	f->payload_arg = n;
	return 0;
}

/* The directives of one keyword: kind, match, default, frame, label. */
static int keyword_directive(struct parser *p, struct probemap_feature *f, enum directive d,
			     struct slice arg)
{
	struct slice w;
	char q[64];
	int err;

	err = keyword_arg(p, d, arg, &w);
	if (err)
		return err;
	switch (d) {
	case D_KIND:
		if (slice_is(w, "mark"))
			f->kind = PROBEMAP_MARK;
		else if (slice_is(w, "antimark"))
			f->kind = PROBEMAP_ANTIMARK;
		else
			return probemap_fail(p, p->line,
					     "unknown kind '%s' (kind mark or kind antimark)",
					     probemap_show(q, sizeof(q), w));
		return 0;
	case D_MATCH:
		if (!slice_is(w, "instance"))
			return probemap_fail(
				p, p->line,
				"unknown match '%s' (the only form is \"match instance\")",
				probemap_show(q, sizeof(q), w));
		f->match_instance = true;
		return 0;
	case D_DEFAULT:
		if (!slice_is(w, "off"))
			return probemap_fail(
				p, p->line,
				"unknown default '%s' (the only form is \"default off\")",
				probemap_show(q, sizeof(q), w));
		f->default_off = true;
		return 0;
	case D_LABEL:
		if (!slice_is(w, "sample"))
			return probemap_fail(
				p, p->line,
				"unknown label '%s' (the only form is \"label sample\": the "
				"instance is read when each sample is taken)",
				probemap_show(q, sizeof(q), w));
		f->label_sample = true;
		return 0;
	default: /* D_FRAME */
		if (slice_is(w, "caller"))
			f->frame_caller = true;
		else if (slice_is(w, "none"))
			f->unframed = true;
		else if (!slice_is(w, "probe"))
			return probemap_fail(
				p, p->line,
				"unknown frame '%s' (expected \"frame probe\", \"frame "
				"caller\" or \"frame none\")",
				probemap_show(q, sizeof(q), w));
		return 0;
	}
}

/* A directive of the open feature block. */
static int block_directive(struct parser *p, enum directive d, struct slice arg)
{
	struct probemap_feature *f = cur_feature(p);
	struct block *b = &p->blocks[p->cur];

	if (b->lines[d] && d != D_WHEN && d != D_FUNCTION && d != D_ANTIMARK)
		return probemap_fail(p, p->line,
				     "second '%s' in feature '%s' (the first is at line %u)",
				     probemap_directive_names[d], f->name, b->lines[d]);
	if ((d == D_EVENT && (b->lines[D_ENTER] || b->lines[D_LEAVE])) ||
	    ((d == D_ENTER || d == D_LEAVE) && b->lines[D_EVENT]))
		return probemap_fail(p, p->line,
				     "feature '%s' has both 'event' and '%s' (a point event has "
				     "one probe; a feature with an extent has enter and leave)",
				     f->name,
				     d == D_EVENT ? (b->lines[D_ENTER] ? "enter" : "leave")
						  : probemap_directive_names[d]);
	if (!b->lines[d])
		b->lines[d] = p->line;
	switch (d) {
	case D_ENTER:
		return probe_arg(p, d, arg, f->enter, &f->enter_provider);
	case D_LEAVE:
		return probe_arg(p, d, arg, f->leave, &f->leave_provider);
	case D_EVENT:
		f->point = true;
		return probe_arg(p, d, arg, f->enter, &f->enter_provider);
	case D_WHEN:
		return probemap_parse_when(p, f, b, arg);
	case D_CHARGE:
		return probemap_parse_charge(p, f, arg);
	case D_INSTANCE:
		return probemap_parse_template(p, f, b, arg);
	case D_PAYLOAD:
		return payload_directive(p, f, arg);
	case D_FUNCTION:
	case D_ANTIMARK:
		return probemap_function_directive(p, f, d, arg);
	case D_KIND:
	case D_MATCH:
	case D_DEFAULT:
	case D_FRAME:
	case D_LABEL:
		return keyword_directive(p, f, d, arg);
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
	err = name_arg(p, D_FEATURE, arg, NAME_FEATURE, name);
	if (err)
		return err;
	for (i = 0; i < m->nr_features; i++)
		if (!strcmp(m->features[i].name, name))
			return probemap_fail(
				p, p->line,
				"duplicate feature '%s' (the first is at line %u; rename one)",
				name, m->features[i].line);
	if (m->nr_features == PROBEMAP_MAX_FEATURES)
		return probemap_fail(p, p->line,
				     "too many features (at most %d in a map; split the map)",
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

/* "provider NAME [NAME...]": the providers whose probes the map uses. */
static int provider_directive(struct parser *p, struct slice arg)
{
	struct probemap *m = p->m;
	int err;

	if (!arg.n)
		return probemap_fail(p, p->line, "'provider' needs a name (provider NAME)");
	while (arg.n) {
		struct slice w = first_word(&arg);
		char *out;

		if (m->nr_providers == PROBEMAP_MAX_PROVIDERS)
			return probemap_fail(p, p->line, "more than %d providers (split the map)",
					     PROBEMAP_MAX_PROVIDERS);
		out = m->providers[m->nr_providers];
		err = probemap_take_name(p, w, NAME_IDENT, "provider", out);
		if (err)
			return err;
		for (unsigned int i = 0; i < m->nr_providers; i++)
			if (!strcmp(m->providers[i], out))
				return probemap_fail(p, p->line,
						     "provider '%s' named twice (name it once)",
						     out);
		m->nr_providers++;
	}
	memcpy(m->provider, m->providers[0], sizeof(m->provider));
	return 0;
}

static int header_directive(struct parser *p, enum directive d, struct slice arg)
{
	struct probemap *m = p->m;
	char q[64];

	if (p->header_lines[d])
		return probemap_fail(p, p->line, "second '%s' (the first is at line %u)",
				     probemap_directive_names[d], p->header_lines[d]);
	if (p->cur >= 0)
		return probemap_fail(p, p->line,
				     "'%s' after a feature (put it before the first feature)",
				     probemap_directive_names[d]);
	p->header_lines[d] = p->line;
	switch (d) {
	case D_MAP:
		return name_arg(p, d, arg, NAME_MAP, m->name);
	case D_PROVIDER:
		return provider_directive(p, arg);
	default:
		arg = trim(arg);
		if (arg.n == 0)
			return probemap_fail(p, p->line,
					     "'description' needs text (description TEXT)");
		if (arg.n >= PROBEMAP_DESC_LEN)
			return probemap_fail(
				p, p->line, "description '%s' too long (at most %d bytes)",
				probemap_show(q, sizeof(q), arg), PROBEMAP_DESC_LEN - 1);
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
		if (slice_is(word, probemap_directive_names[d]))
			break;
	if (d == D__COUNT)
		return probemap_fail(
			p, p->line,
			"unknown directive '%s' (map, provider, description, feature, enter, "
			"leave, event, instance, kind, payload, match, default, frame, when, "
			"charge, function, antimark or label)",
			probemap_show(q, sizeof(q), word));
	if (d != D_MAP && !p->header_lines[D_MAP])
		return probemap_fail(p, p->line,
				     "'%s' before 'map' (a map file starts with \"map NAME\")",
				     probemap_directive_names[d]);
	if (d != D_INSTANCE && d != D_WHEN && d != D_CHARGE)
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
			return probemap_fail(
				p, p->line,
				"'%s' outside a feature (start a block with \"feature NAME\")",
				probemap_directive_names[d]);
		return block_directive(p, d, arg);
	}
}

/* {outer:NAME} of feature i, written at line: the feature it names. */
static int resolve_outer(struct parser *p, size_t i, const char *name, unsigned int line, int *out)
{
	struct probemap *m = p->m;
	const char *fname = m->features[i].name;
	int o = probemap__feature_index(m, name);

	if ((size_t)o == i)
		return probemap_fail(
			p, line, "feature '%s' is its own {outer:%s} (name an enclosing feature)",
			fname, name);
	if (o < 0)
		return probemap_fail(
			p, line,
			"{outer:%s} of feature '%s' names no feature of map '%s' (define "
			"feature '%s' or fix the name)",
			name, fname, m->name, name);
	if (m->features[o].kind != PROBEMAP_MARK)
		return probemap_fail(p, line,
				     "{outer:%s} of feature '%s' names an antimark (an outer "
				     "feature must be a mark, which has instances)",
				     name, fname);
	if (m->features[o].function)
		return probemap_fail(p, line,
				     "{outer:%s} of feature '%s' names a function feature (an "
				     "outer feature must be a mark of probes)",
				     name, fname);
	if (m->features[o].point)
		return probemap_fail(p, line,
				     "{outer:%s} of feature '%s' names a point event (an outer "
				     "feature must be a mark, which has an extent)",
				     name, fname);
	*out = o;
	return 0;
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
		return probemap_fail(p, p->line,
				     "no 'map' directive (a map file starts with \"map NAME\")");
	if (!p->header_lines[D_PROVIDER] && !m->nr_features)
		return probemap_fail(
			p, p->line,
			"no 'provider' directive (add \"provider NAME\" after \"map\")");
	if (!m->nr_features)
		return probemap_fail(p, p->line,
				     "map '%s' has no feature (add \"feature NAME\" blocks)",
				     m->name);
	for (i = 0; i < m->nr_features; i++) {
		struct probemap_feature *f = &m->features[i];
		const struct block *b = &p->blocks[i];

		if (b->outer[0]) {
			err = resolve_outer(p, i, b->outer, b->lines[D_INSTANCE], &f->outer);
			if (err)
				return err;
		}
		for (unsigned int k = 0; k < f->nr_when; k++) {
			if (!b->when_outer[k][0])
				continue;
			err = resolve_outer(p, i, b->when_outer[k], b->when_lines[k],
					    &f->when[k].outer);
			if (err)
				return err;
		}
	}
	return probemap_split_functions(m);
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
		return probemap_fail(&p, 1, "no text");
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
	free(m->functions);
	free(m->path);
	free(m);
}
