// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target of the probe-map parser (make fuzz-probemap,
 * analysis/probemap/). Map files are read by root (fsp-bpf --map FILE), so
 * every input must either parse into a map that keeps the format's rules or
 * be rejected with one line "fuzz.map:LINE: ..." naming a line of the input.
 *
 * An input is a map text, optionally followed by a NUL and a --feature list.
 * The whole input (NUL included) is parsed once; the part before the NUL
 * again, and when it parses:
 *   - every field keeps the rules of docs/probe-maps.md (names, numbers,
 *     parts, {outer:F}, antimarks, match instance);
 *   - the map written back as text (every directive, templates through
 *     probemap__format_template) parses to the same map;
 *   - probemap__select with the list enables what it counts, and without a
 *     list every feature that is not "default off".
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "probemap.h"

#define PATH "fuzz.map"

static void fail(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz_probemap: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
	abort();
}

/* The message keeps the map's bytes as they are; what reaches a terminal is
 * its escaped form (escape.h, as log.c prints it), which must hold no control
 * character: a hostile map cannot drive the terminal of root's shell. */
static void check_printed(const char *err)
{
	size_t n = escape__str(NULL, 0, err);
	char *out = malloc(n + 1);

	if (!out)
		abort();
	escape__str(out, n + 1, err);
	for (const char *c = out; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			fail("control character in the printed message", out);
	free(out);
}

/* A rejected input: -EINVAL, no map, one line "fuzz.map:LINE: msg" with
 * LINE a line of the input. */
static void check_error(int ret, const struct probemap *m, const char *err, const uint8_t *data,
			size_t size)
{
	unsigned long line, lines = 1;
	char *end;

	if (ret != -EINVAL && ret != -ENOMEM)
		fail("unexpected return value", err);
	if (m)
		fail("a map returned with an error", err);
	if (strncmp(err, PATH ":", strlen(PATH ":")))
		fail("message without the file name", err);
	line = strtoul(err + strlen(PATH ":"), &end, 10);
	if (ret == -EINVAL && (end == err + strlen(PATH ":") || strncmp(end, ": ", 2)))
		fail("message without a line number", err);
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	if (ret == -EINVAL && (line < 1 || line > lines))
		fail("message names a line the input does not have", err);
	check_printed(err);
}

static bool valid_name(const char *s, bool feature)
{
	size_t n = strlen(s);

	if (!n || n >= PROBEMAP_NAME_LEN)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')
			continue;
		if (feature ? c == '-' : (c >= 'A' && c <= 'Z'))
			continue;
		return false;
	}
	return true;
}

static void check_parts(const struct probemap_feature *f)
{
	if (f->nr_parts > PROBEMAP_MAX_PARTS)
		fail("too many parts", f->name);
	for (unsigned int i = 0; i < f->nr_parts; i++) {
		const struct probemap_part *p = &f->parts[i];

		switch (p->type) {
		case PROBEMAP_PART_LIT:
			if (!p->len || p->len > PROBEMAP_LIT_LEN || strlen(p->lit) != p->len)
				fail("bad literal part", f->name);
			break;
		case PROBEMAP_PART_STR:
		case PROBEMAP_PART_INT:
			if (p->arg > PROBEMAP_MAX_ARG)
				fail("argument number out of range", f->name);
			break;
		case PROBEMAP_PART_GLOBAL:
			if (!valid_name(p->sym, false))
				fail("bad global symbol", f->name);
			break;
		default:
			fail("unknown part type", f->name);
		}
	}
}

