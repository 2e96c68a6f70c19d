// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A module's file and its debug file: where they are looked for, in which
 * order, and the build-id check that keeps a wrong file from naming code.
 *
 * The file: first in the binaries directory (report --binaries DIR), as
 * DIR/.build-id/xx/rest then DIR/basename; then the module's own path
 * (through the resolve callback, e.g. /proc/PID/root/...); last, a debug
 * file with the module's build-id in a debug directory, as the file itself
 * (also for [vdso]; and for [vdso], this process's own vDSO image, which
 * names the code of the recording host's when its build-id is the one
 * recorded). A candidate is used only when it is a regular ELF file whose
 * build-id is the recorded one (when one was recorded).
 *
 * Each file gets its own Dwfl, reported with dwfl_report_elf at base 0 with
 * p_vaddr added, so that dwfl addresses are the ELF's own virtual addresses
 * (plus the bias dwfl reports, 0 in practice): the addresses the profile's
 * locations carry. Debug files (when the file has no DWARF) come from our
 * find_debuginfo callback: DIR/.build-id/xx/rest.debug in each debug
 * directory (and the binaries directory), then the .gnu_debuglink name next
 * to the file, in .debug/ next to it, and under each debug directory
 * followed by the file's directory; last DIR/<the file's path>.debug;
 * always with the file's build-id. Our own
 * lookup rather than dwfl_standard_find_debuginfo, which would also ask
 * debuginfod servers over the network when DEBUGINFOD_URLS is set.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "safeopen.h"
#include "symbol_int.h"

#define DELETED_SUFFIX " (deleted)"
#define SYM_PATH_MAX 4096

/* Formats a candidate path into buf (SYM_PATH_MAX bytes): 0, or -ENAMETOOLONG
 * (the candidate is skipped). */
static int path_fmt(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int path_fmt(char *buf, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, SYM_PATH_MAX, fmt, ap);
	va_end(ap);
	return n < 0 || n >= SYM_PATH_MAX ? -ENAMETOOLONG : 0;
}

/* Opens path and checks that it is an ELF file with build-id `want` (any
 * build-id when want is NULL or ""). Returns the fd (>= 0), or the state why
 * not, negated. *id (SYM_BUILD_ID_LEN bytes, may be NULL) gets its build-id. */
static int open_checked(const char *path, const char *want, char *id)
{
	char buf[SYM_BUILD_ID_LEN] = "";
	Elf *elf;
	int fd, err;

	/* a regular file only: the name comes from a target (safeopen.h) */
	fd = safeopen__read(AT_FDCWD, path, 0, NULL, NULL);
	if (fd == -EISDIR || fd == -EINVAL)
		return -SYM_MODULE_BAD_ELF; /* a directory, FIFO or device is not the file */
	if (fd < 0)
		return -SYM_MODULE_NOT_FOUND;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		err = -SYM_MODULE_BAD_ELF;
	} else {
		err = elf__build_id_of(elf, buf, sizeof(buf));
		if (err && err != -ENOENT)
			err = -SYM_MODULE_BAD_ELF;
		else if (want && *want && strcmp(buf, want))
			err = -SYM_MODULE_MISMATCH;
		else
			err = 0;
	}
	elf_end(elf);
	if (err) {
		close(fd);
		return err;
	}
	if (id)
		memcpy(id, buf, sizeof(buf));
	return fd;
}

/* ---- debug files ---------------------------------------------------------------- */

static int no_find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		       char **file_name, Elf **elfp)
{
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name, (void)elfp;
	return -1;
}

/* Tries one debug-file candidate (path_fmt's result err): the fd, with
 * *found set to a copy of path. */
static int try_debug(const struct sym_module *m, int err, const char *path, char **found)
{
	int fd;

	if (err || !strcmp(path, m->file))
		return -1;
	fd = open_checked(path, m->file_id, NULL);
	if (fd < 0)
		return -1;
	*found = strdup(path);
	if (!*found) {
		close(fd);
		return -1;
	}
	return fd;
}

static int debug_by_build_id(const struct sym_module *m, const char *dir, char **found)
{
	char path[SYM_PATH_MAX];

	if (strlen(m->file_id) < 4)
		return -1;
	return try_debug(
		m, path_fmt(path, "%s/.build-id/%.2s/%s.debug", dir, m->file_id, m->file_id + 2),
		path, found);
}

/* The .gnu_debuglink name in: the file's directory, its .debug/, and each
 * debug directory followed by the file's (and the module's) directory. */
