// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "mapdir.h"
#include "maps.h"
#include "procmaps.h"
#include "procscan.h"
#include "usdt.h"

#define MAPS_MAX 32

struct maps {
	struct probemap *maps[MAPS_MAX];
	struct session_map sm[MAPS_MAX];
	size_t nr;
	char names[MAPS_MAX * (PROBEMAP_NAME_LEN + 2)];
};

struct provider_ctx {
	pid_t pid;
	maps_provider_cb cb;
	void *ctx;
};

/* The distinct providers of one file, in note order. */
static int file_providers(const char *host, const char *shown, maps_provider_cb cb, void *ctx)
{
	struct usdt_site *sites = NULL;
	size_t nr = 0, skipped;
	int err = 0;

	if (usdt__read_sites(host, NULL, &sites, &nr, &skipped, NULL, 0))
		return 0; /* not ELF, unreadable: no probes */
	for (size_t i = 0; i < nr && !err; i++) {
		bool dup = false;

		for (size_t j = 0; j < i && !dup; j++)
			dup = !strcmp(sites[j].provider, sites[i].provider);
		if (!dup)
			err = cb(ctx, shown, sites[i].provider);
	}
	free(sites);
	return err;
}

static int mapped_cb(void *arg, const char *path, dev_t dev, ino_t ino)
{
	struct provider_ctx *c = arg;
	char host[PATH_MAX + 64];

	(void)dev;
	(void)ino;
	snprintf(host, sizeof(host), "/proc/%d/root%s", c->pid, path);
	return file_providers(host, path, c->cb, c->ctx);
}

int maps__for_each_provider(pid_t pid, const char *path, maps_provider_cb cb, void *ctx)
{
	struct provider_ctx c = {.pid = pid, .cb = cb, .ctx = ctx};

	if (!pid)
		return file_providers(path, path, cb, ctx);
	return procmaps__for_each_mapped_file(pid, mapped_cb, &c);
}

static int add_map(struct maps *m, const char *name)
{
	char path[PATH_MAX], err[512];
	struct probemap *pm;
	int ret;

	if (m->nr == MAPS_MAX) {
		log__err("--map: at most %d maps", MAPS_MAX);
		return -E2BIG;
	}
	ret = mapdir__find(name, path, sizeof(path));
	if (ret) {
		if (strchr(name, '/') || strstr(name, ".map"))
			log__err("--map %s: %s", name, strerror(-ret));
		else
			log__err("--map %s: no such map among the shipped maps (see fsp-bpf list) "
				 "or FSP_MAP_PATH; give a file's path to use your own",
				 name);
		return ret;
	}
	ret = probemap__load(path, &pm, err, sizeof(err));
	if (ret) {
		log__err("%s", err);
		return ret;
	}
	for (size_t i = 0; i < m->nr; i++) {
		if (!strcmp(m->maps[i]->name, pm->name)) {
			probemap__free(pm);
			return 0; /* named twice */
		}
	}
	m->maps[m->nr] = pm;
	m->sm[m->nr].map = pm;
	m->nr++;
	return 0;
}

/* --map auto: every shipped map whose provider the targets carry. */
struct auto_ctx {
	struct maps *m;
	const char *providers; /* comma-separated */
	int err;
};

static int provider_list_cb(void *arg, const char *path, const char *provider)
{
	char *list = arg;
	size_t len = strlen(list);

	(void)path;
	if (!procscan__in_list(list, provider) && len + strlen(provider) + 2 < 1024)
		snprintf(list + len, 1024 - len, "%s%s", len ? "," : "", provider);
	return 0;
}

static int auto_cb(void *arg, const char *path)
{
	struct auto_ctx *c = arg;
	struct probemap *pm;
	char err[512];

	if (probemap__load(path, &pm, err, sizeof(err)))
		return 0; /* a broken shipped map is reported by fsp-bpf list */
	if (c->providers && !procscan__in_list(c->providers, pm->provider)) {
		probemap__free(pm);
		return 0;
	}
	if (c->m->nr == MAPS_MAX) {
		probemap__free(pm);
		return 0;
	}
	c->m->maps[c->m->nr] = pm;
	c->m->sm[c->m->nr++].map = pm;
	return 0;
}

static int add_auto(struct maps *m, const struct maps_opts *o)
{
	char providers[1024] = "";
	struct auto_ctx c = {.m = m, .providers = providers};
	size_t before = m->nr;
	int err;

	if (o->system_wide)
		c.providers = NULL;
	for (int i = 0; i < o->nr_pids; i++)
		maps__for_each_provider(o->pids[i], NULL, provider_list_cb, providers);
	if (o->exe)
		maps__for_each_provider(0, o->exe, provider_list_cb, providers);
	err = mapdir__list(auto_cb, &c);
	if (err)
		return err;
	if (m->nr == before) {
		log__err("--map auto: no shipped map fits the target, whose USDT providers are: %s "
			 "(see fsp-bpf list)",
			 providers[0] ? providers : "none");
		return -ENOENT;
	}
	return 0;
}

/* --feature against the maps: names of no map are left to the report. */
static int select_features(struct maps *m, const char *features)
{
	int enabled = 0;

	for (size_t i = 0; i < m->nr; i++) {
		int n = probemap__select(m->maps[i], features, m->sm[i].enabled, NULL);

		if (n < 0)
			return n;
		enabled += n;
	}
	if (!enabled) {
		if (features && *features)
			log__err("--feature %s: no feature of the map%s %s has such a name (see "
				 "fsp-bpf list --map NAME)",
				 features, m->nr > 1 ? "s" : "", m->names);
		else
			log__err("the map%s %s enable%s no feature by default: name some with "
				 "--feature",
				 m->nr > 1 ? "s" : "", m->names, m->nr > 1 ? "" : "s");
		return -EINVAL;
	}
	return 0;
}

struct maps *maps__new(const struct maps_opts *o, int *err)
{
	struct maps *m = calloc(1, sizeof(*m));
	char *list = NULL, *tok, *save = NULL;
	size_t len = 0;

	*err = m ? 0 : -ENOMEM;
	if (*err)
		goto cleanup;
	list = strdup(o->list ? o->list : "");
	if (!list) {
		*err = -ENOMEM;
		goto cleanup;
	}
	for (tok = strtok_r(list, ",", &save); tok && !*err; tok = strtok_r(NULL, ",", &save)) {
		while (*tok == ' ')
			tok++;
		if (!*tok)
			continue;
		*err = !strcmp(tok, "auto") ? add_auto(m, o) : add_map(m, tok);
	}
	if (*err)
		goto cleanup;
	for (size_t i = 0; i < m->nr; i++)
		len += snprintf(m->names + len, sizeof(m->names) - len, "%s%s", i ? ", " : "",
				m->maps[i]->name);
	if (m->nr)
		*err = select_features(m, o->features);
cleanup:
	free(list);
	if (*err) {
		maps__free(m);
		return NULL;
	}
	return m;
}

void maps__free(struct maps *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nr; i++)
		probemap__free(m->maps[i]);
	free(m);
}

const struct session_map *maps__session_maps(const struct maps *m)
{
	return m->sm;
}

size_t maps__nr(const struct maps *m)
{
	return m->nr;
}
