// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --events for function features (docs/function-features.md): in each file
 * a target maps whose name a rule's patterns match, the functions the rule
 * names get a uprobe at their entry (func_enter) and a uretprobe
 * (func_leave), cookie = the rule's index and kind (bpf/funcev.bpf.h). The
 * event view counts their calls under FSP_FUNC_ID | rule and the call's
 * return address; at the end each slot is named: the rule's feature, and
 * the call site as the native stacks name the caller's frame.
 */
#include <errno.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/types.h>

#include "funcfeat.h"
#include "funcfeat_apply.h"
#include "log.h"
#include "util.h"
#include "session_int.h"

/* One event view slot of a function feature, kept until it is named. */
struct ff_slot {
	struct fsp_mark_key key;
	struct profile_event_stats st;
	size_t site; /* stacks__site, SIZE_MAX: none (instance none, or unknown) */
};

struct funcev {
	const struct funcfeat *rules;
	struct ff_slot *kept; /* [0, nr_taken): retired processes', for good */
	size_t nr_taken, nr, cap;
};

/* Does --events=FEATURE,... name this function feature? */
static bool named(const struct session *s, const char *feature)
{
	return s->opts.event_features && eventsel__wanted(s, feature);
}

int funcev__new(struct session *s, struct funcev **out)
{
	*out = NULL;
	if (s->opts.system_wide && s->opts.events && s->opts.v2_events && s->opts.event_features &&
	    funcfeat__nr(s->opts.funcfeat))
		log__info("-a: --events does not count function features' calls (their "
			  "functions would trap in every process that maps them); they are "
			  "sampled");
	if (!funcev__on(&s->opts))
		return 0;
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	(*out)->rules = s->opts.funcfeat;
	for (size_t r = 0; r < funcfeat__nr(s->opts.funcfeat); r++) {
		const struct funcfeat_rule *rule = funcfeat__rule(s->opts.funcfeat, r);

		for (size_t i = 0; i < rule->nr_patterns; i++)
			if (rule->patterns[i].outside && named(s, rule->feature))
				log__info("%s: --events does not probe \"antimark outside\" (every "
					  "function of a user file would trap): the time of its "
					  "callbacks stays in its calls' durations",
					  rule->feature);
	}
	return 0;
}

void funcev__free(struct funcev *fe)
{
	if (!fe)
		return;
	free(fe->kept);
	free(fe);
}

/*
 * Function features' functions are probed only when --events=FEATURE,...
 * names them: each call then traps twice (13 us on the test VM), and a map
 * such as libc's names a hundred functions; a bare --events keeps its
 * meaning (USDT marks counted exactly).
 */
bool funcev__on(const struct session_opts *o)
{
	return o->events && o->v2_events && o->event_features && !o->system_wide &&
	       funcfeat__nr(o->funcfeat);
}

bool funcev__is_feature(__u64 id)
{
	return (id & FSP_FUNC_ID) == FSP_FUNC_ID;
}

/* ---- attaching ------------------------------------------------------------------ */

/* The functions of one file to probe: offsets and cookies, each pair once. */
struct ff_plan {
	const struct funcfeat_pattern *pat;
	__u64 cookie;
	__u64 *offs, *cookies;
	size_t nr, cap_offs, cap_cookies;
	bool found; /* pat matched a function of the file */
};

static int plan_cb(void *ctx, const char *name, uint64_t off)
{
	struct ff_plan *pl = ctx;

	if (fnmatch(pl->pat->function, name, 0))
		return 0;
	pl->found = true;
	for (size_t i = 0; i < pl->nr; i++)
		if (pl->offs[i] == off && pl->cookies[i] == pl->cookie)
			return 0; /* an alias (fputs, _IO_fputs) or both tables */
	if (fsp_grow((void **)&pl->offs, &pl->cap_offs, pl->nr + 1, sizeof(*pl->offs)) ||
	    fsp_grow((void **)&pl->cookies, &pl->cap_cookies, pl->nr + 1, sizeof(*pl->cookies)))
		return -ENOMEM;
	pl->offs[pl->nr] = off;
	pl->cookies[pl->nr++] = pl->cookie;
	return 0;
}

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* The kernel's "operation not supported" (not in userspace errno.h): a
 * uprobe on an instruction it cannot step or emulate. */
