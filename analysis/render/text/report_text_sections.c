// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The text report --by thread and --by process: a section each (report_text.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "output.h"
#include "report_text.h"

/* Who a section of --by thread or process is about. */
struct text_who {
	bool thread;
	uint32_t source;
	uint32_t pid;
	uint32_t nspid; /* 0: unknown or the profiler's namespace */
	uint32_t tid;
	const char *comm; /* "" when unknown */
	uint64_t samples;
	uint64_t offcpu_ns;
	size_t nr_threads; /* of a process */
};

static void text_section_header(struct text_ctx *c, const struct text_who *w)
{
	uint64_t all = profile__total_samples(c->p);
	bool in_ns = w->nspid && w->nspid != w->pid;
	char pid[320], ns[48] = "";

	report_pid_name(c->p, w->source, w->pid, pid, sizeof(pid));
	/* a process in another PID namespace (a container) has a PID there too */
	if (in_ns)
		snprintf(ns, sizeof(ns), "pid %u in its namespace", w->nspid);
	fputc('\n', c->out);
	/* the comm and a merged profile's host are the target's text: escaped */
	if (w->thread) {
		fprintf(c->out, "thread %u", w->tid);
		if (*w->comm) {
			fputs(" (", c->out);
			escape__fputs(w->comm, c->out);
			fputc(')', c->out);
		}
		fputs(" of pid ", c->out);
		escape__fputs(pid, c->out);
		if (in_ns)
			fprintf(c->out, " (%s)", ns);
	} else {
		fputs("process ", c->out);
		escape__fputs(pid, c->out);
		if (*w->comm || in_ns) {
			fputs(" (", c->out);
			escape__fputs(w->comm, c->out);
			fprintf(c->out, "%s%s)", *w->comm && in_ns ? ", " : "", ns);
		}
	}
	fprintf(c->out, ": %.1f ms, %.2f%% of running time (%" PRIu64 " %s",
		report_ms(w->samples, c->period), report_pct(w->samples, all), w->samples,
		plural(w->samples, "sample", "samples"));
	if (!w->thread)
		fprintf(c->out, ", %zu %s", w->nr_threads,
			plural(w->nr_threads, "thread", "threads"));
	fputc(')', c->out);
	if (c->offcpu)
		fprintf(c->out, "; off-CPU %.1f ms", ms_of_ns(w->offcpu_ns));
	fputc('\n', c->out);
}

/* The largest event time of a's features: what keeps a process's section
 * whose samples and off-CPU time alone fall under --min-pct. */
static uint64_t text_max_event_ns(const struct attrib *a)
{
	uint64_t max = 0, ns;
	size_t i;

	for (i = 0; i < attrib__nr_features(a); i++) {
		ns = event_ns(attrib__feature(a, i)->events);
		max = ns > max ? ns : max;
	}
	return max;
}

/* One section: its header line and its features. Sets *folded when it is
 * under --min-pct of running time (`all` samples), *skipped when --feature
 * was not charged in it (then nothing is written). */
static int text_section(struct text_ctx *c, const struct text_who *w, uint64_t all, bool *folded,
			bool *skipped)
{
	struct attrib_opts sel = {.pid = w->pid, .source = w->source};
	struct text_block b = {.indent = "  "};
	struct attrib *a;
	bool keep;
	int err;

	*folded = *skipped = false;
	keep = text_keep(c, all, w->samples, 0, w->offcpu_ns);
	/* Events are per process: only they can still keep it. */
	if (!keep && (w->thread || !c->events)) {
		*folded = true;
		return 0;
	}
	if (w->thread)
		sel.tid = w->tid;
	a = attrib__compute(c->p, &sel);
	if (!a)
		return -ENOMEM;
	if (!keep && !text_keep(c, all, w->samples, text_max_event_ns(a), w->offcpu_ns)) {
		*folded = true;
		attrib__free(a);
		return 0;
	}
	b.a = a;
	b.total = attrib__total_samples(a);
	b.what = w->thread ? "thread" : "process";
	b.of = w->thread ? "the thread's time" : "the process's time";
	b.events = c->events && !w->thread;
	*skipped = c->feature && !text_has_selected(c, a);
	err = 0;
	if (!*skipped) {
		text_section_header(c, w);
		err = text_block(c, &b);
	}
	attrib__free(a);
	return err;
}

