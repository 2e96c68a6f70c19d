// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Function features: the rules, their text forms (funcfeat.h). */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "funcfeat.h"
#include "util.h"

struct funcfeat {
	struct funcfeat_rule *rules;
	size_t nr, cap;
};

struct funcfeat *funcfeat__new(void)
{
	return calloc(1, sizeof(struct funcfeat));
}

static void rule_fini(struct funcfeat_rule *r)
{
	for (size_t i = 0; i < r->nr_patterns; i++) {
		free(r->patterns[i].file);
		free(r->patterns[i].function);
	}
	free(r->patterns);
	free(r->feature);
	free(r->global);
}

void funcfeat__free(struct funcfeat *ff)
{
	if (!ff)
		return;
	for (size_t i = 0; i < ff->nr; i++)
		rule_fini(&ff->rules[i]);
	free(ff->rules);
	free(ff);
}

size_t funcfeat__nr(const struct funcfeat *ff)
{
	return ff ? ff->nr : 0;
}

const struct funcfeat_rule *funcfeat__rule(const struct funcfeat *ff, size_t i)
{
	return ff && i < ff->nr ? &ff->rules[i] : NULL;
}

static struct funcfeat_rule *find_rule(const struct funcfeat *ff, const char *feature)
{
	for (size_t i = 0; i < ff->nr; i++)
		if (!strcmp(ff->rules[i].feature, feature))
			return &ff->rules[i];
	return NULL;
}

int funcfeat__set_instance(struct funcfeat *ff, const char *feature, enum funcfeat_instance inst)
{
	struct funcfeat_rule *r = find_rule(ff, feature);

	if (!r)
		return -ENOENT;
	r->instance = inst;
	if (inst != FUNCFEAT_INSTANCE_GLOBAL) {
		free(r->global);
		r->global = NULL;
	}
	return 0;
}

/* A C identifier of fewer than FUNCFEAT_SYMBOL_LEN bytes. */
static bool good_symbol(const char *s)
{
	size_t n = strlen(s);

	if (!n || n >= FUNCFEAT_SYMBOL_LEN || (*s >= '0' && *s <= '9'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	return true;
}

int funcfeat__set_global(struct funcfeat *ff, const char *feature, const char *symbol, char *err,
			 size_t errlen)
{
	struct funcfeat_rule *r = find_rule(ff, feature);
	char *copy;

	if (!r)
		return -ENOENT;
	if (!good_symbol(symbol)) {
		fsp_set_err(err, errlen,
			    "'{global:%.60s}': expected the name of a global or thread-local "
			    "`char *` variable (a C identifier)",
			    symbol);
		return -EINVAL;
	}
	copy = strdup(symbol);
	if (!copy) {
		fsp_set_err(err, errlen, "out of memory");
		return -ENOMEM;
	}
	free(r->global);
	r->global = copy;
	r->instance = FUNCFEAT_INSTANCE_GLOBAL;
	return 0;
}

void funcfeat__var_feature(const char *symbol, char *buf, size_t size)
{
	snprintf(buf, size, FUNCFEAT_VAR_PREFIX "%s}", symbol);
}

bool funcfeat__is_var_feature(const char *feature)
{
	return feature && !strncmp(feature, FUNCFEAT_VAR_PREFIX, sizeof(FUNCFEAT_VAR_PREFIX) - 1);
}

static struct funcfeat_rule *get_rule(struct funcfeat *ff, const char *feature,
				      enum funcfeat_instance inst, char *err, size_t errlen)
{
	struct funcfeat_rule *r = find_rule(ff, feature);

	if (r)
		return r;
	if (ff->nr == FUNCFEAT_MAX_RULES) {
		fsp_set_err(err, errlen, "too many function features (at most %d)",
			    FUNCFEAT_MAX_RULES);
		return NULL;
	}
	if (fsp_grow((void **)&ff->rules, &ff->cap, ff->nr + 1, sizeof(*ff->rules)))
		goto nomem;
	r = &ff->rules[ff->nr];
	memset(r, 0, sizeof(*r));
	r->feature = strdup(feature);
	if (!r->feature)
		goto nomem;
	r->instance = inst;
	ff->nr++;
	return r;
nomem:
	fsp_set_err(err, errlen, "out of memory");
	return NULL;
}

/* A file or function pattern: non-empty, printable, no space, ',' or ':'. */
static bool good_word(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] <= ' ' || s[i] == ',' || s[i] == ':' || s[i] == '#' ||
		    s[i] == 0x7f)
			return false;
	return true;
}

