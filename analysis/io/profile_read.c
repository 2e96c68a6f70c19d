// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The profile file's reader (profile_io.h, docs/profile-format.md), the top
 * level: the members of the top-level object dispatched by name, the
 * metadata, sources, processes and threads, the checks that need the whole
 * file, and the entry points. The rows are read by profile_read_rows.c; the
 * input is streamed by json_in.c, so that a load takes the memory of the
 * model plus one record, whatever the file's size.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile_io.h"
#include "profile_read.h"
#include "util.h"

/* One metadata field into m; strings point into v unless copy. */
static int rd_meta_field(struct rd *rd, const struct json_where *w, enum meta_field f,
			 struct json_object *v, struct profile_meta *m, bool copy)
{
	const char *s, **dst;
	double d = 0;

	if (f <= MF_FUNCTION_FEATURES) {
		if (jv__str(&rd->js, w, top_field__name(f), v, true, &s))
			return -1;
		dst = meta_field__str(m, f);
		if (copy) {
			free((char *)*dst);
			*dst = NULL;
			if (s) {
				*dst = strdup(s);
				if (!*dst)
					return json_in__fail(&rd->js, "out of memory");
			}
		} else {
			*dst = s;
		}
		return 0;
	}
	if (f == MF_FREQUENCY)
		return jv__u64(&rd->js, w, top_field__name(f), v, &m->frequency_hz);
	if (f == MF_PERIOD)
		return jv__u64(&rd->js, w, top_field__name(f), v, &m->period_ns);
	if (f == MF_EVENT_TRAP)
		return jv__u64(&rd->js, w, top_field__name(f), v, &m->event_trap_ns);
	if (jv__real(&rd->js, w, top_field__name(f), v, &d))
		return -1;
	*meta_field__real(m, f) = d;
	return 0;
}

/* A diagnostics object into diag; unknown counters are ignored (a later
 * fsp-bpf may add some), missing ones are 0. */
static int rd_diag(struct rd *rd, const struct json_where *w, struct json_object *o, uint64_t *diag)
{
	char path[160];
	int d;

	if (!json_object_is_type(o, json_type_object)) {
		json_where__fmt(w, NULL, path, sizeof(path));
		return json_in__fail(&rd->js, "%s: expected an object, got %s", path, jv__type(o));
	}
	for (d = 0; d < DIAG__COUNT; d++)
		if (jf__u64(&rd->js, w, o, profile_diag__name(d), false, 0, &diag[d]))
			return -1;
	return 0;
}

/* Records later add_* calls for source src (which must be known by now). */
int rd__use_source(struct rd *rd, const struct json_where *w, uint32_t src)
{
	char path[160];

	if (!profile__use_source(rd->p, src))
		return 0;
	json_where__fmt(w, "source", path, sizeof(path));
	return json_in__fail(&rd->js, "%s: source %u is not in \"sources\" (%zu sources%s)", path,
			     src, profile__nr_sources(rd->p),
			     rd->seen & 1u << TF_SOURCES ? "" : " so far; they must come first");
}

int rd__add_err(struct rd *rd, const struct json_where *w, int err)
{
	char path[160];

	json_where__fmt(w, NULL, path, sizeof(path));
	return json_in__fail(&rd->js, "%s: %s", path, strerror(-err));
}

/* Iterates the array that must come next, calling fn for each element. */
static int rd_array(struct rd *rd, const char *sect, int (*fn)(struct rd *rd, size_t i))
{
	struct json_where w = {sect, NO_IDX, NULL, NO_IDX};
	size_t n = 0;
	int r;

	if (json_in__enter(&rd->js, '[', &w, NULL))
		return -1;
	while ((r = json_in__next(&rd->js, ']', &n)) > 0)
		if (fn(rd, n - 1))
			return -1;
	return r;
}

