// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Attaching the probes of one file: fsp's four probes (ABI v1), its fsp:v2
 * record (ABI v2, session/v2.c) and the probe maps' sites, each probe's sites
 * of a file in one uprobe_multi link; the argument specs and probe map sites
 * interned in their BPF maps; the teardown. */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "caps.h"
#include "fsp_probes.h"
#include "fsp_v2.h"
#include "log.h"
#include "probemap_sites.h"
#include "procscan.h"
#include "safeopen.h"
#include "usdt.h"
#include "util.h"
#include "session_int.h"

int attach__link_fd(struct session *s, int fd)
{
	if (fd < 0)
		return fd;
	if (fsp_grow((void **)&s->links, &s->cap_links, s->nr_links + 1, sizeof(*s->links))) {
		close(fd);
		return -ENOMEM;
	}
	s->links[s->nr_links++].fd = fd;
	return 0;
}

static int probe_prog(struct session *s, int probe)
{
	switch (probe) {
	case FSP_PROBE_MARK_ENTER:
		return PROG_FD(s, mark_enter);
	case FSP_PROBE_MARK_LEAVE:
		return PROG_FD(s, mark_leave);
	case FSP_PROBE_ANTIMARK_ENTER:
		return PROG_FD(s, antimark_enter);
	default:
		return PROG_FD(s, antimark_leave);
	}
}

/*
 * The index of elem in a BPF array map filled in order (the cookie or
 * reference of a site), adding it if new; mirror holds a copy of its nr
 * elements, at most max.
 */
static int intern(struct bpf_map *map, void *mirror, size_t *nr, size_t max, const void *elem,
		  size_t size)
{
	char *v = mirror;
	__u32 id;

	for (size_t i = 0; i < *nr; i++)
		if (!memcmp(v + i * size, elem, size))
			return i;
	if (*nr == max)
		return -E2BIG;
	id = *nr;
	if (bpf_map_update_elem(bpf_map__fd(map), &id, elem, BPF_ANY))
		return -errno;
	memcpy(v + id * size, elem, size);
	(*nr)++;
	return id;
}