static int debug_by_link(const struct sym_module *m, const char *link, char **found)
{
	const struct sym_search *s = m->search;
	const char *dirs[2] = {m->file, m->path};
	char path[SYM_PATH_MAX];
	int fd = -1;

	if (!link || !*link || strchr(link, '/'))
		return -1;
	for (size_t d = 0; d < 2 && fd < 0; d++) {
		const char *slash = strrchr(dirs[d], '/');
		int dlen = slash ? (int)(slash - dirs[d]) : 0;

		fd = try_debug(m, path_fmt(path, "%.*s/%s", dlen, dirs[d], link), path, found);
		if (fd < 0)
			fd = try_debug(m, path_fmt(path, "%.*s/.debug/%s", dlen, dirs[d], link),
				       path, found);
		for (size_t i = 0; i < s->nr_debug_dirs && fd < 0; i++)
			fd = try_debug(
				m,
				path_fmt(path, "%s%.*s/%s", s->debug_dirs[i], dlen, dirs[d], link),
				path, found);
	}
	return fd;
}

/* DIR/<the file's path>.debug in each debug directory (the layout of debug
 * packages without build-id links), for the file and the module's path. */
static int debug_by_path(const struct sym_module *m, char **found)
{
	const struct sym_search *s = m->search;
	const char *paths[2] = {m->file, m->path};
	char path[SYM_PATH_MAX];
	int fd = -1;

	for (size_t d = 0; d < 2 && fd < 0; d++)
		for (size_t i = 0; i < s->nr_debug_dirs && fd < 0 && paths[d][0] == '/'; i++)
			fd = try_debug(m, path_fmt(path, "%s%s.debug", s->debug_dirs[i], paths[d]),
				       path, found);
	return fd;
}

static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	const struct sym_module *m = *userdata;
	int fd = -1;

	(void)mod, (void)modname, (void)base, (void)file_name, (void)debuglink_crc;
	/*
	 * libdw stores the name in the module and asks again when the file we
	 * gave it did not open as ELF (a corrupt debug file): the name of the
	 * first answer is still there, and libdw does not free it before
	 * storing the next (elfutils 0.188). It is ours to replace.
	 */
	free(*debuginfo_file_name);
	*debuginfo_file_name = NULL;
	if (!m)
		return -1;
	for (size_t i = 0; i < m->search->nr_debug_dirs && fd < 0; i++)
		fd = debug_by_build_id(m, m->search->debug_dirs[i], debuginfo_file_name);
	if (fd < 0 && m->search->binaries_dir)
		fd = debug_by_build_id(m, m->search->binaries_dir, debuginfo_file_name);
	if (fd < 0)
		fd = debug_by_link(m, debuglink_file, debuginfo_file_name);
	if (fd < 0)
		fd = debug_by_path(m, debuginfo_file_name);
	return fd;
}

