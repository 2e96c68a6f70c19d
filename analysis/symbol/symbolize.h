/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Symbolization of a profile's native-stack locations with elfutils (libdw,
 * libelf): function, source file:line and inlined frames from DWARF (also
 * from separate debug files found by build-id under the debug directories),
 * the symbol table or .dynsym otherwise; kernel addresses from kallsyms.
 * A location nothing can name keeps no lines: the views print it as
 * module+offset (or as JIT/anonymous code when it has no module).
 * Used at the end of a recording (the target may have exited: only the files
 * are needed) and by `report --binaries DIR` on another host.
 */
#ifndef FSP_ANALYSIS_SYMBOLIZE_H
#define FSP_ANALYSIS_SYMBOLIZE_H

#include <stddef.h>

struct profile;

struct symbolizer_opts {
	/* colon-separated directories of separate debug files (searched as
	 * DIR/.build-id/xx/rest.debug and DIR/<path>.debug);
	 * NULL: "/usr/lib/debug" */
	const char *debug_dirs;
	/* report --binaries: a directory searched first for each module, by
	 * build-id (DIR/.build-id/xx/rest) and by file name (DIR/basename);
	 * a file found there is used only if its build-id matches (when the
	 * module has one). NULL: none */
	const char *binaries_dir;
	/* Maps a module's path (as the target saw it) to the path to open
	 * here, e.g. through /proc/PID/root for a process in a container;
	 * returns NULL to use the path as is. NULL: paths as is. */
	const char *(*resolve)(void *ctx, size_t module, const char *path);
	void *resolve_ctx;
	/* kallsyms file for kernel locations; NULL: "/proc/kallsyms" */
	const char *kallsyms;
};

struct symbolizer;

struct symbolizer *symbolizer__new(const struct symbolizer_opts *opts); /* NULL + errno */
void symbolizer__free(struct symbolizer *s); /* NULL-safe */

/*
 * Symbolizes the locations of p that have no lines yet (all of them when
 * `all`), replacing their lines. Each module's file is opened once per call
 * and closed after its locations (a few descriptors at a time, however many
 * modules); which modules were missing is remembered across calls.
 * With `all`, a location keeps its lines when the new ones know less (DWARF
 * lines are not replaced by a symbol name), and named kernel locations are
 * kept (this host's kallsyms may be another kernel's); unnamed kernel
 * locations are named from this host's kallsyms only when the recorded
 * kernel build-id is the running kernel's, or (without `all`: the
 * recording itself) when none was recorded.
 * A module whose file is missing or whose build-id differs from the one
 * recorded is skipped (its locations stay module+offset), and counted.
 * Returns the number of locations that got lines, or -errno.
 */
int symbolizer__profile(struct symbolizer *s, struct profile *p, int all);

/* Modules skipped by the last symbolizer__profile: file missing, wrong
 * build-id. For a report's footer / a warning. */
size_t symbolizer__missing_modules(const struct symbolizer *s);
/* The i-th of them: its module index in that profile and why (a short
 * phrase: "file not found", "build-id differs", ...). 0 or -ENOENT. */
int symbolizer__missing_module(const struct symbolizer *s, size_t i, size_t *module,
			       const char **why);

/*
 * The GNU build-id of the ELF file at path, as lower-case hex, in
 * buf (size >= 2 * 20 + 1 is enough for SHA-1 build-ids; up to 64 bytes of
 * id are supported). 0, -ENOENT (the file has no build-id), -errno.
 */
int elf__build_id(const char *path, char *buf, size_t size);

/*
 * The running kernel's GNU build-id (from /sys/kernel/notes), as lower-case
 * hex, for the kernel module ("[kernel.kallsyms]") of a recording: with it,
 * kernel locations left unnamed are symbolized later only from the same
 * kernel's kallsyms. 0, -ENOENT, -errno.
 */
int kernel__build_id(char *buf, size_t size);

#endif /* FSP_ANALYSIS_SYMBOLIZE_H */
