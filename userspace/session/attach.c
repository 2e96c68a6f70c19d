// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Attaching the probes of one file: fsp's four probes (ABI v1), its fsp:v2
 * record (ABI v2, session/v2.c) and the probe maps' sites, each probe's sites
 * of a file in one uprobe_multi link; the argument specs and probe map sites
 * interned in their BPF maps; the teardown. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "fsp_probes.h"
#include "fsp_v2.h"
#include "log.h"
#include "probemap_sites.h"
#include "procscan.h"
#include "usdt.h"
#include "util.h"
#include "session_int.h"

static int add_attachment(struct session *s, struct bpf_link *link, int fd)
{
	if (fsp_grow((void **)&s->links, &s->cap_links, s->nr_links + 1, sizeof(*s->links)))
		return -ENOMEM;
	s->links[s->nr_links].link = link;
	s->links[s->nr_links++].fd = fd;
	return 0;
}

int attach__link(struct session *s, struct bpf_link *link)
{
	return add_attachment(s, link, -1);
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

/*
 * Attaches prog to the sites of probe fsp:name of a file, with cookie_flag in
 * their cookies; returns the sites attached or -errno.
 */
int attach__sites(struct session *s, pid_t pid, const char *path, struct bpf_program *prog,
		  const char *name, __u64 cookie_flag, const struct usdt_site *sites, size_t nr)
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

		if (strcmp(sites[i].provider, FSP_PROVIDER) || strcmp(sites[i].name, name))
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
		cookies[cnt++] = id | cookie_flag;
	}
	if (!cnt)
		goto cleanup;
	fd = usdt__link(bpf_program__fd(prog), path, offs, refs, cookies, cnt, pid);
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

/*
 * Attaches one ABI v1 probe's sites of a file. In a file with an ABI v2
 * record they are attached only for exact counts (--events), as shadows of
 * the v2 stacks' frames.
 */
static int attach_probe(struct session *s, pid_t pid, const char *path, int probe,
			const struct fsp_v2_file *vf, const struct usdt_site *sites, size_t nr)
{
	int err;

	if (vf->has_record && !s->opts.v2_events)
		return 0;
	err = attach__sites(s, pid, path, probe_prog(s, probe), fsp_probe_names[probe],
			    vf->has_record ? FSP_COOKIE_SHADOW : 0, sites, nr);
	if (err > 0 && vf->has_record)
		s->nr_shadow_sites += err;
	else if (err > 0)
		s->nr_v1_sites += err;
	return err;
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
int attach__file(struct session *s, pid_t pid, const char *path)
{
	struct usdt_site *sites = NULL;
	struct fsp_v2_file vf;
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
	if (fsp_v2__file(sites, nr, &vf)) {
		log__err("%s: its fsp:v2 probes name different records (translation units "
			 "built with different fsp.h?): its marks are not sampled",
			 path);
		s->attach_errors++;
		vf.has_record = false;
	}
	if (vf.has_record) {
		err = v2__attach_file(s, pid, path, &vf, sites, nr);
		if (err == -ESRCH || err == -ENOENT)
			goto cleanup;
		if (err < 0) {
			log__err("cannot attach fsp:v2 in %s (pid %d): %s", path, pid,
				 strerror(-err));
			s->attach_errors++;
		} else {
			total += err;
		}
	}
	for (i = 0; i < FSP_PROBE__COUNT && nr; i++) {
		err = attach_probe(s, pid, path, i, &vf, sites, nr);
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

void attach__destroy_all(struct session *s)
{
	destroy_links(s->links, s->nr_links);
	free(s->links);
	s->links = NULL;
	s->nr_links = s->cap_links = 0;
}
