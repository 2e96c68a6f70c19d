// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Probe ABI v2 in a session. Attaching a file's fsp:v2 sites makes the kernel
 * raise its record's semaphore in every process that maps it: from then on
 * the marks of that file push onto their threads' stacks, without trapping
 * (the sites themselves only run in the file's constructor). The sampler
 * reads those stacks for the records registered in the v2_procs map: by the
 * constructor's fsp:v2 probe (processes started or libraries loaded while
 * attached), or here, by reading the record from a running target's memory.
 *
 * A new session on a running process starts the record's stacks afresh: the
 * record's gen is raised (written in the process), so that frames left over
 * from an earlier session (entered while it was attached, left after) are
 * dropped at each thread's next push and never sampled meanwhile. Not when
 * another profiler is attached (the semaphore is above what this session
 * raised): then the sessions share the stacks as they are.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "fsp_v2.h"
#include "log.h"
#include "util.h"
#include "session_int.h"

/* A file with a record, as its notes describe it. */
struct v2_file {
	struct file_id id;
	struct fsp_v2_file f;
};

/* A record registered for the sampler: in process pid at addr. */
struct v2_reg {
	pid_t pid;
	uint64_t addr;
	int64_t tp_offset;
	uint32_t gen;
};

struct v2_state {
	struct v2_file *files;
	size_t nr_files, cap_files;
	struct v2_reg *regs;
	size_t nr_regs, cap_regs;
};

static struct v2_state *state(struct session *s)
{
	if (!s->v2)
		s->v2 = calloc(1, sizeof(*s->v2));
	return s->v2;
}

void v2__free(struct session *s)
{
	if (!s->v2)
		return;
	free(s->v2->files);
	free(s->v2->regs);
	free(s->v2);
	s->v2 = NULL;
}

int v2__note_file(struct session *s, int fd, const struct fsp_v2_file *vf)
{
	struct v2_state *v = state(s);
	struct stat st;

	if (!v)
		return -ENOMEM;
	if (fstat(fd, &st))
		return -errno;
	for (size_t i = 0; i < v->nr_files; i++) {
		if (v->files[i].id.dev == st.st_dev && v->files[i].id.ino == st.st_ino) {
			v->files[i].f = *vf;
			return 0;
		}
	}
	if (fsp_grow((void **)&v->files, &v->cap_files, v->nr_files + 1, sizeof(*v->files)))
		return -ENOMEM;
	v->files[v->nr_files].id = (struct file_id){st.st_dev, st.st_ino};
	v->files[v->nr_files++].f = *vf;
	return 0;
}

/* The v2_procs entry of pid holds reg (added or updated if not). */
static int map_ensure(struct session *s, const struct v2_reg *r)
{
	int fd = bpf_map__fd(s->skel->maps.v2_procs);
	struct fsp_v2_proc p;
	__u32 key = r->pid, i;

	if (bpf_map_lookup_elem(fd, &key, &p))
		memset(&p, 0, sizeof(p));
	for (i = 0; i < p.nr && i < FSP_V2_MAX_DSOS; i++)
		if (p.dso[i].record == r->addr)
			break;
	if (i < p.nr && p.dso[i].gen == r->gen && p.dso[i].tp_offset == r->tp_offset)
		return 0;
	if (i == FSP_V2_MAX_DSOS) {
		log__err("process %d has more than %d libraries with fsp marks (ABI v2): the "
			 "marks of the others are not sampled",
			 r->pid, FSP_V2_MAX_DSOS);
		s->attach_errors++;
		return -E2BIG;
	}
	p.dso[i] = (struct fsp_v2_dso){.record = r->addr, .tp_offset = r->tp_offset, .gen = r->gen};
	if (i == p.nr)
		p.nr++;
	if (bpf_map_update_elem(fd, &key, &p, BPF_ANY))
		return -errno;
	/* The threads' cached copies of the records are stale now. */
	__atomic_fetch_add(&s->skel->bss->v2_epoch, 1, __ATOMIC_SEQ_CST);
	return 0;
}

/* Was (pid, addr) announced in this session with gen? */
static bool announced(struct session *s, pid_t pid, uint64_t addr, uint32_t gen)
{
	struct fsp_v2_proc p;
	__u32 key = pid;

	if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.v2_procs), &key, &p))
		return false;
	for (__u32 i = 0; i < p.nr && i < FSP_V2_MAX_DSOS; i++)
		if (p.dso[i].record == addr && p.dso[i].gen == gen)
			return true;
	return false;
}

