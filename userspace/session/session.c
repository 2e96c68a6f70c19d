// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "profiler.h"
#include "profiler.skel.h"
#include "log.h"
#include "probemap_sites.h"
#include "fsp_probes.h"
#include "procmaps.h"
#include "procscan.h"
#include "usdt.h"
#include "util.h"
#include "session.h"

_Static_assert(FSP_HIST_BUCKETS == PROFILE_HIST_BUCKETS,
	       "bpf/profiler.h and analysis/model/profile.h disagree on the histogram");

#define RESCAN_INTERVAL_S 1.0
#define FSP_MAX_SPECS 4096
#define MAX_PROBEMAP_SITES 1024
/* Off-CPU records of threads whose array slot is taken (allocated on use). */
#define FSP_OFFCPU_SPILL 65536
#define FSP_PROVIDERS_LEN 1024
#define FSP_DEFAULT_MAX_EVENTS 16384
#define TAG_RINGBUF 1ULL
#define TAG_SIGNAL 2ULL
#define TAG_PIDFD (1ULL << 32)

struct file_id {
	dev_t dev;
	ino_t ino;
};

/* System-wide: whether a file carries probes fsp-bpf attaches (relevant_cb),
 * cached by file. */
struct sw_verdict {
	struct file_id id;
	bool relevant;
};

/* A libbpf link, or the fd of a link made by hand (uprobe_multi). */
struct attachment {
	struct bpf_link *link;
	int fd;
};

struct target {
	pid_t pid;
	pid_t nspid; /* its PID in its own PID namespace (== pid outside containers) */
	int pidfd;
	bool alive;
	bool dl_hooked;
	struct file_id *files; /* files already scanned (with or without probes) */
	size_t nr_files;
	size_t cap_files;
	struct mapping *mappings; /* as of the last scan: labels of a gone process */
	size_t nr_mappings;
};

struct session {
	struct session_opts opts;
	struct profiler_bpf *skel;
	uint64_t period_ns;
	int nr_cpus;
	int *perf_fds;
	struct bpf_link **perf_links;
	struct attachment *links; /* probes, hooks, tracepoints */
	struct bpf_link *switch_link; /* on_switch (--off-cpu), detached at collect */
	size_t nr_links;
	size_t cap_links;
	struct fsp_usdt_spec *specs; /* mirror of the usdt_specs map */
	size_t nr_specs;
	size_t max_specs;
	struct target *targets;
	size_t nr_targets;
	size_t cap_targets;
	/* Probe maps: feature numbers, names, and what the BPF side runs. */
	uint32_t *feature_base; /* first feature number of each probe map */
	char (*feature_names)[2 * PROBEMAP_NAME_LEN]; /* "map:feature" per feature number */
	size_t nr_feature_names;
	bool *probemap_found; /* a file carried the probe map's provider */
	struct fsp_map_site *probemap_sites; /* mirror of the map_sites map */
	size_t nr_probemap_sites;
	char providers[FSP_PROVIDERS_LEN]; /* providers seen, comma-separated */
	/* System-wide mode: files scanned (attached when relevant) and the
	 * processes looked at, so that each is read once. */
	struct file_id *sw_files;
	size_t nr_sw_files, cap_sw_files;
	pid_t *sw_seen;
	size_t nr_sw_seen, cap_sw_seen;
	struct sw_verdict *verdicts;
	size_t nr_verdicts, cap_verdicts;
	struct ring_buffer *rb;
	int epfd;
	int sigfd;
	sigset_t old_mask;
	bool mask_set;
	unsigned int nr_sites;
	uint64_t attach_errors;
	int child_status;
	bool stop;
	double start_mono, end_mono;
	double start_wall, end_wall;
	bool collected;
};

static double now(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* libbpf's warnings and information with -v (its own "libbpf: " prefix). */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG || !log__enabled(LOG_VERBOSE))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static int add_attachment(struct session *s, struct bpf_link *link, int fd)
{
	if (fsp_grow((void **)&s->links, &s->cap_links, s->nr_links + 1, sizeof(*s->links)))
		return -ENOMEM;
	s->links[s->nr_links].link = link;
	s->links[s->nr_links++].fd = fd;
	return 0;
}

static int add_link(struct session *s, struct bpf_link *link)
{
	return add_attachment(s, link, -1);
}

static struct target *find_target(struct session *s, pid_t pid)
{
	for (size_t i = 0; i < s->nr_targets; i++)
		if (s->targets[i].pid == pid)
			return &s->targets[i];
	return NULL;
}

static bool target_has_file(struct target *t, dev_t dev, ino_t ino)
{
	for (size_t i = 0; i < t->nr_files; i++)
		if (t->files[i].dev == dev && t->files[i].ino == ino)
			return true;
	return false;
}

static int target_add_file(struct target *t, dev_t dev, ino_t ino)
{
	if (fsp_grow((void **)&t->files, &t->cap_files, t->nr_files + 1, sizeof(*t->files)))
		return -ENOMEM;
	t->files[t->nr_files].dev = dev;
	t->files[t->nr_files++].ino = ino;
	return 0;
}

static struct bpf_program *probe_prog(struct session *s, int probe)
{
	switch (probe) {
	case FSP_PROBE_MARK_ENTER:
		return s->skel->progs.mark_enter;
	case FSP_PROBE_MARK_LEAVE:
		return s->skel->progs.mark_leave;
	case FSP_PROBE_ANTIMARK_ENTER:
		return s->skel->progs.antimark_enter;
	default:
		return s->skel->progs.antimark_leave;
	}
}

/* The index of spec in the usdt_specs map, adding it if new. */
static int spec_id(struct session *s, const struct fsp_usdt_spec *spec)
{
	__u32 id;

	for (size_t i = 0; i < s->nr_specs; i++)
		if (!memcmp(&s->specs[i], spec, sizeof(*spec)))
			return i;
	if (s->nr_specs == s->max_specs)
		return -E2BIG;
	id = s->nr_specs;
	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.usdt_specs), &id, spec, BPF_ANY))
		return -errno;
	s->specs[s->nr_specs++] = *spec;
	return id;
}

/* Attaches one probe's sites of a file; returns the sites attached or -errno. */
static int attach_probe(struct session *s, pid_t pid, const char *path, int probe,
			const struct usdt_site *sites, size_t nr)
{
	__u64 *offs = calloc(nr, sizeof(*offs)), *refs = calloc(nr, sizeof(*refs));
	__u64 *cookies = calloc(nr, sizeof(*cookies));
	__u32 cnt = 0;
	int err = 0, fd;

	if (!offs || !refs || !cookies) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (size_t i = 0; i < nr; i++) {
		int id;

		if (strcmp(sites[i].provider, FSP_PROVIDER) ||
		    strcmp(sites[i].name, fsp_probe_names[probe]))
			continue;
		if (!sites[i].args_ok) {
			log__err("%s: skipping fsp:%s at 0x%llx: arguments fsp-bpf cannot read",
				 path, sites[i].name, (unsigned long long)sites[i].vaddr);
			s->attach_errors++;
			continue;
		}
		id = spec_id(s, &sites[i].spec);
		if (id < 0) {
			err = id;
			goto cleanup;
		}
		offs[cnt] = sites[i].offset;
		refs[cnt] = sites[i].ref_ctr_offset;
		cookies[cnt++] = id;
	}
	if (!cnt)
		goto cleanup;
	fd = usdt__link(bpf_program__fd(probe_prog(s, probe)), path, offs, refs, cookies, cnt, pid);
	if (fd < 0) {
		err = fd;
		goto cleanup;
	}
	err = add_attachment(s, NULL, fd);
	if (err)
		close(fd);
cleanup:
	free(offs);
	free(refs);
	free(cookies);
	return err ? err : (int)cnt;
}