/* Who thread t or process pr (the other NULL) is. */
static void text_who_of(struct text_who *w, const struct report_thread *t,
			const struct report_process *pr)
{
	memset(w, 0, sizeof(*w));
	w->thread = t != NULL;
	if (t) {
		w->source = t->source;
		w->pid = t->pid;
		w->nspid = t->nspid;
		w->tid = t->tid;
		w->comm = t->comm;
		w->samples = t->key.samples;
		w->offcpu_ns = t->offcpu_ns;
	} else {
		w->source = pr->source;
		w->pid = pr->pid;
		w->nspid = pr->nspid;
		w->comm = pr->comm;
		w->samples = pr->key.samples;
		w->offcpu_ns = pr->offcpu_ns;
		w->nr_threads = pr->nr_threads;
	}
}

/* What the sections of --by thread / process did not show. */
struct text_rest {
	size_t n; /* sections in all */
	size_t folded; /* under --min-pct of running time */
	uint64_t folded_samples, folded_off;
	size_t without; /* not charged to --feature */
};

/* The lines after the sections: those folded, those without --feature. */
static void text_sections_rest(struct text_ctx *c, bool thread, const struct text_rest *r)
{
	const char *one = thread ? "thread" : "process";
	const char *many = thread ? "threads" : "processes";

	/* "more" when some section was shown above the line. */
	if (r->folded) {
		fprintf(c->out, "\n... %zu %s%s below %.2f%% of running time (%.1f ms", r->folded,
			r->folded + r->without < r->n ? "more " : "", plural(r->folded, one, many),
			c->min_pct, report_ms(r->folded_samples, c->period));
		if (c->offcpu)
			fprintf(c->out, ", off-CPU %.1f ms", ms_of_ns(r->folded_off));
		fputs(")\n", c->out);
	}
	if (r->without) {
		fprintf(c->out, "%s... %zu %s%s not charged to ", r->folded ? "" : "\n", r->without,
			r->folded + r->without < r->n ? "more " : "",
			plural(r->without, one, many));
		text_names(c, true);
		fputc('\n', c->out);
	}
}

/* Whether the report has sections to show; if not, says why (the return
 * value of text_sections in *err). */
static bool text_sections_any(struct text_ctx *c, int *err)
{
	*err = 0;
	if (!attrib__nr_features(c->a)) {
		fputc('\n', c->out);
		text_empty(c);
		*err = c->feature ? -ENOENT : 0;
		return false;
	}
	if (c->feature && !c->nr_selected) {
		fputc('\n', c->out);
		*err = text_missing(c);
		return false;
	}
	if (c->feature && c->nr_selected < c->feat->nr) {
		fputc('\n', c->out);
		text_unknown(c);
	}
	return true;
}

/* --by thread or --by process: one section each, in the report's order,
 * those under --min-pct of running time folded into one line. */
int text_sections(struct text_ctx *c, bool thread)
{
	uint64_t all = profile__total_samples(c->p);
	struct report_process *procs = NULL;
	struct report_thread *threads = NULL;
	bool skipped = false, under = false;
	struct text_rest rest = {};
	struct text_who w;
	size_t i;
	int err;

	if (!text_sections_any(c, &err))
		return err;
	err = thread ? report_threads(c->p, c->order, &threads, &rest.n)
		     : report_processes(c->p, c->order, &procs, &rest.n);
	if (err)
		return err;
	for (i = 0; i < rest.n && !err; i++) {
		text_who_of(&w, thread ? &threads[i] : NULL, thread ? NULL : &procs[i]);
		err = text_section(c, &w, all, &under, &skipped);
		if (under) {
			rest.folded++;
			rest.folded_samples += w.samples;
			rest.folded_off = fsp_sat_add(rest.folded_off, w.offcpu_ns);
		}
		rest.without += skipped;
	}
	if (!err) {
		text_sections_rest(c, thread, &rest);
		text_note(c, c->events && !thread);
		err = text_wall(c);
	}
	free(threads);
	free(procs);
	return err;
}
