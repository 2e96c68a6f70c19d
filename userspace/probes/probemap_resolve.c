// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* --map resolved into the probe maps of a recording (probemap_resolve.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "funcfeat.h"
#include "log.h"
#include "probemap_dir.h"
#include "probemap_resolve.h"
#include "procmaps.h"
#include "procscan.h"
#include "usdt.h"

#define MAX_PROBEMAPS 32

struct probemap_selection {
	struct probemap *probemaps[MAX_PROBEMAPS];
	struct session_probemap selected[MAX_PROBEMAPS];
	size_t nr;
	/* the maps with features of probes, for the session: selected[] but
	 * the maps of function features alone */
	struct session_probemap probed[MAX_PROBEMAPS];
	size_t nr_probed;
	struct funcfeat *rules; /* the selected function features */
	bool named[MAX_PROBEMAPS]; /* named by --map (else added by auto) */
	char names[MAX_PROBEMAPS * (PROBEMAP_NAME_LEN + 2)]; /* for messages */
};

typedef int (*provider_cb)(void *ctx, const char *path, const char *provider);

struct provider_ctx {
	pid_t pid;
	provider_cb cb;
	void *ctx;
};

/* The distinct providers of one file, in note order. */
static int file_providers(const char *host, const char *shown, provider_cb cb, void *ctx)
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

static int mapped_cb(void *arg, const char *kpath, const char *path)
{
	struct provider_ctx *c = arg;

	return file_providers(kpath, path, c->cb, c->ctx);
}

/* Calls cb once per distinct (file, provider) in the files pid maps (paths
 * as pid sees them; read through /proc/PID/root). pid 0: path is a file.
 * Returns 0, cb's first non-zero result, or -errno. */
static int for_each_provider(pid_t pid, const char *path, provider_cb cb, void *ctx)
{
	struct provider_ctx c = {.pid = pid, .cb = cb, .ctx = ctx};

	if (!pid)
		return file_providers(path, path, cb, ctx);
	return procmaps__for_each_open_file(pid, mapped_cb, &c);
}

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	if (!strcmp(a, b))
		return true;
	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* A file's name is its map's (NAME.map): the conventional file of a map. */
static bool named_as(const struct probemap *pm)
{
	const char *base = strrchr(pm->path, '/');
	size_t n = strlen(pm->name);

	base = base ? base + 1 : pm->path;
	return !strncmp(base, pm->name, n) && !strcmp(base + n, ".map");
}

static int add_probemap(struct probemap_selection *sel, const char *name)
{
	char path[PATH_MAX], err[512];
	struct probemap *pm;
	int ret;

	if (sel->nr == MAX_PROBEMAPS) {
		log__err("--map: at most %d maps", MAX_PROBEMAPS);
		return -E2BIG;
	}
	ret = probemap_dir__find(name, path, sizeof(path));
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
	for (size_t i = 0; i < sel->nr; i++) {
		const struct probemap *had = sel->probemaps[i];

		if (strcmp(had->name, pm->name))
			continue;
		ret = same_file(had->path, pm->path) ? 0 : -EINVAL;
		/* Two files of one map name would attach the probes twice. */
		if (ret)
			log__err("--map: %s and %s are both map '%s' (its \"map\" line): give one "
				 "of them, or rename one",
				 had->path, pm->path, pm->name);
		probemap__free(pm);
		return ret; /* the same file named twice: once */
	}
	sel->probemaps[sel->nr] = pm;
	sel->selected[sel->nr].probemap = pm;
	sel->named[sel->nr++] = true;
	return 0;
}