#define KERNEL_ENOTSUPP 524

/* A link's error that names an instruction the kernel will not probe. */
static bool refused(int err)
{
	return err == -KERNEL_ENOTSUPP || err == -EINVAL;
}

/*
 * Can the kernel probe every function of offs[0..n) (one multi-link)? 0,
 * or the link's error. The test link runs the empty trap_cost program, not
 * func_enter: the target's calls it traps meanwhile must not be entered
 * without their returns (each was a stale mark, thousands on a busy -p
 * target). Its registration and detach wait for grace periods: the native
 * stacks sampled meanwhile are read in between (loop__drain_native).
 */
static int probeable(struct session *s, pid_t pid, const char *kpath, const __u64 *offs,
		     const __u64 *cookies, size_t n)
{
	int fd = usdt__link(PROG_FD(s, trap_cost), kpath, offs, NULL, cookies, n, pid);

	if (fd >= 0)
		close(fd);
	loop__drain_native(s);
	return fd < 0 ? fd : 0;
}

/* Moves the probeable functions of [lo, lo + n) to the front of the kept
 * ones (*kept), by halves: a few multi-links for a few refused functions,
 * not one link per function (each costs a uprobe's registration). An error
 * that is no refusal (the process exited) ends it: 0 or that error. */
static int keep_half(struct session *s, struct ff_plan *pl, pid_t pid, const char *kpath, size_t lo,
		     size_t n, size_t *kept)
{
	int err = n ? probeable(s, pid, kpath, pl->offs + lo, pl->cookies + lo, n) : 0;

	if (!n || (refused(err) && n == 1))
		return 0;
	if (refused(err)) {
		err = keep_half(s, pl, pid, kpath, lo, n / 2, kept);
		return err ? err : keep_half(s, pl, pid, kpath, lo + n / 2, n - n / 2, kept);
	}
	for (size_t i = lo; !err && i < lo + n; i++, (*kept)++) {
		pl->offs[*kept] = pl->offs[i];
		pl->cookies[*kept] = pl->cookies[i];
	}
	return err;
}

/*
 * A multi-link fails whole when one of its offsets cannot be probed (the
 * kernel refuses some first instructions: ENOTSUPP, e.g. one of glibc's
 * input functions): then the refused ones are found by halves and left out,
 * said in one line (their calls are not counted; their samples are charged
 * as ever).
 */
static int keep_probeable(struct session *s, struct ff_plan *pl, pid_t pid, const char *path,
			  const char *kpath)
{
	size_t kept = 0, nr = pl->nr;
	int err = probeable(s, pid, kpath, pl->offs, pl->cookies, pl->nr);

	if (!refused(err))
		return 0; /* all probeable, or not an instruction's fault: the caller says it */
	err = keep_half(s, pl, pid, kpath, 0, nr, &kept);
	if (err)
		return 0; /* the caller's link fails the same way, and says it */
	pl->nr = kept;
	log__info("--events: %zu of the %zu function-feature functions of %s cannot be probed "
		  "(the kernel refuses their first instruction): their calls are not counted, "
		  "their samples are charged as ever",
		  nr - kept, nr, path);
	return 0;
}

