// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What each view of a profile shows per feature and instance (matrix.h),
 * read back from its bytes as a user's tool would: the JSON profile's
 * derived features, the text report, folded stacks (percent-decoded), pprof
 * (gunzipped, decoded with protobuf-c) and the HTML page's embedded data.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "itest.h"
#include "matrix.h"
#include "profile.pb-c.h"

/* ---- the JSON profile's derived features -------------------------------------------- */

void mx_view_json(struct mx_tally *t, const char *path)
{
	json_object *prof = itest_json_load(path), *fs, *f, *is, *in;

	mx_tally_init(t, MX_TOTAL | MX_UNCHARGED | MX_INSTANCES | MX_SAMPLES, "json features of %s",
		      strrchr(path, '/') + 1);
	t->total = itest_json_u64(prof, "total_samples");
	t->uncharged = itest_json_u64(prof, "uncharged_samples");
	assert_true(json_object_object_get_ex(prof, "features", &fs));
	for (size_t i = 0; i < json_object_array_length(fs); i++) {
		f = json_object_array_get_idx(fs, i);
		const char *name = json_object_get_string(json_object_object_get(f, "name"));
		uint64_t sum = 0;

		mx_row(t, name, NULL)->samples = itest_json_u64(f, "samples");
		assert_true(json_object_object_get_ex(f, "instances", &is));
		for (size_t j = 0; j < json_object_array_length(is); j++) {
			in = json_object_array_get_idx(is, j);
			mx_row(t, name, json_object_get_string(json_object_object_get(in, "name")))
				->samples = itest_json_u64(in, "samples");
			sum += itest_json_u64(in, "samples");
		}
		mx_check(sum == mx_row(t, name, NULL)->samples,
			 "%s: the instances of %s sum to %" PRIu64
			 " samples, the feature has %" PRIu64,
			 t->what, name, sum, mx_row(t, name, NULL)->samples);
	}
	json_object_put(prof);
}

/* ---- the text report ------------------------------------------------------------------ */

/* The number before the first " call", " calls", " event" or " events" of
 * s (a feature's "1 call" and an instance's "1 calls" alike), 0 when none
 * ("- calls"). */
static uint64_t text_calls(const char *s)
{
	static const char *const words[] = {" call", " event"};

	for (const char *p = s; *p; p++)
		for (size_t i = 0; i < 2; i++) {
			size_t n = strlen(words[i]);
			const char *e = p + n, *num = p;

			if (strncmp(p, words[i], n))
				continue;
			e += *e == 's';
			if (isalpha((unsigned char)*e))
				continue; /* a word that only begins so */
			while (num > s && num[-1] >= '0' && num[-1] <= '9')
				num--;
			if (num < p && (num == s || num[-1] == ' '))
				return strtoull(num, NULL, 10);
		}
	return 0;
}

/* "N calls" (or a point event's "N events") in s (0 for "- calls" or none),
 * off-CPU "X ms" (in ns). */
static void text_columns(const char *s, uint64_t *calls, uint64_t *offcpu_ns)
{
	const char *o = strstr(s, "off-CPU");
	double ms;

	*calls = text_calls(s);
	*offcpu_ns = 0;
	if (o && sscanf(o + strlen("off-CPU"), "%lf ms", &ms) == 1)
		*offcpu_ns = (uint64_t)(ms * 1e6 + 0.5);
}

/* "F accounts for P% of running time (A / B ms, N samples)...". */
static char *text_feature(struct mx_tally *t, const char *line)
{
	const char *at = strstr(line, " accounts for "), *n = strstr(line, " ms, ");
	uint64_t calls, off;
	struct mx_row *r;
	char *name;

	if (!at || !n)
		return NULL;
	name = strndup(line, (size_t)(at - line));
	r = mx_row(t, name, NULL);
	r->samples = strtoull(n + strlen(" ms, "), NULL, 10);
	text_columns(strchr(n, ')') ? strchr(n, ')') : n, &calls, &off);
	r->calls = calls;
	r->offcpu_ns = off;
	return name;
}