/* The index of spec in the usdt_specs map (a site's cookie). */
static int spec_id(struct session *s, const struct fsp_usdt_spec *spec)
{
	return intern(s->skel->maps.usdt_specs, s->specs, &s->nr_specs, s->max_specs, spec,
		      sizeof(*spec));
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

void attach__denied(struct session *s, const char *path)
{
	if (s->denied_said || caps__have(CAP_DAC_READ_SEARCH) || caps__have(CAP_DAC_OVERRIDE))
		return;
	s->denied_said = true;
	log__err("cannot read %s: permission denied; the probes of files the fsp-bpf user may "
		 "not read are not attached: that needs CAP_DAC_READ_SEARCH (or root)",
		 shown_path(path));
}

struct site_batch {
	__u64 *offs, *refs, *cookies;
	__u32 cnt;
};

static void batch_free(struct site_batch *b)
{
	free(b->offs);
	free(b->refs);
	free(b->cookies);
	*b = (struct site_batch){};
}

static int batch_alloc(struct site_batch *b, size_t cap)
{
	b->offs = calloc(cap ? cap : 1, sizeof(__u64));
	b->refs = calloc(cap ? cap : 1, sizeof(__u64));
	b->cookies = calloc(cap ? cap : 1, sizeof(__u64));
	b->cnt = 0;
	if (b->offs && b->refs && b->cookies)
		return 0;
	batch_free(b);
	return -ENOMEM;
}

static bool is_leave_probe(int probe)
{
	return probe == FSP_PROBE_MARK_LEAVE || probe == FSP_PROBE_ANTIMARK_LEAVE;
}

/*
 * The sites of probe fsp:name of a file into b. In a file with an ABI v2
 * record (vf), an ABI v1 site of a v2 mark (a shadow) is taken only for
 * exact counts (--events), flagged FSP_COOKIE_SHADOW; the marks of a unit
 * built with ABI v1 always. An enter site whose arguments cannot be read is
 * left out (its leave then matches nothing, counted); a leave site cannot
 * be (its enters would never be left): -ENOEXEC. probe: FSP_PROBE_*, or -1
 * (fsp:v2).
 */
static int batch_probe(struct session *s, const char *path, int probe, const char *name,
		       const struct fsp_v2_file *vf, const struct usdt_site *sites, size_t nr,
		       struct site_batch *b)
{
	for (size_t i = 0; i < nr; i++) {
		bool shadow = fsp_v2__is_shadow(vf, &sites[i]);
		int id;

		if (strcmp(sites[i].provider, FSP_PROVIDER) || strcmp(sites[i].name, name) ||
		    (shadow && !s->opts.v2_events))
			continue;
		if (!sites[i].args_ok) {
			log__err("%s: fsp:%s at 0x%llx has arguments fsp-bpf cannot read%s",
				 shown_path(path), sites[i].name,
				 (unsigned long long)sites[i].vaddr,
				 is_leave_probe(probe) ? "; the file's fsp probes are not attached"
						       : ": skipped");
			s->attach_errors++;
			if (is_leave_probe(probe))
				return -ENOEXEC;
			continue;
		}
		id = spec_id(s, &sites[i].spec);
		if (id < 0)
			return id;
		b->offs[b->cnt] = sites[i].offset;
		b->refs[b->cnt] = sites[i].ref_ctr_offset;
		b->cookies[b->cnt++] = id | (shadow ? FSP_COOKIE_SHADOW : 0);
		/* --events=FEATURE,...: a number of its own, for a link of its own. */
		if (shadow && s->opts.event_features)
			b->cookies[b->cnt - 1] |= (__u64)s->next_event_site++
						  << FSP_COOKIE_SITE_SHIFT;
	}
	return 0;
}

/* Adds provider to the list of providers seen, once. */
static void note_provider(struct session *s, const char *provider)
{
	size_t len = strlen(s->providers), n = strlen(provider);

	if (procscan__in_list(s->providers, provider) || len + n + 2 >= sizeof(s->providers))
		return;
	snprintf(s->providers + len, sizeof(s->providers) - len, "%s%s", len ? "," : "", provider);
}

/* The index of ms in the map_sites map (a mapped site's cookie). */
static int probemap_site_id(struct session *s, const struct fsp_map_site *ms)
{
	return intern(s->skel->maps.map_sites, s->probemap_sites, &s->nr_probemap_sites,
		      MAX_PROBEMAP_SITES, ms, sizeof(*ms));
}

/* Links each site of b on its own, each numbered in its cookie (--events=
 * FEATURE,...: a site that marks another feature is detached). */
static int batch_link_sites(struct session *s, int prog_fd, const char *path, pid_t pid,
			    struct site_batch *b)
{
	for (__u32 i = 0; i < b->cnt; i++) {
		size_t site = b->cookies[i] >> FSP_COOKIE_SITE_SHIFT;
		int err = attach__link_fd(s, usdt__link(prog_fd, path, &b->offs[i], &b->refs[i],
							&b->cookies[i], 1, pid));

		if (err)
			return err;
		/* Kept in links: closed by the caller's unwind on failure. */
		if (fsp_grow((void **)&s->event_sites, &s->cap_event_sites, site + 1,
			     sizeof(*s->event_sites)))
			return -ENOMEM;
		while (s->nr_event_sites <= site)
			s->event_sites[s->nr_event_sites++] = SIZE_MAX;
		s->event_sites[site] = s->nr_links - 1;
	}
	return (int)b->cnt;
}

static int batch_link(struct session *s, int prog_fd, const char *path, pid_t pid,
		      struct site_batch *b)
{
	int err;

	if (!b->cnt)
		return 0;
	if (s->opts.event_features && (b->cookies[0] & FSP_COOKIE_SHADOW))
		return batch_link_sites(s, prog_fd, path, pid, b);
	err = attach__link_fd(s,
			      usdt__link(prog_fd, path, b->offs, b->refs, b->cookies, b->cnt, pid));
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

/* The call-frame range of the first site of provider:name in the file. */
static bool site_range(const char *path, const struct usdt_site *sites, size_t nr,
		       const char *provider, const char *name, uint64_t *lo, uint64_t *hi,
		       uint64_t *vaddr)
{
	for (size_t i = 0; i < nr; i++) {
		if (strcmp(sites[i].provider, provider) || strcmp(sites[i].name, name))
			continue;
		*vaddr = sites[i].vaddr;
		return !usdt__func_range(path, sites[i].vaddr, lo, hi);
	}
	return false;
}

/*
 * A frame-bound feature whose enter and leave fire in different functions
 * (different call-frame entries) is cut short when the enter's function
 * returns, unless the leave's function is one it calls: worth a warning,
 * once per feature, when the map is attached. Unknown ranges say nothing.
 */
static void probemap_warn_frames(struct session *s, size_t m, size_t f, const char *kpath,
				 const struct usdt_site *sites, size_t nr)
{
	const struct probemap *pm = s->opts.probemaps[m].probemap;
	const struct probemap_feature *pf = &pm->features[f];
	uint64_t elo, ehi, llo, lhi, ev, lv;
	bool *warned = &s->frames_warned[s->feature_base[m] + f];

	if (*warned || pf->frame_caller ||
	    !site_range(kpath, sites, nr, pm->providers[pf->enter_provider], pf->enter, &elo, &ehi,
			&ev) ||
	    !site_range(kpath, sites, nr, pm->providers[pf->leave_provider], pf->leave, &llo, &lhi,
			&lv) ||
	    (elo == llo && ehi == lhi))
		return;
	*warned = true;
	log__err("warning: %s:%u: feature %s enters at %s (0x%llx, in the function at 0x%llx) "
		 "and leaves at %s (0x%llx, in the function at 0x%llx): a frame-bound mark is "
		 "cut short when the enter's function returns; if the leave does not fire "
		 "in a function it calls, use \"frame none\" (docs/probe-maps.md)",
		 pm->path ? pm->path : pm->name, pf->line, pf->name, pf->enter,
		 (unsigned long long)ev, (unsigned long long)elo, pf->leave, (unsigned long long)lv,
		 (unsigned long long)llo);
}

/* Checks that the file has both probes of every enabled feature of probe map m. */
static int check_probemap_probes(struct session *s, size_t m, const char *path, const char *kpath,
				 const struct usdt_site *sites, size_t nr)
{
	const struct probemap *pm = s->opts.probemaps[m].probemap;

	for (size_t f = 0; f < pm->nr_features; f++) {
		const struct probemap_feature *pf = &pm->features[f];
		const char *missing = NULL, *prov = NULL;

		if (!s->opts.probemaps[m].enabled[f])
			continue;
		if (!has_probe(sites, nr, pm->providers[pf->enter_provider], pf->enter)) {
			missing = pf->enter;
			prov = pm->providers[pf->enter_provider];
		} else if (!pf->point &&
			   !has_probe(sites, nr, pm->providers[pf->leave_provider], pf->leave)) {
			missing = pf->leave;
			prov = pm->providers[pf->leave_provider];
		}
		if (missing) {
			log__err("%s:%u: feature %s needs probe %s:%s, which %s does not have "
				 "(see its probes with fsp-bpf list; leave the feature out with "
				 "--feature)",
				 pm->path ? pm->path : pm->name, pf->line, pf->name, prov, missing,
				 shown_path(path));
			return -ENOMSG;
		}
		if (!pf->point && !pf->unframed)
			probemap_warn_frames(s, m, f, kpath, sites, nr);
	}
	return 0;
}

/* Adds the sites of probe map m's enabled features to the enter and leave batches. */
static int batch_probemap(struct session *s, size_t m, const char *path, const char *kpath,
			  const struct usdt_site *sites, size_t nr, struct site_batch *enter,
			  struct site_batch *leave)
{
	const struct probemap *pm = s->opts.probemaps[m].probemap;
	struct fsp_map_site ms;
	char why[512];

	for (size_t i = 0; i < nr; i++) {
		if (!probemap__has_provider(pm, sites[i].provider))
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

				unsigned int prov =
					is_leave ? pf->leave_provider : pf->enter_provider;

				if (strcmp(sites[i].name, is_leave ? pf->leave : pf->enter) ||
				    strcmp(sites[i].provider, pm->providers[prov]))
					continue;
				if (probemap_sites__build(pm, pf, is_leave, path, kpath, &sites[i],
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

/* The enabled features' sites of every probe map whose provider the file
 * carries, into the enter and leave batches (b[0], b[1]). 0 or -errno
 * (-ENOMSG: the probe map does not fit the file, already reported). */
static int batch_probemaps(struct session *s, const char *path, const char *kpath,
			   const struct usdt_site *sites, size_t nr, struct site_batch b[2])
{
	int err;

	for (size_t m = 0; m < s->opts.nr_probemaps; m++) {
		const struct probemap *pm = s->opts.probemaps[m].probemap;
		bool any = false;

		for (unsigned int k = 0; k < pm->nr_providers && !any; k++)
			any = has_probe(sites, nr, pm->providers[k], NULL);
		if (!any)
			continue;
		s->probemap_found[m] = true;
		err = check_probemap_probes(s, m, path, kpath, sites, nr);
		if (!err)
			err = batch_probemap(s, m, path, kpath, sites, nr, &b[0], &b[1]);
		if (err)
			return err;
	}
	return 0;
}

/*
 * The links of one file, in the order they are made: the ABI v2 record's
 * first, then every leave before any enter, so that a process never has an
 * enter armed without its leave, and the antimarks' enters before the
 * marks' (an antimark runs inside a mark of its feature: once a mark's
 * enter fires, so do its antimarks'; the other way round, an antimark
 * entered between the two links went unseen and its leave counted as
 * unmatched). A probe's USDT semaphore is raised in every process mapping
 * the file when its link is made (and at each later mapping): a process that
 * maps the file while the links are being made sees the leaves armed first,
 * and its first mark fires only once everything is (FSP_ENABLED(), ABI v1's
 * mark_enter semaphore, says so last). ABI v2's FSP_ENABLED() reads one word
 * of the record: the stacks' semaphore and the one its four ABI v1 probes
 * (--events' shadows) share, which their first link raises. Armed last, the
 * record let a process see FSP_ENABLED() while its marks were not pushed
 * yet: a mark entered then and left after the arming, with a mark nested
 * in it, was an unmatched leave. Armed first, the stacks are kept from the
 * moment the process sees it; the shadows only count events (a leave
 * without its shadow enter is ignored, not counted).
 */
enum file_step {
	STEP_V2, /* ABI v2: the record's announcement (its constructor) */
	STEP_MARK_LEAVE,
	STEP_ANTIMARK_LEAVE,
	STEP_MAP_LEAVE,
	STEP_ANTIMARK_ENTER,
	STEP_MARK_ENTER,
	STEP_MAP_ENTER,
	STEP__COUNT,
};

static const int step_probe[STEP__COUNT] = {
	[STEP_V2] = -1,
	[STEP_MARK_LEAVE] = FSP_PROBE_MARK_LEAVE,
	[STEP_ANTIMARK_LEAVE] = FSP_PROBE_ANTIMARK_LEAVE,
	[STEP_MAP_LEAVE] = -1,
	[STEP_ANTIMARK_ENTER] = FSP_PROBE_ANTIMARK_ENTER,
	[STEP_MARK_ENTER] = FSP_PROBE_MARK_ENTER,
	[STEP_MAP_ENTER] = -1,
};

static const char *step_name(int step)
{
	if (step == STEP_MAP_LEAVE)
		return "the mapped leaves";
	if (step == STEP_MAP_ENTER)
		return "the mapped enters";
	if (step == STEP_V2)
		return "fsp:" FSP_V2_PROBE;
	return fsp_probe_names[step_probe[step]];
}

static int step_prog(struct session *s, int step)
{
	if (step == STEP_MAP_LEAVE)
		return PROG_FD(s, map_leave);
	if (step == STEP_MAP_ENTER)
		return PROG_FD(s, map_enter);
	if (step == STEP_V2)
		return PROG_FD(s, v2_announce);
	return probe_prog(s, step_probe[step]);
}

/*
 * Every batch of the file's sites (the fsp probes', its ABI v2 record's and
 * the probe maps'). In a file with an ABI v2 record, the ABI v1 sites of its
 * v2 marks are attached only for exact counts (--events), as shadows of the
 * v2 stacks' frames (FSP_COOKIE_SHADOW); those of units built with ABI v1
 * always, as marks.
 */
static int plan_file(struct session *s, const char *path, const char *kpath,
		     const struct usdt_site *sites, size_t nr, const struct fsp_v2_file *vf,
		     struct site_batch b[STEP__COUNT])
{
	/* A mapped site may enter one feature and leave another: room for both. */
	size_t map_cap = s->opts.nr_probemaps ? 2 * nr * PROBEMAP_MAX_FEATURES : 0;
	struct site_batch maps[2];
	int err;

	for (int k = 0; k < STEP__COUNT; k++) {
		bool mapped = step_probe[k] < 0 && k != STEP_V2;

		err = batch_alloc(&b[k], mapped ? map_cap : nr);
		if (err)
			return err;
		if (k == STEP_V2 && vf->has_record)
			err = batch_probe(s, path, -1, FSP_V2_PROBE, vf, sites, nr, &b[k]);
		else if (!mapped && k != STEP_V2)
			err = batch_probe(s, path, step_probe[k], fsp_probe_names[step_probe[k]],
					  vf, sites, nr, &b[k]);
		if (err)
			return err;
	}
	if (!s->opts.nr_probemaps)
		return 0;
	maps[0] = b[STEP_MAP_ENTER];
	maps[1] = b[STEP_MAP_LEAVE];
	err = batch_probemaps(s, path, kpath, sites, nr, maps);
	b[STEP_MAP_ENTER] = maps[0];
	b[STEP_MAP_LEAVE] = maps[1];
	return err;
}

/* Destroys the links kept since index first (a file's, on failure). */
static void unwind_links(struct session *s, size_t first)
{
	for (size_t k = 0; k < s->nr_event_sites; k++)
		if (s->event_sites[k] != SIZE_MAX && s->event_sites[k] >= first)
			s->event_sites[k] = SIZE_MAX;
	for (size_t i = first; i < s->nr_links; i++)
		close(s->links[i].fd);
	s->nr_links = first;
}

/*
 * A file is being armed in processes that are running (-p, -a; done: it is):
 * their threads may have entered its marks unseen, before, or while a link
 * was made (the kernel raises a semaphore before it writes the breakpoint).
 * Such a thread's leave of such a mark is not counted as unmatched
 * (bpf/markstack.bpf.h, entered_unseen). Never for a launched command: it is
 * armed before it runs, and seen from its first instruction.
 */
static void arming(struct session *s, bool done)
{
	struct timespec ts;

	if (s->opts.sync_pid)
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	/* The kernel's task start times are CLOCK_MONOTONIC ns too. */
	s->skel->bss->attached_ns =
		done ? (__u64)ts.tv_sec * 1000000000ULL + (__u64)ts.tv_nsec : ~0ULL;
}

/* Makes the file's links in step order; all or none. Sites attached or -errno. */
static int link_file(struct session *s, pid_t pid, const char *path, const char *kpath,
		     struct site_batch b[STEP__COUNT])
{
	size_t first = s->nr_links;
	int total = 0, err = 0, k;

	/* The ABI v1 probes' programs load when the first such site comes. */
	for (k = 0; k < STEP__COUNT && !err; k++)
		if (step_probe[k] >= 0 && b[k].cnt)
			err = parts__load_marks(s);
	if (err)
		return err;

	arming(s, false);
	for (k = 0; k < STEP__COUNT && err >= 0; k++) {
		err = batch_link(s, step_prog(s, k), kpath, pid, &b[k]);
		total += err > 0 ? err : 0;
	}
	arming(s, true);
	if (err >= 0)
		return total;
	unwind_links(s, first);
	if (err == -ESRCH)
		return err; /* -p: the process is gone */
	log__err("cannot attach %s in %s%s%.0d: %s; none of the file's probes are attached, "
		 "its processes are not profiled",
		 step_name(k - 1), shown_path(path), pid ? " for pid " : "", pid, strerror(-err));
	s->attach_errors++;
	return err;
}

/* What a file attached adds to the session's kinds of marks (session__marks);
 * a file with an ABI v2 record is remembered for the rescans (session/v2.c). */
static void count_marks(struct session *s, int fd, const struct fsp_v2_file *vf,
			const struct site_batch b[STEP__COUNT])
{
	for (int k = 0; k < STEP__COUNT; k++) {
		for (__u32 i = 0; step_probe[k] >= 0 && i < b[k].cnt; i++) {
			if (b[k].cookies[i] & FSP_COOKIE_SHADOW)
				s->nr_shadow_sites++;
			else
				s->nr_v1_sites++;
		}
	}
	if (vf->has_record && b[STEP_V2].cnt && !v2__note_file(s, fd, vf))
		s->nr_v2_files++;
}

/*
 * Attaches the fsp probes and the mapped probes of one file, for process pid
 * (0: for every process that maps the file, system-wide), all or none.
 * The file is opened once, and every link names it through that descriptor:
 * the process whose /proc/PID/root reached it may exit meanwhile (each link
 * would otherwise open the path again, and fail once it has). Returns
 * the sites attached or -errno (-ENOENT, -ESRCH: the file could not be opened,
 * e.g. the process is gone; -ENOMSG: a probe map does not fit the file; any
 * other error is reported and counted).
 */
void attach__fd_path(int fd, char *buf, size_t size)
{
	snprintf(buf, size, "/proc/self/fd/%d", fd);
}

int attach__file(struct session *s, pid_t pid, const char *path, int given_fd)
{
	struct site_batch b[STEP__COUNT] = {};
	struct usdt_site *sites = NULL;
	struct fsp_v2_file vf = {};
	size_t nr = 0, skipped;
	char why[256], kpath[64];
	int err, fd = given_fd;

	if (fd < 0)
		fd = safeopen__read(AT_FDCWD, path, 0, NULL, NULL);
	if (fd < 0) {
		err = fd;
		if (err == -EACCES)
			attach__denied(s, path);
		else if (err != -ENOENT && err != -ESRCH) {
			log__err("cannot open %s to attach its probes: %s", shown_path(path),
				 strerror(-err));
			s->attach_errors++;
		}
		return err == -EACCES ? 0 : err;
	}
	attach__fd_path(fd, kpath, sizeof(kpath));
	err = usdt__read_sites(kpath, NULL, &sites, &nr, &skipped, why, sizeof(why));
	if (err) {
		if (err != -ENOEXEC) {
			log__err("cannot read the probes of %s: %s", shown_path(path),
				 strerror(-err));
			s->attach_errors++;
		}
		err = err == -ENOEXEC ? 0 : err;
		goto cleanup;
	}
	if (skipped) {
		log__err("%s: skipping %zu probe sites: %s", shown_path(path), skipped, why);
		s->attach_errors += skipped;
	}
	for (size_t k = 0; k < nr; k++)
		note_provider(s, sites[k].provider);
	if (!nr)
		goto cleanup;
	if (fsp_v2__file(sites, nr, &vf)) {
		log__err("%s: its fsp:v2 probes name different records (translation units "
			 "built with different fsp.h?): its marks are not sampled",
			 shown_path(path));
		s->attach_errors++;
		vf.has_record = false;
	}
	/* A file whose probes nothing here uses (another provider's, no map
	 * for it) plans no site: 0, and nothing to say. */
	err = plan_file(s, path, kpath, sites, nr, &vf, b);
	if (!err && b[STEP_V2].cnt)
		v2__prepare(s, pid ? pid : s->scan_pid, fd, &vf);
	if (err == -ENOEXEC) {
		err = 0; /* reported: the file is left alone */
	} else if (err && err != -ENOMSG) {
		log__err("cannot attach the probes of %s: %s", shown_path(path), strerror(-err));
		s->attach_errors++;
	} else if (!err) {
		err = link_file(s, pid, path, kpath, b); /* reports its errors */
	}
	if (err > 0) {
		count_marks(s, fd, &vf, b);
		log__verbose("%s%.0d: %d probe sites in %s", pid ? "pid " : "every process", pid,
			     err, shown_path(path));
		s->nr_sites += err;
	}
cleanup:
	for (int k = 0; k < STEP__COUNT; k++)
		batch_free(&b[k]);
	free(sites);
	if (given_fd < 0)
		close(fd);
	return err;
}

struct destroyer {
	struct attachment *links;
	size_t nr;
	size_t stride;
	size_t first;
};

enum { MAX_DETACH_THREADS = 32 };

/* Links being detached on threads (attach__detach_start). */
struct detach {
	struct attachment *links;
	size_t nr;
	size_t nt; /* destroyers */
	size_t started; /* of them on threads */
	double start;
	struct destroyer d[MAX_DETACH_THREADS];
	pthread_t th[MAX_DETACH_THREADS];
};

static void *destroy_some(void *arg)
{
	struct destroyer *d = arg;

	for (size_t i = d->first; i < d->nr; i += d->stride)
		close(d->links[i].fd);
	return NULL;
}

/*
 * Detaching a uprobe waits for an RCU grace period (50-100 ms here); one
 * after the other, a few dozen links take seconds. Threads overlap the
 * waits, and they start when the session ends (session__collect), so that
 * they wait while the profile is collected and reported.
 */
void attach__detach_start(struct session *s)
{
	struct detach *dt;

	if (s->detach || !s->nr_links)
		return;
	dt = calloc(1, sizeof(*dt));
	if (!dt)
		return; /* attach__destroy_all() does it all */
	dt->links = s->links;
	dt->nr = s->nr_links;
	dt->nt = dt->nr < MAX_DETACH_THREADS ? dt->nr : MAX_DETACH_THREADS;
	dt->start = now(CLOCK_MONOTONIC);
	for (size_t i = 0; i < dt->nt; i++)
		dt->d[i] = (struct destroyer){
			.links = dt->links, .nr = dt->nr, .stride = dt->nt, .first = i};
	while (dt->started < dt->nt &&
	       !pthread_create(&dt->th[dt->started], NULL, destroy_some, &dt->d[dt->started]))
		dt->started++;
	s->detach = dt; /* the links are its own now */
	s->links = NULL;
	s->nr_links = s->cap_links = 0;
}

void attach__destroy_all(struct session *s)
{
	struct detach *dt;

	eventsel__join(s);
	attach__detach_start(s);
	dt = s->detach;
	if (dt) {
		for (size_t i = 0; i < dt->started; i++)
			pthread_join(dt->th[i], NULL);
		for (size_t i = dt->started; i < dt->nt; i++)
			destroy_some(&dt->d[i]); /* no thread for these */
		log__phase("detached %zu probe links in %.3f s, on %zu threads", dt->nr,
			   now(CLOCK_MONOTONIC) - dt->start, dt->started);
		free(dt->links);
		free(dt);
		s->detach = NULL;
	}
	/* No memory for the threads: one after the other. */
	destroy_some(&(struct destroyer){.links = s->links, .nr = s->nr_links, .stride = 1});
	free(s->links);
	s->links = NULL;
	s->nr_links = s->cap_links = 0;
}
