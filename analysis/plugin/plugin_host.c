// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The host's function table (fsp-plugin.h): the profile's accessors over
 * the model, zero-copy (a model frame is a plug-in frame, checked below; a
 * copy where marks of other threads must look like marks), the charges of
 * each stack (charges.h), the escapes of text and DOT labels, and the JSON
 * writer that keeps a plug-in's output valid JSON whatever calls it makes.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_out.h"
#include "plugin_int.h"
#include "report_view.h"
#include "escape.h"
#include "util.h"

/* Samples and stacks hand the model's frames out as they are (but for
 * PROFILE_CHARGED frames, plugin_profile__frames). */
_Static_assert(sizeof(struct fsp_plugin_frame) == sizeof(struct profile_frame), "frame size");
_Static_assert(offsetof(struct fsp_plugin_frame, kind) == offsetof(struct profile_frame, kind),
	       "frame kind");
_Static_assert(offsetof(struct fsp_plugin_frame, feature) ==
		       offsetof(struct profile_frame, feature),
	       "frame feature");
_Static_assert(offsetof(struct fsp_plugin_frame, instance) ==
		       offsetof(struct profile_frame, instance),
	       "frame instance");
_Static_assert(offsetof(struct fsp_plugin_frame, payload) ==
		       offsetof(struct profile_frame, payload),
	       "frame payload");
_Static_assert((int)FSP_PLUGIN_MARK == (int)PROFILE_MARK &&
		       (int)FSP_PLUGIN_ANTIMARK == (int)PROFILE_ANTIMARK,
	       "frame kinds");

#define PKEY(src, pid) ((uint64_t)(src) << 32 | (pid))

/* The frames plug-ins see, when p has marks of other threads: those as
 * marks (fsp-plugin.h). Nothing to do (pp->frames NULL) when it has none. */
static int plugin_profile__frames(struct fsp_plugin_profile *pp)
{
	size_t n = profile__nr_stacks(pp->p), total = 0, i, k;
	struct profile_stack st;
	bool charged = false;
	int err;

	for (i = 0; i < n; i++) {
		err = profile__stack(pp->p, i, &st);
		if (err)
			return err;
		for (k = 0; k < st.depth; k++)
			charged |= st.frames[k].kind == PROFILE_CHARGED;
		total += st.depth;
	}
	if (!charged)
		return 0;
	pp->frame_first = calloc(n + 1, sizeof(*pp->frame_first));
	pp->frames = calloc(total ? total : 1, sizeof(*pp->frames));
	if (!pp->frame_first || !pp->frames)
		return -ENOMEM;
	for (i = 0, total = 0; i < n; i++) {
		err = profile__stack(pp->p, i, &st);
		if (err)
			return err;
		pp->frame_first[i] = total;
		for (k = 0; k < st.depth; k++, total++) {
			memcpy(&pp->frames[total], &st.frames[k], sizeof(pp->frames[total]));
			if (st.frames[k].kind == PROFILE_CHARGED)
				pp->frames[total].kind = FSP_PLUGIN_MARK;
		}
	}
	pp->frame_first[n] = total;
	return 0;
}

/* The charges of p's stacks (charges.h), and as plug-ins see them. */
static int plugin_profile__charges(struct fsp_plugin_profile *pp)
{
	const struct charges *ch = &pp->charges;
	struct profile_stack st;
	size_t n;
	int err = charges__init(&pp->charges, pp->p);

	if (err)
		return err;
	n = ch->first[ch->nr_stacks];
	pp->pcharges = calloc(n ? n : 1, sizeof(*pp->pcharges));
	if (!pp->pcharges)
		return -ENOMEM;
	for (size_t i = 0; i < ch->nr_stacks; i++) {
		err = profile__stack(pp->p, i, &st);
		if (err)
			return err;
		for (size_t k = ch->first[i]; k < ch->first[i + 1]; k++) {
			const struct charge *c = &ch->charges[k];

			pp->pcharges[k] = (struct fsp_plugin_charge){
				.feature = c->feature,
				.instance = st.frames[c->frame].instance,
				.frame = c->frame,
				.why = c->why == CHARGE_OTHER_THREAD
					       ? FSP_PLUGIN_CHARGE_OTHER_THREAD
					       : FSP_PLUGIN_CHARGE_MARK,
			};
		}
	}
	return 0;
}

