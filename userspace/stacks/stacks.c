// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Native stacks of a recording (stacks.h): each record is unwound when it
 * arrives, both ways, and the better stack kept: DWARF when it reached the
 * thread's first frame or at least as far as the frame pointers, the
 * frame-pointer stack otherwise (code without CFI, e.g. JIT code that keeps
 * frame pointers). Stacks are kept as (module, ELF address) frames, so that
 * nothing depends on the process once its record is unwound, and counted per
 * (pid, tid, mark stack key, frames). The profile gets them at the end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hashmap.h"
#include "log.h"
#include "native.h"
#include "profile.h"
#include "stacks.h"
#include "stacks_int.h"
#include "symbolize.h"
#include "util.h"

#define KERNEL_PATH "[kernel.kallsyms]"
#define NO_MODULE UINT32_MAX
#define MAX_FRAMES (FSP_NATIVE_KERNEL_FRAMES + STACKS_MAX_USER)

/* A file code ran in: (path, build-id) as the process saw it. */
struct smodule {
	char *path;
	char build_id[2 * 64 + 1]; /* hex; "" unknown */
	bool kernel;
	pid_t pid; /* a process that mapped it (to open it through its root) */
	bool other_root; /* that process has its own root directory */
	char *resolved; /* resolve()'s answer, kept for the symbolizer */
};

struct sframe {
	uint32_t module; /* index in modules, NO_MODULE: anonymous */
	uint64_t addr;
};

/* Samples of one thread with one mark stack and one native stack. */
struct sentry {
	uint32_t pid, tid;
	uint64_t key;
	size_t frames; /* first frame in the pool */
	size_t marks; /* first mark position in mpool */
	uint32_t nr_marks;
	uint32_t depth, nr_kernel;
	uint8_t method, flags;
	uint64_t count;
};

/* user_frame()'s answers, direct-mapped by (reading of the mappings, pc):
 * most frames of a process's samples are the same few call sites. */
#define FRAME_CACHE 4096

struct fcache {
	uint64_t gen; /* uproc__gen() of the answer; 0: empty */
	uint64_t pc;
	struct sframe f;
};

/* Timed samples kept (record --calls): as many as call records. */
#define MAX_TIMED (1u << 17)

/* One record's stack under construction. */
struct sbuild {
	struct sframe f[MAX_FRAMES];
	uint32_t depth, nr_kernel;
	uint8_t method, flags;
	/* the native frame (index in f) that entered each mark of the
	 * record's mark stack (profile_native_stack.mark_pos) */
	uint16_t mark_pos[FSP_MAX_DEPTH];
	uint32_t nr_marks;
};

static double thread_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- modules ------------------------------------------------------------------ */

static void hex(char *out, const unsigned char *bits, int len)
{
	static const char digits[] = "0123456789abcdef";
	int i;

	for (i = 0; i < len && i < 64; i++) {
		out[2 * i] = digits[bits[i] >> 4];
		out[2 * i + 1] = digits[bits[i] & 15];
	}
	out[2 * i] = 0;
}

/* The index of module (path, build-id), added when new. NO_MODULE when out
 * of memory. */
static uint32_t module_index(struct stacks *st, const char *path, const char *build_id, bool kernel,
			     pid_t pid, bool other_root)
{
	uint64_t a = fsp_fnv1a(path, strlen(path), FSP_FNV_OFFSET) ^ kernel;
	uint64_t b = fsp_fnv1a(build_id, strlen(build_id), FSP_FNV_OFFSET), i;
	struct smodule *m;

	for (;; b++) {
		if (!hashmap__find(&st->module_ids, a, b, &i))
			break;
		m = &st->modules[i];
		if (m->kernel == kernel && !strcmp(m->path, path) && !strcmp(m->build_id, build_id))
			return i;
	}
	if (fsp_grow((void **)&st->modules, &st->cap_modules, st->nr_modules + 1,
		     sizeof(*st->modules)))
		return NO_MODULE;
	m = &st->modules[st->nr_modules];
	*m = (struct smodule){.kernel = kernel, .pid = pid, .other_root = other_root};
	m->path = strdup(path);
	snprintf(m->build_id, sizeof(m->build_id), "%s", build_id);
	if (!m->path || hashmap__find_or_insert(&st->module_ids, a, b, st->nr_modules, NULL) < 0) {
		free(m->path);
		return NO_MODULE;
	}
	return st->nr_modules++;
}

