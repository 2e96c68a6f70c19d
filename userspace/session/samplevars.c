// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Function features' instances read at sample time ("instance {global:S}",
 * docs/function-features.md). Each distinct variable of the session's rules
 * is a hidden feature "{global:S}" (a feature number after the probe maps',
 * named in s->feature_names); as a target's files are scanned, the variable
 * is found in them through their ELF symbol tables — first in the files the
 * rule's function patterns name, then in the others, in the order of
 * /proc/PID/maps — and its address in the process (the symbol's link-time
 * address plus the file's load bias; for a thread-local variable of the
 * executable, its offset from the thread pointer) is written to the
 * sample_vars BPF map, which the sampler reads (bpf/samplelabel.bpf.h).
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "funcfeat.h"
#include "log.h"
#include "probemap_sites.h"
#include "procmaps.h"
#include "usdt.h"
#include "util.h"
#include "session_int.h"

#define MAX_FILES FUNCFEAT_MAX_PATTERNS /* file patterns of one variable */

/* One variable: its symbol, the file patterns of the rules that read it. */
struct samplevar {
	char symbol[FUNCFEAT_SYMBOL_LEN];
	const char *files[MAX_FILES];
	size_t nr_files;
	uint32_t feature; /* its feature number */
	bool warned; /* said once that a process does not define it */
};

/* What a target's last scan found, to scan again only when its files change. */
struct scanned {
	pid_t pid;
	uint64_t files; /* hash of the (device, inode) of its mappings */
};

struct samplevars {
	struct samplevar v[FSP_MAX_SAMPLE_VARS];
	size_t nr;
	struct scanned *done;
	size_t nr_done, cap_done;
	bool full_warned;
};

bool samplevars__used(const struct session_opts *o)
{
	for (size_t i = 0; i < funcfeat__nr(o->funcfeat); i++)
		if (funcfeat__rule(o->funcfeat, i)->instance == FUNCFEAT_INSTANCE_GLOBAL)
			return true;
	return false;
}

/* Adds rule r's variable (and its files) to sv. -E2BIG: one too many. */
static int add_rule(struct samplevars *sv, const struct funcfeat_rule *r)
{
	struct samplevar *v = NULL;

	for (size_t i = 0; i < sv->nr && !v; i++)
		if (!strcmp(sv->v[i].symbol, r->global))
			v = &sv->v[i];
	if (!v) {
		if (sv->nr == FSP_MAX_SAMPLE_VARS)
			return -E2BIG;
		v = &sv->v[sv->nr++];
		snprintf(v->symbol, sizeof(v->symbol), "%s", r->global);
	}
	for (size_t p = 0; p < r->nr_patterns && v->nr_files < MAX_FILES; p++)
		if (!r->patterns[p].antimark)
			v->files[v->nr_files++] = r->patterns[p].file;
	return 0;
}

int samplevars__init(struct session *s)
{
	const struct funcfeat *ff = s->opts.funcfeat;
	struct samplevars *sv;
	char(*names)[2 * PROBEMAP_NAME_LEN];

	if (!samplevars__used(&s->opts))
		return 0;
	sv = calloc(1, sizeof(*sv));
	if (!sv)
		return -ENOMEM;
	s->samplevars = sv;
	for (size_t i = 0; i < funcfeat__nr(ff); i++) {
		const struct funcfeat_rule *r = funcfeat__rule(ff, i);

		if (r->instance != FUNCFEAT_INSTANCE_GLOBAL || !r->global)
			continue;
		if (add_rule(sv, r)) {
			log__err("function features read more than %d variables at sample time "
				 "({global:SYMBOL} instances): read at most %d",
				 FSP_MAX_SAMPLE_VARS, FSP_MAX_SAMPLE_VARS);
			return -E2BIG;
		}
	}
	names = realloc(s->feature_names, (s->nr_feature_names + sv->nr) * sizeof(*names));
	if (!names)
		return -ENOMEM;
	s->feature_names = names;
	for (size_t i = 0; i < sv->nr; i++) {
		sv->v[i].feature = s->nr_feature_names;
		funcfeat__var_feature(sv->v[i].symbol, s->feature_names[s->nr_feature_names++],
				      sizeof(s->feature_names[0]));
	}
	return 0;
}

void samplevars__free(struct session *s)
{
	if (!s->samplevars)
		return;
	free(s->samplevars->done);
	free(s->samplevars);
	s->samplevars = NULL;
}

/* Does a file pattern of v name the file at path? */
static bool names_file(const struct samplevar *v, const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	for (size_t i = 0; i < v->nr_files; i++)
		if (!fnmatch(v->files[i], base, 0))
			return true;
	return false;
}

/* Where variable v is in process pid, if file mapping m (its first
 * mapping, opened as kpath) defines it: *out. 0, -ENOENT (not there), or
 * -ENOTSUP (a library's thread-local variable). */
static int find_in(const struct samplevar *v, const char *kpath, const struct mapping *m,
		   struct fsp_sample_var *out)
{
	uint64_t vaddr, base;
	int64_t tp_off;
	int err;

