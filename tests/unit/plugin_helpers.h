/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What the plug-in tests (test_plugins.c, test_charges.c) share: a run of a
 * --plugin list over a profile, its JSON result, and lookups in it. */
#ifndef FSP_PLUGIN_HELPERS_H
#define FSP_PLUGIN_HELPERS_H

#include <json-c/json.h>
#include <stdio.h>

#include "json_out.h"
#include "plugin.h"
#include "unit_helpers.h"

/* The plug-ins' run of list over p with --min-pct 0, and in *set the
 * plug-ins, to free after the run (a shared object stays loaded while the
 * set lives). */
static __attribute__((unused)) struct plugin_run *run_set(const struct profile *p, const char *list,
							  struct plugin_set **set, int *err,
							  char *msg, size_t size)
{
	struct report_opts o = {.min_pct = 0};

	*set = NULL;
	assert_int_equal(plugin_set__new(list, set, msg, size), 0);
	assert_non_null(*set);
	return plugin_run__new(*set, p, &o, err, msg, size);
}

/* The plug-ins' run of list over p with --min-pct 0 (built-in plug-ins:
 * the run keeps no reference to the set's descriptors' objects beyond it,
 * built-in ones live forever). */
static __attribute__((unused)) struct plugin_run *run(const struct profile *p, const char *list,
						      int *err, char *msg, size_t size)
{
	struct plugin_set *s;
	struct plugin_run *r = run_set(p, list, &s, err, msg, size);

	plugin_set__free(s);
	return r;
}

/* The "result" of the first plug-in of list over p (json_object_put the
 * returned root). */
static __attribute__((unused)) json_object *result_of(const struct profile *p, const char *list,
						      json_object **root)
{
	char msg[512] = "", *buf = NULL;
	size_t len = 0;
	struct json_out w;
	json_object *plugins, *rec, *res;
	int err = 0;
	struct plugin_set *s;
	struct plugin_run *r = run_set(p, list, &s, &err, msg, sizeof(msg));
	FILE *f;

	if (!r)
		fail_msg("plug-in run failed: %d %s", err, msg);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(json_out__begin(&w, f), 0);
	json_out__puts(&w, "{");
	assert_int_equal(plugin_run__json(r, &w, msg, sizeof(msg)), 0);
	json_out__puts(&w, "}");
	assert_int_equal(json_out__end(&w), 0);
	fclose(f);
	plugin_run__free(r);
	plugin_set__free(s);
	*root = json_tokener_parse(buf);
	if (!*root)
		fail_msg("invalid JSON: %s", buf);
	free(buf);
	assert_true(json_object_object_get_ex(*root, "plugins", &plugins));
	rec = json_object_array_get_idx(plugins, 0);
	assert_non_null(rec);
	assert_true(json_object_object_get_ex(rec, "result", &res));
	return res;
}

static __attribute__((unused)) uint64_t u64_of(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("no member %s in %s", key, json_object_to_json_string(o));
	return json_object_get_uint64(v);
}

static __attribute__((unused)) const char *str_of(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("no member %s", key);
	return json_object_get_string(v);
}

static __attribute__((unused)) json_object *arr_of(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_array))
		fail_msg("no array %s", key);
	return v;
}

/* The element of array a whose members k1 (and k2 when not NULL) are the
 * strings v1 (v2); v NULL matches null. NULL if none. */
static __attribute__((unused)) json_object *find2(json_object *a, const char *k1, const char *v1,
						  const char *k2, const char *v2)
{
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *e = json_object_array_get_idx(a, i), *x;
		const char *s1, *s2;

		json_object_object_get_ex(e, k1, &x);
		s1 = json_object_get_string(x);
		if (!((!v1 && !s1) || (v1 && s1 && !strcmp(s1, v1))))
			continue;
		if (!k2)
			return e;
		json_object_object_get_ex(e, k2, &x);
		s2 = json_object_get_string(x);
		if ((!v2 && !s2) || (v2 && s2 && !strcmp(s2, v2)))
			return e;
	}
	return NULL;
}

#endif /* FSP_PLUGIN_HELPERS_H */