static struct fcache *fcache_slot(struct stacks *st, uint64_t gen, uint64_t pc)
{
	uint64_t h = (gen * 0x9e3779b97f4a7c15ULL) ^ (pc * 0xff51afd7ed558ccdULL);

	return &st->fcache[(h >> 32) & (FRAME_CACHE - 1)];
}

/* The frame of code address pc in the cache, for p's current mappings. */
static bool frame_cached(struct stacks *st, struct uproc *p, uint64_t pc, struct sframe *out)
{
	uint64_t gen = uproc__gen(p);
	const struct fcache *c = fcache_slot(st, gen, pc);

	if (c->gen != gen || c->pc != pc)
		return false;
	*out = c->f;
	return true;
}

/* A user frame at pc (pc - 1 for a return address: the call's line). An
 * address in a module is answered from the cache while p's mappings are
 * those of the answer (uproc__addr does not read them again for it). */
static struct sframe user_frame(struct stacks *st, struct uproc *p, pid_t pid, uint64_t pc,
				bool act, bool refresh)
{
	struct uaddr ua;
	struct sframe f;
	struct fcache *c;
	char id[2 * 64 + 1] = "";

	if (!act)
		pc--;
	if (frame_cached(st, p, pc, &f))
		return f;
	if (!uproc__addr(p, pc, refresh, &ua))
		return (struct sframe){NO_MODULE, pc};
	if (ua.build_id)
		hex(id, ua.build_id, ua.build_id_len);
	f = (struct sframe){module_index(st, ua.path, id, false, pid, uproc__root(p)[0]), ua.addr};
	if (f.module != NO_MODULE) {
		c = fcache_slot(st, uproc__gen(p), pc);
		*c = (struct fcache){uproc__gen(p), pc, f};
	}
	return f;
}

/* ---- one record ------------------------------------------------------------------ */

static void kernel_frames(struct stacks *st, const struct fsp_native_rec *r, struct sbuild *b)
{
	size_t n = r->kernel_len / sizeof(r->kstack[0]);
	uint32_t kmod;

	if (!n)
		return;
	kmod = module_index(st, KERNEL_PATH, "", true, 0, false);
	for (size_t i = 0; i < n && i < FSP_NATIVE_KERNEL_FRAMES; i++) {
		if (!r->kstack[i])
			break;
		b->f[b->depth++] = (struct sframe){kmod, r->kstack[i] - (i > 0)};
	}
	b->nr_kernel = b->depth;
}

/* How many of the frame-pointer stack's frames to believe: the leaf, then
 * return addresses in mapped files (a binary without frame pointers leaves
 * garbage in rbp: the walk goes astray there). */
static size_t fp_valid(struct uproc *p, const struct fsp_native_rec *r, size_t n)
{
	struct uaddr ua;
	size_t i;

	for (i = 0; i < n; i++)
		if (!r->ustack[i] || (i > 0 && !uproc__addr(p, r->ustack[i] - 1, false, &ua)))
			break;
	return i;
}

/*
 * Where each mark of r's mark stack was entered among the user frames the
 * DWARF unwinding found (sps: each frame's stack pointer, leaf first): the
 * frame whose extent [sps[i], sps[i + 1]) holds the mark's stack pointer.
 * A mark beyond the frames of a truncated stack, or a frame without a known
 * stack pointer on the way, is PROFILE_MARK_BELOW.
 */
