/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Inside the native-stack recorder (stacks.h):
 *
 *	unwind.c	a Dwfl per process (its mappings), DWARF unwinding of a
 *			record over its copied stack, addresses to modules
 *	stacks.c	records in, the choice of method, aggregation, modules,
 *			the profile at the end
 */
#ifndef FSP_STACKS_INT_H
#define FSP_STACKS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/types.h>

#include "profiler.h"

/* Frames of a user stack kept (DWARF and frame pointers alike). */
#define STACKS_MAX_USER 127

struct unwinder;
struct uproc;

/* A code address of a process: its file as the process names it (its
 * mount namespace), the file's build-id, and the address in the ELF file. */
struct uaddr {
	const char *path; /* NULL: no file (anonymous memory, JIT code) */
	const unsigned char *build_id; /* NULL: none */
	int build_id_len;
	uint64_t addr; /* ELF address; the runtime address when path is NULL */
	void *module; /* the Dwfl module (a cache key), NULL with path */
};

struct unwinder *unwinder__new(void);
void unwinder__free(struct unwinder *u); /* NULL-safe */

/* The unwinding state of the program pid runs as image exec_id (its
 * tasks' self_exec_id), made from /proc/PID/maps the first time, again when
 * a record of a newer image comes. NULL + errno: ESRCH or ENOENT, the
 * process is gone; ESTALE, an exec replaced that image (its mappings are
 * gone). */
struct uproc *unwinder__proc(struct unwinder *u, pid_t pid, uint64_t exec_id);
/* The state of pid's current image, made (from /proc/PID/maps) if there is
 * none yet and no exec was reported. NULL + errno when the process is gone. */
struct uproc *unwinder__find(struct unwinder *u, pid_t pid);
/* pid exec'd image exec_id: its state goes, records of older images are
 * stale from now on. */
void unwinder__exec(struct unwinder *u, pid_t pid, uint64_t exec_id);
/* Drops pid's state (the process is gone, its pid free for another). */
void unwinder__forget(struct unwinder *u, pid_t pid);
/* /proc/PID/root when pid runs in another root directory than fsp-bpf, ""
 * otherwise (as recorded when its state was made). */
const char *uproc__root(const struct uproc *p);
/* Which reading of p's mappings its modules are: a number no other reading
 * of any process's mappings in this unwinder has. uproc__addr gives the same
 * answer for a pc with a module while it stays the same (a cache key). */
uint64_t uproc__gen(const struct uproc *p);

/*
 * DWARF (CFI) unwinding of rec's user stack: pcs[] leaf first, each frame's
 * stack pointer in sps[] (0: not known), activation frames (the leaf, a
 * signal's interrupted frame) flagged in act[]. Returns the depth; *complete
 * says whether it reached the thread's outermost frame.
 */
size_t uproc__dwarf(struct uproc *p, const struct fsp_native_rec *rec, uint64_t *pcs, uint64_t *sps,
		    bool *act, size_t max, bool *complete);

/* The module and ELF address of runtime address pc: a module (a file
 * mapped executable) whose file could be opened and whose executable
 * segments hold pc. With refresh (pc is surely code: not a frame-pointer
 * walk's guess), re-reads the mappings when no module and no anonymous
 * executable mapping holds it (a library mapped since: ld.so loading libc,
 * a dlopen(), maybe where a file unmapped since was); after a few readings
 * in a row that explained nothing, at most every 5 ms. false: pc is in no
 * file. */
bool uproc__addr(struct uproc *p, uint64_t pc, bool refresh, struct uaddr *out);
/* The same re-reading for code address pc: true when no module held pc
 * and one does now (an unwinding that stopped there can go on). */
bool uproc__reload(struct uproc *p, uint64_t pc);

#endif /* FSP_STACKS_INT_H */
