/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The payloads of sampled stacks: records of the sampler (struct
 * fsp_payload_rec) counted per (thread, stack, payload vector), at most `max`
 * distinct ones, thinned uniformly beyond (payloads.c says how).
 */
#ifndef FSP_PAYLOADS_H
#define FSP_PAYLOADS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/types.h>

#include "profiler.h"

struct payload_rec {
	uint64_t a; /* tgid << 32 | tid */
	uint64_t hash; /* the stack's (BPF) hash */
	uint64_t phash; /* hash of the stack's hash and the payloads */
	uint64_t count; /* samples */
	size_t depth;
	size_t off; /* of its payloads, see payloads__values */
};

struct payloads;

struct payloads *payloads__new(size_t max);
void payloads__free(struct payloads *pl); /* NULL-safe */

/* Counts one record of size bytes (a ring buffer sample); ignores malformed
 * ones. 0 or -ENOMEM. */
int payloads__add(struct payloads *pl, const struct fsp_payload_rec *rec, size_t size);

size_t payloads__nr(const struct payloads *pl);
const struct payload_rec *payloads__rec(const struct payloads *pl, size_t i);
/* The depth payloads of r, bottom frame first. */
const uint64_t *payloads__values(const struct payloads *pl, const struct payload_rec *r);
/* Samples kept with a payload vector, of thread (tgid, tid) and stack hash. */
uint64_t payloads__kept(const struct payloads *pl, uint32_t tgid, uint32_t tid, uint64_t hash);
/* Forgets the records of processes pids (nr): their samples went into a
 * profile of exited processes (retirement, -a). 0 or -ENOMEM. */
int payloads__drop(struct payloads *pl, const pid_t *pids, size_t nr);
/* Vectors are kept at rate 2^-shift. */
unsigned int payloads__shift(const struct payloads *pl);

#endif /* FSP_PAYLOADS_H */