/* "   X ms  P%  [N calls ...] [off-CPU Y ms]  LABEL" under feature f. */
static void text_instance(struct mx_tally *t, const char *f, const char *line, uint64_t period)
{
	const char *label = line + strlen(line);
	uint64_t calls, off;
	struct mx_row *r;
	double ms;

	if (sscanf(line, "%lf ms", &ms) != 1)
		return;
	while (label > line + 1 && !(label[-1] == ' ' && label[-2] == ' '))
		label--;
	r = mx_row(t, f, label);
	r->samples = period ? (uint64_t)(ms * 1e6 / (double)period + 0.5) : 0;
	text_columns(line, &calls, &off);
	r->calls = calls;
	r->offcpu_ns = off;
}

/* "F: N samples, M with a native stack" / "  instance I: ..." ("1 sample,"
 * too: a feature whose calls one sample saw) */
static void text_native(struct mx_tally *nat, const char **feature, const char *line)
{
	const char *s = strstr(line, " samples, "), *colon;
	uint64_t n, with;
	char *name;

	if (!s)
		s = strstr(line, " sample, ");
	if (!s || !strstr(s, " with a native stack"))
		return;
	for (colon = s; colon > line && strncmp(colon, ": ", 2); colon--)
		;
	if (sscanf(colon + 2, "%" SCNu64 " sample%*[s], %" SCNu64, &n, &with) != 2 &&
	    sscanf(colon + 2, "%" SCNu64 " sample, %" SCNu64, &n, &with) != 2)
		return;
	while (*line == ' ')
		line++;
	if (!strncmp(line, "instance ", 9)) {
		name = strndup(line + 9, (size_t)(colon - line - 9));
		mx_row(nat, *feature, name)->samples = n;
		mx_row(nat, *feature, name)->native = with;
	} else {
		name = strndup(line, (size_t)(colon - line));
		free((char *)*feature);
		*feature = strdup(name);
		mx_row(nat, name, NULL)->samples = n;
		mx_row(nat, name, NULL)->native = with;
	}
	free(name);
}

void mx_view_text(struct mx_tally *t, struct mx_tally *nat, const char *text, uint64_t period_ns)
{
	char *copy = strdup(text), *line, *save = NULL, *feature = NULL;
	bool in_features = false;
	const char *native_feature = NULL;
	uint64_t with, all;

	mx_tally_init(t, MX_TOTAL | MX_INSTANCES | MX_SAMPLES | MX_CALLS, "text report");
	mx_tally_init(nat, MX_NATIVE | MX_SAMPLES | MX_INSTANCES | MX_PARTIAL,
		      "text report's native section");
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *s = strstr(line, " samples = ");

		if (s && strstr(line, " Hz (")) {
			while (s > line && s[-1] != ' ')
				s--;
			t->total = strtoull(s, NULL, 10);
		} else if (strstr(line, " off CPU: ") || !strncmp(line, "  off CPU: ", 11)) {
			t->has |= MX_OFFCPU | MX_OFFCPU_MS;
		}
		if (sscanf(line, "Native stacks: %" SCNu64 " of %" SCNu64, &with, &all) == 2) {
			nat->native_total = with;
			nat->total = all;
			nat->has |= MX_TOTAL | MX_NATIVE_TOTAL;
			in_features = false;
			native_feature = strdup("");
			continue;
		}
		if (native_feature) {
			text_native(nat, &native_feature, line);
			continue;
		}
		if (line[0] != ' ' && strstr(line, " accounts for ")) {
			free(feature);
			feature = text_feature(t, line);
			in_features = feature != NULL;
		} else if (in_features && line[0] == ' ') {
			text_instance(t, feature, line, period_ns);
		} else {
			in_features = false;
		}
	}
	free(feature);
	free((char *)native_feature);
	free(copy);
}

/* ---- folded stacks --------------------------------------------------------------------- */

