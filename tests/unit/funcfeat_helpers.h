/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* For the unit tests of function features (test_funcfeat*.c): the charges
 * of a profile by feature and instance name, a profile saved and read back. */
#ifndef FSP_TESTS_FUNCFEAT_HELPERS_H
#define FSP_TESTS_FUNCFEAT_HELPERS_H

#include <stdint.h>
#include <string.h>

#include "attrib.h"
#include "funcfeat_apply.h"
#include "profile_io.h"

/* Feature `name` of a, NULL if absent. */
static inline const struct attrib_feature *feature(const struct attrib *a, const char *name)
{
	for (size_t i = 0; i < attrib__nr_features(a); i++)
		if (!strcmp(attrib__feature(a, i)->name, name))
			return attrib__feature(a, i);
	return NULL;
}

/* Samples of instance `name` of f, UINT64_MAX if absent. */
static inline uint64_t instance(const struct attrib_feature *f, const char *name)
{
	for (size_t i = 0; f && i < f->nr_instances; i++)
		if (!strcmp(f->instances[i].name, name))
			return f->instances[i].samples;
	return UINT64_MAX;
}

/* What record then report do: p saved with ff's rules in its metadata and
 * the samples as they are, read back, and charged by the rules it carries. */
static inline struct profile *saved_and_charged(struct profile *p, const struct funcfeat *ff)
{
	struct funcfeat *saved = funcfeat__new();
	struct profile_meta m = {.target = "t", .frequency_hz = 999};
	char *buf = NULL, err[256], *text = funcfeat__to_text(ff);
	struct profile *back;
	size_t len = 0;
	FILE *f;

	m.function_features = text;
	assert_int_equal(profile__set_meta(p, &m), 0);
	free(text);
	f = open_memstream(&buf, &len);
	assert_int_equal(profile__write_json(f, p), 0);
	fclose(f);
	back = profile__parse_json(buf, len, "mem", err, sizeof(err));
	assert_non_null(back);
	assert_int_equal(
		funcfeat__parse(saved, profile__meta(back)->function_features, err, sizeof(err)),
		0);
	assert_int_equal(funcfeat__apply(saved, back), 0);
	free(buf);
	funcfeat__free(saved);
	return back;
}

#endif /* FSP_TESTS_FUNCFEAT_HELPERS_H */
