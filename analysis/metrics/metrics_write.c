// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The exposition (metrics.h): the Prometheus text format 0.0.4 or
 * OpenMetrics 1.0.0, families in a fixed order, each family's series sorted
 * by their labels. Names follow Prometheus's rules: base units (seconds,
 * bytes), counters end in _total (in OpenMetrics the family's name is
 * without it), each family has its HELP and TYPE lines.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "metrics_int.h"
#include "utf8.h"

enum kind { COUNTER, GAUGE, HISTOGRAM, INFO };

struct writer {
	FILE *out;
	enum metrics_format f;
	const struct metrics *m;
	const struct metrics_info *info;
	size_t *order; /* live series, sorted */
	size_t n;
};

void metrics__fputs_label(const char *s, FILE *out)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), len;

	for (size_t i = 0; i < n; i += len) {
		len = utf8__seq(u + i, n - i);
		if (!len) {
			fputs("\xef\xbf\xbd", out); /* U+FFFD */
			len = 1;
		} else if (u[i] == '\\') {
			fputs("\\\\", out);
		} else if (u[i] == '"') {
			fputs("\\\"", out);
		} else if (u[i] == '\n') {
			fputs("\\n", out);
		} else {
			fwrite(u + i, 1, len, out);
		}
	}
}

/* HELP text: backslash and line feed escaped (and, in OpenMetrics, quotes). */
static void help_text(const struct writer *w, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", w->out);
		else if (*s == '\n')
			fputs("\\n", w->out);
		else if (*s == '"' && w->f == METRICS_OPENMETRICS)
			fputs("\\\"", w->out);
		else
			fputc(*s, w->out);
	}
}

static const char *const kind_names[] = {"counter", "gauge", "histogram", "info"};

/* HELP, TYPE (and UNIT) of a family; name without _total or _info. */
static void family(const struct writer *w, const char *name, enum kind k, const char *unit,
		   const char *help)
{
	bool om = w->f == METRICS_OPENMETRICS;
	const char *suffix = om ? "" : k == COUNTER ? "_total" : k == INFO ? "_info" : "";
	const char *type = !om && k == INFO ? "gauge" : kind_names[k];

	fprintf(w->out, "# HELP %s%s ", name, suffix);
	help_text(w, help);
	fprintf(w->out, "\n# TYPE %s%s %s\n", name, suffix, type);
	if (om && unit)
		fprintf(w->out, "# UNIT %s %s\n", name, unit);
}

static void seconds(FILE *out, uint64_t ns)
{
	fprintf(out, "%" PRIu64 ".%09" PRIu64, ns / 1000000000, ns % 1000000000);
}

/* ---- the series ---------------------------------------------------------------- */

static void labels(const struct writer *w, const struct metrics_row *r, const char *le)
{
	const struct metrics_owner *o = &w->m->owners[r->owner];
	const struct metrics_inst *n = &w->m->insts[r->inst];
	const char *sep = "";

	fputc('{', w->out);
	if (n->feature) {
		fputs("feature=\"", w->out);
		metrics__fputs_label(n->feature, w->out);
		fputs("\",feature_instance=\"", w->out);
		metrics__fputs_label(n->instance, w->out);
		fputc('"', w->out);
		sep = ",";
	}
	fprintf(w->out, "%sprocess=\"", sep);
	metrics__fputs_label(o->comm, w->out);
	fputc('"', w->out);
	if (w->m->o.by_pid) {
		if (o->pid == METRICS_PID_OTHER)
			fputs(",pid=\"" METRICS_OTHER "\"", w->out);
		else
			fprintf(w->out, ",pid=\"%" PRIu32 "\"", o->pid);
	}
	if (le)
		fprintf(w->out, ",le=\"%s\"", le);
	fputc('}', w->out);
}

static const struct metrics_row *row_at(const struct writer *w, size_t k)
{
	return &w->m->series.rows[w->order[k]];
}

static bool is_total(const struct writer *w, const struct metrics_row *r)
{
	return !w->m->insts[r->inst].feature;
}

/* What a family shows of a row: whether it has one, and its value. */
enum value { SAMPLES, CPU, OFFCPU, CALLS };

static bool has(const struct writer *w, const struct metrics_row *r, bool totals, enum value v)
{
	if (is_total(w, r) != totals)
		return false;
	return v != CALLS || r->v.events;
}

static void value(const struct writer *w, const struct metrics_row *r, enum value v)
{
	switch (v) {
	case SAMPLES:
		fprintf(w->out, "%" PRIu64, r->v.samples);
		break;
	case CPU: {
		unsigned __int128 ns = (unsigned __int128)r->v.samples * w->m->period_ns;

		seconds(w->out, ns > UINT64_MAX ? UINT64_MAX : (uint64_t)ns);
		break;
	}
	case OFFCPU:
		seconds(w->out, r->v.offcpu_ns);
		break;
	case CALLS:
		fprintf(w->out, "%" PRIu64, r->v.calls);
		break;
	}
}

