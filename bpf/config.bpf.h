/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The kernel side's configuration: read-only data (rodata) that userspace sets
 * in the skeleton before load, and the verifier then treats as constants (a
 * disabled feature's code is dead and never verified).
 */
#ifndef FSP_CONFIG_BPF_H
#define FSP_CONFIG_BPF_H

#include "vmlinux.h"

#include "profiler.h"

/* Configured by userspace before load. */
const volatile __u32 max_depth = FSP_MAX_DEPTH;
/* Frames whose enter sp is below the current sp, on the same stack, by less
 * than this are dead; farther apart means another stack (a coroutine's not
 * switched by swapcontext): leave alone (framelive.h). */
const volatile __u64 stack_window = 8ULL << 20;
/* -- CMD mode: stop this process at link-map changes and at each exec so
 * that userspace can attach a new library's or program's probes before any
 * of its code runs. */
const volatile __u32 sync_tgid = 0;
const volatile bool follow_forks = true;
/* --inherit-marks: a forked child runs inside the marks its parent had open
 * at the fork (else it starts outside them: they are not its own). */
const volatile bool inherit_marks = false;
/* -- CMD --events: a child that shares its parent's memory (vfork) is held
 * stopped until its probes are attached (profiler.bpf.c). */
const volatile bool hold_vfork = false;
/* The event view: count enters/leaves and durations per mark instance. */
const volatile bool events_enabled = true;
/* --events=FEATURE,...: the ABI v2 marks trap and are counted for these
 * features only (FNV-1a hashes of their names, as labels.bpf.h's). */
const volatile __u32 nr_event_features = 0;
const volatile __u64 event_features[FSP_MAX_EVENT_FEATURES];
/* Slots of mark_stats (= its max_entries). */
const volatile __u32 max_events = FSP_DEFAULT_MAX_EVENTS;

/* record --calls: each sample's call numbers go to calls_rb (livestack.bpf.h). */
const volatile bool calls_enabled = false;
/* record --calls --events: a mark left after at least this long sends its
 * exact duration with its call number (calls_rb); 0: none. */
const volatile __u64 calls_exact_ns = 0;
/* ... and of those, once this CPU has seen more than calls_exact_top calls
 * of the instance as long or longer (within the call's histogram bucket),
 * only one in (that count / calls_exact_top), at random: the slowest calls
 * of each instance and a thinning sample of the others (docs/calls.md). */
const volatile __u64 calls_exact_top = 0;

/* Some mapped feature has "charge threads" (charge.bpf.h). */
const volatile bool charge_enabled = false;

/* Some mapped feature has "label sample": the sampler reads its instance
 * (samplelabel.bpf.h). */
const volatile bool sample_labels = false;
/* Some function feature reads its instance at sample time: the sampler
 * appends the variables of the sample_vars map (samplelabel.bpf.h). */
const volatile bool sample_vars_on = false;

/* Off-CPU accounting is loaded (on_switch, on_exit, flush_offcpu). */
const volatile bool offcpu_enabled = false;
/* offcpu_recs has offcpu_mask + 1 slots; a thread's is tid & offcpu_mask. */
const volatile __u32 offcpu_mask = 0;
/* -a: probes are attached per file for every process; the first probe a
 * process fires makes it a target (userspace may exclude it: value 0). */
const volatile bool system_wide = false;
/* -a --comm: the names of the processes to profile (none: all). */
const volatile __u32 nr_comms = 0;
const volatile char comms[FSP_MAX_COMMS][FSP_COMM_LEN];

#endif /* FSP_CONFIG_BPF_H */
