/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Labels: the feature and instance strings of the target, copied once into
 * the labels map and hashed, so that features match by name.
 */
#ifndef FSP_LABELS_BPF_H
#define FSP_LABELS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "profiler.h"
#include "maps.bpf.h"
#include "util.bpf.h"

struct fnv_ctx {
	const char *str;
	__u64 hash;
};

static long fnv_cb(__u64 i, void *data)
{
	struct fnv_ctx *c = data;
	char ch;

	if (i >= FSP_LABEL_LEN)
		return 1;
	ch = c->str[slot_label(i)];
	if (!ch)
		return 1;
	c->hash = (c->hash ^ (__u8)ch) * 0x100000001b3ULL;
	return 0;
}

struct label_vma_ctx {
	__u64 addr;
	struct fsp_label_file f;
};

static long label_vma_cb(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	struct label_vma_ctx *c = data;
	struct file *file = vma->vm_file;

	(void)task;
	if (!file)
		return 0;
	c->f.dev = file->f_inode->i_sb->s_dev;
	c->f.ino = file->f_inode->i_ino;
	c->f.offset = c->addr - vma->vm_start + (vma->vm_pgoff << 12);
	return 0;
}

/* Where the label at addr is in the file mapped there (no ino: anonymous
 * memory, or no mapping). */
static __always_inline void label_where(struct fsp_label *l, __u64 addr)
{
	struct label_vma_ctx c = {.addr = addr};

	bpf_find_vma(bpf_get_current_task_btf(), addr, label_vma_cb, &c, 0);
	if (!c.f.ino)
		return;
	__builtin_memcpy(l->str, &c.f, sizeof(c.f));
	l->len = FSP_LABEL_IN_FILE;
}

/*
 * The label at addr in the current process: copied once on first sight (the
 * ABI promises static storage), so that userspace can name it even after the
 * target exited or unloaded the library. Returns the hash of the string, used
 * to match features by name when two call sites pass different pointers to
 * equal strings (a label not paged in at first sight is matched by address
 * on this thread; userspace stores its hash for the next threads). user is
 * the caller's scratch buffer.
 */
static __u64 label_hash(__u32 tgid, __u64 addr, __u32 user)
{
	struct fsp_label_key key = {.tgid = tgid, .addr = addr};
	struct fnv_ctx fc = {.hash = 0xcbf29ce484222325ULL};
	struct fsp_label *l;
	long len;
	char ch;

	if (addr & FSP_ID_SYNTH)
		return mix64(addr); /* a mapped probe's: no string in the target */
	l = bpf_map_lookup_elem(&labels, &key);
	if (l)
		return l->hash;
	l = scratch_get(user);
	if (!l)
		return mix64(addr);
	len = bpf_probe_read_user_str(l->str, sizeof(l->str), (const void *)addr);
	if (len <= 0) {
		/* Not paged in (the target only passed its address): userspace
		 * reads it from /proc/PID/mem, which can fault it in, when it
		 * hears of it right below; failing that (the process gone by
		 * then), from the file mapped there, as said here. */
		l->len = 0;
		l->str[0] = 0;
		l->hash = mix64(addr);
		label_where(l, addr);
	} else {
		fc.str = l->str;
		bpf_loop(len, fnv_cb, &fc, 0);
		l->len = len > 1 ? len - 1 : FSP_LABEL_EMPTY;
		l->hash = fc.hash;
		/* It filled the copy: is there more? */
		if (len == sizeof(l->str) &&
		    !bpf_probe_read_user(&ch, 1, (const void *)(addr + len - 1)) && ch)
			l->len |= FSP_LABEL_CUT;
	}
	if (bpf_map_update_elem(&labels, &key, l, BPF_NOEXIST)) {
		if (!bpf_map_lookup_elem(&labels, &key))
			stat_inc(FSP_STAT_LABEL_ERRORS);
	} else if (len <= 0) {
		emit_addr(FSP_EVENT_LABEL, tgid, 0, addr);
	}
	return l->hash;
}

/* label_hash() through the thread's cache (the process id is needed, and
 * fetched, on a miss only). */
static __always_inline __u64 label_hash_cached(struct tstack *st, __u64 addr)
{
	struct lcache_entry *e = &st->lcache[(addr >> 3) & (LCACHE_SIZE - 1)];

	if (e->addr == addr && addr)
		return e->hash;
	e->hash = label_hash(bpf_get_current_pid_tgid() >> 32, addr, SCRATCH_PROBE);
	e->addr = addr;
	return e->hash;
}

/*
 * The id of the label b holds (its first off bytes): a hash of its bytes, so
 * that equal texts are one instance wherever they came from, FSP_ID_SYNTH |
 * hash; with store, a new label is copied to the labels map under tgid 0
 * (interned: shared by all processes; a full map is counted as a label
 * drop). Userspace computes the same id (probemap_sites__label_id). Used for
 * mapped probes' templates (mapped.bpf.h) and labels read at sample time
 * (samplelabel.bpf.h).
 */
static __noinline __u64 label_intern(struct label_buf *b, __u64 off, bool store)
{
	struct fsp_label_key key = {};
	__u64 h = 0xcbf29ce484222325ULL;
	__u32 i;

	if (!b)
		return 0;
	if (off > FSP_LABEL_LEN - 1)
		off = FSP_LABEL_LEN - 1;
	/* Zero the bytes after the label up to the next word: the hash reads words. */
	*(__u64 *)(b->l.str + slot_label(off)) = 0;
#pragma unroll
	for (i = 0; i < FSP_LABEL_LEN / 8; i++) {
		if (i * 8 >= off)
			break;
		h = mix64(h ^ *(__u64 *)(b->l.str + i * 8));
	}
	key.addr = FSP_ID_SYNTH | (mix64(h ^ off) & FSP_ID_HASH_MASK);
	if (!store || bpf_map_lookup_elem(&labels, &key))
		return key.addr;
	/* As long as a label may be: parts were cut (or it is exactly that long). */
	b->l.len = off | (off >= FSP_LABEL_LEN - 1 ? FSP_LABEL_CUT : 0);
	b->l.hash = key.addr;
	if (bpf_map_update_elem(&labels, &key, &b->l, BPF_NOEXIST) &&
	    !bpf_map_lookup_elem(&labels, &key))
		stat_inc(FSP_STAT_LABEL_DROPS);
	return key.addr;
}

#endif /* FSP_LABELS_BPF_H */
