// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Runs of a plug-in set over a profile (plugin.h): each plug-in's feature
 * found in the profile (or a clear error), its analysis, and the sections
 * it renders into the text report, the JSON profile and a DOT graph. The
 * plug-ins run in the C locale, as the other renderers do.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "json_out.h"
#include "output.h"
#include "plugin.h"
#include "plugin_int.h"
#include "util.h"

struct plugin_one {
	const struct fsp_plugin *desc;
	const char *spec; /* how --plugin named it: a name or a path */
	const char *feature; /* the profile's interned name */
	struct fsp_plugin_profile pp;
	void *state;
	bool analysed; /* release(state) is due */
};

struct plugin_run {
	const struct profile *p; /* filtered, else the caller's */
	struct profile *filtered;
	struct plugin_one *ones;
	size_t nr;
};

/* The profile's interned name of feature `name`, NULL when no stack has a
 * frame of it. */
static const char *find_feature(const struct profile *p, const char *name)
{
	const char *seen = NULL; /* the last name compared, interned */
	struct profile_stack st;

	for (size_t i = 0; i < profile__nr_stacks(p); i++) {
		if (profile__stack(p, i, &st))
			continue;
		for (size_t j = 0; j < st.depth; j++) {
			if (st.frames[j].feature == seen)
				continue;
			seen = st.frames[j].feature;
			if (!strcmp(seen, name))
				return seen;
		}
	}
	return NULL;
}

/* The message of a plug-in call that returned ret. */
static void call_error(const struct plugin_one *o, const char *what, int ret, char *err,
		       size_t errlen)
{
	fsp_set_err(err, errlen, "plug-in %s: %s%s%s", o->desc->name, what,
		    o->pp.has_msg ? "" : ": ", o->pp.has_msg ? o->pp.msg : strerror(-ret));
}

static int analyze_one(struct plugin_one *o, const struct profile *p, const char *given,
		       double min_pct, char *err, size_t errlen)
{
	const char *name = given ? given : o->desc->feature;
	struct fsp_plugin_args args = {.min_pct = min_pct};
	struct c_locale loc;
	int ret;

	args.feature = o->feature = find_feature(p, name);
	if (!o->feature) {
		fsp_set_err(
			err, errlen,
			"plug-in %s: the profile has no samples of feature '%s', which it reads "
			"(another feature: --plugin %s=FEATURE)",
			o->desc->name, name, o->desc->name);
		return -ENOENT;
	}
	ret = plugin_profile__init(&o->pp, p);
	if (!ret)
		ret = c_locale__enter(&loc);
	if (ret)
		return ret;
	o->state = NULL;
	ret = o->desc->analyze(&plugin_host, &o->pp, &args, &o->state);
	c_locale__leave(&loc);
	o->analysed = !ret;
	if (ret)
		call_error(o, "analysis failed", ret, err, errlen);
	return ret;
}

struct plugin_run *plugin_run__new(const struct plugin_set *s, const struct profile *p,
				   const struct report_opts *opts, int *errp, char *err,
				   size_t errlen)
{
	struct plugin_run *r = calloc(1, sizeof(*r));
	size_t n = plugin_set__nr(s);
	int ret = r ? 0 : -ENOMEM;

	if (!ret)
		ret = report__filter(p, opts, &r->filtered);
	if (!ret) {
		r->p = r->filtered ? r->filtered : p;
		r->ones = calloc(n ? n : 1, sizeof(*r->ones));
		ret = r->ones ? 0 : -ENOMEM;
	}
	for (size_t i = 0; !ret && i < n; i++) {
		const char *given;

		r->ones[i].desc = plugin_set__plugin(s, i, &given, &r->ones[i].spec);
		r->nr++;
		ret = analyze_one(&r->ones[i], r->p, given, opts ? opts->min_pct : 0, err, errlen);
	}
	if (ret == -ENOMEM)
		fsp_set_err(err, errlen, "plug-ins: out of memory");
	else if (ret == -EINVAL && r && !r->nr)
		fsp_set_err(err, errlen, "plug-ins: the process filter does not parse");
	if (ret) {
		plugin_run__free(r);
		r = NULL;
	}
	*errp = ret;
	return r;
}