	if (!usdt__symbol(kpath, v->symbol, &vaddr)) {
		/* the load bias: where the mapping starts minus its link-time address */
		err = usdt__offset_vaddr(kpath, m->offset, &base);
		if (err)
			return err;
		out->addr = vaddr + (m->start - base);
		out->tls = 0;
		return 0;
	}
	err = usdt__tls_symbol(kpath, v->symbol, &tp_off);
	if (err)
		return err;
	out->addr = (uint64_t)tp_off;
	out->tls = 1;
	return 0;
}

struct find_ctx {
	const struct samplevar *v;
	pid_t pid;
	bool named; /* this pass: the files v's patterns name, or the others */
	struct fsp_sample_var *out;
	int err; /* -ENOTSUP: found, thread-local in a library */
};

static int find_cb(void *ctx, const struct mapping *m)
{
	struct find_ctx *c = ctx;
	char kpath[64];
	int fd, err;

	if (names_file(c->v, m->path) != c->named)
		return 0;
	/* the mapped file itself (procmaps.h), also in another mount namespace */
	fd = procmaps__open(c->pid, m);
	if (fd < 0)
		return 0;
	attach__fd_path(fd, kpath, sizeof(kpath));
	err = find_in(c->v, kpath, m, c->out);
	close(fd);
	if (err == -ENOTSUP && !c->err) {
		c->err = err;
		log__info("{global:%s} is a thread-local variable of the shared library %s: only "
			  "an executable's can be read; its instance is \"" FUNCFEAT_NOT_READ "\"",
			  c->v->symbol, m->path);
	}
	return err ? 0 : 1;
}

/* Variable v in process pid with mappings m[0..n): 0 and *out, or -ENOENT. */
static int find_var(struct samplevar *v, pid_t pid, const struct mapping *m, size_t n,
		    struct fsp_sample_var *out)
{
	struct find_ctx c = {.v = v, .pid = pid, .named = true, .out = out};

	if (procmaps__for_each_file(m, n, find_cb, &c) == 1)
		return 0;
	c.named = false;
	if (procmaps__for_each_file(m, n, find_cb, &c) == 1)
		return 0;
	if (!v->warned && !c.err) {
		v->warned = true;
		log__info("process %d: no file it maps defines {global:%s} (a function feature's "
			  "instance): its samples' instance is \"" FUNCFEAT_NOT_READ "\"",
			  (int)pid, v->symbol);
	}
	return -ENOENT;
}

/* pid's entry of the scans done (made when new); NULL: no memory. */
static struct scanned *scanned_of(struct samplevars *sv, pid_t pid)
{
	for (size_t i = 0; i < sv->nr_done; i++)
		if (sv->done[i].pid == pid)
			return &sv->done[i];
	if (fsp_grow((void **)&sv->done, &sv->cap_done, sv->nr_done + 1, sizeof(*sv->done)))
		return NULL;
	sv->done[sv->nr_done] = (struct scanned){.pid = pid};
	return &sv->done[sv->nr_done++];
}

void samplevars__scan(struct session *s, pid_t pid, const struct mapping *m, size_t n)
{
	struct samplevars *sv = s->samplevars;
	struct fsp_sample_vars vars = {0};
	uint64_t files = 0x73766172ULL; /* "svar" */
	struct scanned *done;
	__u32 key = pid;
	int err;

	if (!sv)
		return;
	for (size_t i = 0; i < n; i++)
		files = fsp_hash_pair(files, fsp_hash_pair(m[i].dev, m[i].ino));
	done = scanned_of(sv, pid);
	if (!done || done->files == files)
		return;
	done->files = files;
	for (size_t i = 0; i < sv->nr; i++) {
		struct fsp_sample_var *out = &vars.v[vars.nr];

		if (find_var(&sv->v[i], pid, m, n, out))
			continue;
		out->feature = probemap_sites__feature_id(sv->v[i].feature);
		vars.nr++;
	}
	if (!vars.nr)
		return;
	err = bpf_map_update_elem(bpf_map__fd(s->skel->maps.sample_vars), &key, &vars, BPF_ANY);
	if (err && !sv->full_warned) {
		sv->full_warned = true;
		log__err("cannot read function features' variables in process %d: %s (more than "
			 "%d processes at once); its samples' instance is \"" FUNCFEAT_NOT_READ
			 "\"",
			 (int)pid, strerror(errno), FSP_SAMPLE_VAR_PROCS);
	}
}

void samplevars__forget(struct session *s, pid_t pid)
{
	struct samplevars *sv = s->samplevars;
	__u32 key = pid;

	if (!sv)
		return;
	bpf_map_delete_elem(bpf_map__fd(s->skel->maps.sample_vars), &key);
	for (size_t i = 0; i < sv->nr_done; i++)
		if (sv->done[i].pid == pid) {
			sv->done[i] = sv->done[--sv->nr_done];
			break;
		}
}