static void mark_places(const struct fsp_native_rec *r, const uint64_t *sps, size_t n,
			bool complete, struct sbuild *b)
{
	uint32_t nm = r->marks.n < FSP_MAX_DEPTH ? r->marks.n : FSP_MAX_DEPTH;

	b->nr_marks = nm;
	for (uint32_t j = 0; j < nm; j++) {
		uint64_t s = r->marks.sp[j];
		size_t k = 0;

		while (k + 1 < n && sps[k + 1] && sps[k + 1] <= s)
			k++;
		if (!n || !sps[k] || (k + 1 == n && !complete) || (k + 1 < n && !sps[k + 1]))
			b->mark_pos[j] = PROFILE_MARK_BELOW;
		else
			b->mark_pos[j] = (uint16_t)(b->nr_kernel + k);
	}
}

static void user_frames(struct stacks *st, struct uproc *p, const struct fsp_native_rec *r,
			struct sbuild *b)
{
	uint64_t pcs[STACKS_MAX_USER], sps[STACKS_MAX_USER];
	bool act[STACKS_MAX_USER], complete;
	struct uaddr leaf;
	struct sframe known;
	size_t nfp = r->user_len / sizeof(r->ustack[0]), fp = 0, dw;

	if (nfp > FSP_NATIVE_USER_FRAMES)
		nfp = FSP_NATIVE_USER_FRAMES;
	/* The leaf's module must be known (the mappings read again after a
	 * dlopen()) before the unwinder looks for its CFI: known already when
	 * the cache has its frame. */
	if (!frame_cached(st, p, r->regs[16], &known))
		uproc__addr(p, r->regs[16], true, &leaf);
	dw = uproc__dwarf(p, r, pcs, sps, act, STACKS_MAX_USER, &complete);
	/* It stopped in a file mapped since the mappings were read (the first
	 * sample was taken while ld.so was still mapping the libraries): read
	 * them again and unwind again. */
	if (dw && !complete && uproc__reload(p, pcs[dw - 1] - !act[dw - 1]))
		dw = uproc__dwarf(p, r, pcs, sps, act, STACKS_MAX_USER, &complete);
	/* The frame pointers are only the choice when DWARF did not reach the
	 * first frame: not walked otherwise. */
	if (!dw || !complete)
		fp = fp_valid(p, r, nfp);
	if (dw && (complete || dw >= fp)) {
		b->method = PROFILE_UNWIND_DWARF;
		b->flags = complete ? 0 : PROFILE_NATIVE_TRUNCATED;
		mark_places(r, sps, dw, complete, b);
		for (size_t i = 0; i < dw; i++)
			b->f[b->depth++] = user_frame(st, p, r->tgid, pcs[i], act[i], true);
		st->stats.dwarf++;
	} else {
		b->method = PROFILE_UNWIND_FP;
		/* cut at a frame outside the files, or at the depth limit */
		b->flags = fp < nfp || nfp == FSP_NATIVE_USER_FRAMES ? PROFILE_NATIVE_TRUNCATED : 0;
		if (!fp && r->regs[16]) {
			/* no walk at all: the leaf alone */
			b->f[b->depth++] = user_frame(st, p, r->tgid, r->regs[16], true, true);
			b->flags = PROFILE_NATIVE_TRUNCATED;
		}
		for (size_t i = 0; i < fp; i++)
			b->f[b->depth++] = user_frame(st, p, r->tgid, r->ustack[i], i == 0, i == 0);
		st->stats.fp++;
	}
	if (b->flags & PROFILE_NATIVE_TRUNCATED)
		st->stats.truncated++;
}

static uint64_t build_hash(const struct sbuild *b, uint64_t key)
{
	uint64_t h = fsp_fnv1a(&key, sizeof(key), FSP_FNV_OFFSET);
	uint32_t hdr[3] = {b->nr_kernel, b->method, b->flags};

	h = fsp_fnv1a(hdr, sizeof(hdr), h);
	h = fsp_fnv1a(b->mark_pos, b->nr_marks * sizeof(b->mark_pos[0]), h);
	for (uint32_t i = 0; i < b->depth; i++) {
		h = fsp_fnv1a(&b->f[i].module, sizeof(b->f[i].module), h);
		h = fsp_fnv1a(&b->f[i].addr, sizeof(b->f[i].addr), h);
	}
	return h;
}