/* Adds provider to the list of providers seen, once. */
static void note_provider(struct session *s, const char *provider)
{
	size_t len = strlen(s->providers), n = strlen(provider);

	if (procscan__in_list(s->providers, provider) || len + n + 2 >= sizeof(s->providers))
		return;
	snprintf(s->providers + len, sizeof(s->providers) - len, "%s%s", len ? "," : "", provider);
}

/* The index of ms in the map_sites map, adding it if new. */
static int probemap_site_id(struct session *s, const struct fsp_map_site *ms)
{
	__u32 id;

	for (size_t i = 0; i < s->nr_probemap_sites; i++)
		if (!memcmp(&s->probemap_sites[i], ms, sizeof(*ms)))
			return i;
	if (s->nr_probemap_sites == MAX_PROBEMAP_SITES)
		return -E2BIG;
	id = s->nr_probemap_sites;
	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.map_sites), &id, ms, BPF_ANY))
		return -errno;
	s->probemap_sites[s->nr_probemap_sites++] = *ms;
	return id;
}

struct site_batch {
	__u64 *offs, *refs, *cookies;
	__u32 cnt;
};

static int batch_link(struct session *s, struct bpf_program *prog, const char *path, pid_t pid,
		      struct site_batch *b)
{
	int fd, err;

	if (!b->cnt)
		return 0;
	fd = usdt__link(bpf_program__fd(prog), path, b->offs, b->refs, b->cookies, b->cnt, pid);
	if (fd < 0)
		return fd;
	err = add_attachment(s, NULL, fd);
	if (err)
		close(fd);
	return err ? err : (int)b->cnt;
}

static bool has_probe(const struct usdt_site *sites, size_t nr, const char *provider,
		      const char *name)
{
	for (size_t i = 0; i < nr; i++)
		if (!strcmp(sites[i].provider, provider) && (!name || !strcmp(sites[i].name, name)))
			return true;
	return false;
}

/* A path as the target sees it: without our "/proc/PID/root" prefix. */
static const char *shown_path(const char *path)
{
	const char *p;

	if (strncmp(path, "/proc/", 6))
		return path;
	p = strchr(path + 6, '/');
	return p && !strncmp(p, "/root/", 6) ? p + 5 : path;
}

/* Checks that the file has both probes of every enabled feature of probe map m. */
static int check_probemap_probes(struct session *s, size_t m, const char *path,
				 const struct usdt_site *sites, size_t nr)
{
	const struct probemap *pm = s->opts.probemaps[m].probemap;

	for (size_t f = 0; f < pm->nr_features; f++) {
		const struct probemap_feature *pf = &pm->features[f];
		const char *missing = NULL;

		if (!s->opts.probemaps[m].enabled[f])
			continue;
		if (!has_probe(sites, nr, pm->provider, pf->enter))
			missing = pf->enter;
		else if (!has_probe(sites, nr, pm->provider, pf->leave))
			missing = pf->leave;
		if (missing) {
			log__err("%s:%u: feature %s needs probe %s:%s, which %s does not have "
				 "(see its probes with fsp-bpf list; leave the feature out with "
				 "--feature)",
				 pm->path ? pm->path : pm->name, pf->line, pf->name, pm->provider,
				 missing, shown_path(path));
			return -ENOMSG;
		}
	}
	return 0;
}

/* Adds the sites of probe map m's enabled features to the enter and leave batches. */
static int batch_probemap(struct session *s, size_t m, const char *path,
			  const struct usdt_site *sites, size_t nr, struct site_batch *enter,
			  struct site_batch *leave)
{
	const struct probemap *pm = s->opts.probemaps[m].probemap;
	struct fsp_map_site ms;
	char why[512];

	for (size_t i = 0; i < nr; i++) {
		if (strcmp(sites[i].provider, pm->provider))
			continue;
		for (size_t f = 0; f < pm->nr_features; f++) {
			const struct probemap_feature *pf = &pm->features[f];
			uint32_t n = s->feature_base[m] + f;
			int is_leave, id;

			if (!s->opts.probemaps[m].enabled[f])
				continue;
			uint64_t outer = probemap_sites__feature_id(
				s->feature_base[m] + (pf->outer >= 0 ? pf->outer : 0));

			for (is_leave = 0; is_leave < 2; is_leave++) {
				struct site_batch *b = is_leave ? leave : enter;

				if (strcmp(sites[i].name, is_leave ? pf->leave : pf->enter))
					continue;
				if (probemap_sites__build(pm, pf, is_leave, path, &sites[i],
							  probemap_sites__feature_id(n), outer, &ms,
							  why, sizeof(why))) {
					log__err("%s", why);
					return -ENOMSG;
				}
				id = probemap_site_id(s, &ms);
				if (id < 0)
					return id;
				b->offs[b->cnt] = sites[i].offset;
				b->refs[b->cnt] = sites[i].ref_ctr_offset;
				b->cookies[b->cnt++] = id;
			}
		}
	}
	return 0;
}

/* Attaches the enabled features of every probe map whose provider the file
 * carries. Returns the sites attached or -errno (-ENOMSG: the probe map does not
 * fit the file, already reported). */
static int attach_probemaps(struct session *s, pid_t pid, const char *path,
			    const struct usdt_site *sites, size_t nr)
{
	/* A site may enter one feature and leave another: room for both. */
	size_t cap = 2 * nr * PROBEMAP_MAX_FEATURES;
	struct site_batch b[2] = {};
	int err = 0, total = 0;

	for (int k = 0; k < 2; k++) {
		b[k].offs = calloc(cap, sizeof(__u64));
		b[k].refs = calloc(cap, sizeof(__u64));
		b[k].cookies = calloc(cap, sizeof(__u64));
		if (!b[k].offs || !b[k].refs || !b[k].cookies) {
			err = -ENOMEM;
			goto cleanup;
		}
	}
	for (size_t m = 0; m < s->opts.nr_probemaps; m++) {
		if (!has_probe(sites, nr, s->opts.probemaps[m].probemap->provider, NULL))
			continue;
		s->probemap_found[m] = true;
		err = check_probemap_probes(s, m, path, sites, nr);
		if (!err)
			err = batch_probemap(s, m, path, sites, nr, &b[0], &b[1]);
		if (err)
			goto cleanup;
	}
	for (int k = 0; k < 2; k++) {
		err = batch_link(s, k ? s->skel->progs.map_leave : s->skel->progs.map_enter, path,
				 pid, &b[k]);
		if (err < 0)
			goto cleanup;
		total += err;
	}
	err = 0;
cleanup:
	for (int k = 0; k < 2; k++) {
		free(b[k].offs);
		free(b[k].refs);
		free(b[k].cookies);
	}
	return err ? err : total;
}

/*
 * Attaches the fsp probes and the mapped probes of one file, for process pid
 * (0: for every process that maps the file, system-wide). Returns the sites
 * attached or -errno (-ENOMSG: a probe map does not fit the file).
 */
static int attach_file(struct session *s, pid_t pid, const char *path)
{
	struct usdt_site *sites = NULL;
	size_t nr, skipped;
	unsigned int total = 0;
	char why[256];
	int err, i;

	err = usdt__read_sites(path, NULL, &sites, &nr, &skipped, why, sizeof(why));
	if (err)
		return err == -ENOEXEC ? 0 : err;
	if (skipped) {
		log__err("%s: skipping %zu probe sites: %s", path, skipped, why);
		s->attach_errors += skipped;
	}
	for (size_t k = 0; k < nr; k++)
		note_provider(s, sites[k].provider);
	for (i = 0; i < FSP_PROBE__COUNT && nr; i++) {
		err = attach_probe(s, pid, path, i, sites, nr);
		if (err == -ESRCH || err == -ENOENT)
			goto cleanup;
		if (err < 0) {
			log__err("cannot attach fsp:%s in %s (pid %d): %s", fsp_probe_names[i],
				 path, pid, strerror(-err));
			s->attach_errors++;
			continue;
		}
		total += err;
	}
	if (s->opts.nr_probemaps && nr) {
		err = attach_probemaps(s, pid, path, sites, nr);
		if (err == -ESRCH || err == -ENOENT || err == -ENOMSG)
			goto cleanup;
		if (err < 0) {
			log__err("cannot attach the mapped probes in %s (pid %d): %s", path, pid,
				 strerror(-err));
			s->attach_errors++;
		} else {
			total += err;
		}
	}
	err = total;
	if (total)
		log__verbose("%s%.0d: %u probe sites in %s", pid ? "pid " : "every process", pid,
			     total, path);
	s->nr_sites += total;
cleanup:
	free(sites);
	return err;
}

