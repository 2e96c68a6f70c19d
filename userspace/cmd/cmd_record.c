// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* fsp-bpf record: profile running processes or a command, report, save;
 * its command line is record_options.c. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/types.h>

#include "agent.h"
#include "caps.h"
#include "commands.h"
#include "funcfeat.h"
#include "launch.h"
#include "log.h"
#include "probemap_resolve.h"
#include "record_targets.h"
#include "profile_file.h"
#include "profiler.h"
#include "profile.h"
#include "profile_io.h"
#include "callsel.h"
#include "record_calls.h"
#include "record_signals.h"
#include "record_targets.h"
#include "render.h"
#include "report.h"
#include "session.h"
#include "record_options.h"

/* What was profiled, in words ("pid 42 (app)"): the profile's meta.target. */
#define DESC_LEN 512

static int set_meta(struct profile *p, struct session *s, const struct fsp_options *o,
		    const char *desc, const char *cmdline, const struct funcfeat *rules)
{
	char host[256] = "", marks[64], *ff = funcfeat__nr(rules) ? funcfeat__to_text(rules) : NULL;
	struct utsname u;
	struct profile_meta m = {
		.target = desc,
		.command_line = cmdline,
		.host = host,
		.tool_version = FSP_VERSION,
		.marks = session__marks(s, marks, sizeof(marks)),
		.frequency_hz = o->session.frequency_hz,
		.period_ns = session__period_ns(s),
		.event_trap_ns = session__trap_ns(s),
		.start_time = session__start_time(s),
		.end_time = session__end_time(s),
		.duration_s = session__duration(s),
		.function_features = ff,
	};
	int err;

	gethostname(host, sizeof(host) - 1);
	if (!uname(&u))
		m.kernel = u.release;
	err = funcfeat__nr(rules) && !ff ? -ENOMEM : profile__set_meta(p, &m);
	free(ff);
	return err;
}

/* FORMAT_OUT_RENDERING (formats.h: folded, pprof, html, dot): the rendering
 * of v to -o FILE or stdout, and the text report to stdout when it went to
 * a file (unless the profile went there: --json -). A signal may end it
 * (plug-ins). */
static int render_output(struct profile *p, const struct fsp_options *o, const struct fsp_view *v,
			 const char *saved)
{
	struct fsp_view text = *v;
	struct record_signals rs;
	int err;

	record_signals__report(&rs, false);
	err = render__profile(p, v, o->out_path);
	if (!err && o->out_path && strcmp(o->out_path, "-")) {
		log__info("wrote %s to %s", v->format->title, o->out_path);
		text.format = FSP_FMT_TEXT;
		if (!saved || strcmp(saved, "-"))
			err = render__profile(p, &text, NULL);
	}
	fflush(stdout);
	record_signals__done(&rs);
	return err;
}

/* The view of the report: o's, or every feature when --feature names none
 * of the profile (a typo must not cost the report of a long session:
 * *missing says so, the exit status is then an error). */
static struct fsp_view recorded_view(const struct profile *p, const struct fsp_options *o,
				     bool *missing)
{
	struct fsp_view v = o->view;

	*missing = v.ropts.feature && !report__feature_found(p, v.ropts.feature);
	if (*missing) {
		log__err("--feature %s names no feature of this profile: the report shows every "
			 "feature instead (check the name against them)",
			 v.ropts.feature);
		v.ropts.feature = NULL;
	}
	return v;
}

/* Saves the profile (-o or --json) and renders the view (to stdout, or to
 * -o with the formats whose -o is their rendering). A failed save still
 * shows the report. The file keeps the samples as recorded and the rules of
 * the function features; the report applies them, as report does. */
