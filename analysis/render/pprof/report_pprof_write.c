// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Writing the pprof profile: the tables and samples gathered in a pprof_ctx
 * (report_pprof.c, report_pprof_native.c) packed into profile.proto's
 * message, its comments and sample types, and gzip-compressed.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "output.h"
#include "report_pprof.h"
#include "util.h"

/* Seconds as nanoseconds, rounded, 0 when unknown or out of range. The whole
 * seconds are converted apart: a double holds unix time to the microsecond,
 * not unix time in nanoseconds. (No libm: the archive links without it.) */
static int64_t pprof_nanos(double s)
{
	int64_t whole;

	if (!(s > 0) || s >= 9.2e9)
		return 0;
	whole = (int64_t)s;
	return whole * 1000000000 + (int64_t)((s - (double)whole) * 1e9 + 0.5);
}

/* "filter: comm X and pid Y: N of M processes, S of T samples": what a
 * process filter kept. The string's index or -ENOMEM. */
static int64_t pprof_filter_comment(struct pprof_ctx *c)
{
	const struct report_opts *o = c->opts;
	char *line = NULL;
	int64_t idx;

	if (asprintf(&line,
		     "filter:%s%s%s%s%s: %zu of %zu processes, %" PRIu64 " of %" PRIu64 " samples",
		     o->comm ? " comm " : "", o->comm ? o->comm : "",
		     o->comm && o->pid ? " and" : "", o->pid ? " pid " : "", o->pid ? o->pid : "",
		     profile__nr_pids(c->p), profile__nr_pids(c->whole),
		     profile__total_samples(c->p), profile__total_samples(c->whole)) < 0)
		return -ENOMEM;
	idx = pprof_str(c, line);
	free(line);
	return idx;
}

/* "fsp-bpf VERSION: feature profile of TARGET". The string's index or
 * -ENOMEM. */
static int64_t pprof_title_comment(struct pprof_ctx *c)
{
	const struct profile_meta *m = profile__meta(c->p);
	char *line = NULL;
	int64_t idx;

	if (asprintf(&line, "fsp-bpf %s: feature profile of %s",
		     m->tool_version ? m->tool_version : FSP_VERSION,
		     m->target ? m->target : "an unnamed target") < 0)
		return -ENOMEM;
	idx = pprof_str(c, line);
	free(line);
	return idx;
}

/* Appends the comment of string idx (< 0: its error) to comment[*n]. */
static int pprof_comment(int64_t *comment, size_t *n, int64_t idx)
{
	if (idx < 0)
		return (int)idx;
	comment[(*n)++] = idx;
	return 0;
}

static int pprof_comments(struct pprof_ctx *c, int64_t *comment, size_t *n)
{
	int err;

	*n = 0;
	err = pprof_comment(comment, n, pprof_title_comment(c));
	if (!err && c->whole)
		err = pprof_comment(comment, n, pprof_filter_comment(c));
	if (!err)
		err = pprof_comment(comment, n,
				    pprof_str(c,
					      "each sample is charged to every feature with a "
					      "live mark: a sample in n nested features counts n "
					      "times in the totals"));
	if (!err && c->offcpu)
		err = pprof_comment(
			comment, n,
			pprof_str(c, "offcpu: off-CPU time (blocked, sleeping, waiting "
				     "for a CPU), charged by the same rule as the samples"));
	if (!err && c->events)
		err = pprof_comment(
			comment, n,
			pprof_str(c, "calls, event_time: exact counts and durations of "
				     "the calls, from the probes, in samples of their own"));
	return err;
}

/* Deflates buf into out as one gzip member (mtime 0: the same profile gives
 * the same bytes). */
