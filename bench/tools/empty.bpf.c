// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The baseline BPF programs of bench/run.sh. empty: attached to the same fsp
 * USDT sites as fsp-bpf (one uprobe_multi link per probe name), it does
 * nothing, so a probe hit costs only the uprobe trap and the BPF dispatch.
 * empty_sample: on the same cpu-clock perf events as fsp-bpf's sampler, the
 * floor of what sampling costs with any BPF program. empty_switch: on the
 * sched_switch tracepoint as fsp-bpf's --off-cpu program, the floor of any
 * BPF off-CPU profiler. empty_hook: a uprobe on a function (a uprobe_multi
 * link of one site), as fsp-bpf hooks __cxa_begin_catch and longjmp.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

SEC("uprobe")
int empty(struct pt_regs *ctx)
{
	return 0;
}

SEC("uprobe")
int empty_hook(struct pt_regs *ctx)
{
	return 0;
}

SEC("perf_event")
int empty_sample(struct bpf_perf_event_data *ctx)
{
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(empty_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
