// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Probe ABI v2 records: in a file's notes, in a process (fsp_v2.h). */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "fsp_probes.h"
#include "fsp_v2.h"
#include "procscan.h"
#include "profiler.h"

bool fsp_v2__is_v1_site(const struct usdt_site *site)
{
	if (strcmp(site->provider, FSP_PROVIDER))
		return false;
	for (int i = 0; i < FSP_PROBE__COUNT; i++)
		if (!strcmp(site->name, fsp_probe_names[i]))
			return true;
	return false;
}

bool fsp_v2__is_shadow(const struct fsp_v2_file *vf, const struct usdt_site *site)
{
	return vf->has_record && fsp_v2__is_v1_site(site) &&
	       site->ref_ctr_offset == vf->record_off + offsetof(struct fsp_v2_record_raw, sema_v1);
}

int fsp_v2__file(const struct usdt_site *sites, size_t nr, struct fsp_v2_file *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < nr; i++) {
		const struct usdt_site *s = &sites[i];

		if (fsp_v2__is_v1_site(s))
			out->nr_v1_sites++;
		if (strcmp(s->provider, FSP_PROVIDER) || strcmp(s->name, FSP_V2_PROBE))
			continue;
		if (!s->ref_ctr_offset)
			return -EINVAL;
		if (out->has_record && out->record_off != s->ref_ctr_offset)
			return -EINVAL;
		out->has_record = true;
		out->record_off = s->ref_ctr_offset;
		out->record_vaddr = s->sema_vaddr;
		out->nr_sites++;
	}
	return 0;
}

bool fsp_v2__file_v1(const char *path)
{
	struct usdt_site *sites = NULL;
	struct fsp_v2_file vf;
	size_t nr = 0, skipped;
	bool v1;

	if (usdt__read_sites(path, FSP_PROVIDER, &sites, &nr, &skipped, NULL, 0))
		return false;
	v1 = false;
	if (!fsp_v2__file(sites, nr, &vf))
		for (size_t i = 0; i < nr && !v1; i++)
			v1 = fsp_v2__is_v1_site(&sites[i]) && !fsp_v2__is_shadow(&vf, &sites[i]);
	free(sites);
	return v1;
}

int fsp_v2__record_addr(const struct mapping *m, size_t nr, size_t *i, dev_t dev, ino_t ino,
			uint64_t record_off, uint64_t *addr)
{
	for (; *i < nr; (*i)++) {
		const struct mapping *k = &m[*i];

		if (k->dev != dev || k->ino != ino || record_off < k->offset ||
		    record_off + sizeof(struct fsp_v2_record_raw) > k->offset + (k->end - k->start))
			continue;
		*addr = k->start + (record_off - k->offset);
		(*i)++;
		return 0;
	}
	return -ENOENT;
}

static int mem_open(pid_t pid, int flags)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	fd = open(path, flags | O_CLOEXEC);
	return fd < 0 ? (errno == ENOENT ? -ESRCH : -errno) : fd;
}

int fsp_v2__read_record(pid_t pid, uint64_t addr, struct fsp_v2_record_raw *rec)
{
	int fd = mem_open(pid, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return fd;
	n = pread(fd, rec, sizeof(*rec), (off_t)addr);
	close(fd);
	return n == (ssize_t)sizeof(*rec) ? 0 : -EIO;
}

bool fsp_v2__record_ok(const struct fsp_v2_record_raw *rec)
{
	return rec->magic == FSP_V2_RECORD_MAGIC && rec->version == 2 &&
	       rec->depth == FSP_V2_DEPTH &&
	       (rec->frame_size == FSP_V2_FRAME || rec->frame_size == FSP_V2_FRAME_OLD) &&
	       rec->header_size == FSP_V2_HEADER;
}

int fsp_v2__write_gen(pid_t pid, uint64_t addr, uint32_t gen)
{
	struct iovec local = {.iov_base = &gen, .iov_len = sizeof(gen)};
	struct iovec remote = {.iov_base = (void *)(uintptr_t)(addr + FSP_V2_RECORD_GEN_OFF),
			       .iov_len = sizeof(gen)};
	ssize_t n;

	/* One aligned 4-byte write: the kernel copies it with one store. Not
	 * through /proc/PID/mem, whose file belongs to the process's user:
	 * writing it takes CAP_DAC_OVERRIDE besides the ptrace access that
	 * process_vm_writev asks for (the record is in writable memory). */
	n = process_vm_writev(pid, &local, 1, &remote, 1, 0);
	if (n < 0)
		return errno == ESRCH ? -ESRCH : -errno;
	return n == (ssize_t)sizeof(gen) ? 0 : -EIO;
}

/* Writes len bytes at addr of pid (writable memory), in one copy. */
static int write_mem(pid_t pid, uint64_t addr, const void *buf, size_t len)
{
	struct iovec local = {.iov_base = (void *)buf, .iov_len = len};
	struct iovec remote = {.iov_base = (void *)(uintptr_t)addr, .iov_len = len};
	ssize_t n = process_vm_writev(pid, &local, 1, &remote, 1, 0);

	if (n < 0)
		return -errno;
	return n == (ssize_t)len ? 0 : -EIO;
}

int fsp_v2__write_semaphores(pid_t pid, uint64_t addr, uint32_t word)
{
	return write_mem(pid, addr, &word, sizeof(word));
}

int fsp_v2__write_profiler(pid_t pid, uint64_t addr, unsigned int i, uint64_t id)
{
	if (i >= FSP_V2_PROFILERS)
		return -EINVAL;
	/* One aligned 8-byte write. */
	return write_mem(pid, addr + FSP_V2_RECORD_PROFILERS_OFF + i * sizeof(id), &id, sizeof(id));
}

/* The pid field takes the low 22 bits (PID_MAX_LIMIT is 2^22). */
#define PROFILER_PID_BITS 22

uint64_t fsp_v2__profiler_id(pid_t pid)
{
	uint64_t start;

	if (pid <= 0 || pid >= (1 << PROFILER_PID_BITS) || procscan__start_time(pid, &start))
		return 0;
	return start << PROFILER_PID_BITS | (uint64_t)pid;
}