static void counters(const struct writer *w, const char *name, const char *unit, const char *help,
		     bool totals, enum value v)
{
	bool any = false;

	for (size_t k = 0; k < w->n && !any; k++)
		any = has(w, row_at(w, k), totals, v);
	if (!any)
		return;
	family(w, name, COUNTER, unit, help);
	for (size_t k = 0; k < w->n; k++) {
		const struct metrics_row *r = row_at(w, k);

		if (!has(w, r, totals, v))
			continue;
		fprintf(w->out, "%s_total", name);
		labels(w, r, NULL);
		fputc(' ', w->out);
		value(w, r, v);
		fputc('\n', w->out);
	}
}

static void histograms(const struct writer *w)
{
	static const char name[] = "fsp_feature_call_duration_seconds";
	bool any = false;
	char le[32];

	for (size_t k = 0; k < w->n && !any; k++)
		any = has(w, row_at(w, k), false, CALLS) && row_at(w, k)->v.bucket &&
		      !row_at(w, k)->v.point;
	if (!any)
		return;
	family(w, name, HISTOGRAM, "seconds",
	       "Durations of the calls of a feature instance that were left (enter to leave, "
	       "less the feature's antimarks; the event view)");
	for (size_t k = 0; k < w->n; k++) {
		const struct metrics_row *r = row_at(w, k);
		uint64_t cum = 0;

		if (!has(w, r, false, CALLS) || !r->v.bucket || r->v.point)
			continue;
		for (int b = 0; b < METRICS_BUCKETS; b++) {
			uint64_t ns = UINT64_C(1) << (METRICS_LE0_LOG2 + 2 * b);

			cum += r->v.bucket[b];
			if (b == METRICS_BUCKETS - 1)
				snprintf(le, sizeof(le), "+Inf");
			else
				snprintf(le, sizeof(le), "%" PRIu64 ".%09" PRIu64, ns / 1000000000,
					 ns % 1000000000);
			fprintf(w->out, "%s_bucket", name);
			labels(w, r, le);
			fprintf(w->out, " %" PRIu64 "\n", cum);
		}
		fprintf(w->out, "%s_count", name);
		labels(w, r, NULL);
		fprintf(w->out, " %" PRIu64 "\n%s_sum", cum, name);
		labels(w, r, NULL);
		fputc(' ', w->out);
		seconds(w->out, r->v.total_ns);
		fputc('\n', w->out);
	}
}

/* ---- the session, its diagnostics, fsp-bpf itself --------------------------- */

static void gauge(const struct writer *w, const char *name, const char *unit, const char *help,
		  double v)
{
	family(w, name, GAUGE, unit, help);
	fprintf(w->out, "%s %.17g\n", name, v);
}

static void session(const struct writer *w)
{
	const struct metrics_info *i = w->info;

	family(w, "fsp_build", INFO, NULL,
	       "fsp-bpf's version and the kinds of marks the session has read (probe ABI v2, "
	       "v1, mapped)");
	fputs("fsp_build_info{version=\"", w->out);
	metrics__fputs_label(i->version ? i->version : "", w->out);
	fputs("\",marks=\"", w->out);
	metrics__fputs_label(i->marks ? i->marks : "", w->out);
	fputs("\"} 1\n", w->out);
	gauge(w, "fsp_session_start_time_seconds", "seconds",
	      "When the profiling session started, in seconds since the epoch", i->start_time_s);
	family(w, "fsp_sampling_period_seconds", GAUGE, "seconds",
	       "CPU time one sample stands for (1 / the sampling frequency)");
	fputs("fsp_sampling_period_seconds ", w->out);
	seconds(w->out, w->m->period_ns);
	fputc('\n', w->out);
	gauge(w, "fsp_targets", NULL, "Processes profiled now", (double)i->targets);
}

static void diagnostics(const struct writer *w)
{
	char name[96];

	for (int d = 0; d < DIAG__COUNT; d++) {
		snprintf(name, sizeof(name), "fsp_%s", profile_diag__name(d));
		family(w, name, COUNTER, NULL, profile_diag__describe(d));
		fprintf(w->out, "%s_total %" PRIu64 "\n", name, w->m->diag[d]);
	}
}

static void agent(const struct writer *w)
{
	const struct metrics_self *s = &w->info->self;

	gauge(w, "fsp_metrics_series", NULL,
	      "Label sets (feature, instance, process) with series of their own", (double)w->n);
	gauge(w, "fsp_metrics_folded", NULL,
	      "Keys (feature, instance, process) of the last update summed into an \"other\" "
	      "label by the cardinality bound",
	      (double)w->m->nr_folded);
	gauge(w, "fsp_agent_windows", NULL, "Profile windows (/debug/pprof/profile) under way",
	      (double)w->info->windows);
	family(w, "process_cpu_seconds", COUNTER, "seconds",
	       "CPU time fsp-bpf has used (user and system)");
	fprintf(w->out, "process_cpu_seconds_total %.17g\n", s->cpu_s);
	gauge(w, "process_resident_memory_bytes", "bytes", "fsp-bpf's resident memory",
	      (double)s->rss_bytes);
	gauge(w, "process_virtual_memory_bytes", "bytes", "fsp-bpf's virtual memory",
	      (double)s->vsize_bytes);
	gauge(w, "process_open_fds", NULL, "fsp-bpf's open file descriptors", (double)s->open_fds);
	gauge(w, "process_max_fds", NULL, "fsp-bpf's limit of open file descriptors",
	      (double)s->max_fds);
	gauge(w, "process_start_time_seconds", "seconds",
	      "When fsp-bpf started, in seconds since the epoch", s->start_time_s);
}