/* Hooks ld.so's _dl_debug_state so that dlopen()ed libraries are noticed. */
static int hook_dl(struct session *s, struct target *t, const char *exe)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uo, .func_name = "_dl_debug_state");
	char interp[PATH_MAX], path[PATH_MAX + 64];
	struct bpf_link *link;
	int err;

	if (t->dl_hooked)
		return 0;
	err = usdt__elf_interp(exe, interp, sizeof(interp));
	if (err || !interp[0])
		return 0; /* static executable: nothing is ever dlopen()ed by ld.so */
	/* The interpreter as the target sees it (its mount namespace). */
	snprintf(path, sizeof(path), "/proc/%d/root%s", t->pid, interp);
	link = bpf_program__attach_uprobe_opts(s->skel->progs.on_dl_debug_state, t->pid, path, 0,
					       &uo);
	if (!link) {
		err = -errno;
		if (err == -ESRCH)
			return err;
		log__err("cannot watch %s for dlopen in pid %d: %s; libraries loaded later are "
			 "found within %.0f s instead",
			 path, t->pid, strerror(-err), RESCAN_INTERVAL_S);
		return 0;
	}
	t->dl_hooked = true;
	return add_link(s, link);
}

/* Hooks the points where a thread resumes higher up its stack (longjmp, a
 * C++ catch) in the runtime libraries the target maps. Best effort. */
static void hook_unwind(struct session *s, pid_t pid, const char *path)
{
	static const struct {
		const char *lib;
		const char *func;
		bool cxx;
	} hooks[] = {
		{"libc.so.", "longjmp", false},
		{"libc.so.", "__longjmp_chk", false},
		{"libstdc++.so.", "__cxa_begin_catch", true},
	};
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	for (size_t i = 0; i < sizeof(hooks) / sizeof(hooks[0]); i++) {
		LIBBPF_OPTS(bpf_uprobe_opts, uo, .func_name = hooks[i].func);
		struct bpf_program *prog;
		struct bpf_link *link;

		if (strncmp(base, hooks[i].lib, strlen(hooks[i].lib)))
			continue;
		prog = hooks[i].cxx ? s->skel->progs.on_catch : s->skel->progs.on_longjmp;
		link = bpf_program__attach_uprobe_opts(prog, pid, path, 0, &uo);
		if (!link) {
			log__verbose("cannot hook %s in %s (pid %d): %s; marks unwound through it "
				     "are dropped at the thread's next probe instead",
				     hooks[i].func, path, pid, strerror(errno));
			continue;
		}
		if (add_link(s, link))
			bpf_link__destroy(link);
	}
}

/* System-wide: hooks _dl_debug_state in a dynamic loader for every process
 * (the BPF side reports targets' link-map changes only). */
static void hook_dl_file(struct session *s, const char *path)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uo, .func_name = "_dl_debug_state");
	const char *base = strrchr(path, '/');
	struct bpf_link *link;

	base = base ? base + 1 : path;
	if (strncmp(base, "ld-linux", 8) && strncmp(base, "ld-2.", 5))
		return;
	link = bpf_program__attach_uprobe_opts(s->skel->progs.on_dl_debug_state, -1, path, 0, &uo);
	if (!link) {
		log__err("cannot watch %s for dlopen: %s; libraries loaded later are found "
			 "within %.0f s instead",
			 path, strerror(errno), RESCAN_INTERVAL_S);
		return;
	}
	if (add_link(s, link))
		bpf_link__destroy(link);
}

struct scan_ctx {
	struct session *s;
	struct target *t;
	int sites;
};

/* System-wide: has the file been scanned already? Else records it. */
static int sw_file_seen(struct session *s, dev_t dev, ino_t ino, bool *seen)
{
	for (size_t i = 0; i < s->nr_sw_files; i++) {
		if (s->sw_files[i].dev == dev && s->sw_files[i].ino == ino) {
			*seen = true;
			return 0;
		}
	}
	*seen = false;
	if (fsp_grow((void **)&s->sw_files, &s->cap_sw_files, s->nr_sw_files + 1,
		     sizeof(*s->sw_files)))
		return -ENOMEM;
	s->sw_files[s->nr_sw_files].dev = dev;
	s->sw_files[s->nr_sw_files++].ino = ino;
	return 0;
}

static int scan_cb(void *ctx, const char *path, dev_t dev, ino_t ino)
{
	struct scan_ctx *c = ctx;
	/* The file as the target sees it, also in another mount namespace. */
	char host[PATH_MAX + 64];
	bool sw = c->s->opts.system_wide, seen;
	int err;

	if (target_has_file(c->t, dev, ino))
		return 0;
	err = target_add_file(c->t, dev, ino);
	if (!err && sw)
		err = sw_file_seen(c->s, dev, ino, &seen);
	if (err)
		return err;
	if (sw && seen)
		return 0; /* attached for every process when first seen */
	snprintf(host, sizeof(host), "/proc/%d/root%s", c->t->pid, path);
	hook_unwind(c->s, sw ? -1 : c->t->pid, host);
	if (sw)
		hook_dl_file(c->s, host);
	err = attach_file(c->s, sw ? 0 : c->t->pid, host);
	if (err == -ENOMSG)
		return err;
	if (err < 0)
		return err == -ESRCH || err == -ENOENT ? -ESRCH : 0;
	c->sites += err;
	return 0;
}

/* Attaches every not yet seen file mapped by the target. */
static int rescan(struct session *s, struct target *t)
{
	struct scan_ctx c = {.s = s, .t = t};
	struct mapping *m;
	char exe[64];
	size_t n;
	int err;

	if (!t->dl_hooked && !s->opts.system_wide) {
		snprintf(exe, sizeof(exe), "/proc/%d/exe", t->pid);
		err = hook_dl(s, t, exe);
		if (err)
			return err;
	}
	/* One read of /proc/PID/maps: the files to attach, and the mappings
	 * kept for the labels of a process that is gone by the end. */
	err = procmaps__read(t->pid, &m, &n);
	if (err)
		return err;
	err = procmaps__for_each_file(m, n, scan_cb, &c);
	if (err) {
		procmaps__free(m, n);
		return err;
	}
	procmaps__free(t->mappings, t->nr_mappings);
	t->mappings = m;
	t->nr_mappings = n;
	return c.sites;
}

static int pidfd_open(pid_t pid)
{
	return syscall(SYS_pidfd_open, pid, 0);
}

