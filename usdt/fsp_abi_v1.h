/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * fsp_abi_v1.h: probe ABI v1, a USDT probe per mark (-DFSP_ABI_V1, and
 * architectures other than x86-64).
 * Part of fsp.h, which includes it: include fsp.h, never this file.
 */
#ifndef FSP_ABI_V1_H
#define FSP_ABI_V1_H

#ifndef FSP_H
#error "include fsp.h, not fsp_abi_v1.h"
#endif

/* ---- ABI v1: a USDT probe per mark ------------------------------------------------ */

/*
 * One semaphore per probe and per executable or shared object: weak so every
 * translation unit may define it, hidden so each DSO keeps its own (the kernel
 * raises the copy in the file the probe was found in), in ".probes" where USDT
 * tools expect semaphores, and used so LTO keeps it (the notes refer to it from
 * assembly only).
 *
 * Named apart from ABI v2's: <sys/sdt.h> names a probe's semaphore
 * fsp_NAME_semaphore, which fsp_abi_v2.h defines as labels in its record
 * (its ABI v1 probes, for exact counts). These macros rename ABI v1's (the
 * notes, the definitions and the tests all go through them), so that a DSO
 * whose translation units use both ABIs keeps each ABI's semaphores apart
 * whichever unit the linker sees first; fsp-bpf tells a unit's ABI by the
 * semaphore its notes name.
 */
#define fsp_mark_enter_semaphore fsp_v1_mark_enter_semaphore
#define fsp_mark_leave_semaphore fsp_v1_mark_leave_semaphore
#define fsp_antimark_enter_semaphore fsp_v1_antimark_enter_semaphore
#define fsp_antimark_leave_semaphore fsp_v1_antimark_leave_semaphore
#ifdef __cplusplus
extern "C" {
#endif
#define FSP__SEMAPHORE(name)                                                                       \
	__extension__ unsigned short fsp_##name##_semaphore                                        \
		__attribute__((weak, visibility("hidden"), section(".probes"), used))
FSP__SEMAPHORE(mark_enter);
FSP__SEMAPHORE(mark_leave);
FSP__SEMAPHORE(antimark_enter);
FSP__SEMAPHORE(antimark_leave);
#undef FSP__SEMAPHORE
#ifdef __cplusplus
}
#endif

/*
 * Is probe NAME attached? A volatile load, so that a loop that never calls out
 * still notices a profiler attaching to the running process.
 */
#define FSP__ON(name)                                                                              \
	__builtin_expect(*FSP__CAST(volatile unsigned short *, &fsp_##name##_semaphore) != 0, 0)

#define FSP_ENABLED() FSP__ON(mark_enter)

/* Fire probe NAME if attached; the arguments are evaluated only then. */
#define FSP__PROBE3(name, feature, instance, payload)                                              \
	do {                                                                                       \
		if (FSP__ON(name))                                                                 \
			FSP__FIRE3(name, feature, instance, payload);                              \
	} while (0)

#define FSP__PROBE1(name, feature)                                                                 \
	do {                                                                                       \
		if (FSP__ON(name))                                                                 \
			FSP__FIRE1(name, feature);                                                 \
	} while (0)

#define FSP_MARK_ENTER(feature, instance, payload)                                                 \
	FSP__PROBE3(mark_enter, feature, instance, payload)
#define FSP_MARK_LEAVE(feature, instance, payload)                                                 \
	FSP__PROBE3(mark_leave, feature, instance, payload)
#define FSP_ANTIMARK_ENTER(feature) FSP__PROBE1(antimark_enter, feature)
#define FSP_ANTIMARK_LEAVE(feature) FSP__PROBE1(antimark_leave, feature)

/* What the scoped marks build on: is an enter attached, and the enter itself. */
#define FSP__ON_MARK() FSP__ON(mark_enter)
#define FSP__ON_ANTIMARK() FSP__ON(antimark_enter)
#define FSP__DO_MARK_ENTER(feature, instance, payload)                                             \
	FSP__FIRE3(mark_enter, feature, instance, payload)
#define FSP__DO_ANTIMARK_ENTER(feature) FSP__FIRE1(antimark_enter, feature)

#endif /* FSP_ABI_V1_H */