/* ---- order and entry point -------------------------------------------------------- */

static int strcmp0(const char *a, const char *b)
{
	if (!a || !b)
		return !b - !a;
	return strcmp(a, b);
}

static int cmp_series(const void *x, const void *y, void *ctx)
{
	const struct metrics *m = ctx;
	const struct metrics_row *a = &m->series.rows[*(const size_t *)x];
	const struct metrics_row *b = &m->series.rows[*(const size_t *)y];
	const struct metrics_inst *ia = &m->insts[a->inst], *ib = &m->insts[b->inst];
	const struct metrics_owner *oa = &m->owners[a->owner], *ob = &m->owners[b->owner];
	int c = strcmp0(ia->feature, ib->feature);

	if (!c)
		c = strcmp0(ia->instance, ib->instance);
	if (!c)
		c = strcmp(oa->comm, ob->comm);
	return c ? c : (oa->pid > ob->pid) - (oa->pid < ob->pid);
}

int metrics__write(const struct metrics *m, FILE *out, enum metrics_format f,
		   const struct metrics_info *info)
{
	struct writer w = {.out = out, .f = f, .m = m, .info = info};
	bool off = info->offcpu;

	w.order = calloc(m->series.n + 1, sizeof(*w.order));
	if (!w.order)
		return -ENOMEM;
	for (size_t i = 0; i < m->series.n; i++)
		if (!m->series.rows[i].gone)
			w.order[w.n++] = i;
	qsort_r(w.order, w.n, sizeof(*w.order), cmp_series, (void *)m);
	session(&w);
	counters(&w, "fsp_target_samples", NULL,
		 "Samples taken of the profiled processes: the denominator of feature shares", true,
		 SAMPLES);
	counters(&w, "fsp_target_cpu_seconds", "seconds",
		 "CPU time of the profiled processes (samples x sampling period)", true, CPU);
	if (off)
		counters(&w, "fsp_target_offcpu_seconds", "seconds",
			 "Time the profiled processes' threads spent off-CPU (--off-cpu)", true,
			 OFFCPU);
	counters(&w, "fsp_feature_samples", NULL,
		 "Samples charged to a feature instance (the attribution rule)", false, SAMPLES);
	counters(&w, "fsp_feature_cpu_seconds", "seconds",
		 "CPU time charged to a feature instance (samples x sampling period)", false, CPU);
	if (off)
		counters(&w, "fsp_feature_offcpu_seconds", "seconds",
			 "Off-CPU time charged to a feature instance (--off-cpu)", false, OFFCPU);
	counters(&w, "fsp_feature_calls", NULL,
		 "Calls of a feature instance (marks entered; a point event's hits; the event "
		 "view)",
		 false, CALLS);
	histograms(&w);
	diagnostics(&w);
	agent(&w);
	if (f == METRICS_OPENMETRICS)
		fputs("# EOF\n", out);
	free(w.order);
	return fflush(out) || ferror(out) ? -EIO : 0;
}

/* ---- content negotiation ------------------------------------------------------------ */

/* The q of one element of an Accept header ("type;param;q=0.5"), 1 without. */
static double element_q(const char *elem, size_t len)
{
	for (size_t i = 0; i + 2 < len; i++)
		if (elem[i] == ';') {
			size_t k = i + 1 + strspn(elem + i + 1, " ");

			if (k + 1 < len && (elem[k] == 'q' || elem[k] == 'Q') && elem[k + 1] == '=')
				return strtod(elem + k + 2, NULL);
		}
	return 1.0;
}

enum metrics_format metrics__negotiate(const char *accept)
{
	double om = 0, text = 0;

	for (const char *e = accept; e && *e;) {
		size_t len = strcspn(e, ","), skip = strspn(e, " ");
		double q = element_q(e, len);

		if (!strncasecmp(e + skip, "application/openmetrics-text", 28) && q > om)
			om = q;
		else if (!strncasecmp(e + skip, "text/plain", 10) && q > text)
			text = q;
		e = e[len] ? e + len + 1 : NULL;
	}
	return om > 0 && om >= text ? METRICS_OPENMETRICS : METRICS_TEXT;
}

const char *metrics__content_type(enum metrics_format f)
{
	return f == METRICS_OPENMETRICS
		       ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
		       : "text/plain; version=0.0.4; charset=utf-8";
}