int session__add_target(struct session *s, pid_t pid, const char *exe)
{
	struct epoll_event ev = {.events = EPOLLIN};
	struct target *t = find_target(s, pid);
	__u32 key = pid, one = 1;
	int err, sites = 0;

	if (!t) {
		if (fsp_grow((void **)&s->targets, &s->cap_targets, s->nr_targets + 1,
			     sizeof(*s->targets)))
			return -ENOMEM;
		t = &s->targets[s->nr_targets];
		memset(t, 0, sizeof(*t));
		t->pid = pid;
		t->pidfd = pidfd_open(pid);
		if (t->pidfd < 0)
			return -errno;
		ev.data.u64 = TAG_PIDFD | s->nr_targets;
		if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, t->pidfd, &ev)) {
			err = -errno;
			close(t->pidfd);
			return err;
		}
		t->alive = true;
		if (procscan__nspid(pid, &t->nspid))
			t->nspid = pid;
		s->nr_targets++;
	}
	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.targets), &key, &one, BPF_ANY))
		return -errno;
	if (exe) {
		struct stat st;

		/* Not exec'd yet: its probes are armed when the kernel maps the file. */
		err = hook_dl(s, t, exe);
		if (err)
			return err;
		if (stat(exe, &st))
			return -errno;
		err = target_add_file(t, st.st_dev, st.st_ino);
		if (err)
			return err;
		return attach_file(s, pid, exe);
	}
	err = rescan(s, t);
	if (err < 0)
		return err;
	sites += err;
	return sites;
}

/* System-wide: has pid been looked at? Else records it. */
static int sw_pid_seen(struct session *s, pid_t pid, bool *seen)
{
	for (size_t i = 0; i < s->nr_sw_seen; i++) {
		if (s->sw_seen[i] == pid) {
			*seen = true;
			return 0;
		}
	}
	*seen = false;
	if (fsp_grow((void **)&s->sw_seen, &s->cap_sw_seen, s->nr_sw_seen + 1, sizeof(*s->sw_seen)))
		return -ENOMEM;
	s->sw_seen[s->nr_sw_seen++] = pid;
	return 0;
}

static void sw_forget(struct session *s, pid_t pid)
{
	for (size_t i = 0; i < s->nr_sw_seen; i++) {
		if (s->sw_seen[i] == pid) {
			s->sw_seen[i] = s->sw_seen[--s->nr_sw_seen];
			return;
		}
	}
}

/* System-wide: does the comm filter let pid in? An excluded process is
 * marked 0 in the targets map: its probes then return at once. */
static bool sw_admitted(struct session *s, pid_t pid)
{
	char comm[64] = "";
	__u32 key = pid, zero = 0;

	if (!s->opts.comm_filter)
		return true;
	procscan__comm(pid, comm, sizeof(comm));
	if (procscan__in_list(s->opts.comm_filter, comm))
		return true;
	bpf_map_update_elem(bpf_map__fd(s->skel->maps.targets), &key, &zero, BPF_ANY);
	return false;
}

/* Does the file at path carry fsp probes or the provider of a probe map? */
static bool file_relevant(struct session *s, const char *path)
{
	struct usdt_site *sites = NULL;
	size_t nr = 0, skipped;
	bool relevant = false;

	if (usdt__read_sites(path, NULL, &sites, &nr, &skipped, NULL, 0))
		return false;
	for (size_t i = 0; i < nr && !relevant; i++) {
		relevant = !strcmp(sites[i].provider, FSP_PROVIDER);
		for (size_t m = 0; m < s->opts.nr_probemaps && !relevant; m++)
			relevant =
				!strcmp(sites[i].provider, s->opts.probemaps[m].probemap->provider);
	}
	free(sites);
	return relevant;
}

struct sw_scan_ctx {
	struct session *s;
	pid_t pid;
	bool relevant;
};

static int sw_file_cb(void *ctx, const char *path, dev_t dev, ino_t ino)
{
	struct sw_scan_ctx *c = ctx;
	char host[PATH_MAX + 64];
	bool relevant;

	for (size_t i = 0; i < c->s->nr_verdicts; i++) {
		if (c->s->verdicts[i].id.dev == dev && c->s->verdicts[i].id.ino == ino) {
			c->relevant |= c->s->verdicts[i].relevant;
			return c->relevant ? 1 : 0;
		}
	}
	snprintf(host, sizeof(host), "/proc/%d/root%s", c->pid, path);
	relevant = file_relevant(c->s, host);
	if (fsp_grow((void **)&c->s->verdicts, &c->s->cap_verdicts, c->s->nr_verdicts + 1,
		     sizeof(*c->s->verdicts)))
		return -ENOMEM;
	c->s->verdicts[c->s->nr_verdicts++] = (struct sw_verdict){{dev, ino}, relevant};
	c->relevant |= relevant;
	return c->relevant ? 1 : 0;
}

static int sw_pid_cb(void *ctx, pid_t pid)
{
	struct session *s = ctx;
	struct sw_scan_ctx c = {.s = s, .pid = pid};
	bool seen;
	int err;

	if (pid == getpid())
		return 0;
	err = sw_pid_seen(s, pid, &seen);
	if (err || seen)
		return err;
	err = procmaps__for_each_mapped_file(pid, sw_file_cb, &c);
	if (err < 0 || !c.relevant || !sw_admitted(s, pid))
		return err == -ENOMEM ? err : 0;
	err = session__add_target(s, pid, NULL);
	if (err == -ENOMSG)
		return err;
	if (err < 0 && err != -ESRCH)
		log__verbose("cannot profile process %d: %s", pid, strerror(-err));
	return 0;
}

int session__add_system_wide(struct session *s)
{
	int err = procscan__for_each_pid(sw_pid_cb, s);

	return err < 0 ? err : (int)s->nr_targets;
}

static int on_event(void *ctx, void *data, size_t size)
{
	const struct fsp_event *e = data;
	struct session *s = ctx;
	struct target *t;
	int err;

	if (size < sizeof(*e))
		return 0;
	switch (e->type) {
	case FSP_EVENT_FORK:
		err = session__add_target(s, e->pid, NULL);
		if (err < 0 && err != -ESRCH)
			log__verbose("cannot follow child %d of %d: %s", e->pid, e->ppid,
				     strerror(-err));
		break;
	case FSP_EVENT_EXEC:
		t = find_target(s, e->pid);
		/* System-wide: a process seen before may run a program with
		 * probes now; the next scan looks at it again. */
		if (!t && s->opts.system_wide) {
			__u32 key = e->pid;

			sw_forget(s, e->pid);
			/* An exclusion (--comm) was of the old program. */
			bpf_map_delete_elem(bpf_map__fd(s->skel->maps.targets), &key);
		}
		/* Links are per task and file: they stay armed across exec for the
		 * files the new image maps again; only new files need attaching. */
		if (t)
			rescan(s, t);
		break;
	case FSP_EVENT_DLOPEN:
		t = find_target(s, e->pid);
		if (t)
			rescan(s, t);
		break;
	case FSP_EVENT_NEW_PROC: {
		/* System-wide: a process fired its first probe. */
		bool seen;

		if (find_target(s, e->pid))
			break;
		if (sw_pid_seen(s, e->pid, &seen) || !sw_admitted(s, e->pid))
			break;
		err = session__add_target(s, e->pid, NULL);
		if (err < 0 && err != -ESRCH)
			log__verbose("cannot profile process %d: %s", e->pid, strerror(-err));
		break;
	}
	}
	return 0;
}

static void target_gone(struct session *s, struct target *t)
{
	if (!t->alive)
		return;
	t->alive = false;
	epoll_ctl(s->epfd, EPOLL_CTL_DEL, t->pidfd, NULL);
}

/* The launched command stopped itself at a link-map change (sync_pid): attach
 * what it mapped, then let it go on. Or it exited: keep its status. */
static void on_sigchld(struct session *s)
{
	pid_t pid = s->opts.sync_pid;
	int status;

	if (!pid)
		return;
	while (waitpid(pid, &status, WNOHANG | WUNTRACED) == pid) {
		struct target *t = find_target(s, pid);

		if (WIFSTOPPED(status)) {
			ring_buffer__consume(s->rb);
			if (t)
				rescan(s, t);
			kill(pid, SIGCONT);
			continue;
		}
		s->child_status = status;
		if (t)
			target_gone(s, t);
		break;
	}
}

