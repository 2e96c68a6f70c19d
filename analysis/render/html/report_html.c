// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The HTML report (report_html.h): the page template with the data put in
 * place of its marker, through a stream that escapes what could end the
 * <script type="application/json"> element the data is in; and the data of
 * a diff page (the data of a profile page: report_html_data.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "report_html_int.h"

/* Where the data goes in the template (analysis/render/html/page.html). */
#define PAGE_MARKER "@FSP_DATA@"

/*
 * In JSON, '<', '>' and '&' occur only inside strings, where \u003c, \u003e
 * and \u0026 stand for them: so the data can hold no "</script", "<!--" or
 * character reference, whatever its labels, and parses to the same values.
 */
static ssize_t esc_write(void *cookie, const char *buf, size_t n)
{
	FILE *out = cookie;
	size_t i, start = 0;
	const char *rep;

	for (i = 0; i < n; i++) {
		switch (buf[i]) {
		case '<':
			rep = "\\u003c";
			break;
		case '>':
			rep = "\\u003e";
			break;
		case '&':
			rep = "\\u0026";
			break;
		default:
			continue;
		}
		if (fwrite(buf + start, 1, i - start, out) != i - start || fputs(rep, out) < 0)
			return -1;
		start = i + 1;
	}
	if (fwrite(buf + start, 1, n - start, out) != n - start)
		return -1;
	return (ssize_t)n;
}

typedef int (*html_data_fn)(FILE *out, const void *arg, const struct report_opts *opts,
			    const struct report_html_opts *h);

/* The bytes at buf through the escaping stream into out. */
static int write_escaped(FILE *out, const char *buf, size_t len)
{
	static const cookie_io_functions_t esc_io = {.write = esc_write};
	FILE *esc = fopencookie(out, "w", esc_io);
	int err = 0;

	if (!esc)
		return -ENOMEM;
	errno = 0;
	if (fwrite(buf, 1, len, esc) != len)
		err = errno ? -errno : -EIO;
	if (fclose(esc) && !err)
		err = errno ? -errno : -EIO;
	return err;
}

/* The template up to the marker, the data (escaped), the rest. The data is
 * made first: a renderer that fails (--feature names nothing) writes nothing. */
static int html_page(FILE *out, html_data_fn data, const void *arg, const struct report_opts *opts,
		     const struct report_html_opts *h)
{
	size_t len, dlen = 0;
	const char *page = report_html__page(&len), *mark;
	char *dbuf = NULL;
	FILE *mem;
	int err;

	mark = page ? memmem(page, len, PAGE_MARKER, strlen(PAGE_MARKER)) : NULL;
	if (!mark)
		return -EINVAL; /* the build checks that the template has it */
	mem = open_memstream(&dbuf, &dlen);
	if (!mem)
		return -ENOMEM;
	err = data(mem, arg, opts, h);
	if (fclose(mem) && !err)
		err = -ENOMEM;
	if (!err && fwrite(page, 1, (size_t)(mark - page), out) != (size_t)(mark - page))
		err = errno ? -errno : -EIO;
	if (!err)
		err = write_escaped(out, dbuf, dlen);
	free(dbuf);
	if (err)
		return err;
	mark += strlen(PAGE_MARKER);
	fwrite(mark, 1, len - (size_t)(mark - page), out);
	return flush_status(out);
}

static int profile_data(FILE *out, const void *arg, const struct report_opts *opts,
			const struct report_html_opts *h)
{
	return report_html__data(out, arg, opts, h);
}

static int diff_data(FILE *out, const void *arg, const struct report_opts *opts,
		     const struct report_html_opts *h)
{
	(void)opts;
	return diff_html__data(out, arg, h);
}

int report__html(FILE *out, const struct profile *p, const struct report_opts *opts,
		 const struct report_html_opts *h)
{
	if (!out || !p)
		return -EINVAL;
	return html_page(out, profile_data, p, opts, h);
}

int diff__html(FILE *out, const struct diff *d, const struct report_html_opts *h)
{
	if (!out || !d)
		return -EINVAL;
	return html_page(out, diff_data, d, NULL, h);
}

/* ---- the data of a diff page ---- */

/* The names of the diff's instances, for the source view. */
static const char **diff_labels(const struct diff *d, size_t *n)
{
	const struct diff_feature *f;
	const char **labels;
	size_t i, j, nr = 0;

	for (i = 0; i < diff__nr_features(d); i++)
		nr += diff__feature(d, i)->nr_instances;
	labels = calloc(nr + 1, sizeof(*labels));
	if (!labels)
		return NULL;
	*n = 0;
	for (i = 0; i < diff__nr_features(d); i++) {
		f = diff__feature(d, i);
		for (j = 0; j < f->nr_instances; j++)
			labels[(*n)++] = f->instances[j].name;
	}
	return labels;
}

/*
 * The diff page's data: the head, "diff" (the document of diff__json, the
 * numbers of docs/diff-format.md as they are), the sources and plug-ins.
 */
int diff_html__data(FILE *out, const struct diff *d, const struct report_html_opts *h)
{
	const char **labels;
	struct json_out w;
	size_t n = 0;
	int err, werr;

	if (!out || !d)
		return -EINVAL;
	labels = diff_labels(d, &n);
	if (!labels)
		return -ENOMEM;
	err = json_out__begin(&w, out);
	if (err) {
		free(labels);
		return err;
	}
	json_out__puts(&w, "{");
	html_data__head(&w, "diff");
	json_out__puts(&w, ",\n  \"diff\": ");
	if (!w.err)
		w.err = diff__json(out, d);
	err = html_sources__write(&w, labels, n, h);
	html_plugins__write(&w, h);
	json_out__puts(&w, "\n}\n");
	werr = json_out__end(&w);
	free(labels);
	return err ? err : werr;
}
