// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The symbolizer: walks a profile's locations and gives each the lines its
 * module's file names there (symbol_dwarf.c), opening each module's file once
 * (symbol_module.c, cached across calls by path and build-id), kernel
 * locations from kallsyms (kallsyms.c), code outside any file marked JIT.
 * Modules whose file cannot be used are skipped and listed, so that a report
 * can say which ones stayed module+offset and why.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "symbol_int.h"
#include "symbolize.h"
#include "util.h"

struct sym_missing {
	size_t module; /* index in the last profile */
	int why; /* enum sym_module_state */
};

struct symbolizer {
	struct sym_search search;
	char *binaries_dir;
	char *kallsyms_path;
	int kallsyms_default; /* the running kernel's: check its build-id */
	struct kallsyms *kallsyms;
	int kallsyms_loaded; /* tried */
	int kallsyms_state; /* SYM_MODULE_OK or _NO_KALLSYMS, once tried */
	struct sym_module **mods; /* the cache of opened files */
	size_t nr_mods, cap_mods;
	struct sym_missing *missing;
	size_t nr_missing, cap_missing;
	struct sym_lines lines;
};

static int split_dirs(struct symbolizer *s, const char *dirs)
{
	const char *p = dirs ? dirs : "/usr/lib/debug";
	size_t cap = 0;

	while (*p) {
		size_t len = strcspn(p, ":");

		if (len) {
			if (fsp_grow((void **)&s->search.debug_dirs, &cap,
				     s->search.nr_debug_dirs + 1, sizeof(char *)))
				return -ENOMEM;
			s->search.debug_dirs[s->search.nr_debug_dirs] = strndup(p, len);
			if (!s->search.debug_dirs[s->search.nr_debug_dirs])
				return -ENOMEM;
			s->search.nr_debug_dirs++;
		}
		p += len;
		if (*p == ':')
			p++;
	}
	return 0;
}

struct symbolizer *symbolizer__new(const struct symbolizer_opts *opts)
{
	struct symbolizer_opts none = {0};
	struct symbolizer *s = calloc(1, sizeof(*s));
	int err = -ENOMEM;

	if (!opts)
		opts = &none;
	if (!s)
		goto cleanup;
	if (split_dirs(s, opts->debug_dirs))
		goto cleanup;
	if (opts->binaries_dir && !(s->binaries_dir = strdup(opts->binaries_dir)))
		goto cleanup;
	s->kallsyms_default = !opts->kallsyms;
	s->kallsyms_path = strdup(opts->kallsyms ? opts->kallsyms : "/proc/kallsyms");
	if (!s->kallsyms_path)
		goto cleanup;
	s->search.binaries_dir = s->binaries_dir;
	s->search.resolve = opts->resolve;
	s->search.resolve_ctx = opts->resolve_ctx;
	err = 0;
cleanup:
	if (err) {
		symbolizer__free(s);
		errno = -err;
		return NULL;
	}
	return s;
}

static void sym_module_free(struct sym_module *m)
{
	if (!m)
		return;
	sym_module__close(m);
	free(m->path);
	free(m->build_id);
	free(m);
}

void symbolizer__free(struct symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nr_mods; i++)
		sym_module_free(s->mods[i]);
	free(s->mods);
	for (size_t i = 0; i < s->search.nr_debug_dirs; i++)
		free(s->search.debug_dirs[i]);
	free(s->search.debug_dirs);
	free(s->binaries_dir);
	free(s->kallsyms_path);
	kallsyms__free(s->kallsyms);
	free(s->missing);
	sym_lines__fini(&s->lines);
	free(s);
}