static int save_and_render(struct profile *p, const struct fsp_options *o,
			   const struct funcfeat *rules)
{
	const char *save = record_profile_dest(o);
	struct record_signals rs;
	int err = 0, rerr = 0;
	bool missing;
	struct fsp_view v;

	/* A failed save keeps the profile elsewhere and says where. */
	if (save)
		err = profile_file__save(save, p, NULL, 0);
	rerr = profile_file__apply_rules(p, rules);
	if (rerr)
		return err ? err : rerr;
	v = recorded_view(p, o, &missing);
	if (v.format->record_out == FORMAT_OUT_RENDERING) {
		rerr = render_output(p, o, &v, save);
	} else {
		/* Saved: a signal may end what follows (plug-ins). */
		record_signals__report(&rs, false);
		if (!save || strcmp(save, "-"))
			rerr = render__profile(p, &v, NULL);
		fflush(stdout);
		record_signals__done(&rs);
	}
	if (!rerr && missing)
		rerr = -ENOENT;
	return err ? err : rerr;
}

struct live_ctx {
	const struct fsp_options *o;
	const struct funcfeat *rules;
	const char *desc, *cmdline;
	bool tty;
	unsigned int n;
};

/* The live view (--interval): a snapshot of the session rendered like the
 * final report; on a terminal it replaces the previous screen, piped the
 * reports follow one another. */
static void live_report(struct session *s, void *arg)
{
	struct live_ctx *c = arg;
	struct profile *p = profile__new();
	struct record_signals rs;
	bool functions = funcfeat__nr(c->rules) > 0;
	int err = p ? 0 : -ENOMEM;

	/* function features are charged from the native stacks so far */
	if (!err)
		err = functions ? session__snapshot_stacks(s, p, true) : session__snapshot(s, p);
	if (!err)
		err = set_meta(p, s, c->o, c->desc, c->cmdline, c->rules);
	if (!err && functions)
		err = profile_file__apply_rules(p, NULL);
	if (err) {
		log__err("live view: cannot take a snapshot: %s", strerror(-err));
		profile__free(p);
		return;
	}
	if (c->tty)
		fputs("\033[H\033[2J", stdout);
	else if (c->n)
		putchar('\n');
	printf("--- live report %u at %.1f s (Ctrl-C ends the session with the final report)\n",
	       ++c->n, session__duration(s));
	record_signals__report(&rs, true);
	render__profile(p, &c->o->view, NULL);
	fflush(stdout);
	record_signals__done(&rs);
	profile__free(p);
}

/* The metadata of the agent's snapshots: the recording's. */
static int agent_meta(struct profile *p, struct session *s, void *ctx)
{
	const struct live_ctx *c = ctx;

	return set_meta(p, s, c->o, c->desc, c->cmdline, c->rules);
}

/* --map: the probe maps and the features enabled in each (*sel NULL without). */
static int select_probemaps(const struct fsp_options *o, const struct launch *l,
			    struct probemap_selection **sel)
{
	struct probemap_selection_opts po = {
		.list = o->probemaps,
		.features = o->view.ropts.feature,
		.pids = o->pids,
		.nr_pids = o->nr_pids,
		.exe = l ? launch__path(l) : NULL,
		.system_wide = o->session.system_wide,
		.exact_events = o->session.v2_events,
	};
	int err = 0;

	*sel = o->probemaps ? probemap_selection__new(&po, &err) : NULL;
	return err;
}

/* How the launched command ended (status as from waitpid; -1: unknown). */
static void print_child_status(int status)
{
	if (status > 0 && WIFEXITED(status))
		log__info("the command exited with status %d", WEXITSTATUS(status));
	else if (status > 0 && WIFSIGNALED(status))
		log__info("the command was killed by signal %d (%s)", WTERMSIG(status),
			  strsignal(WTERMSIG(status)));
}

/* The end of a session: collects, saves and reports; run_err is how
 * session__run ended. Returns the run's error, else the report's. */
