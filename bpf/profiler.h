/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Types shared by the kernel side (bpf/) and userspace. Only fixed-width
 * __u32/__u64 so that both sides agree on layout without any padding surprises.
 */
#ifndef FSP_PROFILER_H
#define FSP_PROFILER_H

/*
 * Compile-time upper bound of a thread's mark stack; the run-time limit
 * (rodata max_depth, option --max-depth) may be lower. Pushes beyond the
 * limit are counted as overflows and their leaves are absorbed.
 */
#define FSP_MAX_DEPTH 64

/*
 * Defaults of the options that size kernel maps: the BPF side declares its
 * maps with them, userspace resizes them before load from --max-stacks and
 * --max-events.
 */
#define FSP_DEFAULT_MAX_STACKS 8192 /* distinct mark stacks kept */
#define FSP_DEFAULT_MAX_EVENTS 16384 /* distinct (process, feature, instance) counted */
#define FSP_DEFAULT_MAX_PARKED 4096 /* coroutines suspended inside a mark (swapcontext) */

/* Bytes of a feature or instance label copied from the target, NUL included. */
#define FSP_LABEL_LEN 256

#define FSP_COMM_LEN 16
#define FSP_MAX_COMMS 16 /* names of -a --comm the kernel side checks */
#define FSP_MAX_EVENT_FEATURES 16 /* features of --events=FEATURE,... */

enum fsp_frame_kind {
	FSP_FRAME_MARK = 1,
	FSP_FRAME_ANTIMARK = 2,
	/* In stored stacks only: a mark of another thread of the process whose
	 * feature charges this thread's samples ("charge threads", --map). */
	FSP_FRAME_CHARGED = 3,
};

/* Diagnostic counters, a per-CPU array indexed by this enum. */
enum fsp_stat {
	FSP_STAT_SAMPLES, /* samples of targeted threads */
	FSP_STAT_LOST_SAMPLES, /* samples dropped: the counts map was full */
	FSP_STAT_STACK_DROPS, /* stacks map full: sample kept as "unknown stack" */
	FSP_STAT_UNMATCHED_LEAVES, /* leave that matched no frame of its feature */
	FSP_STAT_OVERFLOWS, /* enter beyond max_depth */
	FSP_STAT_STALE_MARKS, /* frames dropped because their stack frame was unwound */
	FSP_STAT_TRUNCATED, /* samples taken while a stack had overflowed */
	FSP_STAT_LABEL_ERRORS, /* label could not be read or stored in BPF */
	FSP_STAT_NO_STORAGE, /* task storage could not be allocated */
	FSP_STAT_ARG_ERRORS, /* USDT argument could not be read */
	FSP_STAT_EVENTS_LOST, /* ring buffer full: fork/exec/dlopen event lost */
	FSP_STAT_PROBE_HITS, /* USDT probe hits handled */
	FSP_STAT_EVENT_DROPS, /* mark enters not counted: mark_ids/mark_stats full */
	FSP_STAT_OFFCPU_DROPS, /* off-CPU intervals not recorded: counts map full */
	FSP_STAT_LABEL_DROPS, /* mapped-probe labels not read or kept (labels map full) */
	FSP_STAT_OFFCPU_RECOVERED, /* off-CPU intervals whose end or start sched_switch did not
				    * report, recovered from the thread's CPU clock */
	FSP_STAT_OFFCPU_NOREC, /* off-CPU intervals not recorded: no record for the thread
				* (spill hash full, or its entry not allocated) */
	FSP_STAT_CHARGE_DROPS, /* marks of "charge threads" that found no free slot:
				* they charge their own thread only */
	FSP_STAT_UNTRACKED, /* probes of processes not admitted: the targets map was full */
	FSP_STAT_NATIVE_LOST, /* --stacks: native stack records lost, their ring buffer full */
	FSP_STAT_V2_UNREADABLE, /* samples with an ABI v2 mark stack that could not be read */
	FSP_STAT_V2_DSO_DROPS, /* ABI v2 records not registered: a process has too many */
	FSP_STAT_CALLS_LOST, /* record --calls: call records lost, their ring buffer full */
	FSP_STAT_SAMPLE_LABEL_ERRORS, /* samples whose sample-time label ("label sample")
				       * could not be read: a NULL or unreadable pointer */
	FSP_STAT__COUNT,
};