static int rd_source(struct rd *rd, size_t i)
{
	struct json_where w = {"sources", i, NULL, NO_IDX};
	struct json_where wd = {"sources", i, "diagnostics", NO_IDX};
	uint64_t diag[DIAG__COUNT] = {};
	struct profile_meta m = {};
	struct json_object *o, *v;
	bool present;
	int f, err = -1;

	if (json_in__record(&rd->js, &w, json_type_object, &o))
		return -1;
	for (f = 0; f < MF__COUNT; f++) {
		v = jf__get(o, top_field__name(f), &present);
		if (present && rd_meta_field(rd, &w, f, v, &m, false))
			goto cleanup;
	}
	v = jf__get(o, "diagnostics", &present);
	if (present && rd_diag(rd, &wd, v, diag))
		goto cleanup;
	err = profile__add_source(rd->p, &m, diag);
	if (err < 0) {
		rd__add_err(rd, &w, err);
		err = -1;
		goto cleanup;
	}
	err = 0;
cleanup:
	json_object_put(o);
	return err;
}

static int rd_pid(struct rd *rd, size_t i)
{
	struct json_where w = {"pids", i, NULL, NO_IDX};
	struct json_object *v;
	uint32_t pid;
	int err;

	if (json_in__value(&rd->js, "a pid", &v))
		return -1;
	err = jv__u32(&rd->js, &w, NULL, v, &pid);
	json_object_put(v);
	if (err)
		return -1;
	if (fsp_grow((void **)&rd->pids, &rd->cap_pids, rd->nr_pids + 1, sizeof(*rd->pids)))
		return json_in__fail(&rd->js, "out of memory");
	rd->pids[rd->nr_pids++] = pid;
	return 0;
}

/* v1 files list their processes in "pids" only: they are source 0's, added
 * before the first record that would register a process itself. */
int rd__add_pids(struct rd *rd)
{
	size_t i;
	int err;

	if (rd->pids_added || rd->seen & 1u << TF_PROCESSES)
		return 0;
	rd->pids_added = true;
	if (profile__use_source(rd->p, 0))
		return json_in__fail(&rd->js, "out of memory");
	for (i = 0; i < rd->nr_pids; i++) {
		err = profile__add_pid(rd->p, rd->pids[i]);
		if (err)
			return json_in__fail(&rd->js, "pids[%zu]: %s", i, strerror(-err));
	}
	return 0;
}

static int rd_process(struct rd *rd, size_t i)
{
	struct json_where w = {"processes", i, NULL, NO_IDX};
	struct json_object *o;
	uint32_t src, pid, nspid;
	int err = -1;

	if (json_in__record(&rd->js, &w, json_type_object, &o))
		return -1;
	if (jf__u32(&rd->js, &w, o, "source", false, &src) ||
	    jf__u32(&rd->js, &w, o, "pid", true, &pid) ||
	    jf__u32(&rd->js, &w, o, "nspid", false, &nspid) || rd__use_source(rd, &w, src))
		goto cleanup;
	err = profile__add_pid(rd->p, pid);
	if (!err && nspid)
		err = profile__set_process_nspid(rd->p, pid, nspid);
	if (err) {
		rd__add_err(rd, &w, err);
		err = -1;
	}
cleanup:
	json_object_put(o);
	return err;
}

static int rd_thread(struct rd *rd, size_t i)
{
	struct json_where w = {"threads", i, NULL, NO_IDX};
	struct json_object *o;
	uint32_t src, pid, tid;
	const char *comm;
	int err = -1;

	if (json_in__record(&rd->js, &w, json_type_object, &o))
		return -1;
	if (jf__u32(&rd->js, &w, o, "source", false, &src) ||
	    jf__u32(&rd->js, &w, o, "pid", true, &pid) ||
	    jf__u32(&rd->js, &w, o, "tid", true, &tid) ||
	    jf__str(&rd->js, &w, o, "comm", true, &comm) || rd__use_source(rd, &w, src))
		goto cleanup;
	/* "samples" and "time_ms" are derived: recomputed from "samples" */
	err = profile__add_thread(rd->p, pid, tid, comm);
	if (err) {
		rd__add_err(rd, &w, err);
		err = -1;
	}
cleanup:
	json_object_put(o);
	return err;
}