static int finish(struct session *s, const struct fsp_options *o, const struct live_ctx *c,
		  bool launched, bool mapped, int run_err)
{
	struct profile *p = profile__new();
	int err = p ? session__collect(s, p) : -ENOMEM;

	if (!err)
		err = set_meta(p, s, o, c->desc, c->cmdline, c->rules);
	if (err) {
		log__err("cannot collect the profile: %s", strerror(-err));
		goto out;
	}
	log__phase("collected the profile");
	/* A map error ends the session: what came before it is kept, if any. */
	if (run_err == -ENOMSG && !profile__total_samples(p))
		goto out;
	/* Without probes, function features are what can be charged. */
	if (!session__nr_sites(s) && launched && !mapped && !funcfeat__nr(c->rules))
		log__info("'%s' had no fsp probes in its executable or libraries; nothing could be "
			  "charged to features",
			  o->cmd[0]);
	else if (!session__nr_sites(s) && o->wait_probes && !run_err)
		log__info("no probes appeared in %s during the session (--wait-probes); nothing "
			  "could be charged to features",
			  c->desc);
	err = save_and_render(p, o, c->rules);
	if (!err && o->session.calls && o->view.format == FSP_FMT_TEXT)
		err = record_calls__report(s, p, o->calls_selector, &o->view, stdout);
	log__phase("reported");
	/* After the report: what was collected is shown. */
	if (!err && !run_err && mapped && (launched || o->wait_probes))
		err = record_targets__check_probemaps(s, o);
out:
	profile__free(p);
	return run_err ? run_err : err;
}

/* Function features are found on native stacks: the user stacks of --stacks,
 * implied (said once) when not asked for. Returns the stacks to add. */
static unsigned int stacks_for_functions(const struct funcfeat *rules, unsigned int stacks)
{
	if (!funcfeat__nr(rules) || (stacks & SESSION_STACKS_USER))
		return 0;
	log__info("function features are found on native stacks: recording with --stacks%s",
		  stacks & SESSION_STACKS_KERNEL ? "=all" : "");
	return SESSION_STACKS_USER;
}

/* How the session ran: 0 or its error, reported. */
static int run(struct session *s, const struct fsp_options *o, const char *desc)
{
	int err = session__run(s);

	if (err == -ETIMEDOUT)
		log__err("no probes appeared in %s within %g s (--wait-probes=%g): check the PID, "
			 "or wait longer",
			 desc, o->session.probe_timeout_s, o->session.probe_timeout_s);
	else if (err == -ENOMSG && !o->cmd)
		log__err("the session ended at the probe map error above (fix the map, or leave "
			 "the feature out with --feature)");
	else if (err == -ENOMSG)
		; /* the loop said it, and that it killed the command */
	else if (err)
		log__err("the session ended early: %s; reporting what was collected",
			 strerror(-err));
	return err;
}

