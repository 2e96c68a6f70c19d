// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libpayloads.so - an fsp-bpf analysis plug-in built outside fsp-bpf: the
 * worked example of docs/plugins.md. For the feature it is given, it shows
 * which payloads the samples charged to each instance carried, most
 * sampled first: a first look at a feature's payloads before writing a
 * plug-in that understands them.
 *
 *   cc -O2 -fPIC -shared -I/usr/local/include/fsp libpayloads.c -o libpayloads.so
 *   fsp-bpf report --plugin ./libpayloads.so=task prof.json
 *
 * It uses nothing but <fsp/fsp-plugin.h> and libc.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <fsp/fsp-plugin.h>

#define TOP 5 /* payloads shown per instance */

/* Samples of one (instance, payload). */
struct row {
	const char *instance; /* the profile's interned label; NULL: none */
	uint64_t payload;
	uint64_t samples;
};

struct state {
	struct fsp_plugin_info info;
	struct row *rows; /* an open-addressing table, then sorted */
	size_t nr, cap; /* cap: a power of two */
};

static size_t slot_of(const struct state *st, const char *instance, uint64_t payload)
{
	uint64_t h =
		((uintptr_t)instance ^ payload * 0x9e3779b97f4a7c15ULL) * 0xbf58476d1ce4e5b9ULL;

	return (size_t)(h >> 17) & (st->cap - 1);
}

/* The row of (instance, payload), added when new; NULL when out of memory. */
static struct row *row_of(struct state *st, const char *instance, uint64_t payload)
{
	size_t i;

	if (2 * (st->nr + 1) > st->cap) { /* keep the table half empty */
		struct state bigger = {.cap = st->cap ? 2 * st->cap : 64};

		bigger.rows = calloc(bigger.cap, sizeof(*bigger.rows));
		if (!bigger.rows)
			return NULL;
		for (i = 0; i < st->cap; i++) {
			struct row *r = &st->rows[i];
			size_t j;

			if (!r->samples)
				continue;
			for (j = slot_of(&bigger, r->instance, r->payload); bigger.rows[j].samples;)
				j = (j + 1) & (bigger.cap - 1);
			bigger.rows[j] = *r;
		}
		free(st->rows);
		st->rows = bigger.rows;
		st->cap = bigger.cap;
	}
	for (i = slot_of(st, instance, payload); st->rows[i].samples; i = (i + 1) & (st->cap - 1))
		if (st->rows[i].instance == instance && st->rows[i].payload == payload)
			return &st->rows[i];
	st->nr++;
	st->rows[i].instance = instance;
	st->rows[i].payload = payload;
	return &st->rows[i];
}

/* By instance label, then most sampled first, then by payload (the table's
 * order depends on addresses: ties must not show it). */
static int cmp_row(const void *x, const void *y)
{
	const struct row *a = x, *b = y;
	int c = strcmp(a->instance ? a->instance : "", b->instance ? b->instance : "");

	if (!c)
		c = (a->samples < b->samples) - (a->samples > b->samples);
	return c ? c : (a->payload > b->payload) - (a->payload < b->payload);
}

static void release(void *state)
{
	struct state *st = state;

	if (st)
		free(st->rows);
	free(st);
}

/* The frame that charges sample s to feature f (an interned pointer) by
 * the attribution rule, NULL when it charges f nothing: the host's charges;
 * with an fsp-bpf older than them, the top-most frame of f when it is a
 * mark. */
static const struct fsp_plugin_frame *charged_frame(const struct fsp_plugin_host *h,
						    const struct fsp_plugin_profile *p,
						    const struct fsp_plugin_sample *s,
						    const char *f)
{
	if (FSP_PLUGIN_HOST_HAS(h, charges)) {
		size_t n;
		const struct fsp_plugin_charge *c = h->charges(p, s->stack, &n);

		for (size_t k = 0; k < n; k++)
			if (c[k].feature == f)
				return &s->frames[c[k].frame];
		return NULL;
	}
	for (size_t k = s->depth; k-- > 0;)
		if (s->frames[k].feature == f)
			return s->frames[k].kind == FSP_PLUGIN_MARK ? &s->frames[k] : NULL;
	return NULL;
}

/* Each core sample charged to the feature counts for the charging mark's
 * (instance, payload). */
static int analyze(const struct fsp_plugin_host *h, const struct fsp_plugin_profile *p,
		   const struct fsp_plugin_args *args, void **state)
{
	struct state *st = calloc(1, sizeof(*st));
	struct fsp_plugin_sample s;
	size_t n = h->nr_samples(p), used = 0;

	if (!st)
		return -ENOMEM;
	h->info(p, &st->info);
	for (size_t i = 0; i < n; i++) {
		const struct fsp_plugin_frame *top;
		struct row *r;

		if (h->sample(p, i, &s) || !s.count)
			continue;
		if (!(top = charged_frame(h, p, &s, args->feature)))
			continue;
		if (!(r = row_of(st, top->instance, top->payload))) {
			release(st);
			return -ENOMEM;
		}
		r->samples += s.count;
	}
	/* the table's rows to the front, then sorted */
	for (size_t i = 0; i < st->cap; i++)
		if (st->rows[i].samples)
			st->rows[used++] = st->rows[i];
	qsort(st->rows, used, sizeof(*st->rows), cmp_row);
	*state = st;
	return 0;
}

static int render_text(const struct fsp_plugin_host *h, const struct fsp_plugin_profile *p,
		       void *state, FILE *out)
{
	const struct state *st = state;
	char label[256];

	(void)p;
	fprintf(out, "  %10s %7s   %-18s   %s\n", "ms", "%", "payload", "instance");
	for (size_t i = 0, shown = 0; i < st->nr; i++) {
		const struct row *r = &st->rows[i];

		if (i && r->instance != r[-1].instance)
			shown = 0; /* a new instance */
		if (shown++ == TOP)
			fprintf(out, "  %18s   %-18s   (more payloads)\n", "", "");
		if (shown > TOP)
			continue;
		h->text_escape(label, sizeof(label), r->instance ? r->instance : "(no instance)");
		fprintf(out, "  %10.1f %6.2f%%   0x%016llx   %s\n",
			(double)r->samples * (double)st->info.period_ns / 1e6,
			st->info.total_samples
				? 100.0 * (double)r->samples / (double)st->info.total_samples
				: 0.0,
			(unsigned long long)r->payload, label);
	}
	return 0;
}

static int render_json(const struct fsp_plugin_host *h, const struct fsp_plugin_profile *p,
		       void *state, struct fsp_plugin_json *j)
{
	const struct state *st = state;

	(void)p;
	h->json_array_begin(j);
	for (size_t i = 0; i < st->nr; i++) {
		h->json_object_begin(j);
		h->json_key(j, "instance");
		h->json_string(j, st->rows[i].instance);
		h->json_key(j, "payload");
		h->json_u64(j, st->rows[i].payload);
		h->json_key(j, "samples");
		h->json_u64(j, st->rows[i].samples);
		h->json_object_end(j);
	}
	h->json_array_end(j);
	return 0;
}

static const struct fsp_plugin payloads = {
	.abi_version = FSP_PLUGIN_ABI_VERSION,
	.size = sizeof(struct fsp_plugin),
	.name = "payloads",
	.summary = "the payloads each instance's samples carried, most sampled first",
	.feature = NULL, /* any feature: --plugin ./libpayloads.so=FEATURE */
	.analyze = analyze,
	.render_text = render_text,
	.render_json = render_json,
	.render_dot = NULL,
	.release = release,
};

FSP_PLUGIN_DEFINE(payloads)