int funcev__file(struct session *s, pid_t pid, const char *path, const char *kpath)
{
	struct ff_plan pl = {0};
	const char *base = base_name(path);
	int err = 0, fd;

	if (!s->funcev)
		return 0;
	for (size_t r = 0; r < funcfeat__nr(s->funcev->rules) && !err; r++) {
		const struct funcfeat_rule *rule = funcfeat__rule(s->funcev->rules, r);

		if (!named(s, rule->feature))
			continue; /* --events=FEATURE,...: not this one */
		for (size_t i = 0; i < rule->nr_patterns && !err; i++) {
			pl.pat = &rule->patterns[i];
			if (pl.pat->outside || fnmatch(pl.pat->file, base, 0))
				continue;
			pl.cookie = r | (pl.pat->antimark ? FSP_FUNC_ANTI : 0) |
				    (rule->instance == FUNCFEAT_INSTANCE_NONE ? FSP_FUNC_NO_INSTANCE
									      : 0);
			pl.found = false;
			err = usdt__each_func(kpath, plan_cb, &pl);
			if (err == -ENOEXEC)
				err = 0;
			/* A function named exactly in a file named exactly: the
			 * file must have it. A file a pattern matches (*:f)
			 * need not: the function is in another one. */
			if (!err && !pl.found && !has_glob(pl.pat->function) &&
			    !has_glob(pl.pat->file)) {
				log__err("%s: no function %s in %s to probe for --events (its "
					 "symbol tables name none): check the name (nm -D), or "
					 "record without --events",
					 rule->feature, pl.pat->function, path);
				err = -ENOMSG;
			}
		}
	}
	if (!err && pl.nr)
		err = keep_probeable(s, &pl, pid, path, kpath);
	if (!err && pl.nr) {
		/* The returns first: a call entered once the entries are
		 * probed has its return seen (the other way round, the calls
		 * entered in between were stale marks). A return of a call not
		 * entered finds nothing. */
		fd = usdt__link_return(PROG_FD(s, func_leave), kpath, pl.offs, pl.cookies, pl.nr,
				       pid);
		err = attach__link_fd(s, fd);
		if (!err) {
			fd = usdt__link(PROG_FD(s, func_enter), kpath, pl.offs, NULL, pl.cookies,
					pl.nr, pid);
			err = attach__link_fd(s, fd);
		}
		if (err == -ESRCH && pid && kill(pid, 0) && errno == ESRCH) {
			/* gone meanwhile: the caller says so */
		} else if (err) {
			log__err("cannot probe the %zu function-feature functions of %s for "
				 "--events: %s",
				 pl.nr, path, strerror(-err));
			err = -ENOMSG;
		} else {
			log__verbose("%s%.0d: %zu function-feature functions probed in %s",
				     pid ? "pid " : "every process", pid, pl.nr, path);
		}
	}
	free(pl.offs);
	free(pl.cookies);
	return err;
}

/* ---- the event view --------------------------------------------------------------- */

int funcev__keep(struct session *s, const struct fsp_mark_key *key,
		 const struct profile_event_stats *st, bool taken)
{
	struct funcev *fe = s->funcev;
	struct ff_slot *k;
	size_t site = SIZE_MAX;

	if (!fe)
		return 0;
	/* The call site as a frame now, while the process's mappings are known. */
	if (key->instance && s->stacks && stacks__site(s->stacks, key->tgid, key->instance, &site))
		site = SIZE_MAX;
	if (fsp_grow((void **)&fe->kept, &fe->cap, fe->nr + 1, sizeof(*fe->kept)))
		return -ENOMEM;
	k = &fe->kept[fe->nr++];
	*k = (struct ff_slot){.key = *key, .st = *st, .site = site};
	if (taken) { /* kept for good, before the untaken ones */
		struct ff_slot t = *k;

		*k = fe->kept[fe->nr_taken];
		fe->kept[fe->nr_taken++] = t;
	}
	return 0;
}

/* The instance of slot k: its call site's name, "?" when its address is
 * in no file known. */
static int site_name(struct session *s, struct profile *p, const struct ff_slot *k, char *buf,
		     size_t size)
{
	size_t loc;

	if (k->site != SIZE_MAX && !stacks__site_location(s->stacks, k->site, &loc) &&
	    !funcfeat__call_site(p, loc, buf, size))
		return 0;
	snprintf(buf, size, "?+0x%llx", (unsigned long long)k->key.instance);
	return 0;
}

void funcev__begin(struct session *s)
{
	if (s->funcev)
		s->funcev->nr = s->funcev->nr_taken;
}

int funcev__fill(struct session *s, struct profile *p)
{
	struct funcev *fe = s->funcev;
	char buf[256];
	int err = 0;

	if (!fe)
		return 0;
	for (size_t i = 0; i < fe->nr && !err; i++) {
		const struct ff_slot *k = &fe->kept[i];
		size_t r = k->key.feature & ~FSP_FUNC_ID;
		const struct funcfeat_rule *rule = funcfeat__rule(fe->rules, r);

		if (!rule || !named(s, rule->feature))
			continue;
		if (k->key.instance)
			site_name(s, p, k, buf, sizeof(buf));
		err = profile__add_events(p, k->key.tgid, rule->feature,
					  k->key.instance ? buf : NULL, &k->st);
	}
	fe->nr = fe->nr_taken;
	return err;
}
