// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The targets of fsp-bpf record: -p's processes, checked before anything
 * loads, a launched command, -a; adding them to the session
 * (record_targets.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fsp_v2.h"
#include "launch.h"
#include "log.h"
#include "procscan.h"
#include "record_targets.h"

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

int record_targets__check_probemaps(struct session *s, const struct fsp_options *o)
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

int record_targets__check_pids(struct record_targets *tg, const struct fsp_options *o)
{
	struct pid_target *t = tg->t;

	tg->n = 0;
	for (int i = 0; i < o->nr_pids; i++) {
		pid_t pid = check_pid(o->pids[i]);
		bool dup = false;

		if (pid < 0)
			return pid;
		/* Two threads of one process, or a PID and its thread: one target. */
		for (int j = 0; j < tg->n && !dup; j++)
			dup = t[j].pid == pid;
		if (dup)
			continue;
		t[tg->n].pid = pid;
		t[tg->n].comm[0] = 0;
		procscan__comm(pid, t[tg->n].comm, sizeof(t[tg->n].comm));
		tg->n++;
	}
	return 0;
}

/* Whether process pid has exited (gone, or a zombie). */
static bool pid_exited(pid_t pid)
{
	char path[64], line[256], state = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	if (!f)
		return true;
	while (fgets(line, sizeof(line), f) && !state)
		if (!strncmp(line, "State:", 6))
			sscanf(line + 6, " %c", &state);
	fclose(f);
	return state == 'Z' || state == 'X';
}

/* Adds process t (a -p element) to the session: its probe sites (>= 0)
 * or -errno, reported. */
static int add_pid(struct session *s, const struct pid_target *t)
{
	int err = pid_exited(t->pid) ? -ESRCH : session__add_target(s, t->pid, NULL);

	if (err < 0 && pid_exited(t->pid))
		err = -ESRCH;
	if (err == -ESRCH)
		log__err("process %d (%s) exited while fsp-bpf was starting, before it could be "
			 "profiled: nothing was recorded",
			 t->pid, t->comm);
	else if (err < 0 && err != -ENOMSG) /* -ENOMSG: a map does not fit, reported */
		log__err("cannot attach to process %d (%s): %s", t->pid, t->comm, strerror(-err));
	return err;
}

/* Without --wait-probes, a process with no probes (and no map's provider)
 * is refused: most likely the wrong PID. */
static int check_found(struct session *s, const struct fsp_options *o, int nr, int with_probes)
{
	int err;

	if (o->wait_probes) {
		if (!with_probes && !session__nr_sites(s))
			log__info("no probes in %s yet: waiting for them (--wait-probes), sampling "
				  "meanwhile",
				  nr > 1 ? "the processes" : "the process");
		return 0;
	}
	err = record_targets__check_probemaps(s, o);
	if (err)
		return err;
	if (!with_probes && !o->probemaps && !o->funcfeat) {
		log__err("no fsp USDT probes in %s: its executable and loaded libraries have no "
			 "fsp:mark_enter/leave probes. Build the code with <fsp/fsp.h> (see "
			 "man fsp.h), check the PID, or wait for a library it loads later "
			 "with --wait-probes",
			 nr > 1 ? "any of the processes" : "the process");
		return -ENOENT;
	}
	return 0;
}

/* Adds the n processes t of -p (check_pids) to the session. With function
 * features a process without probes is no surprise: it is not said. */
static int add_pids(struct session *s, const struct fsp_options *o, const struct pid_target *t,
		    int n, bool functions, char *desc, size_t size)
{
	int i, err, sites = 0, with_probes = 0;
	pid_t without[FSP_MAX_PIDS];
	size_t len = 0;

	for (i = 0; i < n; i++) {
		err = add_pid(s, &t[i]);
		if (err < 0)
			return err;
		without[i] = err == 0 ? t[i].pid : 0;
		with_probes += err > 0;
		sites += err;
		len += snprintf(desc + len, len < size ? size - len : 0, "%spid %d (%s)",
				len ? ", " : "", t[i].pid, t[i].comm);
	}
	err = check_found(s, o, n, with_probes);
	if (err)
		return err;
	for (i = 0; i < n && !functions && (with_probes || !o->wait_probes); i++)
		if (without[i])
			log__info("process %d has no fsp probes loaded yet; sampling it anyway "
				  "(probes it loads later are attached)",
				  without[i]);
	log__phase("attached to %d process%s", n, n == 1 ? "" : "es");
	log__info("profiling %s: %d probe sites, %llu Hz. Ctrl-C to stop.", desc, sites,
		  (unsigned long long)o->session.frequency_hz);
	return 0;
}

static int add_system_wide(struct session *s, const struct fsp_options *o, bool functions,
			   char *desc, size_t size)
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
	log__info("profiling system-wide: %d processes with %s%s so far, %u probe sites, "
		  "%llu Hz. Ctrl-C to stop.",
		  n, o->probemaps ? "fsp or mapped probes" : "fsp probes",
		  functions ? " or mapping a file of the function features" : "",
		  session__nr_sites(s), (unsigned long long)o->session.frequency_hz);
	return 0;
}

static int start_command(struct session *s, struct launch *l, const struct fsp_options *o,
			 char *desc, size_t size)
{
	size_t len = 0;
	int err;

	err = session__add_target(s, launch__pid(l), launch__path(l));
	if (err == -ENOMSG)
		return err; /* a map does not fit the program: reported */
	if (err < 0) {
		log__err("cannot attach to %s: %s", launch__path(l), strerror(-err));
		return err;
	}
	for (int i = 0; o->cmd[i] && len < size; i++)
		len += snprintf(desc + len, size - len, "%s%s", i ? " " : "", o->cmd[i]);
	err = launch__start(l);
	if (err)
		log__err("cannot run '%s': %s", o->cmd[0], strerror(-err));
	else
		log__phase("started the command: profiling");
	return err;
}

bool record_targets__v1_marks(const struct record_targets *tg)
{
	char exe[64];

	if (tg->l)
		return fsp_v2__file_v1(launch__path(tg->l));
	for (int i = 0; i < tg->n; i++) {
		snprintf(exe, sizeof(exe), "/proc/%d/exe", tg->t[i].pid);
		if (fsp_v2__file_v1(exe))
			return true;
	}
	return false;
}

int record_targets__add(const struct record_targets *tg, struct session *s,
			const struct fsp_options *o, char *desc, size_t size)
{
	if (tg->l)
		return start_command(s, tg->l, o, desc, size);
	if (o->session.system_wide)
		return add_system_wide(s, o, tg->functions, desc, size);
	return add_pids(s, o, tg->t, tg->n, tg->functions, desc, size);
}
