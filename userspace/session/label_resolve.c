// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Labels: the strings of label addresses (label_resolve.h), and the copy of
 * a label a probe could not read (label__read_now). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "label_resolve.h"
#include "probemap_sites.h"
#include "procmaps.h"
#include "utf8.h"
#include "util.h"
#include "session_int.h"

/* The string at addr in process tgid, from /proc/PID/mem (which faults the
 * page in), cut to size - 1 bytes. 0 or -1. */
static int read_mem_string(__u32 tgid, __u64 addr, char *buf, size_t size)
{
	char mem[64];
	ssize_t n;
	int fd;

	snprintf(mem, sizeof(mem), "/proc/%u/mem", tgid);
	fd = open(mem, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = pread(fd, buf, size - 1, (off_t)addr);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return memchr(buf, 0, n) || n == (ssize_t)size - 1 ? 0 : -1;
}

/* A label is at most FSP_LABEL_LEN - 1 bytes. A longer one is cut there,
 * after its last whole UTF-8 character, and ends with this mark. */
#define LABEL_CUT_MARK "\xe2\x80\xa6" /* U+2026 HORIZONTAL ELLIPSIS */

/* Cuts the string in raw to a label's length; true if it was longer. */
static bool label_cut(char *raw)
{
	size_t n = strlen(raw);

	if (n < FSP_LABEL_LEN)
		return false;
	raw[FSP_LABEL_LEN - 1] = 0;
	return true;
}

/* The label str (len bytes, FSP_LABEL_CUT in len if it was cut) into buf of
 * size bytes (at least FSP_LABEL_LEN + sizeof(LABEL_CUT_MARK)). */
static const char *label_out(char *buf, size_t size, const char *str, uint64_t len)
{
	size_t n = len & ~FSP_LABEL_CUT, lead;

	snprintf(buf, size, "%.*s", (int)n, str);
	if (!(len & FSP_LABEL_CUT))
		return buf;
	n = strlen(buf);
	/* A character the cut split goes whole. */
	for (lead = n; lead > 0 && n - lead < 4 && ((unsigned char)buf[lead - 1] & 0xc0) == 0x80;)
		lead--;
	if (lead > 0 && (unsigned char)buf[lead - 1] >= 0xc0 &&
	    !utf8__seq((const unsigned char *)buf + lead - 1, n - lead + 1))
		n = lead - 1;
	snprintf(buf + n, size - n, "%s", LABEL_CUT_MARK);
	return buf;
}

/*
 * The string at addr of live process tgid from the file mapped there now
 * (its /proc/PID/maps read again, the mapped object itself read:
 * procmaps__open): a label must come from the mapping that holds its address
 * at the time, not from a file mapped there before. 0, -ESRCH if the process
 * is gone, or another -errno (no file mapped there, no string in it).
 */
static int read_file_string(__u32 tgid, __u64 addr, char *buf, size_t size)
{
	struct mapping *m;
	size_t n;
	int err;

	err = procmaps__read(tgid, &m, &n);
	if (!err && !n)
		err = -ESRCH; /* a zombie: no mappings left */
	if (err)
		return err == -ESRCH || err == -ENOENT ? -ESRCH : err;
	err = procmaps__read_string(tgid, m, n, addr, buf, size);
	procmaps__free(m, n);
	return err < 0 ? err : 0;
}

/* Files with probes kept open for their labels (label__keep_file): a few
 * descriptors, not one per process. */
#define LABEL_FILES_MAX 64

void label__keep_file(struct session *s, int fd, dev_t dev, ino_t ino)
{
	int dup;

	for (size_t i = 0; i < s->nr_label_files; i++)
		if (s->label_files[i].dev == dev && s->label_files[i].ino == ino)
			return;
	if (s->nr_label_files >= LABEL_FILES_MAX ||
	    fsp_grow((void **)&s->label_files, &s->cap_label_files, s->nr_label_files + 1,
		     sizeof(*s->label_files)))
		return;
	dup = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (dup >= 0)
		s->label_files[s->nr_label_files++] = (struct label_file){dev, ino, dup};
}

void label__files_free(struct session *s)
{
	for (size_t i = 0; i < s->nr_label_files; i++)
		close(s->label_files[i].fd);
	free(s->label_files);
	s->label_files = NULL;
	s->nr_label_files = s->cap_label_files = 0;
}

/* The label where the BPF side found it in the file mapped at its address
 * (FSP_LABEL_IN_FILE), from that file if fsp-bpf keeps it open. 0, -ERANGE
 * (no NUL: longer than a label, cut) or -ENOENT. */
static int read_label_file(const struct session *s, const struct fsp_label_file *lf, char *buf,
			   size_t size)
{
	dev_t dev = makedev(lf->dev >> 20, lf->dev & 0xfffff);
	ssize_t n;

	for (size_t i = 0; i < s->nr_label_files; i++) {
		if (s->label_files[i].dev != dev || s->label_files[i].ino != lf->ino)
			continue;
		n = pread(s->label_files[i].fd, buf, size - 1, (off_t)lf->offset);
		if (n <= 0)
			return -ENOENT;
		buf[n] = 0;
		return memchr(buf, 0, n) ? 0 : n == (ssize_t)size - 1 ? -ERANGE : -ENOENT;
	}
	return -ENOENT;
}

/*
 * A label the BPF side saw first but could not read (its page was not mapped
 * in): read it now, while the library holding it is surely mapped, and store
 * it as the BPF side would have. A label that neither the process's memory
 * nor the file mapped there gives while the process lives is marked
 * unreadable (FSP_LABEL_UNREADABLE): a label error at the end, whatever is
 * mapped there by then.
 * Once the process is gone, resolve_label tries its last mappings.
 */
void label__read_now(struct session *s, __u32 tgid, __u64 addr)
{
	struct fsp_label_key key = {.tgid = tgid, .addr = addr};
	int fd = bpf_map__fd(s->skel->maps.labels);
	struct fsp_label l = {0};
	char raw[FSP_LABEL_LEN + 1];
	bool cut, gone;
	int err = 0;

	if (read_mem_string(tgid, addr, raw, sizeof(raw)))
		err = read_file_string(tgid, addr, raw, sizeof(raw));
	gone = err == -ESRCH;
	if (err && err != -ERANGE) {
		/* Gone, or unreadable there: the file the BPF side found
		 * mapped there, if it said. */
		if (bpf_map_lookup_elem(fd, &key, &l))
			return;
		if (l.len == FSP_LABEL_IN_FILE)
			err = read_label_file(s, (const struct fsp_label_file *)l.str, raw,
					      sizeof(raw));
	}
	if (gone && err && err != -ERANGE)
		return; /* left for the end: its last mappings */
	if (err && err != -ERANGE) {
		/* the BPF side's entry (its hash) stays, marked unreadable */
		l.len = FSP_LABEL_UNREADABLE;
	} else {
		/* -ERANGE: no NUL in the bytes read, longer than a label */
		cut = label_cut(raw);
		memcpy(l.str, raw, strlen(raw) + 1);
		l.len = strlen(l.str);
		/* the BPF side's label hash (labels.bpf.h): FNV-1a of the string */
		l.hash = fsp_fnv1a(l.str, l.len, FSP_FNV_OFFSET);
		l.len = l.len ? l.len | (cut ? FSP_LABEL_CUT : 0) : FSP_LABEL_EMPTY;
	}
	bpf_map_update_elem(fd, &key, &l, BPF_ANY);
}

void label_cache__free(struct label_cache *c)
{
	free(c->pool);
	free(c->ents);
	hashmap__fini(&c->map);
	memset(c, 0, sizeof(*c));
}

static int label_batch(void *ctx, const void *keys, const void *vals, size_t n)
{
	struct label_cache *c = ctx;

	for (size_t i = 0; i < n; i++) {
		const struct fsp_label_key *k = (const struct fsp_label_key *)keys + i;
		const struct fsp_label *l = (const struct fsp_label *)vals + i;
		uint64_t bytes = l->len & ~(FSP_LABEL_CUT | FSP_LABEL_EMPTY | FSP_LABEL_UNREADABLE |
					    FSP_LABEL_IN_FILE);
		size_t len = bytes < FSP_LABEL_LEN ? bytes : FSP_LABEL_LEN;

		if (l->len == FSP_LABEL_IN_FILE)
			len = sizeof(struct fsp_label_file); /* where it is */

		if (!l->len)
			continue;
		if (fsp_grow((void **)&c->pool, &c->cap, c->len + len + 1, 1) ||
		    fsp_grow((void **)&c->ents, &c->cap_ents, c->nr + 1, sizeof(*c->ents)) ||
		    hashmap__find_or_insert(&c->map, k->tgid, k->addr, c->nr, NULL) < 0)
			return -ENOMEM;
		memcpy(c->pool + c->len, l->str, len);
		c->ents[c->nr++] = (struct label_ent){.len = l->len, .off = c->len};
		c->len += len;
	}
	return 0;
}

/* Best effort: without it, labels are looked up one by one. */
void label_cache__read(struct session *s, struct label_cache *c)
{
	memset(c, 0, sizeof(*c));
	if (map_batch__each(bpf_map__fd(s->skel->maps.labels), sizeof(struct fsp_label_key),
			    sizeof(struct fsp_label), label_batch, c))
		label_cache__free(c);
}

/* The labels map's entry (tgid, addr), from the cache or else the map (into
 * *l): its length word and its bytes; -ENOENT when there is none. */
static int label_get(struct session *s, const struct label_cache *c, __u32 tgid, __u64 addr,
		     struct fsp_label *l, uint64_t *len, const char **str)
{
	struct fsp_label_key key = {.tgid = tgid, .addr = addr};
	uint64_t i;

	if (c && hashmap__find(&c->map, tgid, addr, &i)) {
		*len = c->ents[i].len;
		*str = c->pool + c->ents[i].off;
		return 0;
	}
	if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.labels), &key, l))
		return -ENOENT;
	*len = l->len;
	*str = l->str;
	return 0;
}

