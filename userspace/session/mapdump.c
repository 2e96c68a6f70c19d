// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Reading a whole BPF hash map in batches (BPF_MAP_LOOKUP_BATCH, Linux 5.6):
 * a few system calls for thousands of entries, where get_next_key and
 * lookup cost two each. Snapshots of a session (the live view, the agent's
 * scrapes) read the stacks, counts and labels maps this way: with 5000
 * stacks a snapshot took 65 ms of system calls, 15 ms this way
 * (docs/benchmarks.md). The entries come a batch at a time, so the memory
 * this takes is a batch's, whatever the map's size.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "session_int.h"

#define BATCH 256

int map_batch__each(int fd, size_t key_size, size_t val_size, map_batch_fn fn, void *ctx)
{
	/* A hash map's batch position is a bucket index (a u32): the token
	 * buffers are sized for any map's. */
	uint64_t in[8] = {0}, out[8] = {0};
	size_t want = BATCH;
	char *keys = NULL, *vals = NULL;
	bool first = true;
	int err;

	if (key_size > sizeof(in))
		return -EINVAL;
	for (;;) {
		LIBBPF_OPTS(bpf_map_batch_opts, opts);
		__u32 count = (__u32)want;
		char *k = realloc(keys, want * key_size),
		     *v = k ? realloc(vals, want * val_size) : NULL;

		if (k)
			keys = k;
		if (v)
			vals = v;
		if (!k || !v) {
			err = -ENOMEM;
			break;
		}
		err = bpf_map_lookup_batch(fd, first ? NULL : in, out, keys, vals, &count, &opts);
		err = err ? -errno : 0;
		if (err == -ENOSPC) {
			/* a bucket holds more entries than a batch: a larger one */
			want *= 2;
			continue;
		}
		if ((!err || err == -ENOENT) && count) {
			int ret = fn(ctx, keys, vals, count);

			if (ret) {
				err = ret;
				break;
			}
		}
		if (err) {
			err = err == -ENOENT ? 0 : err; /* -ENOENT: no more */
			break;
		}
		memcpy(in, out, sizeof(in));
		first = false;
	}
	free(keys);
	free(vals);
	return err;
}
