// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * SystemTap SDT notes (.note.stapsdt, type 3, owner "stapsdt") carry, per probe
 * site: pc, the link-time address of .stapsdt.base, the semaphore address, then
 * "provider\0name\0args\0". We only need to know which fsp probes a file has;
 * libbpf resolves sites and argument specs when it attaches.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "probes.h"

const char *const fsp_probe_names[FSP_PROBE__COUNT] = {
	[FSP_PROBE_MARK_ENTER] = "mark_enter",
	[FSP_PROBE_MARK_LEAVE] = "mark_leave",
	[FSP_PROBE_ANTIMARK_ENTER] = "antimark_enter",
	[FSP_PROBE_ANTIMARK_LEAVE] = "antimark_leave",
};

#define SDT_NOTE_TYPE 3
#define SDT_NOTE_OWNER "stapsdt"

static void count_note(struct probe_file *out, const char *desc, size_t len)
{
	size_t off = 3 * sizeof(uint64_t); /* pc, base, semaphore (ELF64) */
	const char *provider, *name;
	int i;

	if (len <= off)
		return;
	provider = desc + off;
	name = memchr(provider, 0, len - off);
	if (!name || ++name >= desc + len || !memchr(name, 0, desc + len - name))
		return;
	if (strcmp(provider, FSP_PROVIDER))
		return;
	for (i = 0; i < FSP_PROBE__COUNT; i++) {
		if (!strcmp(name, fsp_probe_names[i])) {
			out->sites[i]++;
			out->nr_sites++;
		}
	}
}

static int scan_notes(Elf *elf, struct probe_file *out)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return -EINVAL;
	while ((scn = elf_nextscn(elf, scn))) {
		size_t off = 0, name_off, desc_off;
		GElf_Shdr shdr;
		GElf_Nhdr nhdr;
		Elf_Data *data;
		const char *sname;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE)
			continue;
		sname = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (!sname || strcmp(sname, ".note.stapsdt"))
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		while ((off = gelf_getnote(data, off, &nhdr, &name_off, &desc_off)) > 0) {
			if (nhdr.n_type != SDT_NOTE_TYPE ||
			    nhdr.n_namesz != sizeof(SDT_NOTE_OWNER) ||
			    memcmp((char *)data->d_buf + name_off, SDT_NOTE_OWNER, nhdr.n_namesz))
				continue;
			count_note(out, (char *)data->d_buf + desc_off, nhdr.n_descsz);
		}
	}
	return 0;
}

static Elf *elf_open(const char *path, int *fd)
{
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return NULL;
	elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || gelf_getclass(elf) != ELFCLASS64) {
		if (elf)
			elf_end(elf);
		close(*fd);
		*fd = -1;
		errno = ENOEXEC;
		return NULL;
	}
	return elf;
}

int probes__scan_elf(const char *path, struct probe_file *out)
{
	struct stat st;
	int fd = -1, err;
	Elf *elf;

	memset(out, 0, sizeof(*out));
	snprintf(out->path, sizeof(out->path), "%s", path);
	elf = elf_open(path, &fd);
	if (!elf)
		return -(errno ? errno : EINVAL);
	err = fstat(fd, &st) ? -errno : 0;
	if (!err) {
		out->dev = st.st_dev;
		out->ino = st.st_ino;
		err = scan_notes(elf, out);
	}
	elf_end(elf);
	close(fd);
	return err;
}

int probes__elf_interp(const char *path, char *buf, size_t size)
{
	size_t i, nphdr;
	int fd = -1, err = 0;
	Elf *elf;

	buf[0] = 0;
	elf = elf_open(path, &fd);
	if (!elf)
		return -(errno ? errno : EINVAL);
	if (elf_getphdrnum(elf, &nphdr)) {
		err = -EINVAL;
		goto cleanup;
	}
	for (i = 0; i < nphdr; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_INTERP)
			continue;
		if (ph.p_filesz == 0 || ph.p_filesz >= size ||
		    pread(fd, buf, ph.p_filesz, ph.p_offset) != (ssize_t)ph.p_filesz) {
			err = -EINVAL;
			buf[0] = 0;
			goto cleanup;
		}
		buf[ph.p_filesz] = 0;
		break;
	}