static int add_pattern(struct funcfeat_rule *r, const char *file, size_t flen, const char *fn,
		       size_t fnlen, bool antimark, bool outside)
{
	struct funcfeat_pattern *p;

	p = realloc(r->patterns, (r->nr_patterns + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	r->patterns = p;
	p = &r->patterns[r->nr_patterns];
	p->file = strndup(file, flen);
	p->function = strndup(fn, fnlen);
	p->antimark = antimark;
	p->outside = outside;
	if (!p->file || !p->function) {
		free(p->file);
		free(p->function);
		return -ENOMEM;
	}
	r->nr_patterns++;
	return 0;
}

/* "antimark outside": once a rule. */
static int add_outside(struct funcfeat *ff, const char *feature, enum funcfeat_instance inst,
		       char *err, size_t errlen)
{
	struct funcfeat_rule *r = get_rule(ff, feature, inst, err, errlen);

	if (!r)
		return -EINVAL;
	for (size_t i = 0; i < r->nr_patterns; i++)
		if (r->patterns[i].outside)
			return 0;
	if (r->nr_patterns == FUNCFEAT_MAX_PATTERNS) {
		fsp_set_err(err, errlen, "function feature '%s' has more than %d patterns", feature,
			    FUNCFEAT_MAX_PATTERNS);
		return -EINVAL;
	}
	if (add_pattern(r, "", 0, "", 0, true, true)) {
		fsp_set_err(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

int funcfeat__add(struct funcfeat *ff, const char *feature, bool antimark, const char *text,
		  enum funcfeat_instance inst, char *err, size_t errlen)
{
	const char *colon = strchr(text, ':'), *s;
	struct funcfeat_rule *r;
	size_t flen, n;

	if (!*feature) {
		fsp_set_err(err, errlen, "a function feature needs a name");
		return -EINVAL;
	}
	if (antimark && !strcmp(text, "outside"))
		return add_outside(ff, feature, inst, err, errlen);
	if (strlen(text) >= FUNCFEAT_MAX_TEXT) {
		fsp_set_err(err, errlen, "'%.40s...' too long (at most %d bytes; split it)", text,
			    FUNCFEAT_MAX_TEXT - 1);
		return -EINVAL;
	}
	flen = colon ? (size_t)(colon - text) : 0;
	if (!colon || !good_word(text, flen) || !colon[1]) {
		fsp_set_err(err, errlen,
			    "'%s': expected FILE:FUNCTION[,FUNCTION...] (e.g. "
			    "libc.so.6:fputs,fwrite; FILE the base name /proc/PID/maps shows)",
			    text);
		return -EINVAL;
	}
	r = get_rule(ff, feature, inst, err, errlen);
	if (!r)
		return -EINVAL;
	for (s = colon + 1;; s += n + 1) {
		n = strcspn(s, ",");
		if (!good_word(s, n)) {
			fsp_set_err(err, errlen,
				    "'%s': empty or malformed function pattern (names or fnmatch "
				    "globs separated by commas, no spaces)",
				    text);
			return -EINVAL;
		}
		if (r->nr_patterns == FUNCFEAT_MAX_PATTERNS) {
			fsp_set_err(err, errlen,
				    "function feature '%s' has more than %d patterns (use globs)",
				    feature, FUNCFEAT_MAX_PATTERNS);
			return -EINVAL;
		}
		if (add_pattern(r, text, flen, s, n, antimark, false)) {
			fsp_set_err(err, errlen, "out of memory");
			return -ENOMEM;
		}
		if (!s[n])
			return 0;
	}
}

int funcfeat__parse_option(struct funcfeat *ff, const char *arg, char *err, size_t errlen)
{
	const char *eq = strchr(arg, '='), *at = eq ? strstr(eq, "@" FUNCFEAT_VAR_PREFIX) : NULL;
	char name[64], *text, *sym = NULL;
	size_t n = eq ? (size_t)(eq - arg) : 0;
	int ret;

	if (!eq || !n || n + sizeof(FUNCFEAT_CLI_PREFIX) > sizeof(name) ||
	    (at && arg[strlen(arg) - 1] != '}')) {
		fsp_set_err(err, errlen,
			    "invalid --function-feature '%s': expected NAME=FILE:FUNCTION[,...]"
			    "[@{global:SYMBOL}] (e.g. output=libc.so.6:fputs,fwrite)",
			    arg);
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		char c = arg[i];

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) {
			fsp_set_err(err, errlen,
				    "invalid --function-feature name '%.*s': use a-z, 0-9, _ "
				    "and -",
				    (int)n, arg);
			return -EINVAL;
		}
	}
	snprintf(name, sizeof(name), FUNCFEAT_CLI_PREFIX "%.*s", (int)n, arg);
	/* the rule, then its "@{global:SYMBOL}" */
	text = strndup(eq + 1, at ? (size_t)(at - eq - 1) : strlen(eq + 1));
	if (at && text)
		sym = strndup(at + sizeof(FUNCFEAT_VAR_PREFIX),
			      strlen(at + sizeof(FUNCFEAT_VAR_PREFIX)) - 1);
	if (!text || (at && !sym)) {
		free(text);
		fsp_set_err(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ret = funcfeat__add(ff, name, false, text, FUNCFEAT_INSTANCE_CALLER, err, errlen);
	if (!ret && sym)
		ret = funcfeat__set_global(ff, name, sym, err, errlen);
	free(text);
	free(sym);
	return ret;
}

static int copy_rule(struct funcfeat_rule *dst, const struct funcfeat_rule *src)
{
	free(dst->global);
	dst->global = src->global ? strdup(src->global) : NULL;
	if (src->global && !dst->global)
		return -ENOMEM;
	dst->instance = src->instance;
	for (size_t i = 0; i < src->nr_patterns; i++) {
		const struct funcfeat_pattern *p = &src->patterns[i];

		if (add_pattern(dst, p->file, strlen(p->file), p->function, strlen(p->function),
				p->antimark, p->outside))
			return -ENOMEM;
	}
	return 0;
}

int funcfeat__merge(struct funcfeat *dst, const struct funcfeat *src)
{
	for (size_t i = 0; i < funcfeat__nr(src); i++) {
		const struct funcfeat_rule *s = &src->rules[i];
		struct funcfeat_rule *r = find_rule(dst, s->feature);

		if (r) { /* src's rule replaces dst's */
			for (size_t k = 0; k < r->nr_patterns; k++) {
				free(r->patterns[k].file);
				free(r->patterns[k].function);
			}
			r->nr_patterns = 0;
		} else {
			r = get_rule(dst, s->feature, s->instance, NULL, 0);
		}
		if (!r || copy_rule(r, s))
			return -ENOMEM;
	}
	return 0;
}

bool funcfeat__match(const struct funcfeat_pattern *p, const char *path, const char *fn)
{
	const char *base;

	if (!fn || !path || p->outside)
		return false;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	return !fnmatch(p->function, fn, 0) && !fnmatch(p->file, base, 0);
}

bool funcfeat__names_file(const struct funcfeat *ff, const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	for (size_t i = 0; i < funcfeat__nr(ff); i++) {
		const struct funcfeat_rule *r = funcfeat__rule(ff, i);

		for (size_t j = 0; j < r->nr_patterns; j++)
			if (!r->patterns[j].antimark && !fnmatch(r->patterns[j].file, base, 0))
				return true;
	}
	return false;
}

bool funcfeat__outside(const struct funcfeat_rule *r, const char *path)
{
	const char *base = strrchr(path, '/');
	bool outside = false;

	base = base ? base + 1 : path;
	for (size_t i = 0; i < r->nr_patterns; i++) {
		const struct funcfeat_pattern *p = &r->patterns[i];

		if (!p->antimark && !fnmatch(p->file, base, 0))
			return false;
		outside |= p->outside;
	}
	return outside;
}

/* ---- the text form ------------------------------------------------------------------------ */

struct text_buf {
	char *s;
	size_t len, cap;
	int err;
};

static void put(struct text_buf *b, const char *fmt, const char *a, const char *c)
{
	int n = snprintf(NULL, 0, fmt, a, c);

	if (b->err || n < 0 || fsp_grow((void **)&b->s, &b->cap, b->len + n + 1, 1)) {
		b->err = -ENOMEM;
		return;
	}
	snprintf(b->s + b->len, b->cap - b->len, fmt, a, c);
	b->len += n;
}

/* "function FILE:A,B" lines of r's patterns of one kind, one line per file run. */
static void put_patterns(struct text_buf *b, const struct funcfeat_rule *r, bool antimark)
{
	const char *file = NULL;

	for (size_t i = 0; i < r->nr_patterns; i++) {
		const struct funcfeat_pattern *p = &r->patterns[i];

		if (p->antimark != antimark || p->outside)
			continue;
		if (file && !strcmp(file, p->file)) {
			put(b, ",%s%s", p->function, "");
			continue;
		}
		put(b, "%s%s", file ? "\n" : "", antimark ? "antimark " : "function ");
		put(b, "%s:%s", p->file, p->function);
		file = p->file;
	}
	if (file)
		put(b, "\n%s%s", "", "");
}

char *funcfeat__to_text(const struct funcfeat *ff)
{
	struct text_buf b = {0};

	put(&b, "%s%s", "", "");
	for (size_t i = 0; i < funcfeat__nr(ff); i++) {
		const struct funcfeat_rule *r = &ff->rules[i];

		if (r->instance == FUNCFEAT_INSTANCE_GLOBAL)
			put(&b, "feature %s\ninstance " FUNCFEAT_VAR_PREFIX "%s}\n", r->feature,
			    r->global);
		else
			put(&b, "feature %s\ninstance %s\n", r->feature,
			    r->instance == FUNCFEAT_INSTANCE_NONE ? "none" : "caller");
		put_patterns(&b, r, false);
		put_patterns(&b, r, true);
		for (size_t k = 0; k < r->nr_patterns; k++)
			if (r->patterns[k].outside)
				put(&b, "antimark outside\n%s%s", "", "");
	}
	if (b.err) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

/* One line of funcfeat__to_text's form; *cur is the feature of the open block. */
static int parse_text_line(struct funcfeat *ff, char *line, char **cur, char *err, size_t errlen)
{
	char *arg = strchr(line, ' ');

	if (!*line)
		return 0;
	if (!arg) {
		fsp_set_err(err, errlen, "function features: bad line '%.60s'", line);
		return -EINVAL;
	}
	*arg++ = '\0';
	if (!strcmp(line, "feature")) {
		*cur = arg;
		return get_rule(ff, arg, FUNCFEAT_INSTANCE_CALLER, err, errlen) ? 0 : -EINVAL;
	}
	if (!*cur) {
		fsp_set_err(err, errlen, "function features: '%s' before 'feature'", line);
		return -EINVAL;
	}
	if (!strcmp(line, "instance") && (!strcmp(arg, "caller") || !strcmp(arg, "none")))
		return funcfeat__set_instance(ff, *cur,
					      strcmp(arg, "none") ? FUNCFEAT_INSTANCE_CALLER
								  : FUNCFEAT_INSTANCE_NONE);
	if (!strcmp(line, "instance") && funcfeat__is_var_feature(arg) &&
	    arg[strlen(arg) - 1] == '}') {
		arg[strlen(arg) - 1] = '\0';
		return funcfeat__set_global(ff, *cur, arg + sizeof(FUNCFEAT_VAR_PREFIX) - 1, err,
					    errlen);
	}
	if (!strcmp(line, "function") || !strcmp(line, "antimark"))
		return funcfeat__add(ff, *cur, line[0] == 'a', arg, FUNCFEAT_INSTANCE_CALLER, err,
				     errlen);
	fsp_set_err(err, errlen, "function features: unknown line '%.40s %.40s'", line, arg);
	return -EINVAL;
}

int funcfeat__parse(struct funcfeat *ff, const char *text, char *err, size_t errlen)
{
	char *copy = strdup(text), *line, *save = NULL, *cur = NULL;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	for (line = strtok_r(copy, "\n", &save); line && !ret; line = strtok_r(NULL, "\n", &save))
		ret = parse_text_line(ff, line, &cur, err, errlen);
	free(copy);
	return ret;
}
