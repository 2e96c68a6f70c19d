// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* fsp-bpf record: profile running processes or a command, report, save. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "launch.h"
#include "log.h"
#include "probemap_select.h"
#include "profile.h"
#include "procscan.h"
#include "profile_io.h"
#include "render.h"
#include "session.h"

/* What was profiled, in words ("pid 42 (app)"): the profile's meta.target. */
#define DESC_LEN 512

/* Checks that pid names a live user process; returns its tgid or -errno. */
static pid_t check_pid(pid_t pid)
{
	char path[64], line[256], state = 0;
	pid_t tgid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	if (!f) {
		log__err("no such process: %d (check the PID with ps or pgrep)", pid);
		return -ESRCH;
	}
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "State:", 6))
			sscanf(line + 6, " %c", &state);
		else if (!strncmp(line, "Tgid:", 5))
			sscanf(line + 5, "%d", &tgid);
	}
	fclose(f);
	if (state == 'Z' || state == 'X') {
		log__err("process %d has already exited (it is a zombie)", pid);
		return -ESRCH;
	}
	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	if (access(path, F_OK) && errno == ENOENT) {
		log__err("%d is a kernel thread, not a user process with probes", pid);
		return -EINVAL;
	}
	if (tgid && tgid != pid) {
		log__info("%d is a thread of process %d; profiling process %d", pid, tgid, tgid);
		return tgid;
	}
	return pid;
}

/* Every probe map must fit some target: a map whose provider no target
 * carries is a mistake (wrong PID, wrong map), not an empty profile. */
static int check_probemaps(struct session *s, const struct fsp_options *o)
{
	size_t nr;
	const struct session_probemap *sm = session__probemaps(s, &nr);
	const char *prov = session__providers(s);

	for (size_t i = 0; i < nr; i++) {
		if (session__probemap_found(s, i))
			continue;
		log__err("map %s needs USDT provider %s, which %s does not carry (%s%s); see "
			 "fsp-bpf list -p PID",
			 sm[i].probemap->name, sm[i].probemap->provider,
			 o->cmd		  ? "the command"
			 : o->nr_pids > 1 ? "none of the processes"
					  : "the process",
			 prov[0] ? "USDT providers found: " : "it has no USDT probes", prov);
		return -ENOENT;
	}
	return 0;
}

static int add_pids(struct session *s, const struct fsp_options *o, char *desc, size_t size)
{
	int i, err, sites = 0, with_probes = 0, without[FSP_MAX_PIDS];
	size_t len = 0;

	for (i = 0; i < o->nr_pids; i++) {
		char comm[64] = "";
		pid_t pid = check_pid(o->pids[i]);

		if (pid < 0)
			return pid;
		procscan__comm(pid, comm, sizeof(comm));
		err = session__add_target(s, pid, NULL);
		if (err < 0 && kill(pid, 0) && errno == ESRCH)
			err = -ESRCH;
		if (err == -ESRCH) {
			log__err("process %d (%s) exited while fsp-bpf was attaching", pid, comm);
			return err;
		}
		if (err == -ENOMSG)
			return err; /* a map does not fit: reported */
		if (err < 0) {
			log__err("cannot attach to process %d (%s): %s", pid, comm, strerror(-err));
			return err;
		}
		without[i] = err == 0 ? pid : 0;
		with_probes += err > 0;
		sites += err;
		len += snprintf(desc + len, len < size ? size - len : 0, "%spid %d (%s)",
				i ? ", " : "", pid, comm);
	}
	err = check_probemaps(s, o);
	if (err)
		return err;
	if (!with_probes && !o->probemaps) {
		log__err("no fsp USDT probes in %s: its executable and loaded libraries have no "
			 "fsp:mark_enter/leave probes. Build the code with usdt/fsp.h (see "
			 "usdt/README.md), or check the PID",
			 o->nr_pids > 1 ? "any of the processes" : "the process");
		return -ENOENT;
	}
	for (i = 0; i < o->nr_pids; i++)
		if (without[i])
			log__info("process %d has no fsp probes loaded yet; sampling it anyway "
				  "(probes it loads later are attached)",
				  without[i]);
	log__info("profiling %s: %d probe sites, %llu Hz. Ctrl-C to stop.", desc, sites,
		  (unsigned long long)o->session.frequency_hz);
	return 0;
}

static int add_system_wide(struct session *s, const struct fsp_options *o, char *desc, size_t size)
{
	int n = session__add_system_wide(s);

	if (n == -ENOMSG)
		return n;
	if (n < 0) {
		log__err("cannot scan the processes: %s", strerror(-n));
		return n;
	}
	snprintf(desc, size, "system-wide%s%s", o->view.ropts.comm ? ", comm " : "",
		 o->view.ropts.comm ? o->view.ropts.comm : "");
	log__info("profiling system-wide: %d processes with %s so far, %u probe sites, "
		  "%llu Hz. Ctrl-C to stop.",
		  n, o->probemaps ? "fsp or mapped probes" : "fsp probes", session__nr_sites(s),
		  (unsigned long long)o->session.frequency_hz);
	return 0;
}