static bool same_entry(const struct stacks *st, const struct sentry *e, const struct sbuild *b,
		       uint64_t key)
{
	const struct sframe *f = &st->pool[e->frames];

	if (e->key != key || e->depth != b->depth || e->nr_kernel != b->nr_kernel ||
	    e->method != b->method || e->flags != b->flags || e->nr_marks != b->nr_marks ||
	    memcmp(&st->mpool[e->marks], b->mark_pos, b->nr_marks * sizeof(b->mark_pos[0])))
		return false;
	for (uint32_t i = 0; i < b->depth; i++)
		if (f[i].module != b->f[i].module || f[i].addr != b->f[i].addr)
			return false;
	return true;
}

/* Counts one sample of (pid, tid, key) with stack b, its entry's index in
 * *at. 0 or -ENOMEM. */
static int count(struct stacks *st, uint32_t pid, uint32_t tid, uint64_t key,
		 const struct sbuild *b, size_t *at)
{
	uint64_t a = build_hash(b, key), id = (uint64_t)pid << 32 | tid, i;
	struct sentry *e;

	for (;; a++) {
		if (!hashmap__find(&st->entry_ids, a, id, &i))
			break;
		e = &st->entries[i];
		if (same_entry(st, e, b, key)) {
			e->count++;
			*at = i;
			return 0;
		}
	}
	if (fsp_grow((void **)&st->entries, &st->cap_entries, st->nr_entries + 1,
		     sizeof(*st->entries)) ||
	    fsp_grow((void **)&st->pool, &st->cap_pool, st->nr_pool + b->depth,
		     sizeof(*st->pool)) ||
	    fsp_grow((void **)&st->mpool, &st->cap_mpool, st->nr_mpool + b->nr_marks + 1,
		     sizeof(*st->mpool)))
		return -ENOMEM;
	if (hashmap__find_or_insert(&st->entry_ids, a, id, st->nr_entries, NULL) < 0)
		return -ENOMEM;
	*at = st->nr_entries;
	e = &st->entries[st->nr_entries++];
	*e = (struct sentry){.pid = pid,
			     .tid = tid,
			     .key = key,
			     .frames = st->nr_pool,
			     .depth = b->depth,
			     .nr_kernel = b->nr_kernel,
			     .method = b->method,
			     .flags = b->flags,
			     .marks = st->nr_mpool,
			     .nr_marks = b->nr_marks,
			     .count = 1};
	memcpy(&st->pool[st->nr_pool], b->f, b->depth * sizeof(*b->f));
	st->nr_pool += b->depth;
	memcpy(&st->mpool[st->nr_mpool], b->mark_pos, b->nr_marks * sizeof(b->mark_pos[0]));
	st->nr_mpool += b->nr_marks;
	return 0;
}

/* Keeps sample r's call record time and entry (record --calls), within the
 * bound; beyond, counted (stacks__timed_dropped). */
static void add_timed(struct stacks *st, const struct fsp_native_rec *r, size_t entry)
{
	if (st->nr_timed >= MAX_TIMED ||
	    fsp_grow((void **)&st->timed, &st->cap_timed, st->nr_timed + 1, sizeof(*st->timed))) {
		st->stats.untimed++;
		return;
	}
	st->timed[st->nr_timed++] = (struct stacks_timed){
		.pid = r->tgid, .tid = r->tid, .time_ns = r->time_ns, .native = entry};
}

static bool valid_record(const struct stacks *st, const struct fsp_native_rec *r, size_t size)
{
	return size >= sizeof(*r) && r->stack_len <= size - sizeof(*r) &&
	       r->stack_len <= st->opts.stack_size && r->user_len <= sizeof(r->ustack) &&
	       r->kernel_len <= sizeof(r->kstack);
}