static void check_feature(const struct probemap *m, size_t i)
{
	const struct probemap_feature *f = &m->features[i];

	if (!valid_name(f->name, true) || !valid_name(f->enter, false) ||
	    (f->point ? f->leave[0] != '\0' : !valid_name(f->leave, false)))
		fail("invalid feature or probe name", f->name);
	if (!strcmp(f->enter, f->leave))
		fail("enter and leave at the same probe", f->name);
	for (size_t j = 0; j < i; j++)
		if (!strcmp(m->features[j].name, f->name))
			fail("duplicate feature", f->name);
	if (f->kind != PROBEMAP_MARK && f->kind != PROBEMAP_ANTIMARK)
		fail("bad kind", f->name);
	if (f->payload_arg < -1 || f->payload_arg > PROBEMAP_MAX_ARG)
		fail("bad payload argument", f->name);
	if (f->outer >= 0) {
		if ((size_t)f->outer >= m->nr_features || (size_t)f->outer == i)
			fail("bad outer feature", f->name);
		if (m->features[f->outer].kind != PROBEMAP_MARK)
			fail("outer feature is an antimark", f->name);
		if (f->nr_parts)
			fail("{outer:F} mixed with parts", f->name);
	}
	check_parts(f);
	if (f->match_instance && (!f->nr_parts || f->outer >= 0))
		fail("match instance without a template", f->name);
	if (f->kind == PROBEMAP_ANTIMARK &&
	    (f->nr_parts || f->outer >= 0 || f->payload_arg >= 0 || f->match_instance))
		fail("antimark with an instance, payload or match", f->name);
}

/* MAP-NAME = [A-Za-z0-9_-]+ (docs/probe-maps.md). */
static bool valid_map_name(const char *s)
{
	size_t n = strlen(s);

	if (!n || n >= PROBEMAP_NAME_LEN)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!valid_name((char[]){s[i], '\0'}, false) && s[i] != '-')
			return false;
	return true;
}

static void check_map(const struct probemap *m)
{
	if (!valid_map_name(m->name) ||
	    ((m->provider[0] || m->nr_features) && !valid_name(m->provider, false)))
		fail("invalid map or provider name", m->name);
	if (strlen(m->description) >= PROBEMAP_DESC_LEN || strchr(m->description, '#') ||
	    strchr(m->description, '\n'))
		fail("bad description", m->description);
	if (!(m->nr_features + m->nr_functions) ||
	    m->nr_features + m->nr_functions > PROBEMAP_MAX_FEATURES)
		fail("bad number of features", m->name);
	if (!m->path || strcmp(m->path, PATH))
		fail("path not kept", m->path);
	for (size_t i = 0; i < m->nr_features; i++)
		check_feature(m, i);
}

/* The map as text: every directive it holds. Caller frees. */
static char *write_map(const struct probemap *m, size_t *len)
{
	char *buf = NULL, tmpl[1024];
	FILE *out = open_memstream(&buf, len);

	if (!out)
		abort();
	fprintf(out, "map %s\nprovider %s\n", m->name, m->provider);
	if (m->description[0])
		fprintf(out, "description %s\n", m->description);
	for (size_t i = 0; i < m->nr_features; i++) {
		const struct probemap_feature *f = &m->features[i];

		if (f->point)
			fprintf(out, "feature %s\n\tevent %s\n", f->name, f->enter);
		else
			fprintf(out, "feature %s\n\tenter %s\n\tleave %s\n", f->name, f->enter,
				f->leave);
		if (f->nr_parts || f->outer >= 0) {
			int n = probemap__format_template(m, f, tmpl, sizeof(tmpl));

			if (n < 0 || (size_t)n >= sizeof(tmpl) || strlen(tmpl) != (size_t)n)
				fail("a parsed template cannot be written back", f->name);
			fprintf(out, "\tinstance %s\n", tmpl);
		}
		if (f->kind == PROBEMAP_ANTIMARK)
			fputs("\tkind antimark\n", out);
		if (f->payload_arg >= 0)
			fprintf(out, "\tpayload %d\n", f->payload_arg);
		if (f->match_instance)
			fputs("\tmatch instance\n", out);
		if (f->default_off)
			fputs("\tdefault off\n", out);
		if (f->frame_caller)
			fputs("\tframe caller\n", out);
		if (f->label_sample)
			fputs("\tlabel sample\n", out);
		if (f->unframed)
			fputs("\tframe none\n", out);
	}
	if (fclose(out))
		abort();
	return buf;
}

