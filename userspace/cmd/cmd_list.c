// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * fsp-bpf list: the shipped probe maps and their features; with -p, the USDT
 * providers and probes a process carries and which maps apply to it.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caps.h"
#include "commands.h"
#include "escape.h"
#include "log.h"
#include "plugin.h"
#include "probemap_dir.h"
#include "probemap.h"
#include "procmaps.h"
#include "procscan.h"
#include "usdt.h"

/*
 * Text of map files, of the process's files and of its ELF notes (paths,
 * provider and probe names, comm) is written escaped (escape.h): any
 * process chooses its own.
 */
static void put(const char *s)
{
	escape__fputs(s, stdout);
}

/* "PROVIDER:PROBE" when the map has several providers, else "PROBE". */
static void put_probe(const struct probemap *pm, unsigned int provider, const char *probe)
{
	if (pm->nr_providers > 1) {
		put(pm->providers[provider]);
		putchar(':');
	}
	put(probe);
}

/* A feature's rules beyond its probes and template, on one line each. */
static void print_rules(const struct probemap *pm, const struct probemap_feature *f)
{
	char buf[512];

	for (unsigned int k = 0; k < f->nr_when; k++) {
		probemap__format_when(pm, &f->when[k], buf, sizeof(buf));
		fputs("                 when ", stdout);
		put(buf);
		putchar('\n');
	}
	if (f->charge[0]) {
		fputs("                 charge threads ", stdout);
		put(f->charge);
		putchar('\n');
	}
}

/* The function features of a map: "NAME  function FILE:F,...  antimark ...". */
static void print_functions(const struct probemap *pm)
{
	for (size_t i = 0; i < pm->nr_functions; i++) {
		const struct probemap_feature *f = &pm->functions[i];

		fputs("  ", stdout);
		escape__fpad(f->name, 14, stdout);
		for (unsigned int k = 0; k < f->nr_functions; k++) {
			fputs(f->function_antimark[k] ? "  antimark " : " function ", stdout);
			put(f->functions[k]);
		}
		fputs(f->instance_none ? "  instance none" : "", stdout);
		printf("%s\n", f->default_off ? "  (default off: name it with --feature)" : "");
	}
}

static void print_map(const struct probemap *pm, const char *path)
{
	char tmpl[512];

	put(pm->name);
	fputs(pm->nr_providers > 1 ? "  (providers "
	      : pm->nr_providers   ? "  (provider "
				   : "  (function features, no provider",
	      stdout);
	for (unsigned int k = 0; k < pm->nr_providers; k++) {
		if (k)
			putchar(' ');
		put(pm->providers[k]);
	}
	fputs(", ", stdout);
	put(path);
	fputs(")\n", stdout);
	if (pm->description[0]) {
		fputs("  ", stdout);
		put(pm->description);
		putchar('\n');
	}
	for (size_t i = 0; i < pm->nr_features; i++) {
		const struct probemap_feature *f = &pm->features[i];

		probemap__format_template(pm, f, tmpl, sizeof(tmpl));
		fputs("  ", stdout);
		escape__fpad(f->name, 14, stdout);
		putchar(' ');
		if (f->point)
			fputs("event ", stdout);
		put_probe(pm, f->enter_provider, f->enter);
		if (!f->point) {
			fputs(" -> ", stdout);
			put_probe(pm, f->leave_provider, f->leave);
		}
		if (tmpl[0]) {
			fputs("  instance ", stdout);
			put(tmpl);
		}
		printf("%s%s%s%s\n", f->kind == PROBEMAP_ANTIMARK ? "  antimark" : "",
		       f->unframed ? "  (frame none)" : "",
		       f->label_sample ? "  (label sample: read at each sample)" : "",
		       f->default_off ? "  (default off: name it with --feature)" : "");
		print_rules(pm, f);
	}
	print_functions(pm);
}

struct maplist_ctx {
	int n; /* maps printed */
	int err; /* a map could not be read */
};

static int list_map_cb(void *ctx, const char *path)
{
	struct maplist_ctx *c = ctx;
	struct probemap *pm;
	char err[512];

	c->err = probemap__load(path, &pm, err, sizeof(err));
	if (c->err) {
		log__err("%s", err);
		return 0;
	}
	if (c->n++)
		putchar('\n');
	print_map(pm, path);
	probemap__free(pm);
	return 0;
}

/* One file's probes, grouped by provider. */
struct probe_count {
	char provider[64];
	char name[64];
	unsigned int sites;
	bool semaphore;
};

static int cmp_probe(const void *a, const void *b)
{
	const struct probe_count *x = a, *y = b;
	int c = strcmp(x->provider, y->provider);

	return c ? c : strcmp(x->name, y->name);
}

struct list_ctx {
	pid_t pid;
	char providers[1024];
	struct usdt_site *all; /* every site seen, for the maps' check */
	size_t nr_all;
	int applied; /* maps that apply */
};