/* --map auto: every shipped map whose provider the targets carry. */
struct auto_ctx {
	struct probemap_selection *sel;
	const char *providers; /* comma-separated */
	int fits; /* maps whose provider the targets carry */
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

/*
 * --map auto found pm, a map whose name a selected map has already (two
 * files with one "map" line, on the search path or named by --map too):
 * attaching both would count every probe twice. One is kept: the one named
 * by --map, else the file called NAME.map, else the first found; said
 * unless both are the same file. Returns 0 when pm is no duplicate, 1 when
 * it is to be dropped, 2 when it replaced the other (in place).
 */
static int auto_duplicate(struct probemap_selection *sel, struct probemap *pm)
{
	for (size_t i = 0; i < sel->nr; i++) {
		struct probemap *had = sel->probemaps[i];
		bool swap;

		if (strcmp(had->name, pm->name))
			continue;
		if (same_file(had->path, pm->path))
			return 1;
		swap = !sel->named[i] && !named_as(had) && named_as(pm);
		log__info("--map auto: %s and %s are both map '%s' (their \"map\" line); using %s "
			  "only",
			  had->path, pm->path, pm->name, swap ? pm->path : had->path);
		if (!swap)
			return 1;
		sel->probemaps[i] = pm;
		sel->selected[i].probemap = pm;
		probemap__free(had);
		return 2;
	}
	return 0;
}

static int auto_cb(void *arg, const char *path)
{
	struct auto_ctx *c = arg;
	struct probemap *pm;
	char err[512];

	if (probemap__load(path, &pm, err, sizeof(err)))
		return 0; /* a broken shipped map is reported by fsp-bpf list */
	if (c->providers) {
		bool any = false;

		for (unsigned int k = 0; k < pm->nr_providers; k++)
			any |= procscan__in_list(c->providers, pm->providers[k]);
		if (!any) {
			probemap__free(pm);
			return 0;
		}
	}
	c->fits++;
	switch (auto_duplicate(c->sel, pm)) {
	case 2:
		return 0; /* in the place of the other */
	case 1:
		probemap__free(pm);
		return 0;
	}
	if (c->sel->nr == MAX_PROBEMAPS) {
		probemap__free(pm);
		return 0;
	}
	c->sel->probemaps[c->sel->nr] = pm;
	c->sel->selected[c->sel->nr++].probemap = pm;
	return 0;
}

#define SAMPLED_SUFFIX "-sampled"

/* The index in sel of the map named name, added by auto; -1 if none. */
static int auto_index(const struct probemap_selection *sel, const char *name, size_t len)
{
	for (size_t i = 0; i < sel->nr; i++)
		if (!sel->named[i] && strlen(sel->probemaps[i]->name) == len &&
		    !strncmp(sel->probemaps[i]->name, name, len))
			return (int)i;
	return -1;
}

static void drop_map(struct probemap_selection *sel, size_t i)
{
	probemap__free(sel->probemaps[i]);
	for (; i + 1 < sel->nr; i++) {
		sel->probemaps[i] = sel->probemaps[i + 1];
		sel->selected[i] = sel->selected[i + 1];
		sel->named[i] = sel->named[i + 1];
	}
	sel->nr--;
}

/*
 * --map auto found both NAME and NAME-sampled (postgresql and
 * postgresql-sampled): the same phases, once by probes that trap at every
 * call, once as function features read off native stacks at the samples'
 * cost. Auto keeps the sampled one, unless exact counts are asked
 * (--events): the probes give them at one trap per probe, where function
 * features' calls cost two (entry and return uprobes) and name call sites,
 * not statements. A map named by --map is never dropped.
 */
static void auto_prefer_sampled(struct probemap_selection *sel, bool exact)
{
	for (size_t i = 0; i < sel->nr; i++) {
		const char *name = sel->probemaps[i]->name;
		size_t n = strlen(name), sn = strlen(SAMPLED_SUFFIX);
		int probed;

		if (sel->named[i] || n <= sn || strcmp(name + n - sn, SAMPLED_SUFFIX))
			continue;
		probed = auto_index(sel, name, n - sn);
		if (probed < 0)
			continue;
		log__info("--map auto: using %s, not %s (%s)",
			  sel->probemaps[exact ? (size_t)probed : i]->name,
			  sel->probemaps[exact ? i : (size_t)probed]->name,
			  exact ? "--events asks for exact counts, which its probes give"
				: "no probe traps; --events for exact counts");
		drop_map(sel, exact ? i : (size_t)probed);
		i = (size_t)-1; /* the indexes moved: again from the start */
	}
}

static int add_auto(struct probemap_selection *sel, const struct probemap_selection_opts *o)
{
	char providers[1024] = "";
	struct auto_ctx c = {.sel = sel, .providers = providers};
	int err;

	if (o->system_wide)
		c.providers = NULL;
	for (int i = 0; i < o->nr_pids; i++)
		for_each_provider(o->pids[i], NULL, provider_list_cb, providers);
	if (o->exe)
		for_each_provider(0, o->exe, provider_list_cb, providers);
	err = probemap_dir__list(auto_cb, &c);
	if (err)
		return err;
	if (!c.fits) {
		log__err("--map auto: no shipped map fits the target, whose USDT providers are: %s "
			 "(see fsp-bpf list)",
			 providers[0] ? providers : "none");
		return -ENOENT;
	}
	auto_prefer_sampled(sel, o->exact_events);
	return 0;
}

/* The map of sel named name (the "MAP" of "MAP:FEATURE"), NULL if none. */
static const struct probemap *map_named(const struct probemap_selection *sel, const char *name,
					size_t len)
{
	for (size_t i = 0; i < sel->nr; i++)
		if (strlen(sel->probemaps[i]->name) == len &&
		    !strncmp(sel->probemaps[i]->name, name, len))
			return sel->probemaps[i];
	return NULL;
}

/*
 * A --feature entry "MAP:NAME" of one of the maps, NAME none of its
 * features: a typo, said before anything runs. (An entry without a map's
 * prefix may name an fsp feature, a string in the target's memory that only
 * its marks tell: the report says whether it matched.) 0 or -EINVAL.
 */
static int check_qualified(const struct probemap_selection *sel, const char *features)
{
	const char *e = features ? features : "";

	while (*e) {
		size_t n = strcspn(e, ","), lead = strspn(e, " ");
		const char *colon = memchr(e, ':', n);
		const struct probemap *m =
			colon ? map_named(sel, e + lead, (size_t)(colon - e) - lead) : NULL;
		char name[PROBEMAP_NAME_LEN],
			known[PROBEMAP_MAX_FEATURES * (PROBEMAP_NAME_LEN + 2)];
		size_t len = 0, nlen = m ? strcspn(colon + 1, ", ") : 0;

		if (m && nlen < sizeof(name)) {
			memcpy(name, colon + 1, nlen);
			name[nlen] = 0;
		}
		if (m && (nlen >= sizeof(name) || probemap__feature_index(m, name) < 0)) {
			known[0] = 0;
			for (size_t f = 0; f < m->nr_features; f++)
				len += snprintf(known + len, sizeof(known) - len, "%s%s",
						f ? ", " : "", m->features[f].name);
			log__err(
				"--feature %.*s: the map %s has no feature %.*s (its features: %s)",
				(int)(n - lead), e + lead, m->name, (int)nlen, colon + 1, known);
			return -EINVAL;
		}
		e += n + (e[n] == ',');
	}
	return 0;
}

/* --feature against the maps: names of no map are left to the report. */
static int select_features(struct probemap_selection *sel, const char *features)
{
	int enabled = 0, err = check_qualified(sel, features);

	if (err)
		return err;

	for (size_t i = 0; i < sel->nr; i++) {
		int n = probemap__select(sel->probemaps[i], features, sel->selected[i].enabled,
					 NULL);
		char msg[512];

		if (n < 0)
			return n;
		enabled += n;
		n = probemap__function_rules(sel->probemaps[i], features, sel->rules, msg,
					     sizeof(msg));
		if (n < 0) {
			log__err("%s", msg);
			return n == -ENOTSUP ? -EINVAL : n;
		}
		enabled += n;
		/* A map of function features alone with a provider is kept too:
		 * -a then profiles the processes that carry it. */
		if (sel->probemaps[i]->nr_features || sel->probemaps[i]->nr_providers)
			sel->probed[sel->nr_probed++] = sel->selected[i];
	}
	if (!enabled) {
		if (features && *features)
			log__err("--feature %s: no feature of the map%s %s has such a name (see "
				 "fsp-bpf list --map NAME)",
				 features, sel->nr > 1 ? "s" : "", sel->names);
		else
			log__err("the map%s %s enable%s no feature by default: name some with "
				 "--feature",
				 sel->nr > 1 ? "s" : "", sel->names, sel->nr > 1 ? "" : "s");
		return -EINVAL;
	}
	return 0;
}

struct probemap_selection *probemap_selection__new(const struct probemap_selection_opts *o,
						   int *err)
{
	struct probemap_selection *sel = calloc(1, sizeof(*sel));
	char *list = NULL, *tok, *save = NULL;
	size_t len = 0;

	*err = sel && (sel->rules = funcfeat__new()) ? 0 : -ENOMEM;
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
		*err = !strcmp(tok, "auto") ? add_auto(sel, o) : add_probemap(sel, tok);
	}
	if (*err)
		goto cleanup;
	for (size_t i = 0; i < sel->nr; i++)
		len += snprintf(sel->names + len, sizeof(sel->names) - len, "%s%s", i ? ", " : "",
				sel->probemaps[i]->name);
	if (sel->nr)
		*err = select_features(sel, o->features);
cleanup:
	free(list);
	if (*err) {
		probemap_selection__free(sel);
		return NULL;
	}
	return sel;
}

void probemap_selection__free(struct probemap_selection *sel)
{
	if (!sel)
		return;
	for (size_t i = 0; i < sel->nr; i++)
		probemap__free(sel->probemaps[i]);
	funcfeat__free(sel->rules);
	free(sel);
}

const struct session_probemap *probemap_selection__probemaps(const struct probemap_selection *sel)
{
	return sel->probed;
}

size_t probemap_selection__nr(const struct probemap_selection *sel)
{
	return sel->nr_probed;
}

const struct funcfeat *probemap_selection__rules(const struct probemap_selection *sel)
{
	return sel ? sel->rules : NULL;
}