static const Dwfl_Callbacks sym_callbacks = {
	.find_elf = no_find_elf,
	.find_debuginfo = find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* ---- the file ----------------------------------------------------------------- */

/* Reports the open file fd (consumed) to a Dwfl of its own. */
static int report_file(struct sym_module *m, int fd)
{
	const char *base = strrchr(m->file, '/');
	void **userdata = NULL;

	m->dwfl = dwfl_begin(&sym_callbacks);
	if (!m->dwfl) {
		close(fd);
		return -ENOMEM;
	}
	dwfl_report_begin(m->dwfl);
	m->mod = dwfl_report_elf(m->dwfl, base ? base + 1 : m->file, m->file, fd, 0, true);
	dwfl_report_end(m->dwfl, NULL, NULL);
	if (!m->mod) {
		close(fd); /* consumed only on success */
		m->state = SYM_MODULE_BAD_ELF;
		return 0;
	}
	dwfl_module_info(m->mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	if (userdata)
		*userdata = m;
	if (!dwfl_module_getelf(m->mod, &m->bias))
		m->state = SYM_MODULE_BAD_ELF;
	return 0;
}

/* Tries one candidate path; 1 when it is the module's file (m->file set),
 * 0 when not (m->state keeps the most telling reason), -ENOMEM. */
static int try_file(struct sym_module *m, const char *path)
{
	int fd = open_checked(path, m->build_id, m->file_id), err;

	if (fd < 0) {
		/* a mismatch or a bad file says more than a missing one */
		if (m->state == SYM_MODULE_NOT_FOUND || -fd == SYM_MODULE_MISMATCH)
			m->state = -fd;
		return 0;
	}
	m->file = strdup(path);
	if (!m->file) {
		close(fd);
		return -ENOMEM;
	}
	m->state = SYM_MODULE_OK;
	err = report_file(m, fd);
	if (err)
		return err;
	if (m->state != SYM_MODULE_OK) { /* libdw cannot use it: the next candidate */
		sym_module__close(m);
		m->state = SYM_MODULE_BAD_ELF;
		return 0;
	}
	return 1;
}

/* The candidates in the binaries directory: by build-id, then by name. */
static int try_binaries_dir(struct sym_module *m, const char *path)
{
	const char *dir = m->search->binaries_dir;
	const char *base = strrchr(path, '/');
	char cand[SYM_PATH_MAX];
	int err;

	if (!dir)
		return 0;
	if (m->build_id && strlen(m->build_id) >= 4 &&
	    !path_fmt(cand, "%s/.build-id/%.2s/%s", dir, m->build_id, m->build_id + 2)) {
		err = try_file(m, cand);
		if (err)
			return err;
	}
	if (path_fmt(cand, "%s/%s", dir, base ? base + 1 : path))
		return 0;
	return try_file(m, cand);
}

/* The last resort: a separate debug file with the module's build-id, as the
 * file itself (its symbol table and DWARF are all symbolization needs; the
 * code is not), e.g. for [vdso] or on a host with only the debug packages. */
static int try_debug_as_file(struct sym_module *m)
{
	const struct sym_search *s = m->search;
	char cand[SYM_PATH_MAX];
	int err = 0;

	if (!m->build_id || strlen(m->build_id) < 4)
		return 0;
	for (size_t i = 0; i < s->nr_debug_dirs && !err; i++)
		if (!path_fmt(cand, "%s/.build-id/%.2s/%s.debug", s->debug_dirs[i], m->build_id,
			      m->build_id + 2))
			err = try_file(m, cand);
	return err;
}

#define VDSO_MAX_SIZE (64 << 10)

/* The size of the vDSO image at base: it ends with its section headers. 0
 * when it does not look like one. */
static size_t vdso_size(const GElf_Ehdr *eh)
{
	size_t size;

	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shentsize != sizeof(Elf64_Shdr))
		return 0;
	size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	return size > sizeof(*eh) && size <= VDSO_MAX_SIZE ? size : 0;
}

/* [vdso] by this process's own image (the kernel maps the same one into
 * every 64-bit process), through a memory file, so that it is opened and
 * checked as any candidate: used only if its build-id is the one recorded,
 * i.e. the recording host's kernel is the one running. */
static int try_own_vdso(struct sym_module *m)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	char path[64];
	size_t size;
	int fd, err;

	if (!base || !m->build_id || !*m->build_id)
		return 0;
	size = vdso_size((const GElf_Ehdr *)base);
	if (!size)
		return 0;
	fd = memfd_create("vdso", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, (const void *)base, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	err = try_file(m, path);
	close(fd);
	if (err > 0) {
		/* the name a message gives it, not the descriptor's */
		free(m->file);
		m->file = strdup("[vdso] (this host's)");
		if (!m->file)
			return -ENOMEM;
	}
	return err;
}

/* The path a file had when it was mapped: without " (deleted)" (replaced
 * since; the build-id check tells whether the new one is the same build). */
static int mapped_path(const char *recorded, char *path)
{
	size_t len, sfx = strlen(DELETED_SUFFIX);

	if (path_fmt(path, "%s", recorded))
		return -ENAMETOOLONG;
	len = strlen(path);
	if (len > sfx && !strcmp(path + len - sfx, DELETED_SUFFIX))
		path[len - sfx] = '\0';
	return 0;
}

int sym_module__open(struct sym_module *m, size_t index)
{
	const struct sym_search *s = m->search;
	const char *use;
	char path[SYM_PATH_MAX];
	int err = 0;

	m->state = SYM_MODULE_NOT_FOUND;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return 0;
	if (m->path[0] == '[' || !m->path[0]) {
		/* a pseudo-file ([vdso]): only a debug file can name its code,
		 * or, for [vdso], this host's */
		err = try_debug_as_file(m);
		if (!err && !strcmp(m->path, "[vdso]"))
			err = try_own_vdso(m);
		if (!err)
			m->state = SYM_MODULE_NO_FILE;
		return err < 0 ? err : 0;
	}
	if (mapped_path(m->path, path))
		return 0;
	err = try_binaries_dir(m, path);
	if (!err) {
		use = s->resolve ? s->resolve(s->resolve_ctx, index, path) : NULL;
		err = try_file(m, use ? use : path);
	}
	if (!err)
		err = try_debug_as_file(m);
	return err < 0 ? err : 0;
}

void sym_module__close(struct sym_module *m)
{
	sym_table__free(m);
	sym_funcs__free(m);
	if (m->dwfl)
		dwfl_end(m->dwfl);
	m->dwfl = NULL;
	m->mod = NULL;
	free(m->file);
	m->file = NULL;
}