int plugin_profile__init(struct fsp_plugin_profile *pp, const struct profile *p)
{
	int err;

	memset(pp, 0, sizeof(*pp));
	pp->p = p;
	pp->threads = (struct hashmap)HASHMAP_INIT;
	if (!p)
		return 0;
	err = plugin_profile__frames(pp);
	if (!err)
		err = plugin_profile__charges(pp);
	if (err)
		plugin_profile__fini(pp);
	return err;
}

void plugin_profile__fini(struct fsp_plugin_profile *pp)
{
	if (!pp)
		return;
	hashmap__fini(&pp->threads);
	free(pp->frames);
	free(pp->frame_first);
	charges__fini(&pp->charges);
	free(pp->pcharges);
	pp->frames = NULL;
	pp->frame_first = NULL;
	pp->pcharges = NULL;
}

/* ---- the profile ---- */

static void host_info(const struct fsp_plugin_profile *pp, struct fsp_plugin_info *out)
{
	const struct profile_meta *m = profile__meta(pp->p);

	memset(out, 0, sizeof(*out));
	out->period_ns = profile_meta__period_ns(m);
	out->total_samples = profile__total_samples(pp->p);
	out->total_offcpu_ns = profile__total_offcpu_ns(pp->p);
	out->nr_stacks = profile__nr_stacks(pp->p);
	out->nr_processes = profile__nr_pids(pp->p);
	out->nr_sources = profile__nr_sources(pp->p);
}

/* The frames of stack i (the model's: frames) as plug-ins see them. */
static const struct fsp_plugin_frame *plugin_frames(const struct fsp_plugin_profile *pp, size_t i,
						    const struct profile_frame *frames)
{
	if (!frames)
		return NULL;
	if (pp->frames)
		return pp->frames + pp->frame_first[i];
	return (const struct fsp_plugin_frame *)frames;
}

static int host_stack(const struct fsp_plugin_profile *pp, size_t i, struct fsp_plugin_stack *out)
{
	struct profile_stack st;
	int err = profile__stack(pp->p, i, &st);

	if (err)
		return err;
	out->source = st.source;
	out->pid = st.pid;
	out->frames = plugin_frames(pp, i, st.frames);
	out->depth = st.depth;
	return 0;
}

static size_t host_nr_samples(const struct fsp_plugin_profile *pp)
{
	return profile__nr_samples(pp->p);
}

static int host_sample(const struct fsp_plugin_profile *pp, size_t i, struct fsp_plugin_sample *out)
{
	struct profile_sample s;
	int err = profile__sample(pp->p, i, &s);

	if (err)
		return err;
	out->source = s.source;
	out->pid = s.pid;
	out->tid = s.tid;
	out->count = s.count;
	out->offcpu_ns = s.offcpu_ns;
	out->stack = s.stack == PROFILE_NO_STACK ? FSP_PLUGIN_NO_STACK : s.stack;
	out->frames = s.stack == PROFILE_NO_STACK ? NULL : plugin_frames(pp, s.stack, s.frames);
	out->depth = s.depth;
	return 0;
}

static const struct fsp_plugin_charge *host_charges(const struct fsp_plugin_profile *pp, size_t i,
						    size_t *n)
{
	const struct charge *c;

	*n = 0;
	if (!pp->pcharges)
		return NULL;
	c = charges__of(&pp->charges, i, n);
	return c ? pp->pcharges + (c - pp->charges.charges) : NULL;
}

static size_t host_nr_events(const struct fsp_plugin_profile *pp)
{
	return profile__nr_events(pp->p);
}

static int host_event(const struct fsp_plugin_profile *pp, size_t i, struct fsp_plugin_events *out)
{
	struct profile_event e;
	int err = profile__event(pp->p, i, &e);

	if (err)
		return err;
	out->source = e.source;
	out->pid = e.pid;
	out->feature = e.feature;
	out->instance = e.instance;
	out->enters = e.stats->enters;
	out->leaves = e.stats->leaves;
	out->total_ns = e.stats->total_ns;
	out->max_ns = e.stats->max_ns;
	return 0;
}