int stacks__add(struct stacks *st, const void *data, size_t size)
{
	const struct fsp_native_rec *r = data;
	struct sbuild b = {.method = PROFILE_UNWIND_FP};
	size_t at = 0;
	int err = 0;

	if (!st->in_batch) {
		st->batch_t0 = thread_cpu_s();
		st->in_batch = true;
	}
	if (!valid_record(st, r, size)) {
		st->stats.bad++;
		return 0;
	}
	st->stats.records++;
	if (r->flags & FSP_NATIVE_KERNEL)
		kernel_frames(st, r, &b);
	if (r->flags & FSP_NATIVE_USER) {
		struct uproc *p = unwinder__proc(st->unw, r->tgid, r->exec_id);

		if (!p) {
			/* Its mappings are gone: nothing to read its frames by
			 * (the mappings of a program that replaced it would
			 * name other code). */
			if (errno == ENOMEM)
				return -ENOMEM;
			if (errno == ESTALE)
				st->stats.replaced++;
			else
				st->stats.exited++;
			goto out;
		}
		user_frames(st, p, r, &b);
	}
	if (!b.depth) {
		if (r->flags & FSP_NATIVE_EXEC)
			st->stats.replaced++;
		else
			st->stats.failed++;
		goto out;
	}
	err = count(st, r->tgid, r->tid, r->key, &b, &at);
	if (!err)
		st->stats.unwound++;
	if (!err && r->time_ns)
		add_timed(st, r, at);
out:
	return err;
}

void stacks__batch_end(struct stacks *st)
{
	if (!st || !st->in_batch)
		return;
	st->stats.unwind_s += thread_cpu_s() - st->batch_t0;
	st->in_batch = false;
}

void stacks__exec(struct stacks *st, pid_t pid, uint64_t exec_id)
{
	if (st)
		unwinder__exec(st->unw, pid, exec_id);
}

void stacks__forget(struct stacks *st, pid_t pid)
{
	if (st)
		unwinder__forget(st->unw, pid);
}

/* ---- the profile ------------------------------------------------------------------ */

/* The symbolizer's resolve(): a module of a process with its own root
 * directory is opened through /proc/PID/root while that process runs. */
static const char *resolve(void *ctx, size_t module, const char *path)
{
	struct stacks *st = ctx;
	struct smodule *m;
	char *buf;

	if (module >= st->nr_by_profile || st->by_profile_module[module] < 0)
		return NULL;
	m = &st->modules[st->by_profile_module[module]];
	if (!m->other_root || m->kernel)
		return NULL;
	if (!m->resolved && asprintf(&buf, "/proc/%d/root%s", m->pid, path) >= 0) {
		if (access(buf, R_OK)) {
			free(buf);
			return NULL;
		}
		m->resolved = buf;
	}
	return m->resolved;
}

static int add_modules(struct stacks *st, struct profile *p, uint32_t *pidx)
{
	for (size_t i = 0; i < st->nr_modules; i++) {
		const struct smodule *m = &st->modules[i];
		struct profile_module pm = {
			.kind = m->kernel ? PROFILE_MODULE_KERNEL : PROFILE_MODULE_USER,
			.path = m->path,
			.build_id = m->build_id[0] ? m->build_id : NULL,
		};
		int idx = profile__add_module(p, &pm);

		if (idx < 0)
			return idx;
		pidx[i] = idx;
	}
	st->nr_by_profile = profile__nr_modules(p);
	free(st->by_profile_module);
	st->by_profile_module = malloc(st->nr_by_profile * sizeof(int32_t) + 1);
	if (!st->by_profile_module)
		return -ENOMEM;
	memset(st->by_profile_module, 0xff, st->nr_by_profile * sizeof(int32_t));
	for (size_t i = 0; i < st->nr_modules; i++)
		st->by_profile_module[pidx[i]] = i;
	return 0;
}

/* The location of frame f (its profile index), through the cache locs. */
static int location(struct profile *p, struct hashmap *locs, const uint32_t *pidx,
		    const struct sframe *f)
{
	struct profile_location loc = {.address = f->addr};
	uint32_t mod = f->module == NO_MODULE ? PROFILE_NO_MODULE : pidx[f->module];
	uint64_t i;
	int idx;

	if (hashmap__find(locs, mod, f->addr, &i))
		return i;
	loc.module = mod;
	loc.flags = mod == PROFILE_NO_MODULE ? PROFILE_LOC_JIT : 0;
	idx = profile__add_location(p, &loc);
	if (idx >= 0 && hashmap__find_or_insert(locs, mod, f->addr, idx, NULL) < 0)
		return -ENOMEM;
	return idx;
}