static int same_id(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* The cached file of a user module, opened (now if new or closed); what
 * was missing stays missing. NULL: -ENOMEM. */
static struct sym_module *module_get(struct symbolizer *s, size_t index,
				     const struct profile_module *pm)
{
	struct sym_module *m;

	for (size_t i = 0; i < s->nr_mods; i++) {
		m = s->mods[i];
		if (m->kind != pm->kind || strcmp(m->path, pm->path) ||
		    !same_id(m->build_id, pm->build_id))
			continue;
		/* found before, closed after its locations: open it again */
		if (m->state == SYM_MODULE_OK && !m->dwfl && sym_module__open(m, index) < 0)
			return NULL;
		return m;
	}
	if (fsp_grow((void **)&s->mods, &s->cap_mods, s->nr_mods + 1, sizeof(*s->mods)))
		return NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->kind = pm->kind;
	m->search = &s->search;
	m->path = strdup(pm->path);
	m->build_id = pm->build_id ? strdup(pm->build_id) : NULL;
	if (!m->path || (pm->build_id && !m->build_id) || sym_module__open(m, index) < 0) {
		sym_module_free(m);
		return NULL;
	}
	s->mods[s->nr_mods++] = m;
	return m;
}

/*
 * Whether kallsyms can name the kernel module pm (loaded on first use): a
 * kallsyms file given is trusted; the running kernel's only for the kernel
 * it is: the recorded build-id must be its own, or, with none recorded, the
 * symbolization must be the recording's own (not `all`: report on another
 * host or after a reboot, where the same addresses are other functions).
 */
static int kernel_state(struct symbolizer *s, const struct profile_module *pm, int all)
{
	char id[SYM_BUILD_ID_LEN];

	if (!s->kallsyms_loaded) {
		s->kallsyms_loaded = 1;
		s->kallsyms = kallsyms__load(s->kallsyms_path);
		s->kallsyms_state = s->kallsyms ? SYM_MODULE_OK : SYM_MODULE_NO_KALLSYMS;
	}
	if (s->kallsyms_state != SYM_MODULE_OK || !s->kallsyms_default)
		return s->kallsyms_state;
	if (pm->build_id && !strcmp(pm->path, SYM_KERNEL_PATH))
		return !kernel__build_id(id, sizeof(id)) && !strcmp(id, pm->build_id)
			       ? SYM_MODULE_OK
			       : SYM_MODULE_MISMATCH;
	return all ? SYM_MODULE_UNVERIFIED : SYM_MODULE_OK;
}

static int note_missing(struct symbolizer *s, size_t module, int why)
{
	if (why == SYM_MODULE_OK || why == SYM_MODULE_NO_FILE)
		return 0;
	if (fsp_grow((void **)&s->missing, &s->cap_missing, s->nr_missing + 1, sizeof(*s->missing)))
		return -ENOMEM;
	s->missing[s->nr_missing++] = (struct sym_missing){module, why};
	return 0;
}

/* Per profile module: its file (user), its state; resolved on first use. */
struct module_ref {
	int resolved;
	int state;
	struct sym_module *m;
};

static int module_resolve(struct symbolizer *s, const struct profile *p, size_t index, int all,
			  struct module_ref *ref)
{
	struct profile_module pm;
	int err;

	ref->resolved = 1;
	err = profile__module(p, index, &pm);
	if (err)
		return err;
	if (pm.kind == PROFILE_MODULE_KERNEL) {
		ref->state = kernel_state(s, &pm, all);
	} else {
		ref->m = module_get(s, index, &pm);
		if (!ref->m)
			return -ENOMEM;
		ref->state = ref->m->state;
	}
	return note_missing(s, index, ref->state);
}

/* The lines of one location into s->lines; 0 or -errno. */
static int location_lines(struct symbolizer *s, const struct profile_location *loc,
			  const struct module_ref *ref)
{
	const char *name;

	s->lines.nr = 0;
	s->lines.flags = 0;
	if (ref->m)
		return sym_lines__lookup(ref->m, loc->address, &s->lines);
	name = kallsyms__lookup(s->kallsyms, loc->address);
	if (!name)
		return 0;
	s->lines.lines[0] = (struct profile_line){.function = name};
	s->lines.nr = 1;
	return 0;
}

/* A later symbolization replaces earlier lines unless it knows less: lines
 * from DWARF are not replaced by a symbol name (binaries without their debug
 * files on the reporting host). */
static int better(const struct profile_location *old, const struct sym_lines *new)
{
	if (!new->nr)
		return 0;
	return !old->nr_lines || (new->flags &PROFILE_LOC_DEBUGINFO) ||
	       !(old->flags & PROFILE_LOC_DEBUGINFO);
}

static int symbolize_location(struct symbolizer *s, struct profile *p, size_t i, int all,
			      struct module_ref *refs, size_t nr_modules)
{
	struct profile_location loc;
	struct module_ref *ref;
	int err;

	err = profile__location(p, i, &loc);
	if (err)
		return err;
	if (loc.module == PROFILE_NO_MODULE) {
		if (loc.nr_lines || (loc.flags & PROFILE_LOC_JIT))
			return 0;
		return profile__set_location_lines(p, i, NULL, 0, loc.flags | PROFILE_LOC_JIT);
	}
	if (loc.module >= nr_modules || (loc.nr_lines && !all))
		return 0;
	ref = &refs[loc.module];
	if (!ref->resolved && (err = module_resolve(s, p, loc.module, all, ref)))
		return err;
	/* kernel locations: only where the recording host left none */
	if (ref->state != SYM_MODULE_OK || (!ref->m && loc.nr_lines))
		return 0;
	err = location_lines(s, &loc, ref);
	if (err || !better(&loc, &s->lines))
		return err;
	err = profile__set_location_lines(p, i, s->lines.lines, s->lines.nr,
					  (loc.flags & ~PROFILE_LOC_DEBUGINFO) | s->lines.flags);
	return err ? err : 1;
}

struct loc_order {
	uint32_t module;
	size_t loc;
};

static int order_cmp(const void *a, const void *b)
{
	const struct loc_order *x = a, *y = b;

	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	return (x->loc > y->loc) - (x->loc < y->loc);
}

/* The locations grouped by module (in order within each), so that each file
 * is open only while its locations are symbolized: a system-wide profile
 * has hundreds of modules, more than the descriptors a process may hold. */
static struct loc_order *by_module(const struct profile *p, size_t nr)
{
	struct loc_order *order = malloc((nr ? nr : 1) * sizeof(*order));

	for (size_t i = 0; order && i < nr; i++) {
		struct profile_location loc;

		order[i].loc = i;
		order[i].module = profile__location(p, i, &loc) ? PROFILE_NO_MODULE : loc.module;
	}
	if (order && nr)
		qsort(order, nr, sizeof(*order), order_cmp);
	return order;
}

int symbolizer__profile(struct symbolizer *s, struct profile *p, int all)
{
	size_t nr_modules = profile__nr_modules(p), nr = profile__nr_locations(p);
	struct module_ref *refs = calloc(nr_modules ? nr_modules : 1, sizeof(*refs));
	struct loc_order *order = by_module(p, nr);
	int err = 0, got = 0;

	s->nr_missing = 0;
	if (!refs || !order ||
	    fsp_grow((void **)&s->lines.lines, &s->lines.cap, 1, sizeof(*s->lines.lines)))
		err = -ENOMEM;
	for (size_t i = 0; i < nr && err >= 0; i++) {
		uint32_t mod = order[i].module;

		err = symbolize_location(s, p, order[i].loc, all, refs, nr_modules);
		if (err > 0)
			got++;
		/* the module's last location: close its file */
		if (mod < nr_modules && refs[mod].m && (i + 1 == nr || order[i + 1].module != mod))
			sym_module__close(refs[mod].m);
	}
	for (size_t i = 0; i < s->nr_mods; i++) /* after an error too */
		sym_module__close(s->mods[i]);
	free(order);
	free(refs);
	return err < 0 ? err : got;
}

size_t symbolizer__missing_modules(const struct symbolizer *s)
{
	return s ? s->nr_missing : 0;
}

int symbolizer__missing_module(const struct symbolizer *s, size_t i, size_t *module,
			       const char **why)
{
	static const char *const reasons[] = {
		[SYM_MODULE_NOT_FOUND] = "file not found",
		[SYM_MODULE_MISMATCH] = "build-id differs",
		[SYM_MODULE_BAD_ELF] = "not a readable ELF file",
		[SYM_MODULE_NO_KALLSYMS] = "kallsyms unreadable or its addresses hidden",
		[SYM_MODULE_UNVERIFIED] =
			"no kernel build-id recorded: this host's kallsyms not used",
	};

	if (!s || i >= s->nr_missing)
		return -ENOENT;
	*module = s->missing[i].module;
	if (why)
		*why = reasons[s->missing[i].why];
	return 0;
}
