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
 * another fsp-bpf session is attached to the record: then the marks were
 * kept all along and the sessions share the stacks as they are. The
 * semaphore cannot tell: the kernel raises it once per probe site and
 * process, however many sessions attach the site. So each session writes
 * its id (pid and start time) in one of the record's profiler slots while it
 * is attached, and clears it at the end; a slot whose session is gone
 * (killed) is free. A session that finds the gen moved under it (another
 * session raised it: one that could not see this one's slot) takes the new
 * gen as it is, never raises it again.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	uint32_t frame_size; /* its frames' (FSP_V2_FRAME_OLD: no call numbers) */
	bool exe; /* the executable's own record */
	bool dropped; /* beyond FSP_V2_MAX_DSOS: not read, counted once */
	bool raised; /* another copy whose semaphores this session raised */
	bool pending; /* another copy not ready yet: only its semaphores raised */
	bool fresh; /* not ready before this session armed it: no stack to start afresh */
};

struct v2_state {
	uint64_t id; /* this session's profiler id (fsp_v2__profiler_id), 0: none */
	struct v2_file *files;
	size_t nr_files, cap_files;
	struct v2_reg *regs;
	size_t nr_regs, cap_regs;
};

static struct v2_state *state(struct session *s)
{
	if (!s->v2) {
		s->v2 = calloc(1, sizeof(*s->v2));
		if (s->v2)
			s->v2->id = fsp_v2__profiler_id(getpid());
	}
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

static struct v2_reg *find_reg(struct v2_state *v, pid_t pid, uint64_t addr);

/* A record of pid beyond what the sampler reads: not sampled, counted once,
 * said once per process (its first). */
static void drop_record(struct session *s, struct v2_reg *r, const char *path)
{
	struct v2_state *v = s->v2;
	bool said = false;

	for (size_t i = 0; i < v->nr_regs; i++)
		said |= v->regs[i].pid == r->pid && v->regs[i].dropped;
	if (!said)
		log__err("process %d maps more than %d files with ABI v2 marks (what fsp-bpf reads "
			 "of a process): the marks of %s are not sampled (counted in "
			 "attach_errors)",
			 r->pid, FSP_V2_MAX_DSOS,
			 path ? path : "a library (the executable's own take its place)");
	else
		log__verbose("process %d: the ABI v2 marks of %s are not sampled either", r->pid,
			     path ? path : "another library");
	r->dropped = true;
	s->attach_errors++;
}

/*
 * The v2_procs entry of pid holds reg (added or updated if not). When it is
 * full, the executable's own record takes the place of the last library's:
 * a program's own marks are what it is profiled for.
 */
static int map_ensure(struct session *s, struct v2_reg *r, const char *path)
{
	int fd = bpf_map__fd(s->skel->maps.v2_procs);
	struct fsp_v2_proc p;
	__u32 key = r->pid, i;

	if (r->dropped)
		return -E2BIG;
	if (bpf_map_lookup_elem(fd, &key, &p))
		memset(&p, 0, sizeof(p));
	for (i = 0; i < p.nr && i < FSP_V2_MAX_DSOS; i++)
		if (p.dso[i].record == r->addr)
			break;
	if (i < p.nr && p.dso[i].gen == r->gen && p.dso[i].tp_offset == r->tp_offset &&
	    p.dso[i].frame_size == r->frame_size)
		return 0;
	if (i == FSP_V2_MAX_DSOS && r->exe) {
		struct v2_reg *last = find_reg(s->v2, r->pid, p.dso[--i].record);
		struct v2_reg gone = {.pid = r->pid, .addr = p.dso[i].record};

		drop_record(s, last ? last : &gone, NULL);
	} else if (i == FSP_V2_MAX_DSOS) {
		drop_record(s, r, path);
		return -E2BIG;
	}
	p.dso[i] = (struct fsp_v2_dso){.record = r->addr,
				       .tp_offset = r->tp_offset,
				       .gen = r->gen,
				       .frame_size = r->frame_size};
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

/* Is the session of profiler id (another fsp-bpf's) still running? */
static bool profiler_alive(uint64_t id)
{
	pid_t pid = (pid_t)(id & ((1U << 22) - 1));

	return id && fsp_v2__profiler_id(pid) == id;
}

/* Does another session say it is attached to the record? */
static bool others_attached(const struct v2_state *v, const struct fsp_v2_record_raw *rec)
{
	for (int i = 0; i < FSP_V2_PROFILERS; i++)
		if (rec->profilers[i] != v->id && profiler_alive(rec->profilers[i]))
			return true;
	return false;
}

/*
 * The gen this session reads the record's stacks with: the record's own if it
 * announced itself in this session or another session shares the stacks,
 * else a new one, written in the process.
 */
static uint32_t session_gen(struct session *s, pid_t pid, uint64_t addr,
			    const struct fsp_v2_record_raw *rec)
{
	uint32_t gen = rec->gen + 1;
	int err;

	if (announced(s, pid, addr, rec->gen) || others_attached(s->v2, rec))
		return rec->gen;
	err = fsp_v2__write_gen(pid, addr, gen);
	if (err) {
		log__verbose("pid %d: cannot start the marks' stacks afresh (record at 0x%llx): %s",
			     pid, (unsigned long long)addr, strerror(-err));
		return rec->gen;
	}
	return gen;
}

/* Says in the record that this session is attached: its id in a slot that
 * holds no running session's (again at each scan: two sessions that
 * started together may have written the same slot). */
static void claim_slot(struct v2_state *v, pid_t pid, uint64_t addr,
		       const struct fsp_v2_record_raw *rec)
{
	int free_slot = -1;

	if (!v->id)
		return;
	for (int i = 0; i < FSP_V2_PROFILERS; i++) {
		if (rec->profilers[i] == v->id)
			return;
		if (free_slot < 0 && !profiler_alive(rec->profilers[i]))
			free_slot = i;
	}
	/* Both taken: the other sessions' slots keep the stacks shared. */
	if (free_slot >= 0)
		fsp_v2__write_profiler(pid, addr, (unsigned int)free_slot, v->id);
}

/*
 * Another copy of a file (dlmopen): the kernel raises a probe's semaphore in
 * one mapping of the file that holds it (the record at ref), whatever copy
 * the probe's site is in, so this copy's marks would never run. Its
 * semaphores are raised here as ref's are (from 0 only: never under another
 * session's feet), and lowered at the end (v2__release).
 */
static void raise_copy(struct v2_reg *r, const struct fsp_v2_record_raw *rec, uint64_t ref)
{
	struct fsp_v2_record_raw f;
	uint32_t word, want;

	if (!ref || fsp_v2__read_record(r->pid, ref, &f))
		return;
	memcpy(&word, rec, sizeof(word));
	memcpy(&want, &f, sizeof(want));
	if (word == want || (word && !r->raised))
		return;
	if (!fsp_v2__write_semaphores(r->pid, r->addr, want))
		r->raised = true;
	log__verbose("pid %d: another copy's record at 0x%llx (%s): semaphores 0x%x raised to "
		     "0x%x as the kernel's copy's%s",
		     r->pid, (unsigned long long)r->addr, rec->ready ? "ready" : "not ready", word,
		     want, r->raised ? "" : ": cannot write them");
}

/* Registers the record at addr of pid (in the file at path, the executable
 * if exe; another copy of the file whose semaphores the kernel raised in
 * the copy with the record at ref) for the sampler; before_arming: this
 * session has not attached the file's sites yet (v2__prepare). */
static void register_record(struct session *s, pid_t pid, uint64_t addr, bool exe, const char *path,
			    uint64_t ref, bool before_arming)
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
	r = find_reg(v, pid, addr);
	/* Its constructor has not run: it announces itself (another copy's
	 * once its semaphores are raised: -- CMD stops the command before
	 * the constructors of a dlmopen()ed copy run), or the next scan
	 * finds it ready. Seen so before this session armed it (v2__prepare),
	 * it has no stack yet: none to start afresh when a scan finds it
	 * ready but not announced (its constructor ran before the arming). */
	if (!rec.ready) {
		if (!ref && !before_arming)
			return;
		if (!r &&
		    !fsp_grow((void **)&v->regs, &v->cap_regs, v->nr_regs + 1, sizeof(*v->regs))) {
			r = &v->regs[v->nr_regs++];
			*r = (struct v2_reg){.pid = pid, .addr = addr, .exe = exe, .pending = true};
		}
		if (r && !ref)
			r->fresh = true;
		if (r)
			raise_copy(r, &rec, ref);
		return;
	}
	if (!r || r->pending) {
		if (!r &&
		    fsp_grow((void **)&v->regs, &v->cap_regs, v->nr_regs + 1, sizeof(*v->regs)))
			return;
		if (!r) {
			r = &v->regs[v->nr_regs++];
			*r = (struct v2_reg){.pid = pid, .addr = addr, .exe = exe};
		}
		r->pending = false;
		r->frame_size = rec.frame_size;
		r->tp_offset = rec.tp_offset;
		/* Started afresh only before its marks run under this session:
		 * once armed, its threads push with the gen they find, and a
		 * new gen would drop the frames open then (a leave of one of
		 * them counted as unmatched). */
		r->gen = r->fresh ? rec.gen : session_gen(s, pid, addr, &rec);
	} else if (r->gen != rec.gen || r->tp_offset != rec.tp_offset) {
		/* Another session started the stacks afresh since: they are
		 * kept from then on, as this one reads them. */
		r->tp_offset = rec.tp_offset;
		r->gen = rec.gen;
	}
	claim_slot(v, pid, addr, &rec);
	raise_copy(r, &rec, ref);
	map_ensure(s, r, path);
}

/*
 * Of the copies of a file (records at addrs, nr), the one whose semaphores
 * the kernel raised: the copy the others are raised after (raise_copy). Not
 * the first by address: ld.so maps a dlmopen()ed copy where it finds room,
 * below the dlopen()ed one as often as above. 0: none raised.
 */
static uint64_t raised_copy(pid_t pid, const uint64_t *addrs, size_t nr)
{
	struct fsp_v2_record_raw rec;
	uint32_t word;

	for (size_t i = 0; nr > 1 && i < nr; i++) {
		if (fsp_v2__read_record(pid, addrs[i], &rec))
			continue;
		memcpy(&word, &rec, sizeof(word));
		if (word)
			return addrs[i];
	}
	return 0;
}

/* Copies of one file a scan looks at (dlmopen: one per namespace). */
#define MAX_COPIES 16

void v2__prepare(struct session *s, pid_t pid, int fd, const struct fsp_v2_file *vf)
{
	struct stat st, exe;
	struct mapping *m;
	char path[64];
	uint64_t addr;
	bool is_exe;
	size_t n;

	if (!pid || !vf->has_record || fstat(fd, &st) || procmaps__read(pid, &m, &n))
		return;
	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	is_exe = !stat(path, &exe) && exe.st_dev == st.st_dev && exe.st_ino == st.st_ino;
	/* Not armed by this session yet: its semaphores count no site of ours.
	 * Each copy (dlmopen); the rescan after the links raises the others. */
	for (size_t k = 0;
	     !fsp_v2__record_addr(m, n, &k, st.st_dev, st.st_ino, vf->record_off, &addr);)
		register_record(s, pid, addr, is_exe, m[k - 1].path, 0, true);
	procmaps__free(m, n);
}

void v2__scan(struct session *s, pid_t pid, const struct mapping *m, size_t n)
{
	struct v2_state *v = s->v2;
	struct stat exe = {0};
	uint64_t addrs[MAX_COPIES], ref;
	const char *paths[MAX_COPIES];
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	if (v && stat(path, &exe))
		exe = (struct stat){0};
	for (size_t i = 0; v && i < v->nr_files; i++) {
		const struct v2_file *f = &v->files[i];
		bool is_exe = f->id.dev == exe.st_dev && f->id.ino == exe.st_ino;
		size_t nr = 0;

		/* Each copy of the file (dlmopen loads one per namespace). */
		for (size_t k = 0;
		     nr < MAX_COPIES && !fsp_v2__record_addr(m, n, &k, f->id.dev, f->id.ino,
							     f->f.record_off, &addrs[nr]);)
			paths[nr++] = m[k - 1].path;
		ref = raised_copy(pid, addrs, nr);
		for (size_t c = 0; c < nr; c++)
			register_record(s, pid, addrs[c], is_exe, paths[c],
					addrs[c] == ref ? 0 : ref, false);
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

void v2__release(struct session *s)
{
	struct v2_state *v = s->v2;
	struct fsp_v2_record_raw rec;

	for (size_t i = 0; v && v->id && i < v->nr_regs; i++) {
		const struct v2_reg *r = &v->regs[i];

		if (fsp_v2__read_record(r->pid, r->addr, &rec))
			continue;
		for (int k = 0; k < FSP_V2_PROFILERS; k++)
			if (rec.profilers[k] == v->id)
				fsp_v2__write_profiler(r->pid, r->addr, (unsigned int)k, 0);
		/* A copy's semaphores this session raised, unless another
		 * session reads the copy still. */
		if (r->raised && !others_attached(v, &rec))
			fsp_v2__write_semaphores(r->pid, r->addr, 0);
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