static const char *host_thread_name(const struct fsp_plugin_profile *cpp, uint32_t source,
				    uint32_t pid, uint32_t tid)
{
	/* The handle is the host's own: the map is a cache built on first use. */
	struct fsp_plugin_profile *pp = (struct fsp_plugin_profile *)cpp;
	struct profile_thread t;
	uint64_t idx;

	if (!pp->threads_built) {
		pp->threads_built = true;
		for (size_t i = 0; i < profile__nr_threads(pp->p); i++)
			if (!profile__thread(pp->p, i, &t) &&
			    hashmap__find_or_insert(&pp->threads, PKEY(t.source, t.pid), t.tid, i,
						    NULL) < 0)
				break; /* out of memory: names unknown from here */
	}
	if (!hashmap__find(&pp->threads, PKEY(source, pid), tid, &idx) ||
	    profile__thread(pp->p, idx, &t))
		return "";
	return t.comm;
}

static void host_process_name(const struct fsp_plugin_profile *pp, uint32_t source, uint32_t pid,
			      char *buf, size_t size)
{
	if (buf && size)
		report_pid_name(pp->p, source, pid, buf, size);
}

static void host_error(const struct fsp_plugin_profile *cpp, const char *fmt, ...)
{
	struct fsp_plugin_profile *pp = (struct fsp_plugin_profile *)cpp;
	va_list ap;
	char *nl;

	if (pp->has_msg)
		return;
	va_start(ap, fmt);
	vsnprintf(pp->msg, sizeof(pp->msg), fmt, ap);
	va_end(ap);
	while ((nl = strchr(pp->msg, '\n'))) /* one line */
		*nl = ' ';
	pp->has_msg = true;
}

/* ---- text and DOT ---- */

/* The escaping of labels in human-readable output: the one rule of
 * analysis/common/escape.h. */
static size_t host_text_escape(char *buf, size_t size, const char *str)
{
	return escape__str(buf, size, str);
}

static void host_dot_escape(FILE *out, const char *s)
{
	char stackbuf[256], *buf = stackbuf;
	size_t len = host_text_escape(NULL, 0, s);

	/* escaped first (valid UTF-8, no control characters), then for DOT */
	if (len >= sizeof(stackbuf) && !(buf = malloc(len + 1)))
		buf = stackbuf; /* out of memory: the label is cut */
	host_text_escape(buf, buf == stackbuf ? sizeof(stackbuf) : len + 1, s);
	for (const char *c = buf; *c; c++) {
		if (*c == '"' || *c == '\\')
			fputc('\\', out);
		fputc(*c, out);
	}
	if (buf != stackbuf)
		free(buf);
}

/* ---- JSON ---- */

void plugin_json__init(struct fsp_plugin_json *j, struct json_out *w, struct fsp_plugin_profile *pp)
{
	memset(j, 0, sizeof(*j));
	j->w = w;
	j->pp = pp;
}

static void json_misuse(struct fsp_plugin_json *j, const char *what)
{
	if (!j->failed)
		host_error(j->pp, "invalid JSON output: %s", what);
	j->failed = true;
}

/* Before a value: the separator, and whether a value may come here. */
static bool json_value_ok(struct fsp_plugin_json *j)
{
	if (j->failed || j->w->err)
		return false;
	if (!j->depth) {
		if (j->done)
			json_misuse(j, "a second value after the top-level one");
		return !j->failed;
	}
	if (j->kind[j->depth - 1] == 'o') {
		if (!j->key_pending)
			json_misuse(j, "a value without a key in an object");
		j->key_pending = false;
		return !j->failed;
	}
	if (!j->first[j->depth - 1])
		json_out__puts(j->w, ",");
	j->first[j->depth - 1] = false;
	return true;
}

/* After a scalar or a closed container: the top-level value may be done. */
static void json_value_done(struct fsp_plugin_json *j)
{
	if (!j->depth)
		j->done = true;
}

static void json_begin(struct fsp_plugin_json *j, char kind)
{
	if (!json_value_ok(j))
		return;
	if (j->depth == PLUGIN_JSON_MAX_DEPTH) {
		json_misuse(j, "nested too deep");
		return;
	}
	j->kind[j->depth] = kind;
	j->first[j->depth] = true;
	j->depth++;
	json_out__puts(j->w, kind == 'o' ? "{" : "[");
}

