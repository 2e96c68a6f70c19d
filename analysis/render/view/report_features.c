// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The features --feature selects (report_view.h): its list, the names it
 * matches, and the comma-separated lists of the view options.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report_view.h"

int report_split_list(const char *s, char **buf, const char ***names, size_t *nr)
{
	size_t i, n = 0, cap = 1;
	char *b, *tok, *save = NULL;
	const char **v;

	*buf = NULL;
	*names = NULL;
	*nr = 0;
	for (i = 0; s[i]; i++)
		cap += s[i] == ',';
	b = strdup(s);
	v = calloc(cap, sizeof(*v));
	if (!b || !v) {
		free(b);
		free(v);
		return -ENOMEM;
	}
	for (tok = strtok_r(b, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < n && strcmp(v[i], tok); i++)
			;
		if (i == n)
			v[n++] = tok;
	}
	*buf = b;
	*names = v;
	*nr = n;
	return 0;
}

/* Does a --feature name select the feature `name`? The same name, or the
 * part after "MAP:" of a mapped feature ("plan" selects "postgresql:plan"). */
static bool report_feature_matches(const char *filter, const char *name)
{
	const char *colon;

	if (!strcmp(filter, name))
		return true;
	/* "plan" also names a mapped feature "postgresql:plan". */
	colon = strchr(name, ':');
	return colon && !strchr(filter, ':') && !strcmp(colon + 1, filter);
}

const struct attrib_feature *report_find_feature(const struct attrib *a, const char *name)
{
	const struct attrib_feature *f;
	size_t i;

	for (i = 0; i < attrib__nr_features(a); i++) {
		f = attrib__feature(a, i);
		if (report_feature_matches(name, f->name))
			return f;
	}
	return NULL;
}

/* Whether a frame or an event record of p has a feature that match(arg,
 * its name) accepts. */
static bool profile_any_feature(const struct profile *p, bool (*match)(const void *, const char *),
				const void *arg)
{
	struct profile_stack st;
	struct profile_event ev;
	size_t i, j;

	for (i = 0; i < profile__nr_stacks(p); i++) {
		if (profile__stack(p, i, &st))
			continue;
		for (j = 0; j < st.depth; j++) {
			if (match(arg, st.frames[j].feature))
				return true;
		}
	}
	for (i = 0; i < profile__nr_events(p); i++) {
		if (!profile__event(p, i, &ev) && match(arg, ev.feature))
			return true;
	}
	return false;
}

static bool same_name(const void *name, const char *feature)
{
	return !strcmp(name, feature);
}

static bool selected(const void *s, const char *feature)
{
	return report_features__has(s, feature);
}

bool report__feature_found(const struct profile *p, const char *feature)
{
	struct report_features s;
	bool found;

	if (report_features__init(&s, p, feature))
		return true;
	found = profile_any_feature(p, selected, &s);
	report_features__fini(&s);
	return found;
}

int report_features__init(struct report_features *s, const struct profile *p, const char *arg)
{
	memset(s, 0, sizeof(*s));
	if (!arg) {
		s->all = true;
		return 0;
	}
	if (strchr(arg, ',') && profile_any_feature(p, same_name, arg)) {
		/* a name with a comma, not a list */
		s->buf = strdup(arg);
		s->names = calloc(1, sizeof(*s->names));
		if (!s->buf || !s->names) {
			report_features__fini(s);
			return -ENOMEM;
		}
		s->names[0] = s->buf;
		s->nr = 1;
		return 0;
	}
	return report_split_list(arg, &s->buf, &s->names, &s->nr);
}

void report_features__fini(struct report_features *s)
{
	if (!s)
		return;
	free(s->buf);
	free(s->names);
	memset(s, 0, sizeof(*s));
}

bool report_features__has(const struct report_features *s, const char *name)
{
	size_t i;

	if (s->all)
		return true;
	for (i = 0; i < s->nr; i++) {
		if (report_feature_matches(s->names[i], name))
			return true;
	}
	return false;
}