static bool same_feature(const struct probemap_feature *a, const struct probemap_feature *b)
{
	if (strcmp(a->name, b->name) || strcmp(a->enter, b->enter) || strcmp(a->leave, b->leave) ||
	    a->kind != b->kind || a->payload_arg != b->payload_arg || a->outer != b->outer ||
	    a->nr_parts != b->nr_parts || a->match_instance != b->match_instance ||
	    a->default_off != b->default_off || a->frame_caller != b->frame_caller ||
	    a->label_sample != b->label_sample || a->point != b->point ||
	    a->unframed != b->unframed)
		return false;
	for (unsigned int i = 0; i < a->nr_parts; i++) {
		const struct probemap_part *x = &a->parts[i], *y = &b->parts[i];

		if (x->type != y->type || x->arg != y->arg || x->len != y->len ||
		    strcmp(x->lit, y->lit) || strcmp(x->sym, y->sym))
			return false;
	}
	return true;
}

/* Does write_map express the whole map? It writes one provider and the
 * directives of features of probes; "when", "charge", probes of a second
 * provider and function features are checked by the parser's unit tests
 * (tests/unit/test_probemap*.c, test_funcfeat.c), not written back here. */
static bool writable(const struct probemap *m)
{
	if (m->nr_providers > 1 || m->nr_functions)
		return false;
	for (size_t i = 0; i < m->nr_features; i++)
		if (m->features[i].nr_when || m->features[i].charge[0])
			return false;
	return true;
}

/* Written back and parsed again, the map is the same. */
static void check_round_trip(const struct probemap *m)
{
	struct probemap *m2 = NULL;
	char err[512] = "";
	size_t len;
	char *text = write_map(m, &len);

	if (probemap__parse(text, len, PATH, &m2, err, sizeof(err))) {
		fprintf(stderr, "--- written:\n%s---\n", text);
		fail("the map written back does not parse", err);
	}
	if (strcmp(m->name, m2->name) || strcmp(m->provider, m2->provider) ||
	    strcmp(m->description, m2->description) || m->nr_features != m2->nr_features)
		fail("the map written back differs (header)", m->name);
	for (size_t i = 0; i < m->nr_features; i++)
		if (!same_feature(&m->features[i], &m2->features[i])) {
			fprintf(stderr, "--- written:\n%s---\n", text);
			fail("the map written back differs", m->features[i].name);
		}
	probemap__free(m2);
	free(text);
}

static void check_select(const struct probemap *m, const char *list)
{
	bool enabled[PROBEMAP_MAX_FEATURES];
	int n, unknown = -1, count = 0;
	char full[2 * PROBEMAP_NAME_LEN + 2];

	n = probemap__select(m, list, enabled, &unknown);
	for (size_t i = 0; i < m->nr_features; i++)
		count += enabled[i];
	if (n != count || unknown < 0)
		fail("select counts differ from what it enabled", list);
	if (!list || !list[strspn(list, " \t\r\v\f")])
		for (size_t i = 0; i < m->nr_features; i++)
			if (enabled[i] == m->features[i].default_off)
				fail("default selection wrong", m->features[i].name);
	for (size_t i = 0; i < m->nr_features; i++) {
		int len = probemap__full_name(m, &m->features[i], full, sizeof(full));

		if (len != (int)(strlen(m->name) + 1 + strlen(m->features[i].name)))
			fail("full name length", full);
		/* Each feature selects itself, by name and by full name. */
		if (probemap__select(m, full, enabled, NULL) != 1 || !enabled[i] ||
		    probemap__select(m, m->features[i].name, enabled, NULL) != 1 || !enabled[i])
			fail("a feature does not select itself", full);
		if (probemap__feature(m, m->features[i].name) != &m->features[i])
			fail("lookup by name", full);
	}
}

static void parse_one(const uint8_t *data, size_t size, const char *list)
{
	struct probemap *m = (struct probemap *)1;
	char err[512] = "";
	int ret = probemap__parse((const char *)data, size, PATH, &m, err, sizeof(err));

	if (ret) {
		check_error(ret, m, err, data, size);
		return;
	}
	if (!m || err[0])
		fail("success without a map, or with a message", err);
	check_map(m);
	if (writable(m))
		check_round_trip(m);
	check_select(m, NULL);
	if (list)
		check_select(m, list);
	probemap__free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	char *list = NULL;

	parse_one(data, size, NULL);
	if (!nul)
		return 0;
	list = strndup((const char *)nul + 1, size - (nul + 1 - data));
	if (!list)
		abort();
	parse_one(data, nul - data, list);
	free(list);
	return 0;
}
