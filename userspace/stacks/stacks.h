/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Native stacks of a recording (record --stacks): the sampler's records
 * (struct fsp_native_rec, bpf/native.bpf.h) are unwound as they arrive,
 * while the process's mappings are still in /proc, with elfutils (DWARF CFI
 * over the copied top of the user stack; the frame-pointer stack when that
 * reaches further), aggregated per (pid, tid, mark stack key, frames), and at
 * the end of the session put into the profile (analysis/model/native.h) and
 * symbolized (analysis/symbol/symbolize.h).
 */
#ifndef FSP_STACKS_H
#define FSP_STACKS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct profile;
struct stacks;

struct stacks_opts {
	uint32_t stack_size; /* bytes of user stack a record carries at most */
};

struct stacks *stacks__new(const struct stacks_opts *opts); /* NULL + errno */
void stacks__free(struct stacks *st); /* NULL-safe */

/* One ring-buffer record: unwound now, its stack counted. 0 or -errno
 * (-ENOMEM; a record that cannot be unwound is counted, not an error). */
int stacks__add(struct stacks *st, const void *data, size_t size);
/* The ring buffer's records read so far (ring_buffer__consume returned):
 * the thread CPU time since the first record of the batch is the
 * unwinding's (-v). Read per batch, not per record: reading a CPU clock is a
 * system call. NULL-safe. */
void stacks__batch_end(struct stacks *st);

/* A process exec'd a new program, whose task self_exec_id is exec_id: its
 * mappings are new, and records of the programs before it can no longer be
 * unwound (counted as replaced). */
void stacks__exec(struct stacks *st, pid_t pid, uint64_t exec_id);
/* A process is gone: its state goes (its pid may come back as another). */
void stacks__forget(struct stacks *st, pid_t pid);

/* Adds the modules, locations, native stacks and native samples to p (its
 * current source), sets the native-stack diagnostics, then symbolizes p's
 * locations (files opened through /proc/PID/root for processes in another
 * mount namespace that still run). 0 or -errno. */
int stacks__fill(struct stacks *st, struct profile *p);
/* The same without symbolizing (locations by module and address only). */
int stacks__fill_raw(struct stacks *st, struct profile *p);

/*
 * record --calls: the unwound samples whose record carried its call record's
 * time (the join key: the sampler sends both records with one time), with the
 * profile's native stack of each (valid after stacks__fill). At most 2^17;
 * beyond, counted.
 */
struct stacks_timed {
	uint32_t pid, tid;
	uint64_t time_ns;
	size_t native; /* profile__native_stack index */
};

size_t stacks__nr_timed(const struct stacks *st); /* 0 before stacks__fill */
int stacks__timed(const struct stacks *st, size_t i, struct stacks_timed *out);
uint64_t stacks__timed_dropped(const struct stacks *st);

/*
 * --events of function features: the call site of a call, its return
 * address ret in process pid, as a frame of the native stacks (the caller's
 * location, the address before ret), *site its number; a site seen before
 * keeps its number. -ESRCH: pid has no mappings known (never sampled and
 * gone). After stacks__fill, *loc is its profile location (the one of the
 * native stacks' frames at that address).
 */
int stacks__site(struct stacks *st, pid_t pid, uint64_t ret, size_t *site);
int stacks__site_location(const struct stacks *st, size_t site, size_t *loc);

#endif /* FSP_STACKS_H */
