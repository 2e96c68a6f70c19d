/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Finding `fsp` USDT probes: in an ELF file's SystemTap notes, and in the
 * files a process has mapped executable (/proc/PID/maps). */
#ifndef FSP_PROBES_H
#define FSP_PROBES_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#define FSP_PROVIDER "fsp"

/* The four probes of ABI v1, indexed by enum fsp_probe. */
enum fsp_probe {
	FSP_PROBE_MARK_ENTER,
	FSP_PROBE_MARK_LEAVE,
	FSP_PROBE_ANTIMARK_ENTER,
	FSP_PROBE_ANTIMARK_LEAVE,
	FSP_PROBE__COUNT,
};

extern const char *const fsp_probe_names[FSP_PROBE__COUNT];

struct probe_file {
	char path[PATH_MAX]; /* as the target sees it */
	dev_t dev;
	ino_t ino;
	unsigned int sites[FSP_PROBE__COUNT]; /* probe sites per probe */
	unsigned int nr_sites; /* all fsp sites */
};

/* Reads the fsp notes of an ELF file. 0 with nr_sites possibly 0, or -errno. */
int probes__scan_elf(const char *path, struct probe_file *out);

/* The program interpreter (PT_INTERP) of an ELF executable, "" if static. */
int probes__elf_interp(const char *path, char *buf, size_t size);

/* Calls cb for each distinct file mapped executable by pid. Returns 0, the
 * first non-zero cb result, or -errno (-ESRCH if the process is gone). */
typedef int (*probes_file_cb)(void *ctx, const char *path, dev_t dev, ino_t ino);
int probes__for_each_mapped_file(pid_t pid, probes_file_cb cb, void *ctx);

/* A file-backed mapping of a process: where its bytes live on disk. */
struct probe_mapping {
	unsigned long long start;
	unsigned long long end;
	unsigned long long offset;
	char *path;
};

/* Every file-backed mapping of pid (freed with probes__free_mappings). */
int probes__read_mappings(pid_t pid, struct probe_mapping **out, size_t *nr);
void probes__free_mappings(struct probe_mapping *m, size_t nr);

/* Reads a NUL-terminated string at addr of a process from the mapped file,
 * for when the process is gone. Returns its length or -errno. */
int probes__read_mapped_string(const struct probe_mapping *m, size_t nr, unsigned long long addr,
			       char *buf, size_t size);

#endif /* FSP_PROBES_H */
