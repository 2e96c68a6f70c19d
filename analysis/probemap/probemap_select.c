// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The features of a parsed probe map by name, and the selection of --feature. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "funcfeat.h"
#include "probemap_parse.h"
#include "util.h"

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

/* The rule of function feature f of m into ff. */
static int function_rule(const struct probemap *m, const struct probemap_feature *f,
			 struct funcfeat *ff, char *err, size_t err_size)
{
	enum funcfeat_instance inst =
		f->instance_none ? FUNCFEAT_INSTANCE_NONE : FUNCFEAT_INSTANCE_CALLER;
	char name[2 * PROBEMAP_NAME_LEN], msg[256];
	int ret;

	probemap__full_name(m, f, name, sizeof(name));
	for (unsigned int i = 0; i < f->nr_functions; i++) {
		ret = funcfeat__add(ff, name, f->function_antimark[i], f->functions[i], inst, msg,
				    sizeof(msg));
		if (ret) {
			fsp_set_err(err, err_size, "%s:%u: %s", m->path ? m->path : m->name,
				    f->line, msg);
			return ret;
		}
	}
	/* "instance {global:SYMBOL}": read at each sample */
	ret = f->nr_parts ? funcfeat__set_global(ff, name, f->parts[0].sym, msg, sizeof(msg)) : 0;
	if (ret)
		fsp_set_err(err, err_size, "%s:%u: %s", m->path ? m->path : m->name, f->line, msg);
	return ret;
}

int probemap__function_rules(const struct probemap *m, const char *list, struct funcfeat *ff,
			     char *err, size_t err_size)
{
	struct probemap view = *m;
	bool enabled[PROBEMAP_MAX_FEATURES];
	int nr = 0, ret;

	view.features = m->functions;
	view.nr_features = m->nr_functions;
	if (probemap__select(&view, list, enabled, NULL) <= 0)
		return 0;
	for (size_t i = 0; i < m->nr_functions; i++) {
		if (!enabled[i])
			continue;
		ret = function_rule(m, &m->functions[i], ff, err, err_size);
		if (ret)
			return ret;
		nr++;
	}
	return nr;
}