/* A label from the labels map, else from the live process's memory, else
 * from the file mapped there now, else, for a process that is gone, from the
 * file its last scan saw there; else a placeholder and a label error. */
const char *label__resolve(struct session *s, const struct label_cache *c, __u32 tgid, __u64 addr,
			   char *buf, size_t size, uint64_t *errors)
{
	char raw[FSP_LABEL_LEN + 1];
	struct fsp_label_file where = {0};
	struct fsp_label l;
	const char *str;
	uint64_t len;
	int err;

	if (probemap_sites__is_feature_id(addr)) {
		uint64_t i = addr & ~(FSP_ID_SYNTH | FSP_ID_FEATURE);

		if (i < s->nr_feature_names)
			return s->feature_names[i];
		(*errors)++;
		snprintf(buf, size, "<mapped feature %llu>", (unsigned long long)i);
		return buf;
	}
	if (probemap_sites__is_label_id(addr)) {
		/* Interned by a mapped probe, for all processes. */
		if (!label_get(s, c, 0, addr, &l, &len, &str))
			return label_out(buf, size, str, len);
		return "(label not kept: the labels map was full; raise --max-stacks)";
	}
	if (!label_get(s, c, tgid, addr, &l, &len, &str) && len) {
		if (len == FSP_LABEL_UNREADABLE)
			goto error; /* unreadable while the process lived */
		if (len == FSP_LABEL_IN_FILE)
			memcpy(&where, str, sizeof(where)); /* not read yet */
		else
			return label_out(buf, size, str, len == FSP_LABEL_EMPTY ? 0 : len);
	}
	if (!read_mem_string(tgid, addr, raw, sizeof(raw)))
		return label_out(buf, size, raw,
				 strlen(raw) | (label_cut(raw) ? FSP_LABEL_CUT : 0));
	/* -ERANGE: no NUL in the bytes read, longer than a label. */
	err = read_file_string(tgid, addr, raw, sizeof(raw));
	/* Gone: the file the BPF side found mapped there. */
	if (err == -ESRCH && where.ino && read_label_file(s, &where, raw, sizeof(raw)) != -ENOENT)
		err = 0;
	if (!err || err == -ERANGE)
		return label_out(buf, size, raw,
				 strlen(raw) | (label_cut(raw) ? FSP_LABEL_CUT : 0));
	for (size_t i = 0; i < s->nr_targets && err == -ESRCH; i++) {
		const struct target *t = &s->targets[i];
		int n;

		if (t->pid != (pid_t)tgid)
			continue;
		/* Gone: the file its last scan saw there, if its name still
		 * names that file (procmaps__open). */
		n = procmaps__read_string(0, t->mappings, t->nr_mappings, addr, raw, sizeof(raw));
		if (n >= 0 || n == -ERANGE)
			return label_out(buf, size, raw,
					 strlen(raw) | (label_cut(raw) ? FSP_LABEL_CUT : 0));
	}
error:
	(*errors)++;
	snprintf(buf, size, "<label at 0x%llx>", (unsigned long long)addr);
	return buf;
}