/* One frame of a stored (sampled) mark stack: what userspace needs. */
struct fsp_frame {
	__u64 feature; /* address of the feature label in the target */
	__u64 instance; /* address of the instance label, 0 for NULL */
	__u64 payload;
	__u64 kind; /* enum fsp_frame_kind */
};

/* Key of the stacks map: one distinct mark stack of one process. */
struct fsp_stack_key {
	__u64 tgid;
	__u64 hash; /* never 0: 0 means the empty stack */
};

struct fsp_stack {
	__u64 depth;
	struct fsp_frame frames[FSP_MAX_DEPTH];
};

/*
 * A sample's payloads, bottom frame first, sent through the payload_rb ring
 * buffer (depth of them) when a frame of its stack has a non-zero payload:
 * stacks are identified by their features, instances and kinds only, so that
 * a payload that changes at every call (an input offset) does not make every
 * sample a new stack; userspace keeps these records, within a bound.
 */
struct fsp_payload_rec {
	__u32 tgid;
	__u32 tid;
	__u64 hash; /* the stack's */
	__u64 depth;
	__u64 payload[FSP_MAX_DEPTH];
};

#define FSP_PAYLOAD_RB_SIZE (1024 * 1024)

/*
 * record --calls (the slow-call view): each sample's call numbers, one per
 * frame of its stored stack, bottom first (0: not known, a frame of a binary
 * built before call numbers or a charged frame), with the time it was taken,
 * through the calls_rb ring buffer. Userspace joins the samples to their calls
 * (userspace/session/calls.c): a call is (thread, frame's call number).
 */
struct fsp_call_rec {
	__u32 tgid;
	__u32 tid;
	__u64 hash; /* the stack's, as counted */
	__u64 time_ns; /* bpf_ktime_get_ns() */
	__u64 depth;
	__u64 call[FSP_MAX_DEPTH];
};

/*
 * With --events, a call that lasted at least calls_exact_ns (rodata) sends a
 * record of the same layout with hash 0 (never a sample's: a sample without
 * live frames sends none) and depth FSP_CALL_EXACT_DEPTH: time_ns its leave,
 * call[0] its call number, call[1] its duration (ns, minus the time under its
 * feature's antimarks, as the event view's).
 */
#define FSP_CALL_EXACT_DEPTH 2

/*
 * With --off-cpu, a thread leaving the CPU with live frames sends a record of
 * the same layout whose depth is n | FSP_CALL_OFFCPU_OUT: call[0, n) the call
 * numbers as a sample's, call[n] the interval's key (its switch-out on the
 * scheduler's clock), time_ns the switch-out (bpf_ktime_get_ns()); the end of
 * the interval sends depth FSP_CALL_OFFCPU_END, hash the same, time_ns the
 * key, call[0] the off-CPU time (ns). Userspace pairs them by (thread, key)
 * and charges the time to the calls open at the switch-out.
 */
#define FSP_CALL_OFFCPU_OUT (1ULL << 32)
#define FSP_CALL_OFFCPU_END (2ULL << 32)
#define FSP_CALL_KIND(depth) ((depth) >> 32)

#define FSP_CALLS_RB_SIZE (1024 * 1024)
#define FSP_CALL_REC_HEAD 32 /* offsetof(struct fsp_call_rec, call) */

/* Key of the counts map: samples of one thread with one mark stack. */
struct fsp_count_key {
	__u32 tgid;
	__u32 tid;
	__u64 hash; /* 0: the thread had no live frame */
};