static int start_command(struct session *s, struct launch *l, const struct fsp_options *o,
			 char *desc, size_t size)
{
	size_t len = 0;
	int err;

	err = session__add_target(s, launch__pid(l), launch__path(l));
	if (err < 0) {
		log__err("cannot attach to %s: %s", launch__path(l), strerror(-err));
		return err;
	}
	for (int i = 0; o->cmd[i] && len < size; i++)
		len += snprintf(desc + len, size - len, "%s%s", i ? " " : "", o->cmd[i]);
	err = launch__start(l);
	if (err)
		log__err("cannot run '%s': %s", o->cmd[0], strerror(-err));
	return err;
}

static int set_meta(struct profile *p, struct session *s, const struct fsp_options *o,
		    const char *desc, const char *cmdline)
{
	char host[256] = "";
	struct utsname u;
	struct profile_meta m = {
		.target = desc,
		.command_line = cmdline,
		.host = host,
		.tool_version = FSP_VERSION,
		.frequency_hz = o->session.frequency_hz,
		.period_ns = session__period_ns(s),
		.start_time = session__start_time(s),
		.end_time = session__end_time(s),
		.duration_s = session__duration(s),
	};

	gethostname(host, sizeof(host) - 1);
	if (!uname(&u))
		m.kernel = u.release;
	return profile__set_meta(p, &m);
}

/* Saves the profile (-o) and renders the view to stdout (unless the profile
 * itself went to stdout). A failed save still shows the report. */
static int save_and_render(struct profile *p, const struct fsp_options *o)
{
	char msg[512];
	int err = 0, rerr = 0;

	if (o->out_path) {
		err = profile__save(o->out_path, p, msg, sizeof(msg));
		if (err)
			log__err("%s (the report follows)", msg);
	}
	if (!o->out_path || strcmp(o->out_path, "-"))
		rerr = render__profile(p, &o->view, NULL);
	fflush(stdout);
	return err ? err : rerr;
}

struct live_ctx {
	const struct fsp_options *o;
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
	int err = p ? 0 : -ENOMEM;

	if (!err)
		err = session__snapshot(s, p);
	if (!err)
		err = set_meta(p, s, c->o, c->desc, c->cmdline);
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
	render__profile(p, &c->o->view, NULL);
	fflush(stdout);
	profile__free(p);
}

int command__record(const struct fsp_options *o, const char *cmdline)
{
	char desc[DESC_LEN] = "";
	struct live_ctx live = {.o = o, .desc = desc, .cmdline = cmdline};
	struct session_opts so;
	struct session *s = NULL;
	struct launch *l = NULL;
	struct profile *p = NULL;
	struct probemap_selection *sel = NULL;
	int err, status;

	live.tty = isatty(STDOUT_FILENO);
	if (geteuid() != 0) {
		log__err("must run as root: it loads BPF programs and attaches uprobes to other "
			 "processes (try: sudo %s)",
			 cmdline);
		return -EPERM;
	}
	if (o->cmd) {
		l = launch__new(o->cmd, &err);
		if (!l) {
			log__err("cannot run '%s': %s", o->cmd[0], strerror(-err));
			goto cleanup;
		}
	}
	if (o->probemaps) {
		struct probemap_selection_opts po = {
			.list = o->probemaps,
			.features = o->view.ropts.feature,
			.pids = o->pids,
			.nr_pids = o->nr_pids,
			.exe = l ? launch__path(l) : NULL,
			.system_wide = o->session.system_wide,
		};

		sel = probemap_selection__new(&po, &err);
		if (!sel)
			goto cleanup;
	}
	so = o->session;
	so.on_interval = so.interval_s > 0 ? live_report : NULL;
	so.interval_ctx = &live;
	so.sync_pid = l ? launch__pid(l) : 0;
	so.probemaps = sel ? probemap_selection__probemaps(sel) : NULL;
	so.nr_probemaps = sel ? probemap_selection__nr(sel) : 0;
	so.comm_filter = o->view.ropts.comm;
	s = session__new(&so, &err);
	if (!s)
		goto cleanup;
	if (l)
		err = start_command(s, l, o, desc, sizeof(desc));
	else if (o->session.system_wide)
		err = add_system_wide(s, o, desc, sizeof(desc));
	else
		err = add_pids(s, o, desc, sizeof(desc));
	if (err)
		goto cleanup;
	err = session__run(s);
	if (err)
		log__err("the session ended early: %s; reporting what was collected",
			 strerror(-err));
	p = profile__new();
	if (!p) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = session__collect(s, p);
	if (!err)
		err = set_meta(p, s, o, desc, cmdline);
	if (err) {
		log__err("cannot collect the profile: %s", strerror(-err));
		goto cleanup;
	}
	if (l && !sel && !session__nr_sites(s))
		log__info("'%s' had no fsp probes in its executable or libraries; nothing could be "
			  "charged to features",
			  o->cmd[0]);
	err = save_and_render(p, o);
	if (!err && l && sel)
		err = check_probemaps(s, o); /* after the report: what was collected is shown */
	status = l ? session__child_status(s) : -1;
	if (status > 0 && WIFEXITED(status))
		log__info("the command exited with status %d", WEXITSTATUS(status));
	else if (status > 0 && WIFSIGNALED(status))
		log__info("the command was killed by signal %d (%s)", WTERMSIG(status),
			  strsignal(WTERMSIG(status)));
cleanup:
	profile__free(p);
	session__free(s);
	launch__free(l);
	probemap_selection__free(sel);
	return err;
}