/* "stacks"; then the version 1 sample entries read before them are checked. */
static int rd_stacks(struct rd *rd)
{
	size_t i;

	if (rd__add_pids(rd) || rd_array(rd, "stacks", rd__stack))
		return -1;
	rd->stacks_done = true;
	for (i = 0; i < rd->nr_refs; i++)
		if (rd__check_ref(rd, &rd->refs[i]))
			return -1;
	free(rd->refs);
	rd->refs = NULL;
	rd->nr_refs = rd->cap_refs = 0;
	return 0;
}

/* The arrays of top-level field f: 0, -1, or 1 when f is not one. */
static int rd_section(struct rd *rd, int f)
{
	switch (f) {
	case TF_SOURCES:
		return rd_array(rd, "sources", rd_source);
	case TF_PIDS:
		return rd_array(rd, "pids", rd_pid);
	case TF_PROCESSES:
		return rd_array(rd, "processes", rd_process);
	case TF_THREADS:
		return rd__add_pids(rd) ? -1 : rd_array(rd, "threads", rd_thread);
	case TF_STRINGS:
		/* version 1 has none: an unknown field there */
		return rd->version < 2 ? json_in__skip(&rd->js)
				       : rd_array(rd, "strings", rd__string);
	case TF_STACKS:
		return rd_stacks(rd);
	case TF_SAMPLES:
		return rd_array(rd, "samples", rd__sample);
	case TF_EVENTS:
		return rd->version < 2 ? json_in__skip(&rd->js) : rd_array(rd, "events", rd__event);
	case TF_MODULES:
		/* versions 1 and 2 have no native stacks: unknown fields there */
		return rd->version < 3 ? json_in__skip(&rd->js)
				       : rd_array(rd, "modules", rd__module);
	case TF_LOCATIONS:
		return rd->version < 3 ? json_in__skip(&rd->js)
				       : rd_array(rd, "locations", rd__location);
	case TF_NATIVE_STACKS:
		return rd->version < 3 ? json_in__skip(&rd->js)
				       : rd_array(rd, "native_stacks", rd__native_stack);
	case TF_NATIVE_SAMPLES:
		return rd->version < 3 ? json_in__skip(&rd->js)
				       : rd_array(rd, "native_samples", rd__native_sample);
	case TF_CALLS:
		return rd->version < 4 ? json_in__skip(&rd->js) : rd__calls(rd);
	default:
		return 1;
	}
}

static int rd_version(struct rd *rd, struct json_object *v)
{
	if (!json_object_is_type(v, json_type_int))
		return json_in__fail(&rd->js, "%s\"version\" is %s, not an integer%s",
				     rd->seen & 1u << TF_TOOL ? "" : "not an fsp-bpf profile (",
				     jv__type(v), rd->seen & 1u << TF_TOOL ? "" : ")");
	/* int64: a uint64 beyond it reads as INT64_MAX, unsupported too */
	if (json_object_get_int64(v) < PROFILE_FORMAT_MIN_VERSION ||
	    json_object_get_int64(v) > PROFILE_FORMAT_VERSION)
		return json_in__fail(
			&rd->js, "unsupported format version %s (fsp-bpf reads versions %d to %d)",
			json_object_get_string(v), PROFILE_FORMAT_MIN_VERSION,
			PROFILE_FORMAT_VERSION);
	rd->version = (int)json_object_get_int64(v);
	return 0;
}

static int rd_tool(struct rd *rd, struct json_object *v)
{
	char buf[176];
	const char *s;

	if (!json_object_is_type(v, json_type_string))
		return json_in__fail(&rd->js, "not an fsp-bpf profile (\"tool\" is %s)",
				     jv__type(v));
	s = json_object_get_string(v);
	if (strcmp(s, "fsp-bpf") || strlen(s) != (size_t)json_object_get_string_len(v))
		return json_in__fail(&rd->js, "not an fsp-bpf profile (\"tool\" is \"%s\")",
				     json_in__msg_str(s, buf, sizeof(buf)));
	return 0;
}