static bool any_alive(const struct session *s)
{
	for (size_t i = 0; i < s->nr_targets; i++)
		if (s->targets[i].alive)
			return true;
	return false;
}

static void handle_signal(struct session *s)
{
	struct signalfd_siginfo si;

	while (read(s->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			on_sigchld(s);
		} else {
			s->stop = true;
		}
	}
}

int session__run(struct session *s)
{
	double deadline = s->opts.duration_s > 0 ? now(CLOCK_MONOTONIC) + s->opts.duration_s : 0;
	double next_rescan = now(CLOCK_MONOTONIC) + RESCAN_INTERVAL_S;
	double interval = s->opts.on_interval ? s->opts.interval_s : 0;
	double next_tick = interval > 0 ? now(CLOCK_MONOTONIC) + interval : 0;
	struct epoll_event evs[16];
	int err = 0;

	while (!s->stop) {
		double t = now(CLOCK_MONOTONIC), wait_s = next_rescan - t;
		int n, i;

		if (next_tick && t >= next_tick) {
			/* The live view: its errors are its own, the session goes on. */
			s->opts.on_interval(s, s->opts.interval_ctx);
			while (next_tick <= now(CLOCK_MONOTONIC))
				next_tick += interval;
			continue;
		}
		if (next_tick && next_tick - t < wait_s)
			wait_s = next_tick - t;

		if (!s->opts.system_wide && !any_alive(s))
			break;
		if (deadline && t >= deadline)
			break;
		if (deadline && deadline - t < wait_s)
			wait_s = deadline - t;
		n = epoll_wait(s->epfd, evs, 16, wait_s > 0 ? (int)(wait_s * 1000) + 1 : 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		for (i = 0; i < n; i++) {
			__u64 tag = evs[i].data.u64;

			if (tag == TAG_RINGBUF)
				ring_buffer__consume(s->rb);
			else if (tag == TAG_SIGNAL)
				handle_signal(s);
			else if (tag & TAG_PIDFD)
				target_gone(s, &s->targets[tag & 0xffffffffULL]);
		}
		if (now(CLOCK_MONOTONIC) >= next_rescan) {
			/* Catch what the events missed (ring buffer full, no ld.so hook). */
			for (size_t j = 0; j < s->nr_targets; j++)
				if (s->targets[j].alive && rescan(s, &s->targets[j]) == -ESRCH)
					target_gone(s, &s->targets[j]);
			/* System-wide: processes started since (their probes may not
			 * have fired yet, or be in files not seen before). */
			if (s->opts.system_wide)
				procscan__for_each_pid(sw_pid_cb, s);
			next_rescan = now(CLOCK_MONOTONIC) + RESCAN_INTERVAL_S;
		}
	}
	/* Events that arrived last, and a final look at the launched child. */
	ring_buffer__consume(s->rb);
	s->end_mono = now(CLOCK_MONOTONIC);
	s->end_wall = now(CLOCK_REALTIME);
	return err;
}

static int open_sampler(struct session *s)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.sample_period = s->period_ns,
	};
	int cpu, opened = 0, err;

	s->nr_cpus = libbpf_num_possible_cpus();
	if (s->nr_cpus <= 0)
		return -EINVAL;
	s->perf_fds = calloc(s->nr_cpus, sizeof(*s->perf_fds));
	s->perf_links = calloc(s->nr_cpus, sizeof(*s->perf_links));
	if (!s->perf_fds || !s->perf_links)
		return -ENOMEM;
	for (cpu = 0; cpu < s->nr_cpus; cpu++) {
		int fd = syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);

		s->perf_fds[cpu] = fd;
		if (fd < 0) {
			if (errno == ENODEV)
				continue; /* offline CPU */
			err = -errno;
			log__err("cannot open the cpu-clock sampler on CPU %d: %s", cpu,
				 strerror(-err));
			return err;
		}
		s->perf_links[cpu] = bpf_program__attach_perf_event(s->skel->progs.sample, fd);
		if (!s->perf_links[cpu]) {
			err = -errno;
			log__err("cannot attach the sampler on CPU %d: %s", cpu, strerror(-err));
			return err;
		}
		opened++;
	}
	return opened ? 0 : -ENODEV;
}

static int setup_loop(struct session *s)
{
	struct epoll_event ev = {.events = EPOLLIN};
	sigset_t mask;

	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (s->epfd < 0)
		return -errno;
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &mask, &s->old_mask))
		return -errno;
	s->mask_set = true;
	s->sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (s->sigfd < 0)
		return -errno;
	ev.data.u64 = TAG_SIGNAL;
	if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->sigfd, &ev))
		return -errno;
	s->rb = ring_buffer__new(bpf_map__fd(s->skel->maps.events), on_event, s, NULL);
	if (!s->rb)
		return -errno;
	ev.data.u64 = TAG_RINGBUF;
	if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, ring_buffer__epoll_fd(s->rb), &ev))
		return -errno;
	return 0;
}

static int attach_tracepoints(struct session *s)
{
	struct bpf_program *progs[] = {s->skel->progs.on_fork, s->skel->progs.on_exec};

	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		struct bpf_link *link = bpf_program__attach(progs[i]);
		int err;

		if (!link)
			return -errno;
		err = add_link(s, link);
		if (err) {
			bpf_link__destroy(link);
			return err;
		}
	}
	if (s->opts.offcpu) {
		/* on_exit first: a thread's off-CPU time must not die with it. */
		struct bpf_link *link = bpf_program__attach(s->skel->progs.on_exit);
		int err;

		if (!link) {
			err = -errno;
			log__err("cannot hook thread exits for --off-cpu: %s", strerror(-err));
			return err;
		}
		err = add_link(s, link);
		if (err) {
			bpf_link__destroy(link);
			return err;
		}
		s->switch_link = bpf_program__attach(s->skel->progs.on_switch);
		if (!s->switch_link) {
			err = -errno;
			log__err("cannot hook the scheduler for --off-cpu: %s", strerror(-err));
			return err;
		}
	}
	return 0;
}

/* -a --comm: the kernel side refuses other processes at their first probe
 * (more names than it holds: userspace alone excludes, after that probe). */
static void set_comms(struct profiler_bpf *skel, const char *list)
{
	char *copy = list ? strdup(list) : NULL, *tok, *save = NULL;
	__u32 n = 0;

	for (tok = copy ? strtok_r(copy, ",", &save) : NULL; tok;
	     tok = strtok_r(NULL, ",", &save)) {
		while (*tok == ' ')
			tok++;
		if (!*tok)
			continue;
		if (n == FSP_MAX_COMMS) {
			n = 0;
			break;
		}
		/* The kernel keeps FSP_COMM_LEN - 1 bytes of a name. */
		snprintf((char *)skel->rodata->comms[n++], FSP_COMM_LEN, "%s", tok);
	}
	skel->rodata->nr_comms = n;
	free(copy);
}

/*
 * Slots of the off-CPU record array (a power of two): one per possible thread
 * id up to pid_max, at most 4096 for -p (a few processes) and 65536 for -a;
 * threads whose slot is taken go to the spill hash. FSP_OFFCPU_SLOTS (a power
 * of two) overrides it: the tests use 1 to send every thread but one there.
 */
static __u32 offcpu_slots(bool system_wide)
{
	unsigned long want = system_wide ? 65536 : 4096, pid_max = 0;
	const char *env = getenv("FSP_OFFCPU_SLOTS");
	__u32 n = 1;
	FILE *f;

	if (env && *env) {
		char *end;
		unsigned long v = strtoul(env, &end, 10);

		if (!*end && v && v <= 65536 && !(v & (v - 1)))
			return v;
		log__err("FSP_OFFCPU_SLOTS=%s is not a power of two from 1 to 65536: ignored", env);
	}
	f = fopen("/proc/sys/kernel/pid_max", "r");
	if (f) {
		if (fscanf(f, "%lu", &pid_max) != 1)
			pid_max = 0;
		fclose(f);
	}
	if (pid_max && pid_max < want)
		want = pid_max;
	while (n < want)
		n <<= 1;
	return n;
}