void plugin_run__free(struct plugin_run *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nr; i++) {
		if (r->ones[i].analysed)
			r->ones[i].desc->release(r->ones[i].state);
		plugin_profile__fini(&r->ones[i].pp);
	}
	free(r->ones);
	profile__free(r->filtered);
	free(r);
}

/* Prepares a render call of o: a fresh message. */
static void begin_call(struct plugin_one *o)
{
	o->pp.has_msg = false;
	o->pp.msg[0] = 0;
}

int plugin_run__text(struct plugin_run *r, FILE *out, char *err, size_t errlen)
{
	struct c_locale loc;
	char feat[256];
	int ret = c_locale__enter(&loc);

	if (ret)
		return ret;
	for (size_t i = 0; !ret && i < r->nr; i++) {
		struct plugin_one *o = &r->ones[i];

		plugin_host.text_escape(feat, sizeof(feat), o->feature);
		fprintf(out, "\nPlug-in %s (feature %s)", o->desc->name, feat);
		if (o->desc->summary && *o->desc->summary) {
			plugin_host.text_escape(feat, sizeof(feat), o->desc->summary);
			fprintf(out, ": %s", feat);
		}
		fputc('\n', out);
		begin_call(o);
		ret = o->desc->render_text(&plugin_host, &o->pp, o->state, out);
		if (ret)
			call_error(o, "text output failed", ret, err, errlen);
	}
	c_locale__leave(&loc);
	if (!ret && (ret = flush_status(out)))
		fsp_set_err(err, errlen, "plug-ins: %s", strerror(-ret));
	return ret;
}

int plugin_run__json(struct plugin_run *r, struct json_out *w, char *err, size_t errlen)
{
	struct fsp_plugin_json j;
	int ret = 0;

	json_out__begin_array(w, "plugins");
	for (size_t i = 0; !ret && !w->err && i < r->nr; i++) {
		struct plugin_one *o = &r->ones[i];

		json_out__puts(w, w->first_rec ? "\n    {\"name\":" : ",\n    {\"name\":");
		w->first_rec = false;
		json_out__value(w, json_out__str(w, o->desc->name));
		json_out__puts(w, ",\"feature\":");
		json_out__value(w, json_out__str(w, o->feature));
		json_out__puts(w, ",\"result\":");
		if (!o->desc->render_json) {
			json_out__puts(w, "null}");
			continue;
		}
		begin_call(o);
		plugin_json__init(&j, w, &o->pp);
		ret = o->desc->render_json(&plugin_host, &o->pp, o->state, &j);
		if (!ret)
			ret = plugin_json__finish(&j);
		if (ret)
			call_error(o, "JSON output failed", ret, err, errlen);
		json_out__puts(w, "}");
	}
	json_out__end_array(w);
	if (!ret && w->err) {
		ret = w->err;
		fsp_set_err(err, errlen, "plug-ins: %s", strerror(-ret));
	}
	return ret;
}

int plugin_run__dot(struct plugin_run *r, FILE *out, char *err, size_t errlen)
{
	struct plugin_one *o = NULL;
	struct c_locale loc;
	size_t n = 0;
	int ret;

	for (size_t i = 0; i < r->nr; i++)
		if (r->ones[i].desc->render_dot && !n++)
			o = &r->ones[i];
	if (n != 1) {
		fsp_set_err(err, errlen,
			    "--format dot draws the graph of one plug-in: %zu of those given draw "
			    "one (fsp-bpf list --plugins says which do)",
			    n);
		return -EINVAL;
	}
	ret = c_locale__enter(&loc);
	if (ret)
		return ret;
	begin_call(o);
	ret = o->desc->render_dot(&plugin_host, &o->pp, o->state, out);
	c_locale__leave(&loc);
	if (ret)
		call_error(o, "DOT output failed", ret, err, errlen);
	else if ((ret = flush_status(out)))
		fsp_set_err(err, errlen, "plug-ins: %s", strerror(-ret));
	return ret;
}
