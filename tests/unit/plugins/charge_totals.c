// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libcharge_totals.so - a plug-in for tests/unit/test_charges.c: the
 * samples charged to every feature and instance of a profile, as a plug-in
 * computes them, in its JSON result:
 *
 *   {"features":[{"feature":F,"samples":N,
 *                 "instances":[{"instance":I,"samples":N},...]},...]}
 *
 * (instance null: a mark without one). Built twice from this source: against
 * this fsp-bpf's fsp-plugin.h, where it reads each stack's charges from
 * host->charges; and against the header of the first release of ABI version
 * 1 (tests/unit/plugins/abi1/fsp/), which has no charges, where it applies the
 * rule to the frames itself, as plug-ins of that header do: the top-most
 * frame of each feature charges when it is a mark. Both must agree with the
 * text report.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <fsp/fsp-plugin.h>

#define MAX_ROWS 64 /* the test's profiles are small */

struct row {
	const char *feature;
	const char *instance; /* NULL: the feature's own total */
	uint64_t samples;
};

struct state {
	struct row rows[MAX_ROWS];
	size_t nr;
};

static int add(struct state *st, const char *feature, const char *instance, bool whole,
	       uint64_t count)
{
	size_t i;

	for (i = 0; i < st->nr; i++)
		if (st->rows[i].feature == feature &&
		    (whole ? !st->rows[i].instance
			   : st->rows[i].instance && !strcmp(st->rows[i].instance, instance)))
			break;
	if (i == st->nr) {
		if (st->nr == MAX_ROWS)
			return -ENOSPC;
		st->rows[st->nr++] = (struct row){feature, whole ? NULL : instance, 0};
	}
	st->rows[i].samples += count;
	return 0;
}

/* A charged (feature, instance): the instance named as the report names it. */
static int charge(struct state *st, const char *feature, const char *instance, uint64_t count)
{
	int err = add(st, feature, NULL, true, count);

	return err ? err : add(st, feature, instance ? instance : "(no instance)", false, count);
}

#ifdef FSP_PLUGIN_HOST_HAS
/* This header: the host's charges of the sample's stack. */
static int charge_sample(const struct fsp_plugin_host *h, const struct fsp_plugin_profile *p,
			 const struct fsp_plugin_sample *s, struct state *st)
{
	const struct fsp_plugin_charge *c;
	size_t n;
	int err = 0;

	if (!FSP_PLUGIN_HOST_HAS(h, charges))
		return -ENOTSUP;
	c = h->charges(p, s->stack, &n);
	for (size_t k = 0; k < n && !err; k++)
		err = charge(st, c[k].feature, c[k].instance, s->count);
	return err;
}
#else
/* ABI 1's first header: the top-most frame of each feature decides. */
static int charge_sample(const struct fsp_plugin_host *h, const struct fsp_plugin_profile *p,
			 const struct fsp_plugin_sample *s, struct state *st)
{
	int err = 0;

	(void)h, (void)p;
	for (size_t k = s->depth; k-- > 0 && !err;) {
		const struct fsp_plugin_frame *f = &s->frames[k];
		bool above = false;

		for (size_t j = k + 1; j < s->depth; j++)
			above |= s->frames[j].feature == f->feature;
		if (!above && f->kind == FSP_PLUGIN_MARK)
			err = charge(st, f->feature, f->instance, s->count);
	}
	return err;
}
#endif

static void release(void *state)
{
	free(state);
}

static int analyze(const struct fsp_plugin_host *h, const struct fsp_plugin_profile *p,
		   const struct fsp_plugin_args *args, void **state)
{
	struct state *st = calloc(1, sizeof(*st));
	struct fsp_plugin_sample s;
	int err = st ? 0 : -ENOMEM;

	(void)args;
	for (size_t i = 0; !err && i < h->nr_samples(p); i++)
		if (!h->sample(p, i, &s))
			err = charge_sample(h, p, &s, st);
	if (err) {
		h->error(p, "cannot total the charges: %s", strerror(-err));
		release(st);
		return err;
	}
	*state = st;
	return 0;
}

static int render_text(const struct fsp_plugin_host *h, const struct fsp_plugin_profile *p,
		       void *state, FILE *out)
{
	const struct state *st = state;

	(void)h, (void)p;
	for (size_t i = 0; i < st->nr; i++)
		if (!st->rows[i].instance)
			fprintf(out, "  %s %llu\n", st->rows[i].feature,
				(unsigned long long)st->rows[i].samples);
	return 0;
}

static int render_json(const struct fsp_plugin_host *h, const struct fsp_plugin_profile *p,
		       void *state, struct fsp_plugin_json *j)
{
	const struct state *st = state;

	(void)p;
	h->json_object_begin(j);
	h->json_key(j, "features");
	h->json_array_begin(j);
	for (size_t i = 0; i < st->nr; i++) {
		if (st->rows[i].instance)
			continue;
		h->json_object_begin(j);
		h->json_key(j, "feature");
		h->json_string(j, st->rows[i].feature);
		h->json_key(j, "samples");
		h->json_u64(j, st->rows[i].samples);
		h->json_key(j, "instances");
		h->json_array_begin(j);
		for (size_t k = 0; k < st->nr; k++) {
			if (!st->rows[k].instance || st->rows[k].feature != st->rows[i].feature)
				continue;
			h->json_object_begin(j);
			h->json_key(j, "instance");
			h->json_string(j, st->rows[k].instance);
			h->json_key(j, "samples");
			h->json_u64(j, st->rows[k].samples);
			h->json_object_end(j);
		}
		h->json_array_end(j);
		h->json_object_end(j);
	}
	h->json_array_end(j);
	h->json_object_end(j);
	return 0;
}

static const struct fsp_plugin charge_totals = {
	.abi_version = FSP_PLUGIN_ABI_VERSION,
	.size = sizeof(struct fsp_plugin),
	.name = "charge_totals",
	.summary = "the samples charged to every feature and instance",
	.feature = "F",
	.analyze = analyze,
	.render_text = render_text,
	.render_json = render_json,
	.render_dot = NULL,
	.release = release,
};

FSP_PLUGIN_DEFINE(charge_totals)