struct fsp_count {
	__u64 samples;
	__u64 payload_samples; /* of which with a payload: sent to payload_rb */
	__u64 offcpu_ns; /* time switched out with this stack (--off-cpu) */
	__u64 seen; /* when comm was last refreshed (jiffies): orders the names */
	char comm[FSP_COMM_LEN]; /* the thread's name at its latest sample */
	/* Its process's name (the main thread's comm) then, for a thread other
	 * than the main one: a process is named by it even when its main thread
	 * takes no sample (a pool's main thread waiting in pthread_join). */
	char pcomm[FSP_COMM_LEN];
};

/*
 * The event view: exact enter/leave counts and durations per mark instance.
 * mark_ids maps each (process, feature address, instance address) to a slot
 * of mark_stats, a per-CPU array that userspace sums over the CPUs.
 */
#define FSP_HIST_BUCKETS 40 /* log2 buckets, as analysis/model/profile.h PROFILE_HIST_BUCKETS */

struct fsp_mark_key {
	__u64 tgid;
	__u64 feature; /* address of the feature label in the target */
	__u64 instance; /* address of the instance label, 0 for NULL */
};

struct fsp_mark_stats {
	__u64 enters; /* marks entered (also beyond max_depth) */
	__u64 leaves; /* marks left through their own frame: the durations below */
	__u64 total_ns; /* sum of leave - enter - time under the feature's antimarks */
	__u64 max_ns;
	__u64 hist[FSP_HIST_BUCKETS]; /* bucket 0: < 2 ns; i: [2^i, 2^(i+1)); last: longer */
};

/* Key of the labels map: one label address in one process. */
struct fsp_label_key {
	__u64 tgid;
	__u64 addr;
};

struct fsp_label {
	__u64 hash; /* FNV-1a of the string; identifies the feature by name */
	__u64 len; /* bytes copied without NUL; 0 if it could not be read (FSP_LABEL_*) */
	char str[FSP_LABEL_LEN];
};
/* In fsp_label.len, with the bytes copied: the string was longer than the
 * FSP_LABEL_LEN - 1 bytes kept. */
#define FSP_LABEL_CUT (1ULL << 61)

/* len of a label userspace could read neither from the process nor from the
 * file mapped there while the process lived: a label error, whatever the
 * address holds later. */
#define FSP_LABEL_UNREADABLE (1ULL << 63)
/* len of a label read as the empty string (0 is a label not read yet): read,
 * so never read again from a file at the end. */
#define FSP_LABEL_EMPTY (1ULL << 62)
/* len of a label the BPF side could not read (its page not in the process
 * yet): not read yet, and str holds a struct fsp_label_file, where it is in
 * the file mapped there, for userspace to read it from that file even after
 * the process is gone. */
#define FSP_LABEL_IN_FILE (1ULL << 60)
struct fsp_label_file {
	__u64 dev; /* the kernel's encoding: major << 20 | minor */
	__u64 ino;
	__u64 offset; /* of the label in the file */
};

/*
 * How to read one USDT argument, from the note's "SIZE@OPERAND" (x86-64):
 * a constant ($42), a register (%rdi) or memory at register + offset
 * (-20(%rbp)). reg_off is the register's offset in struct pt_regs.
 */
enum fsp_arg_type {
	FSP_ARG_CONST = 0,
	FSP_ARG_REG = 1,
	FSP_ARG_REG_DEREF = 2,
};

#define FSP_USDT_MAX_ARGS 12

struct fsp_usdt_arg {
	__u64 type; /* enum fsp_arg_type */
	__u64 val_off; /* constant value, or offset added to the register */
	__u64 reg_off; /* offset of the register in struct pt_regs */
	__u64 size; /* bytes: 1, 2, 4 or 8 */
	__u64 is_signed;
};

/* One distinct argument layout; each probe site's BPF cookie is its index. */
struct fsp_usdt_spec {
	struct fsp_usdt_arg args[FSP_USDT_MAX_ARGS];
	__u64 nr_args;
};

/*
 * Identifiers of mapped features and instances (--map): values a user-space
 * address never has (bit 63 set), in the frames' feature/instance fields.
 *   feature:  FSP_ID_SYNTH | FSP_ID_FEATURE | n  (n: the session's feature number)
 *   instance: FSP_ID_SYNTH | (hash of the label & FSP_ID_HASH_MASK), the label
 *             kept in the labels map under tgid 0 (interned across processes)
 */