static void json_end(struct fsp_plugin_json *j, char kind)
{
	if (j->failed || j->w->err)
		return;
	if (!j->depth || j->kind[j->depth - 1] != kind || j->key_pending) {
		json_misuse(j, kind == 'o' ? "an object closed that is not open"
					   : "an array closed that is not open");
		return;
	}
	j->depth--;
	json_out__puts(j->w, kind == 'o' ? "}" : "]");
	json_value_done(j);
}

static void host_json_object_begin(struct fsp_plugin_json *j)
{
	json_begin(j, 'o');
}

static void host_json_object_end(struct fsp_plugin_json *j)
{
	json_end(j, 'o');
}

static void host_json_array_begin(struct fsp_plugin_json *j)
{
	json_begin(j, 'a');
}

static void host_json_array_end(struct fsp_plugin_json *j)
{
	json_end(j, 'a');
}

static void host_json_key(struct fsp_plugin_json *j, const char *key)
{
	if (j->failed || j->w->err)
		return;
	if (!j->depth || j->kind[j->depth - 1] != 'o' || j->key_pending || !key) {
		json_misuse(j, "a key outside an object or without its value");
		return;
	}
	if (!j->first[j->depth - 1])
		json_out__puts(j->w, ",");
	j->first[j->depth - 1] = false;
	json_out__value(j->w, json_out__str(j->w, key));
	json_out__puts(j->w, ":");
	j->key_pending = true;
}

static void host_json_string(struct fsp_plugin_json *j, const char *s)
{
	if (!json_value_ok(j))
		return;
	json_out__value(j->w, s ? json_out__str(j->w, s) : NULL);
	json_value_done(j);
}

static void host_json_u64(struct fsp_plugin_json *j, uint64_t v)
{
	char buf[24];

	if (!json_value_ok(j))
		return;
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	json_out__puts(j->w, buf);
	json_value_done(j);
}

static void host_json_i64(struct fsp_plugin_json *j, int64_t v)
{
	char buf[24];

	if (!json_value_ok(j))
		return;
	snprintf(buf, sizeof(buf), "%lld", (long long)v);
	json_out__puts(j->w, buf);
	json_value_done(j);
}

static void host_json_real(struct fsp_plugin_json *j, double v)
{
	if (!json_value_ok(j))
		return;
	json_out__value(j->w, json_out__real(j->w, v));
	json_value_done(j);
}

static void host_json_bool(struct fsp_plugin_json *j, int v)
{
	if (!json_value_ok(j))
		return;
	json_out__puts(j->w, v ? "true" : "false");
	json_value_done(j);
}

static void host_json_null(struct fsp_plugin_json *j)
{
	if (!json_value_ok(j))
		return;
	json_out__puts(j->w, "null");
	json_value_done(j);
}

int plugin_json__finish(struct fsp_plugin_json *j)
{
	if (j->w->err)
		return j->w->err;
	if (!j->failed && (j->depth || !j->done))
		json_misuse(j, j->depth ? "an object or array left open" : "no value written");
	return j->failed ? -EINVAL : 0;
}

const struct fsp_plugin_host plugin_host = {
	.abi_version = FSP_PLUGIN_ABI_VERSION,
	.size = sizeof(struct fsp_plugin_host),
	.info = host_info,
	.stack = host_stack,
	.nr_samples = host_nr_samples,
	.sample = host_sample,
	.nr_events = host_nr_events,
	.event = host_event,
	.thread_name = host_thread_name,
	.process_name = host_process_name,
	.error = host_error,
	.text_escape = host_text_escape,
	.dot_escape = host_dot_escape,
	.json_object_begin = host_json_object_begin,
	.json_object_end = host_json_object_end,
	.json_array_begin = host_json_array_begin,
	.json_array_end = host_json_array_end,
	.json_key = host_json_key,
	.json_string = host_json_string,
	.json_u64 = host_json_u64,
	.json_i64 = host_json_i64,
	.json_real = host_json_real,
	.json_bool = host_json_bool,
	.json_null = host_json_null,
	.charges = host_charges,
};