/* The frame at s up to ';' (or end), percent-decoded, in buf. */
static const char *folded_frame(const char *s, const char *end, char *buf, size_t len)
{
	size_t n = 0;
	unsigned int x;

	for (; s < end && *s != ';' && n + 1 < len; s++) {
		if (*s == '%' && end - s > 2 && sscanf(s + 1, "%2x", &x) == 1) {
			buf[n++] = (char)x;
			s += 2;
		} else {
			buf[n++] = *s;
		}
	}
	buf[n] = 0;
	return s < end && *s == ';' ? s + 1 : end;
}

void mx_view_folded(struct mx_tally *t, const char *text, int skip, bool offcpu)
{
	char feature[1024], instance[1024], frame[1024];
	const char *line, *eol, *sp, *s;

	mx_tally_init(t,
		      offcpu ? MX_OFFCPU | MX_INSTANCES
			     : MX_SUM | MX_UNCHARGED | MX_INSTANCES | MX_SAMPLES | MX_NATIVE,
		      "folded%s%s",
		      skip == 2 ? " --by thread"
		      : skip	? " --by process"
				: "",
		      offcpu ? " --value offcpu" : "");
	for (line = text; *line; line = *eol ? eol + 1 : eol) {
		uint64_t v;
		bool native;

		eol = strchr(line, '\n');
		eol = eol ? eol : line + strlen(line);
		sp = eol;
		while (sp > line && sp[-1] != ' ')
			sp--;
		if (sp == line || sp == eol)
			continue;
		v = strtoull(sp, NULL, 10);
		s = line;
		for (int i = 0; i < skip; i++)
			s = folded_frame(s, sp - 1, frame, sizeof(frame));
		s = folded_frame(s, sp - 1, feature, sizeof(feature));
		t->sum += v;
		if (!strcmp(feature, "(no feature)")) {
			t->uncharged += v;
			t->native_sum += s < sp - 1 ? v : 0;
			continue;
		}
		s = folded_frame(s, sp - 1, instance, sizeof(instance));
		native = s < sp - 1;
		t->native_sum += native ? v : 0;
		if (offcpu)
			mx_charge(t, feature, instance, 0, 0, v, 0);
		else
			mx_charge(t, feature, instance, v, native ? v : 0, 0, 0);
	}
}

/* ---- pprof ----------------------------------------------------------------------------- */