cleanup:
	elf_end(elf);
	close(fd);
	return err;
}

struct seen {
	dev_t dev;
	ino_t ino;
};

int probes__for_each_mapped_file(pid_t pid, probes_file_cb cb, void *ctx)
{
	struct seen *seen = NULL;
	size_t nr_seen = 0, cap = 0, i;
	char maps[64], *line = NULL;
	size_t line_cap = 0;
	int err = 0;
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", pid);
	f = fopen(maps, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	while (getline(&line, &line_cap, f) > 0) {
		unsigned int maj, min;
		unsigned long ino;
		char perms[8];
		int path_off = 0;
		char *path, *nl;
		dev_t dev;

		if (sscanf(line, "%*x-%*x %7s %*x %x:%x %lu %n", perms, &maj, &min, &ino,
			   &path_off) < 4 ||
		    !path_off)
			continue;
		path = line + path_off;
		nl = strchr(path, '\n');
		if (nl)
			*nl = 0;
		if (perms[2] != 'x' || path[0] != '/' || ino == 0)
			continue;
		dev = makedev(maj, min);
		for (i = 0; i < nr_seen; i++)
			if (seen[i].dev == dev && seen[i].ino == ino)
				break;
		if (i < nr_seen)
			continue;
		if (nr_seen == cap) {
			struct seen *n = realloc(seen, (cap ? cap * 2 : 16) * sizeof(*seen));

			if (!n) {
				err = -ENOMEM;
				break;
			}
			seen = n;
			cap = cap ? cap * 2 : 16;
		}
		seen[nr_seen].dev = dev;
		seen[nr_seen++].ino = ino;
		err = cb(ctx, path, dev, ino);
		if (err)
			break;
	}
	if (!err && ferror(f))
		err = errno == ESRCH ? -ESRCH : -EIO; /* the process exited mid-read */
	free(line);
	free(seen);
	fclose(f);
	return err;
}

int probes__read_mappings(pid_t pid, struct probe_mapping **out, size_t *nr)
{
	struct probe_mapping *m = NULL;
	size_t n = 0, cap = 0, line_cap = 0;
	char maps[64], *line = NULL;
	int err = 0;
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", pid);
	f = fopen(maps, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	while (getline(&line, &line_cap, f) > 0) {
		unsigned long long start, end, off;
		int path_off = 0;
		char *path, *nl;

		if (sscanf(line, "%llx-%llx %*s %llx %*x:%*x %*u %n", &start, &end, &off,
			   &path_off) < 3 ||
		    !path_off || line[path_off] != '/')
			continue;
		path = line + path_off;
		nl = strchr(path, '\n');
		if (nl)
			*nl = 0;
		if (n == cap) {
			struct probe_mapping *nm = realloc(m, (cap ? 2 * cap : 32) * sizeof(*m));

			if (!nm) {
				err = -ENOMEM;
				break;
			}
			m = nm;
			cap = cap ? 2 * cap : 32;
		}
		m[n].path = strdup(path);
		if (!m[n].path) {
			err = -ENOMEM;
			break;
		}
		m[n].start = start;
		m[n].end = end;
		m[n++].offset = off;
	}
	free(line);
	fclose(f);
	if (err) {
		probes__free_mappings(m, n);
		return err;
	}
	*out = m;
	*nr = n;
	return 0;
}

void probes__free_mappings(struct probe_mapping *m, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(m[i].path);
	free(m);
}

int probes__read_mapped_string(const struct probe_mapping *m, size_t nr, unsigned long long addr,
			       char *buf, size_t size)
{
	for (size_t i = 0; i < nr; i++) {
		ssize_t got;
		int fd;

		if (addr < m[i].start || addr >= m[i].end)
			continue;
		fd = open(m[i].path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		got = pread(fd, buf, size - 1, (off_t)(addr - m[i].start + m[i].offset));
		close(fd);
		if (got <= 0)
			return -EIO;
		buf[got] = 0;
		if (!memchr(buf, 0, got) && got == (ssize_t)size - 1)
			return -ERANGE;
		return strlen(buf);
	}
	return -ENOENT;
}