static struct v2_reg *find_reg(struct v2_state *v, pid_t pid, uint64_t addr)
{
	for (size_t i = 0; i < v->nr_regs; i++)
		if (v->regs[i].pid == pid && v->regs[i].addr == addr)
			return &v->regs[i];
	return NULL;
}

/*
 * The gen this session reads the record's stacks with: the record's own if it
 * announced itself in this session or another profiler shares the stacks,
 * else a new one, written in the process.
 */
static uint32_t session_gen(struct session *s, pid_t pid, uint64_t addr,
			    const struct fsp_v2_record_raw *rec, unsigned int our_sites)
{
	uint32_t gen = rec->gen + 1;
	int err;

	if (announced(s, pid, addr, rec->gen) || rec->sema_v2 > our_sites)
		return rec->gen;
	err = fsp_v2__write_gen(pid, addr, gen);
	if (err) {
		log__verbose("pid %d: cannot start the marks' stacks afresh (record at 0x%llx): %s",
			     pid, (unsigned long long)addr, strerror(-err));
		return rec->gen;
	}
	return gen;
}

/* Registers the record at addr of pid, whose file has our_sites fsp:v2 sites. */
static void register_record(struct session *s, pid_t pid, uint64_t addr, unsigned int our_sites)
{
	struct v2_state *v = state(s);
	struct fsp_v2_record_raw rec;
	struct v2_reg *r;

	if (!v || fsp_v2__read_record(pid, addr, &rec))
		return;
	if (!fsp_v2__record_ok(&rec)) {
		log__verbose("pid %d: the fsp record at 0x%llx is not one this fsp-bpf reads", pid,
			     (unsigned long long)addr);
		return;
	}
	/* Its constructor has not run: it announces itself, or the next scan
	 * finds it ready. */
	if (!rec.ready)
		return;
	r = find_reg(v, pid, addr);
	if (!r || r->gen != rec.gen || r->tp_offset != rec.tp_offset) {
		if (!r) {
			if (fsp_grow((void **)&v->regs, &v->cap_regs, v->nr_regs + 1,
				     sizeof(*v->regs)))
				return;
			r = &v->regs[v->nr_regs++];
		}
		r->pid = pid;
		r->addr = addr;
		r->tp_offset = rec.tp_offset;
		r->gen = session_gen(s, pid, addr, &rec, our_sites);
	}
	map_ensure(s, r);
}

void v2__prepare(struct session *s, pid_t pid, int fd, const struct fsp_v2_file *vf)
{
	struct mapping *m;
	struct stat st;
	uint64_t addr;
	size_t n;

	if (!pid || !vf->has_record || fstat(fd, &st) || procmaps__read(pid, &m, &n))
		return;
	/* not armed by this session yet: its semaphore counts no site of ours */
	if (!fsp_v2__record_addr(m, n, st.st_dev, st.st_ino, vf->record_off, &addr))
		register_record(s, pid, addr, 0);
	procmaps__free(m, n);
}

void v2__scan(struct session *s, pid_t pid, const struct mapping *m, size_t n)
{
	struct v2_state *v = s->v2;
	uint64_t addr;

	for (size_t i = 0; v && i < v->nr_files; i++) {
		const struct v2_file *f = &v->files[i];

		if (!fsp_v2__record_addr(m, n, f->id.dev, f->id.ino, f->f.record_off, &addr))
			register_record(s, pid, addr, f->f.nr_sites);
	}
}

void v2__forget(struct session *s, pid_t pid)
{
	struct v2_state *v = s->v2;
	__u32 key = pid;

	/* Its records mean nothing to a process that takes the PID next. */
	if (!bpf_map_delete_elem(bpf_map__fd(s->skel->maps.v2_procs), &key))
		__atomic_fetch_add(&s->skel->bss->v2_epoch, 1, __ATOMIC_SEQ_CST);

	for (size_t i = 0; v && i < v->nr_regs;) {
		if (v->regs[i].pid == pid)
			v->regs[i] = v->regs[--v->nr_regs];
		else
			i++;
	}
}

const char *session__marks(const struct session *s, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = 0;
	if (s->nr_v2_files)
		len += snprintf(buf + len, size - len, "%sv2", len ? "," : "");
	if (s->nr_v1_sites && len < size)
		len += snprintf(buf + len, size - len, "%sv1", len ? "," : "");
	if (s->nr_shadow_sites && len < size)
		len += snprintf(buf + len, size - len, "%sv2-events", len ? "," : "");
	if (s->nr_probemap_sites && len < size)
		snprintf(buf + len, size - len, "%smapped", len ? "," : "");
	return buf;
}