static int print_file(struct list_ctx *c, const char *host, const char *shown)
{
	struct usdt_site *sites = NULL;
	struct probe_count *pc;
	size_t nr = 0, skipped, n = 0;
	const char *prov = "";

	if (usdt__read_sites(host, NULL, &sites, &nr, &skipped, NULL, 0) || !nr) {
		free(sites);
		return 0;
	}
	pc = calloc(nr, sizeof(*pc));
	if (!pc) {
		free(sites);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nr; i++) {
		size_t j;

		for (j = 0; j < n; j++)
			if (!strcmp(pc[j].provider, sites[i].provider) &&
			    !strcmp(pc[j].name, sites[i].name))
				break;
		if (j == n) {
			snprintf(pc[n].provider, sizeof(pc[n].provider), "%s", sites[i].provider);
			snprintf(pc[n].name, sizeof(pc[n].name), "%s", sites[i].name);
			n++;
		}
		pc[j].sites++;
		pc[j].semaphore |= sites[i].ref_ctr_offset != 0;
	}
	qsort(pc, n, sizeof(*pc), cmp_probe);
	fputs("  ", stdout);
	put(shown);
	putchar('\n');
	for (size_t j = 0; j < n; j++) {
		if (strcmp(prov, pc[j].provider)) {
			prov = pc[j].provider;
			fputs("    provider ", stdout);
			put(prov);
			putchar('\n');
			if (!procscan__in_list(c->providers, prov)) {
				size_t len = strlen(c->providers);

				snprintf(c->providers + len, sizeof(c->providers) - len, "%s%s",
					 len ? "," : "", prov);
			}
		}
		fputs("      ", stdout);
		escape__fpad(pc[j].name, 36, stdout);
		printf(" %u site%s%s\n", pc[j].sites, pc[j].sites == 1 ? "" : "s",
		       pc[j].semaphore ? ", semaphore" : "");
	}
	{
		struct usdt_site *all = realloc(c->all, (c->nr_all + nr) * sizeof(*all));

		if (all) {
			memcpy(all + c->nr_all, sites, nr * sizeof(*sites));
			c->all = all;
			c->nr_all += nr;
		}
	}
	free(pc);
	free(sites);
	return 0;
}

static int file_cb(void *arg, const char *kpath, const char *path)
{
	return print_file(arg, kpath, path);
}

static bool has_probe(const struct list_ctx *c, const char *provider, const char *name)
{
	for (size_t i = 0; i < c->nr_all; i++)
		if (!strcmp(c->all[i].provider, provider) && !strcmp(c->all[i].name, name))
			return true;
	return false;
}

/* The probe of feature f that the process lacks, NULL if it has both. */
static const char *missing_probe(const struct list_ctx *c, const struct probemap *pm,
				 const struct probemap_feature *f, unsigned int *provider)
{
	*provider = f->enter_provider;
	if (!has_probe(c, pm->providers[f->enter_provider], f->enter))
		return f->enter;
	*provider = f->leave_provider;
	if (!f->point && !has_probe(c, pm->providers[f->leave_provider], f->leave))
		return f->leave;
	return NULL;
}

/* Whether a shipped map applies to the process, and which features fit. */
static int applies_cb(void *arg, const char *path)
{
	struct list_ctx *c = arg;
	struct probemap *pm;
	unsigned int prov;
	char err[512];
	size_t ok = 0;
	bool any = false;

	if (probemap__load(path, &pm, err, sizeof(err)))
		return 0;
	for (unsigned int k = 0; k < pm->nr_providers; k++)
		any |= procscan__in_list(c->providers, pm->providers[k]);
	if (!any) {
		probemap__free(pm);
		return 0;
	}
	fputs("  ", stdout);
	put(pm->name);
	fputs(" (", stdout);
	put(path);
	fputs("):", stdout);
	for (size_t i = 0; i < pm->nr_features; i++)
		ok += !missing_probe(c, pm, &pm->features[i], &prov);
	printf(" %zu of %zu features have their probes here\n", ok, pm->nr_features);
	for (size_t i = 0; i < pm->nr_features; i++) {
		const struct probemap_feature *f = &pm->features[i];
		const char *miss = missing_probe(c, pm, f, &prov);

		if (!miss)
			continue;
		fputs("    ", stdout);
		put(f->name);
		fputs(": missing ", stdout);
		put(pm->providers[prov]);
		putchar(':');
		put(miss);
		putchar('\n');
	}
	c->applied++;
	probemap__free(pm);
	return 0;
}