#define FSP_ID_SYNTH (1ULL << 63)
#define FSP_ID_FEATURE (1ULL << 62)
#define FSP_ID_HASH_MASK ((1ULL << 62) - 1)
/*
 * The instance of a frame whose label is read when a sample is taken ("label
 * sample", bpf/samplelabel.bpf.h): FSP_ID_SAMPLED | the address of the
 * variable (a `char *`) in the process. Both high bits: no feature id (an
 * instance field) and no label id (hashes leave bit 62 clear) has them. The
 * sampler replaces it in the stack it counts by the label id of the string
 * the variable points to then; it is never stored.
 */
#define FSP_ID_SAMPLED (FSP_ID_SYNTH | FSP_ID_FEATURE)
#define FSP_ID_ADDR_MASK ((1ULL << 57) - 1) /* user addresses (5-level paging included) */

/*
 * A function feature's instance read at sample time ("instance
 * {global:S}", docs/function-features.md): the variables of a process, which
 * the sampler appends to each of its samples' stacks as frames (feature,
 * FSP_ID_SAMPLED | address) before reading them (samplelabel.bpf.h). Written
 * by userspace as it scans the process's files (session/samplevars.c).
 */
#define FSP_MAX_SAMPLE_VARS 4 /* variables of one process */
#define FSP_SAMPLE_VAR_PROCS 4096 /* processes with variables at once */

struct fsp_sample_var {
	__u64 feature; /* FSP_ID_SYNTH | FSP_ID_FEATURE | n: the hidden feature "{global:S}" */
	__u64 addr; /* the variable's address, or (tls) its offset from the thread pointer */
	__u64 tls; /* a thread-local variable of the executable */
};

struct fsp_sample_vars {
	__u64 nr;
	struct fsp_sample_var v[FSP_MAX_SAMPLE_VARS];
};

#define FSP_MAP_MAX_PARTS 6 /* as analysis/probemap/probemap.h PROBEMAP_MAX_PARTS */
#define FSP_MAP_LIT_LEN 32 /* a literal part holds at most 31 bytes (PROBEMAP_LIT_LEN) */
#define FSP_MAP_MAX_DEREF 2 /* PROBEMAP_MAX_DEREF */
#define FSP_MAP_MAX_CONDS 4 /* PROBEMAP_MAX_WHEN */
#define FSP_MAP_NUL_TERMINATED (~0ULL) /* fsp_map_part.len_arg: the string ends at its NUL */
#define FSP_CHARGE_PAT_LEN 16 /* a thread-name pattern's bytes, '*' excluded */

enum fsp_part_type {
	FSP_PART_LIT = 1, /* literal bytes */
	FSP_PART_STR = 2, /* a string argument, copied when the probe fires */
	FSP_PART_INT = 3, /* an integer argument, in decimal */
	FSP_PART_GLOBAL = 4, /* the string a global (or thread-local) `char *` of the
			      * probed file points to */
};

struct fsp_map_part {
	__u64 type; /* enum fsp_part_type */
	__u64 arg; /* STR, INT: argument number */
	__u64 len; /* LIT: bytes of lit */
	__u64 addr; /* GLOBAL: link-time address of the variable, or (tls) its offset
		     * from the thread pointer (two's complement) */
	__u64 tls; /* GLOBAL: a thread-local variable of the executable */
	/* STR, INT: the value is replaced nr_deref times by the 8-byte word at
	 * value + deref[i] (a pointer followed) */
	__u64 nr_deref;
	__u64 deref[FSP_MAP_MAX_DEREF];
	/* STR: the argument holding its length in bytes, or FSP_MAP_NUL_TERMINATED */
	__u64 len_arg;
	char lit[FSP_MAP_LIT_LEN];
};

