/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Inside the native-stack recorder (stacks.h):
 *
 *	unwind.c	a Dwfl per process (its mappings), DWARF unwinding of a
 *			record over its copied stack, addresses to modules
 *	unwinder.c	the table of processes
 *	cfi_cache.c	unwinding by CFI rules cached per code address
 *	stacks.c	records in, the choice of method, aggregation, modules,
 *			the profile at the end
 *	symcache.c	symbolized locations kept between fills
 */
#ifndef FSP_STACKS_INT_H
#define FSP_STACKS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/types.h>

#include "hashmap.h"
#include "profiler.h"
#include "stacks.h"

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

/* The unwinding by cached CFI rules (cfi_cache.c), for -v. */
struct cfi_stats {
	uint64_t records; /* records unwound by the cached rules */
	uint64_t fallbacks; /* records left to libdw (a frame's rules not simple) */
	uint64_t computed; /* rules asked of libdw (an address seen first) */
	uint64_t evictions; /* of which replaced another address's */
	uint64_t checked, differences; /* FSP_UNWIND_CHECK: records compared */
	size_t slots; /* the cache's bound, entries; 0: off */
};

/* NULL: no cache. */
const struct cfi_stats *unwinder__cfi_stats(const struct unwinder *u);

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

struct fcache;
struct profile;
struct sentry;
struct sframe;
struct smodule;

/* Counters for the profile's diagnostics and -v. */
struct stacks_stats {
	uint64_t records; /* records read */
	uint64_t unwound; /* of which with a native stack */
	uint64_t exited; /* process gone before its first record was unwound */
	uint64_t replaced; /* its program replaced by an exec before that, or
			      sampled inside execve() */
	uint64_t failed; /* no frame at all (no registers, nothing mapped) */
	uint64_t dwarf; /* stacks by DWARF CFI */
	uint64_t fp; /* stacks by frame pointers */
	uint64_t truncated; /* stacks that do not reach the thread's first frame */
	uint64_t bad; /* malformed records (size) */
	uint64_t untimed; /* record --calls: timed samples beyond the bound */
	double unwind_s; /* CPU time spent unwinding (thread CPU clock) */
};

struct stacks {
	struct stacks_opts opts;
	struct unwinder *unw;
	struct smodule *modules;
	size_t nr_modules, cap_modules;
	struct hashmap module_ids; /* (hash of path, hash of build-id) -> index */
	struct sentry *entries;
	size_t nr_entries, cap_entries;
	struct hashmap entry_ids; /* (hash of the stack, pid << 32 | tid) -> index */
	struct sframe *pool;
	size_t nr_pool, cap_pool;
	uint16_t *mpool; /* the entries' mark positions */
	size_t nr_mpool, cap_mpool;
	struct stacks_stats stats;
	struct fcache *fcache; /* FRAME_CACHE entries */
	bool in_batch; /* a batch of records is being read (stacks__batch_end) */
	double batch_t0; /* the thread CPU time at its first record */
	int32_t *by_profile_module; /* profile module index -> ours (-1) */
	size_t nr_by_profile;
	/* record --calls: each unwound sample's call record time and entry,
	 * bounded; the entries' native stacks once in the profile */
	struct stacks_timed *timed;
	size_t nr_timed, cap_timed;
	size_t *entry_native;
	/* Symbols found by earlier fills (the live view's and the agent's
	 * snapshots symbolize the stacks again each time): their locations,
	 * found by (module path, address) in symcache_ids. */
	struct profile *symcache;
	struct hashmap symcache_ids;
	/* --events of function features: call sites (return addresses) as
	 * frames, and their profile locations once filled */
	struct sframe *sites;
	size_t nr_sites, cap_sites;
	struct hashmap site_ids; /* (pid, return address) -> index in sites */
	size_t *site_loc;
};

/* Gives p's locations without lines the lines an earlier fill found. */
void symcache__use(struct stacks *st, struct profile *p);
/* Keeps p's symbolized locations for the next fills (best effort: without
 * memory, the next fill symbolizes them again). */
void symcache__keep(struct stacks *st, struct profile *p);

#endif /* FSP_STACKS_INT_H */