static unsigned char *gunzip_file(const char *path, size_t *len)
{
	gzFile gz = gzopen(path, "rb");
	size_t cap = 1 << 16, n = 0;
	unsigned char *buf = malloc(cap);
	int r;

	assert_non_null(gz);
	assert_non_null(buf);
	while ((r = gzread(gz, buf + n, (unsigned int)(cap - n))) > 0) {
		n += (size_t)r;
		if (n == cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
	}
	assert_true(r == 0);
	gzclose(gz);
	*len = n;
	return buf;
}

typedef Perftools__Profiles__Profile pprof_t;

static const Perftools__Profiles__Function *pprof_func(const pprof_t *pp, uint64_t loc)
{
	for (size_t i = 0; i < pp->n_location; i++) {
		const Perftools__Profiles__Location *l = pp->location[i];

		if (l->id != loc || !l->n_line)
			continue;
		for (size_t j = 0; j < pp->n_function; j++)
			if (pp->function[j]->id == l->line[0]->function_id)
				return pp->function[j];
	}
	fail_msg("pprof: location %" PRIu64 " has no function", loc);
	return NULL;
}

static int pprof_type(const pprof_t *pp, const char *name)
{
	for (size_t i = 0; i < pp->n_sample_type; i++)
		if (!strcmp(pp->string_table[pp->sample_type[i]->type], name))
			return (int)i;
	return -1;
}

void mx_view_pprof(struct mx_tally *t, const char *path)
{
	size_t len;
	unsigned char *buf = gunzip_file(path, &len);
	pprof_t *pp = perftools__profiles__profile__unpack(NULL, len, buf);
	int vs, vo, vc;

	mx_tally_init(t, MX_SUM | MX_UNCHARGED | MX_INSTANCES | MX_SAMPLES | MX_NATIVE, "pprof");
	assert_non_null(pp);
	vs = pprof_type(pp, "samples");
	vo = pprof_type(pp, "offcpu");
	vc = pprof_type(pp, "calls");
	assert_true(vs >= 0);
	t->has |= (vo >= 0 ? MX_OFFCPU : 0) | (vc >= 0 ? MX_CALLS : 0);
	for (size_t i = 0; i < pp->n_sample; i++) {
		const Perftools__Profiles__Sample *s = pp->sample[i];
		size_t n = s->n_location_id;
		const char *root, *inst;
		uint64_t v = (uint64_t)s->value[vs];

		assert_true(n >= 1);
		root = pp->string_table[pprof_func(pp, s->location_id[n - 1])->name];
		t->sum += v;
		if (!strcmp(root, "(no feature)")) {
			t->uncharged += v;
			t->native_sum += n > 1 ? v : 0;
			continue;
		}
		assert_true(n >= 2);
		inst = pp->string_table[pprof_func(pp, s->location_id[n - 2])->system_name];
		t->native_sum += n > 2 ? v : 0;
		mx_charge(t, root, inst, v, n > 2 ? v : 0, vo >= 0 ? (uint64_t)s->value[vo] : 0,
			  vc >= 0 ? (uint64_t)s->value[vc] : 0);
	}
	perftools__profiles__profile__free_unpacked(pp, NULL);
	free(buf);
}

/* ---- the HTML page's data --------------------------------------------------------------- */

static uint64_t row_u64(json_object *row, size_t i)
{
	return json_object_get_uint64(json_object_array_get_idx(row, i));
}

static const char *row_str(json_object *strs, json_object *row, size_t i)
{
	return json_object_get_string(json_object_array_get_idx(strs, row_u64(row, i)));
}

void mx_view_html(struct mx_tally *t, const char *path)
{
	static const char open_tag[] = "id=\"fsp-data\">";
	char *page = itest_slurp(path), *start, *end;
	json_object *d, *strs, *rows, *row, *o;

	mx_tally_init(t,
		      MX_TOTAL | MX_UNCHARGED | MX_INSTANCES | MX_SAMPLES | MX_NATIVE | MX_OFFCPU |
			      MX_CALLS,
		      "html data");
	assert_non_null(page);
	start = strstr(page, open_tag);
	assert_non_null(start);
	start += strlen(open_tag);
	end = strstr(start, "</script>");
	assert_non_null(end);
	*end = 0;
	d = json_tokener_parse(start);
	assert_non_null(d);
	assert_true(json_object_object_get_ex(d, "strings", &strs));
	assert_true(json_object_object_get_ex(d, "totals", &o));
	t->total = itest_json_u64(o, "samples");
	assert_true(json_object_object_get_ex(d, "threads", &rows));
	for (size_t i = 0; i < json_object_array_length(rows); i++)
		t->uncharged += row_u64(json_object_array_get_idx(rows, i), 5);
	assert_true(json_object_object_get_ex(d, "charges", &rows));
	for (size_t i = 0; i < json_object_array_length(rows); i++) {
		bool native;

		row = json_object_array_get_idx(rows, i);
		native = json_object_array_length(row) > 5;
		mx_charge(t, row_str(strs, row, 1), row_str(strs, row, 2), row_u64(row, 3),
			  native ? row_u64(row, 3) : 0, row_u64(row, 4), 0);
	}
	assert_true(json_object_object_get_ex(d, "events", &rows));
	for (size_t i = 0; i < json_object_array_length(rows); i++) {
		row = json_object_array_get_idx(rows, i);
		mx_charge(t, row_str(strs, row, 1), row_str(strs, row, 2), 0, 0, 0,
			  row_u64(row, 3));
	}
	json_object_put(d);
	free(page);
}
