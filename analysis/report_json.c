// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The JSON profile (docs/profile-format.md), streamed, and its atomic file writer. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <locale.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jsonw.h"
#include "report.h"
#include "report_util.h"

#define PROFILE_FORMAT_VERSION 1

static void json_kv_string(struct jsonw *w, const char *k, const char *v)
{
	jsonw__key(w, k);
	jsonw__string(w, v);
}

static void json_kv_u64(struct jsonw *w, const char *k, uint64_t v)
{
	jsonw__key(w, k);
	jsonw__u64(w, v);
}

static void json_kv_double(struct jsonw *w, const char *k, double v)
{
	jsonw__key(w, k);
	jsonw__double(w, v);
}

static void json_meta(struct jsonw *w, const struct profile *p, uint64_t period)
{
	const struct profile_meta *m = profile__meta(p);

	json_kv_u64(w, "version", PROFILE_FORMAT_VERSION);
	json_kv_string(w, "tool", "fsp-bpf");
	json_kv_string(w, "tool_version", m->tool_version ? m->tool_version : FSP_VERSION);
	json_kv_string(w, "target", m->target);
	json_kv_string(w, "command_line", m->command_line);
	json_kv_string(w, "host", m->host);
	json_kv_string(w, "kernel", m->kernel);
	json_kv_double(w, "start_time", m->start_time);
	json_kv_double(w, "end_time", m->end_time);
	json_kv_double(w, "duration_s", m->duration_s);
	json_kv_u64(w, "frequency_hz", m->frequency_hz);
	json_kv_u64(w, "period_ns", period);
}

static void json_features(struct jsonw *w, const struct attrib *a, uint64_t period)
{
	uint64_t total = attrib__total_samples(a);
	const struct attrib_feature *f;
	size_t i, j;

	jsonw__key(w, "features");
	jsonw__begin_array(w, false);
	for (i = 0; i < attrib__nr_features(a); i++) {
		f = attrib__feature(a, i);
		jsonw__begin_object(w, false);
		json_kv_string(w, "name", f->name);
		json_kv_u64(w, "samples", f->samples);
		json_kv_double(w, "time_ms", report_ms(f->samples, period));
		json_kv_double(w, "pct", report_pct(f->samples, total));
		jsonw__key(w, "instances");
		jsonw__begin_array(w, false);
		for (j = 0; j < f->nr_instances; j++) {
			jsonw__begin_object(w, true);
			json_kv_string(w, "name", f->instances[j].name);
			json_kv_u64(w, "samples", f->instances[j].samples);
			json_kv_double(w, "time_ms", report_ms(f->instances[j].samples, period));
			json_kv_double(w, "pct", report_pct(f->instances[j].samples, total));
			jsonw__end_object(w);
		}
		jsonw__end_array(w);
		jsonw__end_object(w);
	}
	jsonw__end_array(w);
}

static void json_threads(struct jsonw *w, const struct profile *p, uint64_t period)
{
	struct profile_thread t;
	size_t i;

	jsonw__key(w, "threads");
	jsonw__begin_array(w, false);
	for (i = 0; i < profile__nr_threads(p); i++) {
		if (profile__thread(p, i, &t))
			continue;
		jsonw__begin_object(w, true);
		json_kv_u64(w, "pid", t.pid);
		json_kv_u64(w, "tid", t.tid);
		json_kv_string(w, "comm", t.comm);
		json_kv_u64(w, "samples", t.samples);
		json_kv_double(w, "time_ms", report_ms(t.samples, period));
		jsonw__end_object(w);
	}
	jsonw__end_array(w);
}

static void json_stacks(struct jsonw *w, const struct profile *p)
{
	const struct profile_frame *fr;
	struct profile_stack st;
	size_t i, j;

	jsonw__key(w, "stacks");
	jsonw__begin_array(w, false);
	for (i = 0; i < profile__nr_stacks(p); i++) {
		if (profile__stack(p, i, &st))
			continue;
		jsonw__begin_object(w, true);
		json_kv_u64(w, "id", i);
		json_kv_u64(w, "pid", st.pid);
		jsonw__key(w, "frames");
		jsonw__begin_array(w, true);
		for (j = 0; j < st.depth; j++) {
			fr = &st.frames[j];
			jsonw__begin_object(w, true);
			json_kv_string(w, "kind", fr->kind == PROFILE_MARK ? "mark" : "antimark");
			json_kv_string(w, "feature", fr->feature);
			json_kv_string(w, "instance", fr->instance);
			json_kv_u64(w, "payload", fr->payload);
			jsonw__end_object(w);
		}
		jsonw__end_array(w);
		jsonw__end_object(w);
	}
	jsonw__end_array(w);
}

