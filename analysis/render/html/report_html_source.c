// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The parts of the HTML report's data that the profile and the diff pages
 * share (report_html_int.h): the head, the source view's files, the plug-in
 * sections.
 *
 * Source files are named by instance labels, which the target chose: a
 * hostile target could name /etc/shadow:1 and have a report rendered by root
 * embed it. So a file is embedded only when every user could read it: a
 * regular file with S_IROTH, in directories every user may search (S_IXOTH,
 * checked on the way by pathwalk.h, links included): nothing a profiled
 * process could not read itself, whoever renders the report. The page says
 * why a file is not there.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hashmap.h"
#include "output.h"
#include "pathwalk.h"
#include "report_html_int.h"
#include "safeopen.h"
#include "strtab.h"
#include "util.h"

void html_data__head(struct json_out *w, const char *kind)
{
	json_out__member(w, "format", json_out__str(w, "fsp-bpf-html"));
	json_out__member(w, "version", json_out__u64(w, REPORT_HTML_DATA_VERSION));
	json_out__member(w, "kind", json_out__str(w, kind));
	json_out__member(w, "tool_version", json_out__str(w, FSP_VERSION));
}

bool html_source__file_of(const char *label, char *buf, size_t size)
{
	const char *colon = label ? strrchr(label, ':') : NULL;
	size_t len, digits;

	if (!colon || colon == label)
		return false;
	digits = strspn(colon + 1, "0123456789");
	if (!digits || digits > 9 || colon[1 + digits])
		return false;
	len = (size_t)(colon - label);
	if (len >= size)
		return false;
	memcpy(buf, label, len);
	buf[len] = '\0';
	return true;
}

/* What became of one file. */
struct src_file {
	char path[4096]; /* the file read, "" when none */
	char *text;
	size_t len;
	char error[5000];
};

/* Opens path when every user could: every directory on the way open to all
 * (pathwalk.h), a regular file (safeopen.h). The descriptor, 0 when it is
 * not there (*st unset), or -1 when it is there but not for every user
 * (f->error says why). */
static int src_open(struct src_file *f, const char *path, struct stat *st)
{
	struct pathwalk w;
	int err, fd = -ENOENT;

	err = pathwalk__resolve(path, PATHWALK_PUBLIC | PATHWALK_FOLLOW, &w);
	if (!err)
		fd = safeopen__read(w.dirfd, w.name, SAFEOPEN_NOFOLLOW, NULL, st);
	pathwalk__fini(&w);
	if (err == -EPERM) {
		snprintf(f->path, sizeof(f->path), "%s", path);
		snprintf(f->error, sizeof(f->error), "%s: %s: not embedded", path, w.why);
		return -1;
	}
	return fd < 0 ? 0 : fd;
}

/* Reads path when it may be embedded: 1 read (f->text), 0 not there (try
 * the next candidate), -1 there but not embedded (f->error says why). */
static int src_read(struct src_file *f, const char *path, size_t *budget)
{
	struct stat st;
	ssize_t n;
	int fd = src_open(f, path, &st);

	if (fd <= 0)
		return fd;
	snprintf(f->path, sizeof(f->path), "%s", path);
	if (!(st.st_mode & S_IROTH))
		snprintf(f->error, sizeof(f->error),
			 "%s is not readable by every user (mode %04o): not embedded", path,
			 (unsigned int)(st.st_mode & 07777));
	else if ((uint64_t)st.st_size > REPORT_HTML_MAX_SOURCE_FILE)
		snprintf(f->error, sizeof(f->error), "%s is larger than %u MiB: not embedded", path,
			 REPORT_HTML_MAX_SOURCE_FILE >> 20);
	else if ((uint64_t)st.st_size > *budget)
		snprintf(f->error, sizeof(f->error),
			 "not embedded: the report's %u MiB of source files are used up",
			 REPORT_HTML_MAX_SOURCES >> 20);
	else if (!(f->text = malloc((size_t)st.st_size + 1)))
		snprintf(f->error, sizeof(f->error), "out of memory");
	if (f->error[0]) {
		close(fd);
		return -1;
	}
	n = read(fd, f->text, (size_t)st.st_size);
	close(fd);
	if (n < 0 || memchr(f->text, '\0', (size_t)n)) {
		snprintf(f->error, sizeof(f->error), "%s: %s", path,
			 n < 0 ? strerror(errno) : "not a text file (it holds a NUL byte)");
		free(f->text);
		f->text = NULL;
		return -1;
	}
	f->text[n] = '\0';
	f->len = (size_t)n;
	*budget -= (size_t)n;
	return 1;
}