static int load(struct session *s)
{
	const struct session_opts *o = &s->opts;
	__u32 max_events = o->max_events ? o->max_events : FSP_DEFAULT_MAX_EVENTS;
	struct profiler_bpf *skel;
	int err;

	skel = profiler_bpf__open();
	if (!skel) {
		err = -errno;
		log__err("cannot open the BPF object: %s", strerror(-err));
		return err;
	}
	s->skel = skel;
	skel->rodata->max_depth = o->max_depth;
	skel->rodata->sync_tgid = o->sync_pid;
	skel->rodata->follow_forks = o->follow_forks;
	skel->rodata->events_enabled = o->events;
	skel->rodata->max_events = max_events;
	/* With the event view off, its maps are never touched: keep them tiny. */
	bpf_map__set_max_entries(skel->maps.mark_ids, o->events ? max_events : 1);
	bpf_map__set_max_entries(skel->maps.mark_stats, o->events ? max_events : 1);
	/* The scheduler hook costs every context switch of the machine: only
	 * with --off-cpu. */
	skel->rodata->offcpu_enabled = o->offcpu;
	if (o->offcpu) {
		__u32 slots = offcpu_slots(o->system_wide);

		skel->rodata->offcpu_mask = slots - 1;
		bpf_map__set_max_entries(skel->maps.offcpu_recs, slots);
		bpf_map__set_max_entries(skel->maps.offcpu_spill, FSP_OFFCPU_SPILL);
	}
	skel->rodata->system_wide = o->system_wide;
	set_comms(skel, o->comm_filter);
	bpf_program__set_autoload(skel->progs.on_switch, o->offcpu);
	bpf_program__set_autoload(skel->progs.on_exit, o->offcpu);
	bpf_program__set_autoload(skel->progs.flush_offcpu, o->offcpu);
	bpf_map__set_max_entries(skel->maps.stacks, o->max_stacks);
	bpf_map__set_max_entries(skel->maps.counts, o->max_stacks * 8);
	bpf_map__set_max_entries(skel->maps.labels, o->max_stacks * 2);
	bpf_map__set_max_entries(skel->maps.targets, 4096);
	bpf_map__set_max_entries(skel->maps.usdt_specs, FSP_MAX_SPECS);
	bpf_program__set_expected_attach_type(skel->progs.mark_enter, USDT_TRACE_UPROBE_MULTI);
	bpf_program__set_expected_attach_type(skel->progs.mark_leave, USDT_TRACE_UPROBE_MULTI);
	bpf_program__set_expected_attach_type(skel->progs.antimark_enter, USDT_TRACE_UPROBE_MULTI);
	bpf_program__set_expected_attach_type(skel->progs.antimark_leave, USDT_TRACE_UPROBE_MULTI);
	bpf_program__set_expected_attach_type(skel->progs.map_enter, USDT_TRACE_UPROBE_MULTI);
	bpf_program__set_expected_attach_type(skel->progs.map_leave, USDT_TRACE_UPROBE_MULTI);
	bpf_map__set_max_entries(skel->maps.map_sites, o->nr_probemaps ? MAX_PROBEMAP_SITES : 1);
	/* The mapped-probe programs take the verifier a while: only with --map. */
	bpf_program__set_autoload(skel->progs.map_enter, o->nr_probemaps > 0);
	bpf_program__set_autoload(skel->progs.map_leave, o->nr_probemaps > 0);
	s->max_specs = FSP_MAX_SPECS;
	s->specs = calloc(FSP_MAX_SPECS, sizeof(*s->specs));
	s->probemap_sites = calloc(MAX_PROBEMAP_SITES, sizeof(*s->probemap_sites));
	if (!s->specs || !s->probemap_sites)
		return -ENOMEM;
	err = profiler_bpf__load(skel);
	if (err) {
		log__err("cannot load the BPF programs: %s. fsp-bpf needs a kernel with BPF, BTF "
			 "(/sys/kernel/btf/vmlinux), uprobes and task storage (Linux >= 5.11)%s",
			 strerror(-err),
			 log__enabled(LOG_VERBOSE) ? "" : "; run with -v for the verifier's log");
		return err;
	}
	err = attach_tracepoints(s);
	if (err)
		log__err("cannot follow forks and execs: %s", strerror(-err));
	return err;
}

/* Numbers the features of the probe maps and names them "map:feature". */
static int number_features(struct session *s)
{
	size_t n = 0;

	s->feature_base = calloc(s->opts.nr_probemaps + 1, sizeof(*s->feature_base));
	s->probemap_found = calloc(s->opts.nr_probemaps + 1, sizeof(*s->probemap_found));
	for (size_t m = 0; m < s->opts.nr_probemaps; m++)
		n += s->opts.probemaps[m].probemap->nr_features;
	s->feature_names = calloc(n + 1, sizeof(*s->feature_names));
	if (!s->feature_base || !s->probemap_found || !s->feature_names)
		return -ENOMEM;
	for (size_t m = 0; m < s->opts.nr_probemaps; m++) {
		const struct probemap *pm = s->opts.probemaps[m].probemap;

		s->feature_base[m] = s->nr_feature_names;
		for (size_t f = 0; f < pm->nr_features; f++)
			probemap__full_name(pm, &pm->features[f],
					    s->feature_names[s->nr_feature_names++],
					    sizeof(s->feature_names[0]));
	}
	return 0;
}

struct session *session__new(const struct session_opts *opts, int *err)
{
	struct session *s = calloc(1, sizeof(*s));

	if (!s) {
		*err = -ENOMEM;
		return NULL;
	}
	s->opts = *opts;
	s->epfd = s->sigfd = -1;
	s->child_status = -1;
	s->period_ns = (1000000000ULL + opts->frequency_hz / 2) / opts->frequency_hz;
	libbpf_set_print(libbpf_print);
	*err = number_features(s);
	if (*err)
		goto cleanup;

	*err = load(s);
	if (*err)
		goto cleanup;
	*err = setup_loop(s);
	if (*err) {
		log__err("cannot set up the event loop: %s", strerror(-*err));
		goto cleanup;
	}
	*err = open_sampler(s);
	if (*err)
		goto cleanup;
	s->start_mono = now(CLOCK_MONOTONIC);
	s->start_wall = now(CLOCK_REALTIME);
	return s;
cleanup:
	session__free(s);
	return NULL;
}

static void stop_sampler(struct session *s)
{
	if (!s->perf_fds)
		return;
	for (int cpu = 0; cpu < s->nr_cpus; cpu++) {
		bpf_link__destroy(s->perf_links[cpu]);
		s->perf_links[cpu] = NULL;
		if (s->perf_fds[cpu] >= 0)
			close(s->perf_fds[cpu]);
		s->perf_fds[cpu] = -1;
	}
}

struct destroyer {
	struct attachment *links;
	size_t nr;
	size_t stride;
	size_t first;
};

static void *destroy_some(void *arg)
{
	struct destroyer *d = arg;

	for (size_t i = d->first; i < d->nr; i += d->stride) {
		if (d->links[i].link)
			bpf_link__destroy(d->links[i].link);
		else
			close(d->links[i].fd);
	}
	return NULL;
}

/*
 * Detaching a uprobe waits for an RCU grace period (~0.1 s here); one after
 * the other, a few dozen links take seconds. Threads overlap the waits.
 */