enum fsp_map_flags {
	FSP_MAP_OUTER = 1, /* instance: that of the innermost live frame of `outer` */
	FSP_MAP_MATCH_INSTANCE = 2, /* leave: close the frame with the same instance */
	FSP_MAP_PAYLOAD = 4, /* payload: argument payload_arg */
	FSP_MAP_UNFRAMED = 8, /* "frame none": the frame is bound to no stack frame */
	FSP_MAP_POINT = 16, /* "event": count the instance, push nothing */
	FSP_MAP_CHARGE = 32, /* "charge threads": charge other threads' samples */
	FSP_MAP_SAMPLE = 64, /* "label sample": the instance (parts[0], a GLOBAL) is read
			      * when a sample is taken; the enter's names the event view's */
};

/* "when": a condition on an enter; an enter that fails one is muted. */
enum fsp_cond_type {
	FSP_COND_INT = 1, /* part (an INT) compared with value */
	FSP_COND_LABEL = 2, /* the label of part (STR or GLOBAL) == or != the label id value */
	FSP_COND_OUTER = 3, /* the instance of the innermost live mark of feature `outer` */
};

enum fsp_cond_op {
	FSP_COND_EQ = 1,
	FSP_COND_NE = 2,
	FSP_COND_LT = 3,
	FSP_COND_LE = 4,
	FSP_COND_GT = 5,
	FSP_COND_GE = 6,
};

struct fsp_map_cond {
	__u64 type; /* enum fsp_cond_type */
	__u64 op; /* enum fsp_cond_op */
	__u64 is_signed; /* INT: compare as signed (the argument's note, or a read word: no) */
	__u64 value; /* INT: the integer; LABEL, OUTER: a label id (FSP_ID_SYNTH | hash) */
	__u64 outer; /* OUTER: the feature id */
	struct fsp_map_part part; /* INT, LABEL: the operand */
};

/* What a mapped probe site does; its cookie indexes the map_sites map. */
struct fsp_map_site {
	struct fsp_usdt_spec spec;
	__u64 feature; /* FSP_ID_SYNTH | FSP_ID_FEATURE | n */
	__u64 kind; /* enum fsp_frame_kind */
	__u64 flags; /* enum fsp_map_flags */
	__u64 outer; /* FSP_MAP_OUTER: feature id */
	__u64 payload_arg;
	__u64 site_vaddr; /* GLOBAL parts: link-time address of the site (load bias) */
	/* Added to the stack pointer at the site to get the mark's frame: 0, or
	 * for "frame caller" the CFA offset (the caller's stack pointer). */
	__u64 sp_off;
	__u64 nr_parts; /* instance template; 0: no instance */
	struct fsp_map_part parts[FSP_MAP_MAX_PARTS];
	/* enter: the conditions, all of which must hold (else the enter is muted) */
	__u64 nr_conds;
	struct fsp_map_cond conds[FSP_MAP_MAX_CONDS];
	/* FSP_MAP_CHARGE: the names of the threads charged: the first
	 * charge_len bytes of charge_pat, and (charge_prefix 0) nothing more */
	__u64 charge_len;
	__u64 charge_prefix;
	char charge_pat[FSP_CHARGE_PAT_LEN];
};

/*
 * Native stacks (record --stacks, bpf/native.bpf.h): one record per on-CPU
 * sample of a target through the native_rb ring buffer, unwound by userspace
 * (userspace/stacks/) while the process's mappings are still there: the user
 * registers (DWARF numbering), the frame-pointer user stack, optionally the
 * kernel stack, and a copy of the top of the user stack from sp (stack_size
 * bytes reserved after the header, stack_len of them copied).
 */
#define FSP_NATIVE_NREGS 17 /* x86-64 DWARF registers 0-16: rax .. r15, rip */
#define FSP_NATIVE_USER_FRAMES 127 /* kernel.perf_event_max_stack's default */
#define FSP_NATIVE_KERNEL_FRAMES 64
#define FSP_NATIVE_MIN_STACK 512 /* --stack-size bounds, bytes (multiples of 8) */
#define FSP_NATIVE_MAX_STACK 65528
#define FSP_NATIVE_DEFAULT_STACK 8192
#define FSP_NATIVE_DEFAULT_RB (8 * 1024 * 1024)

