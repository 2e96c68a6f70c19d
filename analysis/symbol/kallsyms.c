// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Kernel addresses by /proc/kallsyms: the text symbols (t, T; the kernel's
 * and loaded modules'), sorted, and the closest one at or below an address
 * (of several at one address: the first global one listed).
 * Kernel locations carry absolute addresses, so no module arithmetic. When
 * kptr_restrict hides the addresses (all 0 to an unprivileged reader) the
 * table is unusable and loading fails with EPERM. The running kernel's
 * build-id (/sys/kernel/notes) tells whether kallsyms belongs to the kernel
 * a profile was recorded on.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbol_int.h"
#include "symbolize.h"
#include "util.h"

/* An address this far past the last symbol is not in it. */
#define KSYM_LAST_MAX 0x100000

struct ksym {
	uint64_t addr;
	size_t name; /* offset in names */
	uint32_t global; /* T: preferred to t at one address */
	uint32_t seq; /* line number: the first named at one address wins */
};

struct kallsyms {
	struct ksym *syms;
	size_t nr, cap;
	char *names;
	size_t names_len, names_cap;
};

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	/* at one address the preferred symbol sorts last, where lookups look */
	if (x->addr != y->addr)
		return fsp_cmp_u64(x->addr, y->addr);
	if (x->global != y->global)
		return x->global < y->global ? -1 : 1;
	return fsp_cmp_u64(y->seq, x->seq);
}

static int add_sym(struct kallsyms *k, uint64_t addr, int global, const char *name)
{
	size_t len = strlen(name) + 1;

	if (fsp_grow((void **)&k->syms, &k->cap, k->nr + 1, sizeof(*k->syms)) ||
	    fsp_grow((void **)&k->names, &k->names_cap, k->names_len + len, 1))
		return -ENOMEM;
	memcpy(k->names + k->names_len, name, len);
	k->syms[k->nr] = (struct ksym){addr, k->names_len, global, (uint32_t)k->nr};
	k->nr++;
	k->names_len += len;
	return 0;
}

/* One line: "ffffffff81000000 T _stext" or "... t name\t[module]". */
static int parse_line(struct kallsyms *k, char *line, int *nonzero)
{
	unsigned long long addr;
	char type, name[256];

	if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
		return 0;
	if (type != 't' && type != 'T')
		return 0;
	if (addr)
		*nonzero = 1;
	return add_sym(k, addr, type == 'T', name);
}

struct kallsyms *kallsyms__load(const char *path)
{
	struct kallsyms *k = calloc(1, sizeof(*k));
	FILE *f = fopen(path, "re");
	char line[512];
	int nonzero = 0, err = 0;

	if (!k || !f) {
		err = k ? -errno : -ENOMEM;
		goto cleanup;
	}
	while (!err && fgets(line, sizeof(line), f))
		err = parse_line(k, line, &nonzero);
	if (!err && (!nonzero || !k->nr))
		err = -EPERM;
	if (!err)
		qsort(k->syms, k->nr, sizeof(*k->syms), ksym_cmp);
cleanup:
	if (f)
		fclose(f);
	if (err) {
		kallsyms__free(k);
		errno = -err;
		return NULL;
	}
	return k;
}

void kallsyms__free(struct kallsyms *k)
{
	if (!k)
		return;
	free(k->syms);
	free(k->names);
	free(k);
}

const char *kallsyms__lookup(const struct kallsyms *k, uint64_t addr)
{
	size_t lo = 0, hi = k->nr;

	/* the last symbol at or below addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || !k->syms[lo - 1].addr)
		return NULL;
	if (lo == k->nr && addr - k->syms[lo - 1].addr >= KSYM_LAST_MAX)
		return NULL;
	return k->names + k->syms[lo - 1].name;
}

/* The GNU build-id note among raw notes (4-byte aligned, as in /sys/kernel/notes). */
static int notes_build_id(const unsigned char *p, size_t len, char *buf, size_t size)
{
	size_t off = 0;

	while (len - off >= 12) {
		uint32_t namesz, descsz, type;
		size_t name_len, desc_len;

		memcpy(&namesz, p + off, 4);
		memcpy(&descsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		off += 12;
		name_len = ((size_t)namesz + 3) & ~(size_t)3;
		desc_len = ((size_t)descsz + 3) & ~(size_t)3;
		if (name_len > len - off || desc_len > len - off - name_len)
			break;
		if (type == 3 /* NT_GNU_BUILD_ID */ && namesz == 4 && !memcmp(p + off, "GNU", 4) &&
		    descsz > 0 && descsz <= 64) {
			if (size < 2 * (size_t)descsz + 1)
				return -ENOSPC;
			for (uint32_t i = 0; i < descsz; i++)
				snprintf(buf + 2 * i, 3, "%02x", p[off + name_len + i]);
			return 0;
		}
		off += name_len + desc_len;
	}
	return -ENOENT;
}

int kallsyms__notes_build_id(const char *notes_path, char *buf, size_t size)
{
	unsigned char notes[4096];
	ssize_t n;
	int fd;

	fd = open(notes_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, notes, sizeof(notes));
	close(fd);
	if (n < 0)
		return -EIO;
	return notes_build_id(notes, (size_t)n, buf, size);
}

int kernel__build_id(char *buf, size_t size)
{
	if (!buf)
		return -EINVAL;
	return kallsyms__notes_build_id("/sys/kernel/notes", buf, size);
}