static void destroy_links(struct attachment *links, size_t nr)
{
	enum { MAX_THREADS = 32 };
	struct destroyer d[MAX_THREADS];
	pthread_t th[MAX_THREADS];
	size_t nt = nr < MAX_THREADS ? nr : MAX_THREADS, started = 0;

	for (size_t i = 0; i < nt; i++) {
		d[i] = (struct destroyer){.links = links, .nr = nr, .stride = nt, .first = i};
		if (pthread_create(&th[i], NULL, destroy_some, &d[i]))
			break;
		started++;
	}
	if (started < nt) {
		/* No threads: do the rest here. */
		for (size_t i = started; i < nt; i++)
			destroy_some(&d[i]);
	}
	for (size_t i = 0; i < started; i++)
		pthread_join(th[i], NULL);
}

void session__free(struct session *s)
{
	if (!s)
		return;
	stop_sampler(s);
	free(s->perf_fds);
	free(s->perf_links);
	bpf_link__destroy(s->switch_link);
	destroy_links(s->links, s->nr_links);
	free(s->links);
	free(s->specs);
	free(s->probemap_sites);
	free(s->feature_base);
	free(s->probemap_found);
	free(s->feature_names);
	free(s->sw_files);
	free(s->sw_seen);
	free(s->verdicts);
	for (size_t i = 0; i < s->nr_targets; i++) {
		close(s->targets[i].pidfd);
		free(s->targets[i].files);
		procmaps__free(s->targets[i].mappings, s->targets[i].nr_mappings);
	}
	free(s->targets);
	ring_buffer__free(s->rb);
	profiler_bpf__destroy(s->skel);
	if (s->sigfd >= 0)
		close(s->sigfd);
	if (s->epfd >= 0)
		close(s->epfd);
	if (s->mask_set)
		sigprocmask(SIG_SETMASK, &s->old_mask, NULL);
	free(s);
}

const struct session_probemap *session__probemaps(const struct session *s, size_t *nr)
{
	*nr = s->opts.nr_probemaps;
	return s->opts.probemaps;
}

bool session__probemap_found(const struct session *s, size_t i)
{
	return i < s->opts.nr_probemaps && s->probemap_found[i];
}

const char *session__providers(const struct session *s)
{
	return s->providers;
}

int session__child_status(const struct session *s)
{
	return s->child_status;
}

unsigned int session__nr_sites(const struct session *s)
{
	return s->nr_sites;
}

double session__duration(const struct session *s)
{
	return (s->end_mono ? s->end_mono : now(CLOCK_MONOTONIC)) - s->start_mono;
}

double session__start_time(const struct session *s)
{
	return s->start_wall;
}

double session__end_time(const struct session *s)
{
	return s->end_wall ? s->end_wall : now(CLOCK_REALTIME);
}

/* ---- draining the maps --------------------------------------------------- */

static uint64_t stat_sum(struct session *s, __u32 stat)
{
	int ncpu = libbpf_num_possible_cpus();
	__u64 *v = calloc(ncpu, sizeof(*v));
	uint64_t sum = 0;

	if (v && !bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.stats), &stat, v))
		for (int i = 0; i < ncpu; i++)
			sum += v[i];
	free(v);
	return sum;
}

/* A label from the labels map, else from the live process, else a placeholder. */
static const char *resolve_label(struct session *s, __u32 tgid, __u64 addr, char *buf, size_t size,
				 uint64_t *errors)
{
	struct fsp_label_key key = {.tgid = tgid, .addr = addr};
	struct fsp_label l;
	char mem[64];
	ssize_t n;
	int fd;

	if (probemap_sites__is_feature_id(addr)) {
		uint64_t i = addr & ~(FSP_ID_SYNTH | FSP_ID_FEATURE);

		if (i < s->nr_feature_names)
			return s->feature_names[i];
		(*errors)++;
		snprintf(buf, size, "<mapped feature %llu>", (unsigned long long)i);
		return buf;
	}
	if (probemap_sites__is_label_id(addr)) {
		/* Interned by a mapped probe, for all processes. */
		key.tgid = 0;
		if (!bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.labels), &key, &l)) {
			snprintf(buf, size, "%.*s", (int)l.len, l.str);
			return buf;
		}
		return "(label not kept: the labels map was full; raise --max-stacks)";
	}
	if (!bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.labels), &key, &l) && l.len) {
		snprintf(buf, size, "%.*s", (int)l.len, l.str);
		return buf;
	}
	snprintf(mem, sizeof(mem), "/proc/%u/mem", tgid);
	fd = open(mem, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = pread(fd, buf, size - 1, (off_t)addr);
		close(fd);
		if (n > 0) {
			buf[n] = 0;
			if (memchr(buf, 0, n) || n == (ssize_t)size - 1)
				return buf;
		}
	}
	for (size_t i = 0; i < s->nr_targets; i++) {
		const struct target *t = &s->targets[i];

		if (t->pid == (pid_t)tgid &&
		    procmaps__read_string(t->mappings, t->nr_mappings, addr, buf, size) >= 0)
			return buf;
	}
	(*errors)++;
	snprintf(buf, size, "<label at 0x%llx>", (unsigned long long)addr);
	return buf;
}

static int collect_stacks(struct session *s, struct profile *p, uint64_t *label_errors)
{
	int fd = bpf_map__fd(s->skel->maps.stacks), err = 0;
	struct fsp_stack_key key, next, *prev = NULL;
	struct profile_frame frames[FSP_MAX_DEPTH];
	char(*bufs)[2][FSP_LABEL_LEN + 32];
	struct fsp_stack *st;

	st = malloc(sizeof(*st));
	bufs = malloc(FSP_MAX_DEPTH * sizeof(*bufs));
	if (!st || !bufs) {
		err = -ENOMEM;
		goto cleanup;
	}
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, st) || !st->depth || st->depth > FSP_MAX_DEPTH)
			continue;
		for (__u64 i = 0; i < st->depth; i++) {
			const struct fsp_frame *f = &st->frames[i];

			frames[i].kind =
				f->kind == FSP_FRAME_ANTIMARK ? PROFILE_ANTIMARK : PROFILE_MARK;
			frames[i].payload = f->payload;
			frames[i].feature = resolve_label(s, key.tgid, f->feature, bufs[i][0],
							  sizeof(bufs[i][0]), label_errors);
			frames[i].instance =
				f->instance ? resolve_label(s, key.tgid, f->instance, bufs[i][1],
							    sizeof(bufs[i][1]), label_errors)
					    : NULL;
		}
		err = profile__add_stack(p, key.tgid, key.hash, frames, st->depth);
		if (err == -EEXIST)
			err = 0;
		if (err)
			break;
	}
cleanup:
	free(st);
	free(bufs);
	return err;
}

struct count_entry {
	struct fsp_count_key key;
	struct fsp_count c;
};

static int cmp_seen(const void *a, const void *b)
{
	uint64_t x = ((const struct count_entry *)a)->c.seen_ns;
	uint64_t y = ((const struct count_entry *)b)->c.seen_ns;

	return (x > y) - (x < y);
}

/* Samples and off-CPU time per (thread, stack). Threads are named in the
 * order their entries were last updated, so each ends with its latest name (a
 * launched command is sampled as "fsp-bpf" until its exec, a worker before
 * pthread_setname_np). */
