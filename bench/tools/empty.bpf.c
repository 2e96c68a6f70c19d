// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The baseline BPF programs of bench/run.sh. empty: attached to the same fsp
 * USDT sites as fsp-bpf (one uprobe_multi link per probe name), it does
 * nothing, so a probe hit costs only the uprobe trap and the BPF dispatch.
 * empty_sample: on the same cpu-clock perf events as fsp-bpf's sampler, the
 * floor of what sampling costs with any BPF program.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

SEC("uprobe")
int empty(struct pt_regs *ctx)
{
	return 0;
}

SEC("perf_event")
int empty_sample(struct bpf_perf_event_data *ctx)
{
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
