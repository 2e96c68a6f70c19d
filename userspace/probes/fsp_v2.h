/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Probe ABI v2 (usdt/fsp_abi_v2.h): what a file's notes say about its record (where
 * it is, how many fsp:v2 sites announce it), where the record is in a process
 * (its mappings), and the record itself, read from and written to the
 * process's memory (/proc/PID/mem).
 */
#ifndef FSP_V2_H
#define FSP_V2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "procmaps.h"
#include "usdt.h"

#define FSP_V2_PROBE "v2"
/* Slots of the record where the profiling sessions attached to it say so
 * (usdt/fsp_abi_v2.h, struct fsp_v2_record's profilers). */
#define FSP_V2_PROFILERS 2

/* A file's ABI v2 record, from its fsp:v2 notes. */
struct fsp_v2_file {
	bool has_record;
	uint64_t record_off; /* file offset of the record (the notes' semaphore) */
	uint64_t record_vaddr; /* its link-time address */
	unsigned int nr_sites; /* fsp:v2 sites (one per translation unit) */
	unsigned int nr_v1_sites; /* the file's fsp v1 sites (shadows or marks) */
};

/*
 * The record of the file whose sites are given. -EINVAL when the fsp:v2 notes
 * disagree on the record (a file mixing builds; reported by the caller).
 */
int fsp_v2__file(const struct usdt_site *sites, size_t nr, struct fsp_v2_file *out);

/* Is site an ABI v1 site (mark_enter ... antimark_leave) of provider fsp? */
bool fsp_v2__is_v1_site(const struct usdt_site *site);

/*
 * Is site an ABI v1 site of an ABI v2 mark of the file (a shadow: it fires
 * only for exact counts, --events), rather than a mark of a translation unit
 * built with ABI v1? The semaphore tells: a v2 unit's v1 sites share the
 * record's (its second half), a v1 unit's have their own.
 */
bool fsp_v2__is_shadow(const struct fsp_v2_file *vf, const struct usdt_site *site);

/* Does the file at path have ABI v1 marks attached as such (its own, or
 * those of a unit built with ABI v1 beside an ABI v2 record: not shadows)?
 * false if it cannot be read. */
bool fsp_v2__file_v1(const char *path);

/* The record as usdt/fsp_abi_v2.h lays it out (struct fsp_v2_record there). */
struct fsp_v2_record_raw {
	uint16_t sema_v2;
	uint16_t sema_v1;
	uint32_t magic;
	uint32_t version;
	uint32_t gen;
	int64_t tp_offset;
	uint32_t ready;
	uint32_t key_state;
	uint32_t key;
	uint16_t depth;
	uint16_t frame_size;
	uint16_t header_size;
	uint16_t reserved16;
	uint32_t reserved32;
	uint64_t profilers[FSP_V2_PROFILERS];
};

#define FSP_V2_RECORD_GEN_OFF 12
#define FSP_V2_RECORD_PROFILERS_OFF 48

/*
 * The address of a record in a process: the mapping of file (dev, ino) that
 * holds file offset record_off, the first from m[*i] on; *i is then the
 * next mapping to look from (a file loaded twice, with dlmopen, has two
 * records). 0 or -ENOENT.
 */
int fsp_v2__record_addr(const struct mapping *m, size_t nr, size_t *i, dev_t dev, ino_t ino,
			uint64_t record_off, uint64_t *addr);

/* Reads the record at addr of pid. 0, -ESRCH (gone) or -EIO. */
int fsp_v2__read_record(pid_t pid, uint64_t addr, struct fsp_v2_record_raw *rec);

/* Is rec a record this fsp-bpf reads (magic, version, layout)? */
bool fsp_v2__record_ok(const struct fsp_v2_record_raw *rec);

/* Writes the record's gen in pid (a new profiling session). 0 or -errno. */
int fsp_v2__write_gen(pid_t pid, uint64_t addr, uint32_t gen);

/* Writes the record's semaphores word (fsp:v2's in the low half, the ABI v1
 * probes' in the high half) in pid. 0 or -errno. */
int fsp_v2__write_semaphores(pid_t pid, uint64_t addr, uint32_t word);

/* Writes id into profiler slot i of the record at addr of pid. 0 or -errno. */
int fsp_v2__write_profiler(pid_t pid, uint64_t addr, unsigned int i, uint64_t id);

/*
 * A profiling session's id as the record's profiler slots hold it: its pid
 * and its start time (clock ticks since boot), so that a pid reused by
 * another process is not taken for the session. 0 if it cannot be read.
 */
uint64_t fsp_v2__profiler_id(pid_t pid);

#endif /* FSP_V2_H */