/* dir + sep + name into buf; 0 when it does not fit (no such candidate). */
static int src_try(struct src_file *f, const char *dir, const char *sep, const char *name,
		   size_t *budget)
{
	char cand[4096];
	int n = snprintf(cand, sizeof(cand), "%s%s%s", dir, sep, name);

	return n > 0 && (size_t)n < sizeof(cand) ? src_read(f, cand, budget) : 0;
}

/* The candidates for file: DIR/file (DIR + file when absolute) and
 * DIR/basename for each source dir, then file itself. */
static void src_find(struct src_file *f, const char *file, const struct report_html_opts *h,
		     size_t *budget)
{
	const char *base = strrchr(file, '/');
	size_t i;
	int r = 0;

	for (i = 0; h && i < h->nr_source_dirs && !r; i++) {
		r = src_try(f, h->source_dirs[i], file[0] == '/' ? "" : "/", file, budget);
		if (!r && base)
			r = src_try(f, h->source_dirs[i], "", base, budget);
	}
	if (!r)
		r = src_read(f, file, budget);
	if (!r)
		snprintf(f->error, sizeof(f->error), "%s: not found%s", file,
			 h && h->nr_source_dirs ? " (nor in the --source-dir directories)"
						: " (give --source-dir DIR)");
}

static void src_record(struct json_out *w, const char *file, const struct src_file *f)
{
	struct json_object *o = json_out__object(w);

	json_out__add(w, o, "file", json_out__str(w, file));
	json_out__add(w, o, "path", json_out__str(w, f->path[0] ? f->path : NULL));
	json_out__add(w, o, "text", json_out__str(w, f->text));
	json_out__add(w, o, "error", json_out__str(w, f->error[0] ? f->error : NULL));
	json_out__record(w, o, "    ");
}

int html_sources__write(struct json_out *w, const char *const *labels, size_t n,
			const struct report_html_opts *h)
{
	struct hashmap seen = HASHMAP_INIT;
	struct strtab *tab = strtab__new();
	size_t i, budget = REPORT_HTML_MAX_SOURCES, files = 0;
	char file[4096];
	const char *c;
	int r = 0;

	if (!tab)
		return -ENOMEM;
	json_out__begin_array(w, "sources");
	for (i = 0; i < n && !w->err && files < REPORT_HTML_MAX_SOURCE_FILES; i++) {
		if (!html_source__file_of(labels[i], file, sizeof(file)))
			continue;
		c = strtab__intern(tab, file);
		r = c ? hashmap__find_or_insert(&seen, (uintptr_t)c, 0, 0, NULL) : -ENOMEM;
		if (r < 0)
			break;
		if (r == 1)
			continue;
		struct src_file *f = calloc(1, sizeof(*f));

		if (!f) {
			r = -ENOMEM;
			break;
		}
		src_find(f, file, h, &budget);
		src_record(w, file, f);
		free(f->text);
		free(f);
		files++;
	}
	json_out__end_array(w);
	hashmap__fini(&seen);
	strtab__free(tab);
	return r < 0 ? r : 0;
}

static struct json_object *plugin_section(struct json_out *w, const struct report_html_section *s)
{
	struct json_object *o = json_out__object(w), *cols = NULL, *rows = NULL, *row;
	size_t i, j;

	json_out__add(w, o, "title", json_out__str(w, s->title));
	json_out__add(w, o, "text", json_out__str(w, s->text));
	if (s->nr_columns) {
		cols = json_out__array(w, s->nr_columns);
		for (j = 0; j < s->nr_columns; j++)
			json_out__append(w, cols, json_out__str(w, s->columns[j]));
		rows = json_out__array(w, s->nr_rows);
		for (i = 0; i < s->nr_rows && !w->err; i++) {
			row = json_out__array(w, s->nr_columns);
			for (j = 0; j < s->nr_columns; j++)
				json_out__append(w, row,
						 json_out__str(w, s->cells[i * s->nr_columns + j]));
			json_out__append(w, rows, row);
		}
	}
	json_out__add(w, o, "columns", cols);
	json_out__add(w, o, "rows", rows);
	return o;
}

void html_plugins__write(struct json_out *w, const struct report_html_opts *h)
{
	struct json_object *o, *secs;
	size_t i, j;

	json_out__begin_array(w, "plugins");
	for (i = 0; h && i < h->nr_plugins && !w->err; i++) {
		const struct report_html_plugin *pl = &h->plugins[i];

		o = json_out__object(w);
		json_out__add(w, o, "name", json_out__str(w, pl->name));
		secs = json_out__array(w, pl->nr_sections);
		for (j = 0; j < pl->nr_sections; j++)
			json_out__append(w, secs, plugin_section(w, &pl->sections[j]));
		json_out__add(w, o, "sections", secs);
		json_out__record(w, o, "    ");
	}
	json_out__end_array(w);
}