enum fsp_native_flags {
	FSP_NATIVE_KERNEL = 1, /* kernel stacks were asked for (kernel_len is valid) */
	FSP_NATIVE_USER = 2, /* user stacks were asked for */
	FSP_NATIVE_REDZONE = 4, /* redzone holds the 128 bytes below sp */
	FSP_NATIVE_EXEC = 8, /* taken in execve(): no user part (the program is changing) */
};

/* x86-64's red zone: a leaf function's data below sp; also where an epilogue's
 * popped registers still are, which the CFI of its last instructions points to. */
#define FSP_NATIVE_REDZONE_LEN 128

/*
 * The stack pointers the frames of a sample's mark stack (as stored, bottom
 * first: the ABI v1 stack's shadow frames left out) were entered at: ABI v1
 * frames' sp, ABI v2 frames' sp_kind & ~7. Sent with native stacks, so that
 * userspace places each mark among the native frames (function features,
 * docs/function-features.md). n 0: no mark, or none known; frames above n
 * (marks of other threads, "charge threads") have none.
 */
struct fsp_mark_sps {
	__u32 n;
	__u32 pad;
	__u64 sp[FSP_MAX_DEPTH];
};

struct fsp_native_rec {
	__u32 tgid;
	__u32 tid;
	__u64 key; /* the core sample's mark stack key (counts map), 0: none */
	__u32 flags; /* enum fsp_native_flags */
	__u32 user_len; /* bytes of ustack filled by bpf_get_stack (< 0: 0) */
	__u32 kernel_len; /* bytes of kstack filled */
	__u32 stack_len; /* bytes of stack[] copied from regs[7] (sp) up */
	__u64 exec_id; /* the task's self_exec_id: which image of tgid ran */
	__u64 time_ns; /* record --calls: the time of the sample's call record, its join key; 0: none */
	__u64 regs[FSP_NATIVE_NREGS]; /* the thread's user registers */
	__u8 redzone[FSP_NATIVE_REDZONE_LEN]; /* [sp - 128, sp) */
	struct fsp_mark_sps marks; /* where the mark stack's frames were entered */
	__u64 ustack[FSP_NATIVE_USER_FRAMES]; /* frame-pointer walk, leaf first */
	__u64 kstack[FSP_NATIVE_KERNEL_FRAMES];
	__u8 stack[]; /* stack_size bytes reserved */
};

/*
 * Probe ABI v2 (usdt/fsp_abi_v2.h): each executable or library of a process that
 * includes the header has a record (struct fsp_v2_record there) and a TLS
 * pointer to each thread's mark stack, at the thread pointer (fsbase) plus
 * tp_offset. A process's records are registered in the v2_procs map by the
 * fsp:v2 probe (a constructor announcing its record) or by userspace reading
 * the record of a running process. The sampler reads every registered stack of
 * the thread it interrupts and merges them, and the process's ABI v1 marks, by
 * stack pointer.
 */
#define FSP_V2_MAX_DSOS 8 /* records of one process the sampler reads */
#define FSP_V2_DEPTH 64 /* frames of one stack, as usdt/fsp_abi_v2.h FSP_V2_DEPTH */
#define FSP_V2_HEADER 64 /* bytes before the frames, as offsetof(struct fsp_v2_stack, f) */
#define FSP_V2_FRAME 40 /* bytes of a frame, sizeof(struct fsp_v2_frame), with its call number */
#define FSP_V2_FRAME_OLD 32 /* of a frame of headers before call numbers: none known */
#define FSP_V2_FRAME_SIZE_OFF 38 /* offsetof(struct fsp_v2_record, frame_size) */
#define FSP_V2_STACK_MAGIC 0x53505346u /* "FSPS" */
#define FSP_V2_RECORD_MAGIC 0x32505346u /* "FSP2" */
#define FSP_V2_GEN_OFF 12 /* offsetof(struct fsp_v2_record, gen) */

