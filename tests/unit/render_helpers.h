/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the renderer tests (test_render_*.c) share besides the profiles
 * (render_fixture.h): the text report, folded stacks and pprof of a profile
 * as strings or decoded, and the parts of a text report they look at.
 */
#ifndef FSP_RENDER_HELPERS_H
#define FSP_RENDER_HELPERS_H

#include <stdio.h>
#include <zlib.h>

#include "profile.pb-c.h"
#include "render_fixture.h"
#include "report.h"

static __attribute__((unused)) char *render_text_rc(const struct profile *p,
						    const struct report_opts *o, int want)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(report__text(f, p, NULL, o), want);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static __attribute__((unused)) char *render_text(const struct profile *p,
						 const struct report_opts *o)
{
	return render_text_rc(p, o, 0);
}

static __attribute__((unused)) char *render_folded_rc(const struct profile *p,
						      const struct report_opts *o, int want)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(report__folded(f, p, o), want);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static __attribute__((unused)) char *render_folded(const struct profile *p,
						   const struct report_opts *o)
{
	return render_folded_rc(p, o, 0);
}

/* The text between the header (its blank line) and the diagnostics. */
static __attribute__((unused)) char *body(char *text)
{
	char *b = strstr(text, "\n\n"), *d = strstr(text, "\nDiagnostics");

	assert_non_null(b);
	assert_non_null(d);
	*d = 0;
	return b + 2;
}

/* The section and feature header lines of a report, in order, one per line. */
static __attribute__((unused)) char *headers(const char *text)
{
	char *buf = NULL, *copy = test_strdup(text), *line, *save = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *acc = strstr(line, " accounts for ");

		if (!strncmp(line, "Wall-clock view", 15))
			break;
		if (!strncmp(line, "thread ", 7) || !strncmp(line, "process ", 8))
			fprintf(f, "%.*s|", (int)(strstr(line, ": ") - line), line);
		else if (acc)
			fprintf(f, "%.*s|", (int)(acc - line - strspn(line, " ")),
				line + strspn(line, " "));
		else if (strstr(line, " ms ") && strchr(line, '%'))
			fprintf(f, "%s|", strrchr(line, ' ') + 1);
	}
	fclose(f);
	free(copy);
	return buf;
}

/* The line of text that starts with `start` (a copy), or NULL. */
static __attribute__((unused)) char *line_of(const char *text, const char *start)
{
	const char *l = text, *end;
	char *copy;

	while (l && strncmp(l, start, strlen(start))) {
		l = strchr(l, '\n');
		l = l ? l + 1 : NULL;
	}
	if (!l)
		return NULL;
	end = strchr(l, '\n');
	copy = strndup(l, end ? (size_t)(end - l) : strlen(l));
	assert_non_null(copy);
	return copy;
}

#define ASSERT_LINE(text, start, want)                                                             \
	do {                                                                                       \
		char *l_ = line_of((text), (start));                                               \
		if (!l_)                                                                           \
			fail_msg("no line \"%s...\" in:\n%s", (start), (text));                    \
		assert_string_equal(l_, (want));                                                   \
		free(l_);                                                                          \
	} while (0)

/* Renders p as pprof, gunzips and decodes it (free with
 * perftools__profiles__profile__free_unpacked). */
static __attribute__((unused)) Perftools__Profiles__Profile *
render_pprof(const struct profile *p, const struct report_opts *o)
{
	Perftools__Profiles__Profile *prof;
	unsigned char *raw = NULL;
	char *gz = NULL;
	size_t gz_len = 0, cap = 1 << 16;
	z_stream zs = {};
	FILE *f = open_memstream(&gz, &gz_len);

	assert_non_null(f);
	assert_int_equal(report__pprof(f, p, o), 0);
	assert_int_equal(fclose(f), 0);
	/* a gzip member: magic 1f 8b */
	assert_true(gz_len > 18);
	assert_int_equal((unsigned char)gz[0], 0x1f);
	assert_int_equal((unsigned char)gz[1], 0x8b);
	raw = malloc(cap);
	assert_non_null(raw);
	assert_int_equal(inflateInit2(&zs, 15 + 16), Z_OK);
	zs.next_in = (Bytef *)gz;
	zs.avail_in = (uInt)gz_len;
	zs.next_out = raw;
	zs.avail_out = (uInt)cap;
	assert_int_equal(inflate(&zs, Z_FINISH), Z_STREAM_END);
	assert_int_equal(zs.avail_in, 0);
	prof = perftools__profiles__profile__unpack(NULL, zs.total_out, raw);
	assert_non_null(prof);
	inflateEnd(&zs);
	free(raw);
	free(gz);
	return prof;
}

static __attribute__((unused)) const char *str(const Perftools__Profiles__Profile *prof, int64_t i)
{
	assert_true(i >= 0 && (size_t)i < prof->n_string_table);
	return prof->string_table[i];
}

/* The name of the function of location id `id`. */
static __attribute__((unused)) const char *loc_name(const Perftools__Profiles__Profile *prof,
						    uint64_t id)
{
	size_t i, j;

	for (i = 0; i < prof->n_location; i++) {
		const Perftools__Profiles__Location *l = prof->location[i];

		if (l->id != id)
			continue;
		assert_int_equal(l->n_line, 1);
		assert_int_equal(l->mapping_id, 1);
		for (j = 0; j < prof->n_function; j++) {
			if (prof->function[j]->id == l->line[0]->function_id)
				return str(prof, prof->function[j]->name);
		}
	}
	fail_msg("no location %llu", (unsigned long long)id);
	return NULL;
}

/* A sample's stack as "leaf|root" names, its values as "v0/v1/..." and its
 * labels as "k=v ...". */
static __attribute__((unused)) void describe(const Perftools__Profiles__Profile *prof,
					     const Perftools__Profiles__Sample *s, char *buf,
					     size_t size)
{
	size_t i, len = 0;

	assert_int_equal(s->n_value, prof->n_sample_type);
	for (i = 0; i < s->n_location_id; i++)
		len += snprintf(buf + len, size - len, "%s%s", i ? "|" : "",
				loc_name(prof, s->location_id[i]));
	for (i = 0; i < s->n_value; i++)
		len += snprintf(buf + len, size - len, "%s%lld", i ? "/" : " ",
				(long long)s->value[i]);
	for (i = 0; i < s->n_label; i++) {
		const Perftools__Profiles__Label *l = s->label[i];

		if (l->str)
			len += snprintf(buf + len, size - len, " %s=%s", str(prof, l->key),
					str(prof, l->str));
		else
			len += snprintf(buf + len, size - len, " %s=%lld", str(prof, l->key),
					(long long)l->num);
	}
}

#endif /* FSP_RENDER_HELPERS_H */