/* Top-level field f that is a scalar or the diagnostics object: one json-c value. */
static int rd_scalar(struct rd *rd, int f)
{
	static const struct json_where top = {NULL, NO_IDX, NULL, NO_IDX};
	static const struct json_where wd = {"diagnostics", NO_IDX, NULL, NO_IDX};
	struct json_object *v = NULL;
	int r;

	if (json_in__value(&rd->js, "a value", &v))
		return -1;
	switch (f) {
	case TF_VERSION:
		r = rd_version(rd, v);
		break;
	case TF_TOOL:
		r = rd_tool(rd, v);
		break;
	case TF_TOTAL_SAMPLES:
		r = jv__u64(&rd->js, &top, "total_samples", v, &rd->total_samples);
		break;
	case TF_DIAGNOSTICS:
		r = rd_diag(rd, &wd, v, rd->diag);
		break;
	default: /* metadata */
		r = rd_meta_field(rd, &top, f, v, &rd->meta, true);
		break;
	}
	json_object_put(v);
	return r;
}

/* The value of top-level member name. */
static int rd_member(struct rd *rd, const char *name)
{
	int f = top_field__find(name), r;

	if (f == TF__COUNT) /* derived (features, totals) or unknown: ignored */
		return json_in__skip(&rd->js);
	if (rd->seen & 1u << f)
		return json_in__fail(&rd->js, "\"%s\" is given twice", name);
	rd->seen |= 1u << f;
	/* the layout of these depends on the version */
	if (((f >= TF_STRINGS && f <= TF_EVENTS) || (f >= TF_MODULES && f <= TF_NATIVE_SAMPLES)) &&
	    !rd->version)
		return json_in__fail(
			&rd->js, "\"%s\" comes before \"version\" (the version must come first)",
			name);
	r = rd_section(rd, f);
	return r <= 0 ? r : rd_scalar(rd, f);
}

/* The checks that need the whole file, then the metadata. */
static int rd_finish(struct rd *rd)
{
	int d, err;

	if (!(rd->seen & 1u << TF_TOOL))
		return json_in__fail(&rd->js, "not an fsp-bpf profile (no \"tool\": \"fsp-bpf\")");
	if (!(rd->seen & 1u << TF_VERSION))
		return json_in__fail(&rd->js,
				     "no \"version\": not a profile file fsp-bpf can read");
	for (size_t i = 0; i < rd->nr_refs; i++)
		if (rd__check_ref(rd, &rd->refs[i]))
			return -1;
	if (rd__add_pids(rd))
		return -1;
	if (rd->seen & 1u << TF_TOTAL_SAMPLES && rd->total_samples != rd->sum_count)
		return json_in__fail(&rd->js,
				     "corrupt: total_samples is %" PRIu64
				     " but the samples add up to %" PRIu64,
				     rd->total_samples, rd->sum_count);
	if (rd__native_finish(rd))
		return -1;
	err = profile__set_meta(rd->p, &rd->meta);
	if (err)
		return json_in__fail(&rd->js, "%s", strerror(-err));
	for (d = 0; d < DIAG__COUNT; d++)
		profile__set_diag(rd->p, d, rd->diag[d]);
	return profile__use_source(rd->p, 0) ? json_in__fail(&rd->js, "out of memory") : 0;
}

/* The whole input: one object, then nothing but white space. */
static int rd_document(struct rd *rd)
{
	struct json_object *v;
	char name[32];
	size_t n = 0;
	int c, r;

	r = json_in__peek(&rd->js, &c);
	if (r < 0)
		return -1;
	if (!r)
		return json_in__fail(&rd->js, "empty file");
	if (c != '{') {
		if (json_in__value(&rd->js, "the top-level value", &v))
			return -1;
		json_in__fail(&rd->js,
			      "not an fsp-bpf profile (the top-level value is %s, not an object)",
			      jv__type(v));
		json_object_put(v);
		return -1;
	}
	if (json_in__enter(&rd->js, '{', NULL, NULL))
		return -1;
	while ((r = json_in__next(&rd->js, '}', &n)) > 0) {
		if (json_in__key(&rd->js, name, sizeof(name)) || rd_member(rd, name))
			return -1;
	}
	if (r < 0)
		return -1;
	r = json_in__peek(&rd->js, &c);
	if (r < 0)
		return -1;
	if (r)
		return json_in__fail(&rd->js, "unexpected data after the profile at byte %llu",
				     json_in__off(&rd->js));
	return rd_finish(rd);
}