static int collect_counts(struct session *s, struct profile *p)
{
	int fd = bpf_map__fd(s->skel->maps.counts), err = 0;
	struct fsp_count_key key, *prev = NULL;
	struct count_entry *ents = NULL;
	size_t n = 0, cap = 0;

	while (!bpf_map_get_next_key(fd, prev, &key)) {
		if (fsp_grow((void **)&ents, &cap, n + 1, sizeof(*ents))) {
			err = -ENOMEM;
			goto cleanup;
		}
		ents[n].key = key;
		prev = &ents[n].key;
		if (bpf_map_lookup_elem(fd, &key, &ents[n].c))
			continue;
		ents[n].c.comm[FSP_COMM_LEN - 1] = 0;
		n++;
	}
	qsort(ents, n, sizeof(*ents), cmp_seen);
	for (size_t i = 0; i < n; i++) {
		struct count_entry *e = &ents[i];

		err = profile__add_pid(p, e->key.tgid);
		if (!err)
			err = profile__rename_thread(p, e->key.tgid, e->key.tid, e->c.comm);
		if (err)
			goto cleanup;
		/* Entries of off-CPU time only have no samples. -ENOENT: the
		 * stack could not be stored; the time still counts in the total. */
		if (e->c.samples) {
			err = profile__add_samples(p, e->key.tgid, e->key.tid, e->key.hash,
						   e->c.samples);
			if (err && err != -ENOENT)
				goto cleanup;
		}
		if (e->c.offcpu_ns) {
			err = profile__add_offcpu(p, e->key.tgid, e->key.tid, e->key.hash,
						  e->c.offcpu_ns);
			if (err && err != -ENOENT)
				goto cleanup;
		}
		err = 0;
	}
cleanup:
	free(ents);
	return err;
}

/*
 * The event view: per (process, feature, instance), the per-CPU statistics
 * of its mark_stats slot, summed, with the labels resolved as in stacks.
 */
static int collect_events(struct session *s, struct profile *p, uint64_t *label_errors)
{
	int ids = bpf_map__fd(s->skel->maps.mark_ids), vals = bpf_map__fd(s->skel->maps.mark_stats);
	int ncpu = libbpf_num_possible_cpus(), err = 0;
	struct fsp_mark_key key, *prev = NULL;
	char fbuf[FSP_LABEL_LEN + 32], ibuf[FSP_LABEL_LEN + 32];
	struct fsp_mark_stats *v = NULL;
	const char *feature, *instance;

	if (ncpu <= 0) {
		err = ncpu ? ncpu : -EINVAL;
		goto cleanup;
	}
	v = calloc(ncpu, sizeof(*v));
	if (!v) {
		err = -ENOMEM;
		goto cleanup;
	}
	_Static_assert(sizeof(*v) % 8 == 0, "per-CPU values are laid out 8-byte aligned");
	while (!bpf_map_get_next_key(ids, prev, &key)) {
		struct profile_event_stats st = {0};
		__u32 id;

		prev = &key;
		if (bpf_map_lookup_elem(ids, &key, &id) || bpf_map_lookup_elem(vals, &id, v))
			continue;
		for (int c = 0; c < ncpu; c++) {
			st.enters += v[c].enters;
			st.leaves += v[c].leaves;
			st.total_ns += v[c].total_ns;
			if (v[c].max_ns > st.max_ns)
				st.max_ns = v[c].max_ns;
			for (int b = 0; b < FSP_HIST_BUCKETS; b++)
				st.hist[b] += v[c].hist[b];
		}
		if (!st.enters && !st.leaves)
			continue;
		feature = resolve_label(s, key.tgid, key.feature, fbuf, sizeof(fbuf), label_errors);
		instance = key.instance ? resolve_label(s, key.tgid, key.instance, ibuf,
							sizeof(ibuf), label_errors)
					: NULL;
		err = profile__add_events(p, key.tgid, feature, instance, &st);
		if (err)
			goto cleanup;
	}
cleanup:
	free(v);
	return err;
}

/*
 * Off-CPU time of the threads still switched out: the scheduler hook is
 * detached first (no more switches are charged), then a task iterator charges
 * each pending interval up to now. Best effort: on failure that time is lost.
 */
static void flush_offcpu(struct session *s)
{
	struct bpf_link *link;
	char buf[64];
	ssize_t n;
	int fd;

	bpf_link__destroy(s->switch_link);
	s->switch_link = NULL;
	/* The iterator measures up to this CPU's run-queue clock, which the
	 * scheduler updates when the CPU is yielded (else within a tick). */
	sched_yield();
	link = bpf_program__attach_iter(s->skel->progs.flush_offcpu, NULL);
	if (!link) {
		log__err("cannot charge the off-CPU time of sleeping threads: %s", strerror(errno));
		return;
	}
	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0) {
		log__err("cannot charge the off-CPU time of sleeping threads: %s", strerror(errno));
		goto cleanup;
	}
	do
		n = read(fd, buf, sizeof(buf));
	while (n > 0 || (n < 0 && errno == EINTR));
	if (n < 0)
		log__err("cannot charge the off-CPU time of sleeping threads: %s", strerror(errno));
	close(fd);
cleanup:
	bpf_link__destroy(link);
}

/* Everything the maps hold so far into p; the sampler may still be running. */
static int collect_into(struct session *s, struct profile *p)
{
	uint64_t label_errors = 0;
	int err;

	for (size_t i = 0; i < s->nr_targets; i++) {
		const struct target *t = &s->targets[i];

		err = profile__add_pid(p, t->pid);
		/* In a container: its PID there too. */
		if (!err && t->nspid && t->nspid != t->pid)
			err = profile__set_process_nspid(p, t->pid, t->nspid);
		if (err)
			return err;
	}
	err = collect_stacks(s, p, &label_errors);
	if (!err)
		err = collect_counts(s, p);
	if (!err && s->opts.events)
		err = collect_events(s, p, &label_errors);
	if (err)
		return err;
	profile__set_diag(p, DIAG_LOST_SAMPLES, stat_sum(s, FSP_STAT_LOST_SAMPLES));
	profile__set_diag(p, DIAG_UNKNOWN_STACKS, stat_sum(s, FSP_STAT_STACK_DROPS));
	profile__set_diag(p, DIAG_UNMATCHED_LEAVES, stat_sum(s, FSP_STAT_UNMATCHED_LEAVES));
	profile__set_diag(p, DIAG_OVERFLOWS, stat_sum(s, FSP_STAT_OVERFLOWS));
	profile__set_diag(p, DIAG_STALE_MARKS, stat_sum(s, FSP_STAT_STALE_MARKS));
	profile__set_diag(p, DIAG_TRUNCATED, stat_sum(s, FSP_STAT_TRUNCATED));
	profile__set_diag(p, DIAG_LABEL_ERRORS, label_errors + stat_sum(s, FSP_STAT_LABEL_DROPS));
	profile__set_diag(p, DIAG_ARG_ERRORS,
			  stat_sum(s, FSP_STAT_ARG_ERRORS) + stat_sum(s, FSP_STAT_NO_STORAGE));
	profile__set_diag(p, DIAG_EVENTS_LOST, stat_sum(s, FSP_STAT_EVENTS_LOST));
	profile__set_diag(p, DIAG_ATTACH_ERRORS, s->attach_errors);
	profile__set_diag(p, DIAG_EVENT_DROPS, stat_sum(s, FSP_STAT_EVENT_DROPS));
	return 0;
}

int session__snapshot(struct session *s, struct profile *p)
{
	if (s->collected)
		return -EINVAL;
	return collect_into(s, p);
}

int session__collect(struct session *s, struct profile *p)
{
	int err;

	if (!s->end_mono) {
		s->end_mono = now(CLOCK_MONOTONIC);
		s->end_wall = now(CLOCK_REALTIME);
	}
	stop_sampler(s);
	if (s->opts.offcpu)
		flush_offcpu(s);
	err = collect_into(s, p);
	if (err)
		return err;
	log__verbose("%llu probe hits, %llu samples of the targets",
		     (unsigned long long)stat_sum(s, FSP_STAT_PROBE_HITS),
		     (unsigned long long)stat_sum(s, FSP_STAT_SAMPLES));
	if (stat_sum(s, FSP_STAT_OFFCPU_DROPS))
		log__err("%llu off-CPU intervals were not recorded: the counts map was full "
			 "(raise --max-stacks)",
			 (unsigned long long)stat_sum(s, FSP_STAT_OFFCPU_DROPS));
	s->collected = true;
	return 0;
}