struct fsp_v2_dso {
	__u64 record; /* address of the DSO's record in the process */
	__s64 tp_offset; /* of its TLS pointer, from the thread pointer */
	__u32 gen; /* the record's gen when registered: stacks of another gen are stale */
	__u32 frame_size; /* FSP_V2_FRAME, or FSP_V2_FRAME_OLD (frames without call numbers) */
};

/* Value of v2_procs, key: tgid. */
struct fsp_v2_proc {
	__u32 nr;
	__u32 pad;
	struct fsp_v2_dso dso[FSP_V2_MAX_DSOS];
};

/* The counters in an ABI v2 stack's header, as the sampler last saw them
 * (v2_counts: key {tgid, stack address}); userspace sums them. */
struct fsp_v2_key {
	__u64 tgid;
	__u64 addr;
};

struct fsp_v2_counters {
	__u64 stale;
	__u64 overflows;
	__u64 unmatched;
	__u64 skipped;
};

/*
 * A probe site's BPF cookie: the index of its argument layout, with this bit
 * set on the ABI v1 sites of an ABI v2 file (attached only for exact counts,
 * --events). Their frames are "shadows" of the v2 stack's: kept for the event
 * view's durations, never sampled.
 */
#define FSP_COOKIE_SHADOW (1U << 31)
/* With --events=FEATURE,...: bits 32..63 of a shadow site's cookie number it
 * (its own link), so that a site that marks another feature can go. */
#define FSP_COOKIE_SITE_SHIFT 32

/*
 * The targets map (key: tgid): whether a process's probes and samples count,
 * and which process that is. Value: the process's start time in clock ticks
 * since boot (starttime of /proc/PID/stat) shifted left by one, with
 * FSP_TARGET_IN set for a process profiled, clear for one left out (--comm).
 * A PID is reused, never with the same start time: an entry whose start is
 * not the process's was written for another (userspace admitting a process
 * that had just exited; under churn, the next process with that PID was
 * then profiled by the kernel side without userspace knowing, and its
 * records were never retired), and counts as no entry.
 */
#define FSP_TARGET_IN 1ULL
#define FSP_NS_PER_TICK 10000000ULL /* a clock tick of /proc's start times (USER_HZ 100) */

enum fsp_event_type {
	FSP_EVENT_FORK = 1, /* a target forked: pid is the child, ppid the parent; addr 1:
			     * the child is stopped until its probes are attached */
	FSP_EVENT_EXEC = 2, /* a target exec'd a new program */
	FSP_EVENT_DLOPEN = 3, /* a target's link map changed (ld.so's _dl_debug_state) */
	FSP_EVENT_EXIT = 4, /* a target's last thread exited */
	FSP_EVENT_NEW_PROC = 5, /* system-wide: a probe fired in a process not yet known */
	FSP_EVENT_LABEL = 6, /* a label at addr could not be read (not paged in) */
	FSP_EVENT_SKIP_SITE = 7, /* --events=FEATURE,...: shadow site addr fired for another */
};

struct fsp_event {
	__u32 type;
	__u32 pid;
	__u32 ppid;
	__u32 pad;
	__u64 addr; /* FSP_EVENT_LABEL: the label's address in pid;
		       FSP_EVENT_EXEC: the new image's self_exec_id */
};

/*
 * --events for function features (bpf/funcev.bpf.h, docs/function-features.md):
 * a uprobe at the entry and one at the return of each function of a function
 * feature. The BPF cookie: the feature's rule index (low 32 bits), and
 */
#define FSP_FUNC_ANTI (1ULL << 32) /* an antimark function of the rule */
#define FSP_FUNC_NO_INSTANCE (1ULL << 33) /* "instance none": 0, not the call site */
/* The event view's feature id of rule n: FSP_FUNC_ID | n (no label has it);
 * its instance is the call's return address, or 0. */
#define FSP_FUNC_ID (FSP_ID_SYNTH | FSP_ID_FEATURE | (1ULL << 61))
#define FSP_FUNC_MAX_OPEN 16 /* open calls a thread's record holds (power of 2) */

#endif /* FSP_PROFILER_H */