static int add_entries(struct stacks *st, struct profile *p, const uint32_t *pidx)
{
	struct hashmap locs = HASHMAP_INIT;
	uint32_t ids[MAX_FRAMES];
	int err = 0;

	free(st->entry_native);
	st->entry_native = calloc(st->nr_entries + 1, sizeof(*st->entry_native));
	if (!st->entry_native)
		return -ENOMEM;
	for (size_t i = 0; i < st->nr_entries && !err; i++) {
		const struct sentry *e = &st->entries[i];
		struct profile_native_stack ns = {.locs = ids,
						  .depth = e->depth,
						  .nr_kernel = e->nr_kernel,
						  .method = e->method,
						  .flags = e->flags,
						  .mark_pos =
							  e->nr_marks ? &st->mpool[e->marks] : NULL,
						  .nr_marks = e->nr_marks};
		int idx = 0;

		for (uint32_t j = 0; j < e->depth && idx >= 0; j++) {
			idx = location(p, &locs, pidx, &st->pool[e->frames + j]);
			ids[j] = idx;
		}
		if (idx >= 0)
			idx = profile__add_native_stack(p, &ns);
		if (idx >= 0)
			st->entry_native[i] = (size_t)idx;
		err = idx < 0 ? idx
			      : profile__add_native_samples(p, e->pid, e->tid, e->key, idx,
							    e->count);
	}
	free(st->site_loc);
	st->site_loc = calloc(st->nr_sites + 1, sizeof(*st->site_loc));
	if (!st->site_loc)
		err = -ENOMEM;
	for (size_t i = 0; i < st->nr_sites && !err; i++) {
		int idx = location(p, &locs, pidx, &st->sites[i]);

		err = idx < 0 ? idx : 0;
		st->site_loc[i] = idx < 0 ? 0 : (size_t)idx;
	}
	hashmap__fini(&locs);
	return err;
}

static void symbolize(struct stacks *st, struct profile *p)
{
	struct symbolizer_opts so = {.resolve = resolve, .resolve_ctx = st};
	struct symbolizer *sym = symbolizer__new(&so);
	int n;

	if (!sym) {
		log__err("cannot symbolize the native stacks: %s", strerror(errno));
		return;
	}
	n = symbolizer__profile(sym, p, 0);
	if (n < 0)
		log__err("cannot symbolize the native stacks: %s", strerror(-n));
	else if (symbolizer__missing_modules(sym))
		log__info("%zu binaries of the native stacks were not found or changed since: "
			  "their frames show as module+offset",
			  symbolizer__missing_modules(sym));
	symbolizer__free(sym);
}

int stacks__fill_raw(struct stacks *st, struct profile *p)
{
	uint32_t *pidx = calloc(st->nr_modules + 1, sizeof(*pidx));
	int err;

	if (!pidx)
		return -ENOMEM;
	err = add_modules(st, p, pidx);
	if (!err)
		err = add_entries(st, p, pidx);
	free(pidx);
	if (err)
		return err;
	profile__set_diag(p, DIAG_NATIVE_EXITED, st->stats.exited);
	profile__set_diag(p, DIAG_NATIVE_REPLACED, st->stats.replaced);
	profile__set_diag(p, DIAG_NATIVE_FAILED, st->stats.failed + st->stats.bad);
	return 0;
}

/* -v: how the cached CFI rules did. */
static void cfi_verbose(const struct cfi_stats *c)
{
	if (!c || !c->slots)
		return;
	log__verbose("native stacks: %llu records by cached CFI rules, %llu by libdw (a frame's "
		     "rules not simple); %llu rules computed, %llu evicted (of %zu kept)",
		     (unsigned long long)c->records, (unsigned long long)c->fallbacks,
		     (unsigned long long)c->computed, (unsigned long long)c->evictions, c->slots);
	if (c->checked)
		log__verbose("native stacks: unwind check: %llu records compared with libdw, "
			     "%llu differences",
			     (unsigned long long)c->checked, (unsigned long long)c->differences);
}