static int pprof_gzip(FILE *out, const uint8_t *buf, size_t len)
{
	unsigned char chunk[16384];
	size_t left = len, take, have;
	z_stream zs = {};
	int zerr, err = 0;

	/* Fastest deflate: a 20% larger file, written in half the time (bench/files.sh). */
	zerr = deflateInit2(&zs, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
	if (zerr != Z_OK)
		return zerr == Z_MEM_ERROR ? -ENOMEM : -EIO;
	zs.next_in = (Bytef *)buf;
	do {
		if (!zs.avail_in && left) {
			take = left > (1U << 30) ? (1U << 30) : left;
			zs.avail_in = (uInt)take;
			left -= take;
		}
		zs.next_out = chunk;
		zs.avail_out = sizeof(chunk);
		zerr = deflate(&zs, left ? Z_NO_FLUSH : Z_FINISH);
		if (zerr == Z_STREAM_ERROR) {
			err = -EIO;
			break;
		}
		have = sizeof(chunk) - zs.avail_out;
		if (have && fwrite(chunk, 1, have, out) != have) {
			err = errno ? -errno : -EIO;
			break;
		}
	} while (zerr != Z_STREAM_END);
	deflateEnd(&zs);
	return err;
}

/* The protobuf-c view of the collected profile: the message and the arrays
 * of structures and pointers it wants, over the tables of pprof_ctx. */
struct pprof_pack {
	Perftools__Profiles__Profile prof;
	Perftools__Profiles__ValueType types[PPROF_MAX_TYPES + 1], *type_ptrs[PPROF_MAX_TYPES];
	Perftools__Profiles__Mapping map, **map_ptrs;
	int64_t comment[5];
	Perftools__Profiles__Sample *samples, **sample_ptrs;
	Perftools__Profiles__Location *locs, **loc_ptrs;
	Perftools__Profiles__Line *lines, **line_ptrs;
	Perftools__Profiles__Function **func_ptrs;
};

/* The sample types (and the period type after them); *cpu the string of
 * "cpu". Strings are added here, in this order, before the comments'. */
static int pprof_pack_types(struct pprof_ctx *c, struct pprof_pack *pk, int64_t *cpu)
{
	int64_t v[10];
	size_t i, n;

	v[0] = pprof_str(c, "samples");
	v[1] = pprof_str(c, "count");
	v[2] = pprof_str(c, "cpu");
	v[3] = pprof_str(c, "nanoseconds");
	n = 4;
	if (c->offcpu) {
		v[n++] = pprof_str(c, "offcpu");
		v[n++] = v[3];
	}
	if (c->events) {
		v[n++] = pprof_str(c, "calls");
		v[n++] = v[1];
		v[n++] = pprof_str(c, "event_time");
		v[n++] = v[3];
	}
	for (i = 0; i < n; i++) {
		if (v[i] < 0)
			return (int)v[i];
	}
	c->nr_types = n / 2;
	for (i = 0; i <= c->nr_types; i++)
		perftools__profiles__value_type__init(&pk->types[i]);
	for (i = 0; i < c->nr_types; i++) {
		pk->types[i].type = v[2 * i];
		pk->types[i].unit = v[2 * i + 1];
		pk->type_ptrs[i] = &pk->types[i];
	}
	pk->types[c->nr_types] = pk->types[1]; /* the period type */
	*cpu = v[2];
	return 0;
}

/* Everything of the message but its samples and locations. */
static int pprof_pack_header(struct pprof_ctx *c, struct pprof_pack *pk)
{
	const struct profile_meta *m = profile__meta(c->p);
	Perftools__Profiles__Profile *prof = &pk->prof;
	int64_t cpu = 0;
	size_t n;
	int err;

	/* Every string first: the table must not grow after it is shared. */
	err = pprof_pack_types(c, pk, &cpu);
	if (!err)
		err = pprof_comments(c, pk->comment, &n);
	if (err)
		return err;
	prof->n_sample_type = c->nr_types;
	prof->sample_type = pk->type_ptrs;
	/* Readers show the last type unless told: cpu stays the default. */
	if (c->nr_types > 2)
		prof->default_sample_type = cpu;
	prof->period_type = &pk->types[c->nr_types];
	prof->period = clamp_i64(c->period);
	prof->time_nanos = pprof_nanos(m->start_time);
	prof->duration_nanos = pprof_nanos(m->duration_s);
	prof->n_comment = n;
	prof->comment = pk->comment;
	/* One mapping for fsp-bpf's own frames, marked symbolized: without it
	 * pprof makes one up and warns that its binary is unknown. The
	 * modules' mappings (native stacks) follow. */
	pk->map.id = PPROF_OWN_MAPPING;
	pk->map.has_functions = 1;
	pk->map_ptrs = calloc(c->nr_maps + 1, sizeof(*pk->map_ptrs));
	if (!pk->map_ptrs)
		return -ENOMEM;
	pk->map_ptrs[0] = &pk->map;
	for (size_t i = 0; i < c->nr_maps; i++)
		pk->map_ptrs[i + 1] = &c->maps[i];
	prof->n_mapping = c->nr_maps + 1;
	prof->mapping = pk->map_ptrs;
	prof->n_string_table = c->nr_strs;
	prof->string_table = c->strs;
	return 0;
}

/* The locations with their lines. */
static void pprof_pack_locs(struct pprof_ctx *c, struct pprof_pack *pk)
{
	size_t i, k;

	for (i = 0; i < c->nr_lines; i++) {
		perftools__profiles__line__init(&pk->lines[i]);
		pk->lines[i].function_id = c->lines[i].func;
		pk->lines[i].line = c->lines[i].line;
		pk->line_ptrs[i] = &pk->lines[i];
	}
	for (i = 0; i < c->nr_locs; i++) {
		const struct pprof_loc *l = &c->locs[i];

		perftools__profiles__location__init(&pk->locs[i]);
		pk->locs[i].id = i + 1;
		pk->locs[i].mapping_id = l->mapping;
		pk->locs[i].address = l->address;
		pk->locs[i].n_line = l->n_line;
		pk->locs[i].line = &pk->line_ptrs[l->line_off];
		pk->loc_ptrs[i] = &pk->locs[i];
	}
	for (k = 0; k < c->nr_funcs; k++)
		pk->func_ptrs[k] = &c->funcs[k];
}

/* The samples, the locations, the functions. */
static int pprof_pack_tables(struct pprof_ctx *c, struct pprof_pack *pk)
{
	size_t i, n;

	pk->samples = calloc(c->nr_samples + 1, sizeof(*pk->samples));
	pk->sample_ptrs = calloc(c->nr_samples + 1, sizeof(*pk->sample_ptrs));
	pk->locs = calloc(c->nr_locs + 1, sizeof(*pk->locs));
	pk->loc_ptrs = calloc(c->nr_locs + 1, sizeof(*pk->loc_ptrs));
	pk->lines = calloc(c->nr_lines + 1, sizeof(*pk->lines));
	pk->line_ptrs = calloc(c->nr_lines + 1, sizeof(*pk->line_ptrs));
	pk->func_ptrs = calloc(c->nr_funcs + 1, sizeof(*pk->func_ptrs));
	if (!pk->samples || !pk->sample_ptrs || !pk->locs || !pk->loc_ptrs || !pk->lines ||
	    !pk->line_ptrs || !pk->func_ptrs)
		return -ENOMEM;
	for (i = 0; i < c->nr_labels; i++) {
		for (n = 0; n < c->labels[i].n; n++)
			c->labels[i].ptr[n] = &c->labels[i].label[n];
	}
	for (i = 0; i < c->nr_samples; i++) {
		struct pprof_sample *s = &c->samples[i];
		struct pprof_labels *l = &c->labels[s->labels];
		Perftools__Profiles__Sample *ps = &pk->samples[i];

		perftools__profiles__sample__init(ps);
		ps->n_location_id = s->n_loc;
		ps->location_id = c->locpool + s->loc_off;
		ps->n_value = c->nr_types;
		ps->value = s->value;
		ps->n_label = l->n;
		ps->label = l->ptr;
		pk->sample_ptrs[i] = ps;
	}
	pprof_pack_locs(c, pk);
	pk->prof.n_sample = c->nr_samples;
	pk->prof.sample = pk->sample_ptrs;
	pk->prof.n_location = c->nr_locs;
	pk->prof.location = pk->loc_ptrs;
	pk->prof.n_function = c->nr_funcs;
	pk->prof.function = pk->func_ptrs;
	return 0;
}

static void pprof_pack_fini(struct pprof_pack *pk)
{
	free(pk->samples);
	free(pk->sample_ptrs);
	free(pk->locs);
	free(pk->loc_ptrs);
	free(pk->lines);
	free(pk->line_ptrs);
	free(pk->func_ptrs);
	free(pk->map_ptrs);
}

/* Packs the collected profile and writes it compressed. */
int pprof_write(struct pprof_ctx *c, FILE *out)
{
	struct pprof_pack pk = {
		.prof = PERFTOOLS__PROFILES__PROFILE__INIT,
		.map = PERFTOOLS__PROFILES__MAPPING__INIT,
	};
	uint8_t *buf = NULL;
	size_t len;
	int err;

	err = pprof_pack_header(c, &pk);
	if (!err)
		err = pprof_pack_tables(c, &pk);
	if (err)
		goto cleanup;
	len = perftools__profiles__profile__get_packed_size(&pk.prof);
	buf = malloc(len ? len : 1);
	if (!buf) {
		err = -ENOMEM;
		goto cleanup;
	}
	if (perftools__profiles__profile__pack(&pk.prof, buf) != len) {
		err = -EIO;
		goto cleanup;
	}
	errno = 0;
	err = pprof_gzip(out, buf, len);
	if (!err)
		err = flush_status(out);
cleanup:
	free(buf);
	pprof_pack_fini(&pk);
	return err;
}