static int record_session(const struct fsp_options *o, const char *cmdline)
{
	char desc[DESC_LEN] = "";
	struct live_ctx live = {.o = o, .desc = desc, .cmdline = cmdline};
	struct session_opts so;
	struct session *s = NULL;
	struct record_targets tg = {0};
	struct probemap_selection *sel = NULL;
	struct funcfeat *rules = NULL;
	struct agent *agent = NULL;
	int err;

	live.tty = isatty(STDOUT_FILENO);
	/* before profiling, not after: where the rendering goes is known */
	if (o->view.format->record_out == FORMAT_OUT_RENDERING) {
		err = render__to_terminal_check(o->view.format, o->out_path);
		if (err)
			return err;
	}
	if (o->nr_pids) {
		err = record_targets__check_pids(&tg, o);
		if (err)
			return err;
	}
	if (o->cmd) {
		tg.l = launch__new(o->cmd, &err);
		if (!tg.l) {
			log__err("cannot run '%s': %s", o->cmd[0], strerror(-err));
			goto cleanup;
		}
	}
	err = select_probemaps(o, tg.l, &sel);
	if (err)
		goto cleanup;
	rules = funcfeat__new();
	err = rules && !funcfeat__merge(rules, probemap_selection__rules(sel)) &&
			      !funcfeat__merge(rules, o->funcfeat)
		      ? 0
		      : -ENOMEM;
	if (err)
		goto cleanup;
	live.rules = rules;
	so = o->session;
	so.stacks |= stacks_for_functions(rules, so.stacks);
	so.funcfeat = rules;
	so.on_interval = so.interval_s > 0 ? live_report : NULL;
	so.interval_ctx = &live;
	so.sync_pid = tg.l ? launch__pid(tg.l) : 0;
	so.v1_marks = record_targets__v1_marks(&tg);
	so.probemaps = sel ? probemap_selection__probemaps(sel) : NULL;
	so.nr_probemaps = sel ? probemap_selection__nr(sel) : 0;
	so.comm_filter = o->view.ropts.comm;
	/* --listen: serving before the BPF programs load (a port in use fails
	 * at once); requests wait for the session's loop. */
	if (o->agent.listen) {
		struct agent_opts ao = o->agent;

		ao.offcpu = o->session.offcpu;
		agent = agent__new(&ao, agent_meta, &live, &err);
		if (!agent)
			goto cleanup;
		so.on_wake = agent__on_wake;
		so.wake_fd = agent__fd(agent);
		so.wake_ctx = agent;
	}
	s = session__new(&so, &err);
	if (!s)
		goto cleanup;
	err = record_targets__add(&tg, s, o, desc, sizeof(desc));
	if (err)
		goto cleanup;
	err = run(s, o, desc);
	agent__stop(agent);
	if (err != -ETIMEDOUT)
		err = finish(s, o, &live, tg.l, sel, err);
	if (tg.l)
		print_child_status(session__child_status(s));
cleanup:
	agent__free(agent);
	session__free(s);
	launch__free(tg.l);
	probemap_selection__free(sel);
	funcfeat__free(rules);
	return err;
}

/* What a high sampling frequency costs, said before it is paid. */
static void frequency_note(uint64_t hz)
{
	if (hz <= FSP_HIGH_FREQUENCY_HZ)
		return;
	log__info("-F %llu: every sample interrupts the CPU it lands on, so sampling above %d Hz "
		  "slows the target (measured in a 2-CPU VM: 1.14x at 10000 Hz, 1.3x at 20000, "
		  "2.5x at 50000, 30-60x at 100000, where sampling takes nearly all the CPU; "
		  "docs/benchmarks.md); %d Hz is usually enough",
		  (unsigned long long)hz, FSP_HIGH_FREQUENCY_HZ, FSP_DEFAULT_FREQUENCY_HZ);
}

static int record_run(const struct fsp_options *o, const char *cmdline)
{
	sigset_t stop, old;
	int err;

	err = caps__require(cmdline);
	for (int i = 0; i < o->nr_pids && !err; i++)
		err = caps__check_readable(o->pids[i]);
	if (err)
		return err;
	/* Not found out at the end of a long session: the output can be made. */
	if ((o->out_path && profile_file__check(o->out_path)) ||
	    (o->profile_path && profile_file__check(o->profile_path)))
		return -EINVAL;
	frequency_note(o->session.frequency_hz);
	/* From here Ctrl-C and SIGTERM end the session with its report, also
	 * when they come while the BPF programs load (0.1-0.4 s): held pending
	 * until the session's loop reads them. */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigprocmask(SIG_BLOCK, &stop, &old);
	err = record_session(o, cmdline);
	/* One more (a second Ctrl-C during the report) is not a kill. */
	while (sigtimedwait(&stop, NULL, &(struct timespec){0}) > 0)
		;
	sigprocmask(SIG_SETMASK, &old, NULL);
	return err;
}

/* Its command line: record_options.c. */
const struct fsp_command cmd_record = {"record", &record_argp, record_run, FORMAT_RECORD};