/* Reads the input set up in rd->js; frees everything but the profile. */
static struct profile *rd_run(struct rd *rd)
{
	struct profile *p = NULL;
	int i;

	rd->p = profile__new();
	rd->stab = strtab__new();
	if (!rd->p || !rd->stab)
		json_in__fail(&rd->js, "out of memory");
	else if (!rd_document(rd))
		p = rd->p;
	if (!p)
		profile__free(rd->p);
	for (i = 0; i <= MF_FUNCTION_FEATURES; i++)
		free((char *)*meta_field__str(&rd->meta, i));
	free(rd->pids);
	free(rd->refs);
	free(rd->frames);
	free(rd->fidx);
	free(rd->lines);
	free(rd->nlocs);
	free(rd->strs);
	strtab__free(rd->stab);
	json_in__fini(&rd->js);
	return p;
}

struct profile *profile__parse_json_opts(const char *buf, size_t len, const char *name,
					 const struct profile_read_opts *o, char *err,
					 size_t errlen)
{
	struct rd rd = {};

	if (err && errlen)
		err[0] = 0;
	json_in__init(&rd.js, name ? name : "(buffer)", err, errlen);
	if (o)
		json_in__set_sizes(&rd.js, o->chunk, o->window);
	if (!buf && len) {
		json_in__fail(&rd.js, "%s", strerror(EINVAL));
		return NULL;
	}
	if (len > PROFILE_IO_MAX_FILE) {
		json_in__fail(&rd.js, "file too large: %zu bytes, more than %llu (the limit)", len,
			      (unsigned long long)PROFILE_IO_MAX_FILE);
		return NULL;
	}
	json_in__set_buf(&rd.js, buf, len);
	return rd_run(&rd);
}

struct profile *profile__parse_json(const char *buf, size_t len, const char *name, char *err,
				    size_t errlen)
{
	return profile__parse_json_opts(buf, len, name, NULL, err, errlen);
}

/* The file at fd: checks, then rd_run. */
static struct profile *rd_load_fd(struct rd *rd, int fd)
{
	struct stat st;

	if (fstat(fd, &st)) {
		json_in__fail(&rd->js, "%s", strerror(errno));
		return NULL;
	}
	if (S_ISDIR(st.st_mode)) {
		json_in__fail(&rd->js, "%s", strerror(EISDIR));
		return NULL;
	}
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > PROFILE_IO_MAX_FILE) {
		json_in__fail(&rd->js, "file too large: %llu bytes, more than %llu (the limit)",
			      (unsigned long long)st.st_size,
			      (unsigned long long)PROFILE_IO_MAX_FILE);
		return NULL;
	}
	if (json_in__set_fd(&rd->js, fd))
		return NULL;
	return rd_run(rd);
}

struct profile *profile__read_fd(int fd, const char *name, const struct profile_read_opts *o,
				 char *err, size_t errlen)
{
	struct rd rd = {};
	struct profile *p;

	if (err && errlen)
		err[0] = 0;
	json_in__init(&rd.js, name ? name : "(file)", err, errlen);
	if (o)
		json_in__set_sizes(&rd.js, o->chunk, o->window);
	p = rd_load_fd(&rd, fd);
	json_in__fini(&rd.js);
	return p;
}

struct profile *profile__load(const char *path, char *err, size_t errlen)
{
	struct profile *p;
	int fd;

	if (err && errlen)
		err[0] = 0;
	if (!path) {
		fsp_set_err(err, errlen, "(null): %s", strerror(EINVAL));
		return NULL;
	}
	fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
	if (fd < 0) {
		fsp_set_err(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	p = profile__read_fd(fd, strcmp(path, "-") ? path : "stdin", NULL, err, errlen);
	if (fd != STDIN_FILENO)
		close(fd);
	return p;
}