int stacks__fill(struct stacks *st, struct profile *p)
{
	int err = stacks__fill_raw(st, p);

	if (err)
		return err;
	symcache__use(st, p);
	symbolize(st, p);
	symcache__keep(st, p);
	log__verbose("native stacks: %llu records, %llu unwound (%llu DWARF, %llu frame "
		     "pointers, %llu truncated), %.3f s CPU",
		     (unsigned long long)st->stats.records, (unsigned long long)st->stats.unwound,
		     (unsigned long long)st->stats.dwarf, (unsigned long long)st->stats.fp,
		     (unsigned long long)st->stats.truncated, st->stats.unwind_s);
	cfi_verbose(unwinder__cfi_stats(st->unw));
	return 0;
}

/* ---- call sites (--events of function features) ------------------------------- */

int stacks__site(struct stacks *st, pid_t pid, uint64_t ret, size_t *site)
{
	struct uproc *p;
	uint64_t i;

	if (hashmap__find(&st->site_ids, (uint64_t)pid, ret, &i)) {
		*site = i;
		return 0;
	}
	p = unwinder__find(st->unw, pid);
	if (!p)
		return -ESRCH;
	if (fsp_grow((void **)&st->sites, &st->cap_sites, st->nr_sites + 1, sizeof(*st->sites)) ||
	    hashmap__find_or_insert(&st->site_ids, (uint64_t)pid, ret, st->nr_sites, NULL) < 0)
		return -ENOMEM;
	st->sites[st->nr_sites] = user_frame(st, p, pid, ret, false, true);
	*site = st->nr_sites++;
	return 0;
}

int stacks__site_location(const struct stacks *st, size_t site, size_t *loc)
{
	if (!st->site_loc || site >= st->nr_sites)
		return -ENOENT;
	*loc = st->site_loc[site];
	return 0;
}

/* ---- lifecycle ------------------------------------------------------------------ */

struct stacks *stacks__new(const struct stacks_opts *opts)
{
	struct stacks *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->opts = *opts;
	st->module_ids = (struct hashmap)HASHMAP_INIT;
	st->entry_ids = (struct hashmap)HASHMAP_INIT;
	st->symcache_ids = (struct hashmap)HASHMAP_INIT;
	st->site_ids = (struct hashmap)HASHMAP_INIT;
	st->unw = unwinder__new();
	st->fcache = calloc(FRAME_CACHE, sizeof(*st->fcache));
	if (!st->unw || !st->fcache) {
		unwinder__free(st->unw);
		free(st->fcache);
		free(st);
		errno = ENOMEM;
		return NULL;
	}
	return st;
}

void stacks__free(struct stacks *st)
{
	if (!st)
		return;
	unwinder__free(st->unw);
	free(st->fcache);
	for (size_t i = 0; i < st->nr_modules; i++) {
		free(st->modules[i].path);
		free(st->modules[i].resolved);
	}
	free(st->modules);
	hashmap__fini(&st->module_ids);
	free(st->entries);
	hashmap__fini(&st->entry_ids);
	free(st->pool);
	free(st->mpool);
	free(st->by_profile_module);
	free(st->timed);
	free(st->entry_native);
	profile__free(st->symcache);
	hashmap__fini(&st->symcache_ids);
	free(st->sites);
	free(st->site_loc);
	hashmap__fini(&st->site_ids);
	free(st);
}

size_t stacks__nr_timed(const struct stacks *st)
{
	return st && st->entry_native ? st->nr_timed : 0;
}

int stacks__timed(const struct stacks *st, size_t i, struct stacks_timed *out)
{
	if (!st || !st->entry_native || i >= st->nr_timed)
		return -ENOENT;
	*out = st->timed[i];
	out->native = st->entry_native[out->native];
	return 0;
}

uint64_t stacks__timed_dropped(const struct stacks *st)
{
	return st ? st->stats.untimed : 0;
}