static void json_samples(struct jsonw *w, const struct profile *p)
{
	struct profile_sample s;
	size_t i;

	jsonw__key(w, "samples");
	jsonw__begin_array(w, false);
	for (i = 0; i < profile__nr_samples(p); i++) {
		if (profile__sample(p, i, &s))
			continue;
		jsonw__begin_object(w, true);
		json_kv_u64(w, "pid", s.pid);
		json_kv_u64(w, "tid", s.tid);
		jsonw__key(w, "stack");
		if (s.stack == PROFILE_NO_STACK)
			jsonw__null(w);
		else
			jsonw__u64(w, s.stack);
		json_kv_u64(w, "count", s.count);
		jsonw__end_object(w);
	}
	jsonw__end_array(w);
}

static int json_write(FILE *out, const struct profile *p, const struct attrib *a)
{
	uint64_t period = report_period_ns(profile__meta(p));
	struct jsonw w;
	size_t i;

	jsonw__init(&w, out);
	flockfile(out);
	jsonw__begin_object(&w, false);
	json_meta(&w, p, period);

	jsonw__key(&w, "pids");
	jsonw__begin_array(&w, true);
	for (i = 0; i < profile__nr_pids(p); i++)
		jsonw__u64(&w, profile__pid(p, i));
	jsonw__end_array(&w);

	json_kv_u64(&w, "total_samples", profile__total_samples(p));
	json_kv_double(&w, "total_ms", report_ms(profile__total_samples(p), period));
	json_kv_u64(&w, "attributed_samples", attrib__total_samples(a));
	json_kv_u64(&w, "uncharged_samples", attrib__uncharged_samples(a));
	json_features(&w, a, period);
	json_threads(&w, p, period);
	json_stacks(&w, p);
	json_samples(&w, p);

	jsonw__key(&w, "diagnostics");
	jsonw__begin_object(&w, false);
	for (i = 0; i < DIAG__COUNT; i++)
		json_kv_u64(&w, profile_diag__name(i), profile__diag(p, i));
	jsonw__end_object(&w);

	jsonw__end_object(&w);
	funlockfile(out);
	return jsonw__finish(&w);
}

int report__json(FILE *out, const struct profile *p, const struct attrib *a)
{
	struct attrib *own = NULL;
	locale_t c_loc, old_loc;
	int err;

	if (!out || !p)
		return -EINVAL;
	if (!a) {
		own = attrib__compute(p, NULL);
		if (!own)
			return -ENOMEM;
		a = own;
	}
	/* Numbers in JSON use '.', whatever the process's LC_NUMERIC. */
	c_loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
	if (!c_loc) {
		err = -ENOMEM;
		goto cleanup;
	}
	old_loc = uselocale(c_loc);
	errno = 0;
	err = json_write(out, p, a);
	uselocale(old_loc);
	freelocale(c_loc);
	if (err)
		goto cleanup;
	if (fflush(out) || ferror(out)) {
		err = errno ? -errno : -EIO;
		goto cleanup;
	}
cleanup:
	attrib__free(own);
	return err;
}

/* Splits path into its directory ("." when none) and base name. */
static int split_path(const char *path, char **dir, const char **base)
{
	const char *slash = strrchr(path, '/');

	*base = slash ? slash + 1 : path;
	if (!**base)
		return -EISDIR;
	if (!slash)
		*dir = strdup(".");
	else if (slash == path)
		*dir = strdup("/");
	else
		*dir = strndup(path, slash - path);
	return *dir ? 0 : -ENOMEM;
}

int report__json_file(const char *path, const struct profile *p, const struct attrib *a)
{
	char *dir = NULL, *tmp = NULL;
	bool tmp_exists = false;
	const char *base;
	struct stat sb;
	FILE *f = NULL;
	int fd = -1, dfd, err;
	mode_t mode = 0644;

	if (!path || !p)
		return -EINVAL;
	if (!strcmp(path, "-"))
		return report__json(stdout, p, a);

	err = split_path(path, &dir, &base);
	if (err)
		goto cleanup;
	if (asprintf(&tmp, "%s/.%s.XXXXXX", dir, base) < 0) {
		tmp = NULL;
		err = -ENOMEM;
		goto cleanup;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = -errno;
		goto cleanup;
	}
	tmp_exists = true;
	/* mkstemp makes 0600: keep the mode of the file replaced, else 0644. */
	if (!stat(path, &sb) && S_ISREG(sb.st_mode))
		mode = sb.st_mode & 07777;
	if (fchmod(fd, mode)) {
		err = -errno;
		goto cleanup;
	}
	f = fdopen(fd, "w");
	if (!f) {
		err = -errno;
		goto cleanup;
	}
	fd = -1; /* owned by f */
	err = report__json(f, p, a);
	if (err)
		goto cleanup;
	if (fsync(fileno(f))) {
		err = -errno;
		goto cleanup;
	}
	err = fclose(f) ? -errno : 0;
	f = NULL;
	if (err)
		goto cleanup;
	if (rename(tmp, path)) {
		err = -errno;
		goto cleanup;
	}
	tmp_exists = false;
	/* Make the rename itself durable; best effort. */
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
cleanup:
	if (f)
		fclose(f);
	if (fd >= 0)
		close(fd);
	if (tmp_exists)
		unlink(tmp);
	free(tmp);
	free(dir);
	return err;
}