static int list_pid(pid_t pid)
{
	struct list_ctx c = {.pid = pid};
	char comm[64] = "";
	int err;

	if (kill(pid, 0) && errno == ESRCH) {
		log__err("no such process: %d (check the PID with ps or pgrep)", pid);
		return -ESRCH;
	}
	/* Another user's files: not "no probes", but CAP_SYS_PTRACE missing. */
	if (caps__check_readable(pid))
		return -EACCES;
	procscan__comm(pid, comm, sizeof(comm));
	printf("pid %d (", pid);
	put(comm);
	fputs("): USDT probes by file\n", stdout);
	err = procmaps__for_each_open_file(pid, file_cb, &c);
	if (err) {
		log__err("cannot read the mappings of process %d: %s", pid, strerror(-err));
		goto cleanup;
	}
	if (!c.providers[0])
		printf("  (none: no file it maps has USDT probes)\n");
	printf("Probe maps that apply (fsp-bpf --map NAME -p %d, or --map auto):\n", pid);
	err = probemap_dir__list(applies_cb, &c);
	if (!err && !c.applied)
		printf("  (none of the shipped maps: write one, see docs/probe-maps.md)\n");
cleanup:
	free(c.all);
	return err;
}

/* The built-in analysis plug-ins: name, feature read, formats, summary. */
static void list_plugins(void)
{
	printf("Built-in analysis plug-ins (fsp-bpf report --plugin NAME[=FEATURE] FILE, "
	       "docs/plugins.md):\n\n");
	for (size_t i = 0; i < plugin__nr_builtins(); i++) {
		const struct fsp_plugin *d = plugin__builtin(i);
		char fmts[64];

		snprintf(fmts, sizeof(fmts), "text%s%s", d->render_json ? ", json" : "",
			 d->render_dot ? ", dot" : "");
		printf("  %-10s reads feature %-10s %s\n      %s\n", d->name,
		       d->feature ? d->feature : "(named)", fmts, d->summary ? d->summary : "");
	}
	printf("\nOther plug-ins are shared objects, named by their path (--plugin ./libmine.so); "
	       "they are built against <fsp/fsp-plugin.h> (ABI version %d).\n",
	       FSP_PLUGIN_ABI_VERSION);
}

static int list_run(const struct fsp_options *o, const char *cmdline)
{
	struct maplist_ctx c = {0};
	int err = 0;

	(void)cmdline;
	if (o->list_plugins) {
		list_plugins();
		return 0;
	}
	if (o->nr_pids) {
		for (int i = 0; i < o->nr_pids && !err; i++)
			err = list_pid(o->pids[i]);
		return err;
	}
	if (o->probemaps) {
		char path[PATH_MAX];

		err = probemap_dir__find(o->probemaps, path, sizeof(path));
		if (err) {
			log__err("%s: no such map (see fsp-bpf list)", o->probemaps);
			return err;
		}
		list_map_cb(&c, path);
		return c.err;
	}
	printf("Shipped probe maps (fsp-bpf --map NAME):\n\n");
	err = probemap_dir__list(list_map_cb, &c);
	if (!err && !c.n)
		printf("(none found: set FSP_MAP_PATH or install with make install)\n");
	return err;
}

/* ---- the command line ---- */

static const char list_doc[] =
	"Lists the shipped probe maps and their features; with -p, the USDT providers "
	"and probes a process's executable and libraries carry, and which maps apply; "
	"with --map, one map (a file's path checks it); with --plugins, the analysis "
	"plug-ins.\n\n"
	"USAGE: fsp-bpf list [-p PID | --map NAME|FILE | --plugins]"
	"\v"
	"EXAMPLES:\n"
	"  fsp-bpf list                          the shipped maps\n"
	"  sudo fsp-bpf list -p 1234             what process 1234 carries\n"
	"  fsp-bpf list --map ./my.map           check a map file you wrote\n"
	"  fsp-bpf list --plugins                the built-in analysis plug-ins";

static const struct argp_option list_options[] = {
	{"pid", 'p', "PID[,PID...]", 0, "Show the probes these processes carry", 0},
	{"map", OPT_MAP, "NAME|FILE", 0, "Show one map (a file: check it)", 0},
	{"plugins", OPT_PLUGINS, NULL, 0, "Show the built-in analysis plug-ins", 0},
	{},
};

static error_t parse_list(int key, char *arg, struct argp_state *state)
{
	struct fsp_options *o = state->input;

	switch (key) {
	case 'p':
		return options__pids(state, o, arg);
	case OPT_MAP:
		return options__probemaps(state, o, arg);
	case OPT_PLUGINS:
		o->list_plugins = true;
		return 0;
	case ARGP_KEY_ARG:
		return options__input(state, o, arg);
	case ARGP_KEY_END:
		if (o->nr_inputs)
			return options__error(
				state, "list takes no operands (got '%s'): -p PID or --map NAME",
				o->inputs[0]);
		if (o->nr_pids && o->probemaps)
			return options__error(state, "give -p PID or --map NAME, not both");
		if (o->list_plugins && (o->nr_pids || o->probemaps))
			return options__error(state, "--plugins lists the plug-ins alone: give it "
						     "without -p or --map");
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

static const struct argp list_argp = {
	list_options, parse_list, NULL, list_doc, NULL, NULL, NULL,
};

const struct fsp_command cmd_list = {"list", &list_argp, list_run, 0};
