// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * DWARF unwinding of the sampler's records with elfutils, as perf's
 * unwind-libdw does, but with one Dwfl per process kept for the session: the
 * modules (the files mapped executable; their CFI parsed once) come from
 * /proc/PID/maps, read again when code runs outside their code (ld.so mapping
 * libc after the first sample, a dlopen(), maybe where a file unmapped since
 * was); the vDSO is a module too (its image read from the process when
 * its mappings are first read, so that it outlives the process), so that a
 * sample in clock_gettime's fast path unwinds by its CFI. The Dwfl is
 * attached to a
 * "process" whose only thread is the record being unwound: its registers are
 * the record's, its memory the record's copy of the stack (and, for anything
 * else libdw asks, the bytes of the mapped files).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "hashmap.h"
#include "procmaps.h"
#include "stacks_int.h"
#include "unwind_int.h"
#include "util.h"

/* A reading of the mappings that explains an address (a library mapped
 * since) allows the next one at once; after MISSES_FREE in a row that did
 * not (a record older than a dlclose() or an exec), they are read at most
 * every REFRESH_NS per process. */
#define REFRESH_NS 5000000ULL
#define MISSES_FREE 4

static const char vdso_name[] = "[vdso]";
static const char uprobes_name[] = "[uprobes]";

/* The mapping of p's file name (as reported: through p->root) at or above
 * base, the module's start. NULL if none. */
static const struct mapping *module_mapping(const struct uproc *p, const char *name,
					    Dwarf_Addr base)
{
	const struct mapping *best = NULL;
	size_t n = strlen(p->root);

	if (n && !strncmp(name, p->root, n))
		name += n;
	for (size_t i = 0; i < p->nr_maps; i++) {
		const struct mapping *m = &p->maps[i];

		if (m->start >= base && !strcmp(m->path, name) && (!best || m->start < best->start))
			best = m;
	}
	return best;
}

/*
 * The vDSO module's ELF: its image in memory (its userdata); other modules
 * are the files the process maps (their userdata is the uproc), opened as the
 * mapped objects (procmaps__open): never by a name the process could have
 * swapped for a FIFO or a root-only file.
 */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	const struct vdso_image *img = *userdata;
	const struct uproc *p = *userdata;
	const struct mapping *m;
	int fd;

	(void)mod;
	*file_name = NULL;
	*elfp = NULL;
	if (!strcmp(name, vdso_name)) {
		*elfp = img ? elf_memory(img->bytes, img->size) : NULL;
		return -1;
	}
	m = p ? module_mapping(p, name, base) : NULL;
	fd = m ? procmaps__open(p->pid, m) : -1;
	if (fd < 0)
		return -1;
	*elfp = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	*file_name = strdup(name);
	if (!*elfp || !*file_name) {
		elf_end(*elfp);
		*elfp = NULL;
		free(*file_name);
		*file_name = NULL;
		close(fd);
		return -1;
	}
	return fd;
}

/* Debug files by build-id only, in the system's debug directories: the
 * directories next to a module are the target's to fill (a FIFO there would
 * block). The unwinder needs CFI, which .eh_frame in the file has. */
static const Dwfl_Callbacks proc_callbacks = {
	.find_elf = find_elf,
	.find_debuginfo = dwfl_build_id_find_debuginfo,
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* ---- mappings -------------------------------------------------------------- */

/* Does pid see another root directory than we do (a container)? */
static bool other_root(pid_t pid)
{
	char path[64];
	struct stat a, b;

	snprintf(path, sizeof(path), "/proc/%d/root/", pid);
	return !stat(path, &a) && !stat("/", &b) && (a.st_dev != b.st_dev || a.st_ino != b.st_ino);
}

/* The name an anonymous executable mapping's line of /proc/PID/maps gives. */
static const char *anon_name(const char *line)
{
	if (strstr(line, vdso_name))
		return vdso_name;
	if (strstr(line, uprobes_name))
		return uprobes_name;
	return NULL;
}

/* The unwinder's copy of the image of size bytes at addr in p, read from
 * /proc/PID/mem. NULL when it cannot be read (nor then unwound through). */
static const struct vdso_image *vdso_read(struct uproc *p, uint64_t addr, size_t size)
{
	struct unwinder *u = p->u;
	struct vdso_image *img = NULL;
	char path[64], *buf;
	int fd;

	if (!size || size > VDSO_MAX_SIZE)
		return NULL;
	buf = malloc(size);
	snprintf(path, sizeof(path), "/proc/%d/mem", p->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (!buf || fd < 0 || pread(fd, buf, size, addr) != (ssize_t)size)
		goto out;
	for (size_t i = 0; i < u->nr_vdso && !img; i++)
		if (u->vdso[i].size == size && !memcmp(u->vdso[i].bytes, buf, size))
			img = &u->vdso[i];
	if (!img && u->nr_vdso < VDSO_MAX_IMAGES) {
		img = &u->vdso[u->nr_vdso++];
		*img = (struct vdso_image){buf, size};
		buf = NULL;
	}
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return img;
}

/* The vDSO as a module, its image read once per process (it does not move
 * until an exec, which makes a new uproc). 0, or -1 if libdwfl failed. */
static int report_vdso(struct uproc *p)
{
	Dwfl_Module *mod;
	void **userdata;

	for (size_t i = 0; i < p->nr_anon; i++) {
		const struct anon_range *r = &p->anon[i];

		if (r->name != vdso_name)
			continue;
		if (!p->vdso)
			p->vdso = vdso_read(p, r->start, r->end - r->start);
		if (!p->vdso)
			return 0;
		mod = dwfl_report_module(p->dwfl, vdso_name, r->start, r->end);
		if (!mod)
			return -1;
		dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
		*userdata = (void *)p->vdso;
	}
	return 0;
}

/* Makes the uproc (arg) the userdata of each module that is a file. */
static int module_owner(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
			void *arg)
{
	(void)mod;
	(void)base;
	if (strcmp(name, vdso_name))
		*userdata = arg;
	return DWARF_CB_OK;
}

/* Is the file of maps line line (device and inode) mapped executable
 * anywhere in p->maps? Only such files are modules: a file mapped only as
 * data (ld.so's /etc/ld.so.cache, a locale archive) holds no code, and a
 * library ld.so has reserved but not yet mapped its code into is not one
 * yet; a module made of either would be taken, once the file is unmapped
 * and a library mapped there, for the code of that library. */
static bool has_code(const struct uproc *p, const char *line)
{
	unsigned long long start, end, off;
	unsigned int maj, min;
	unsigned long ino;
	char perms[8];

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %lu", &start, &end, perms, &off, &maj, &min,
		   &ino) != 7)
		return false;
	for (size_t i = 0; i < p->nr_maps; i++)
		if (p->maps[i].exec && p->maps[i].ino == ino && p->maps[i].dev == makedev(maj, min))
			return true;
	return false;
}

/* The maps text for dwfl_linux_proc_maps_report: the files with code (their
 * paths through the process's root when it has its own); the anonymous
 * executable mappings go to p->anon. */
static int module_lines(struct uproc *p, char *text, FILE *out)
{
	p->nr_anon = 0;
	for (char *line = text, *next; line && *line; line = next) {
		char *nl = strchr(line, '\n'), *slash;
		unsigned long long start, end;
		char perms[8];

		next = nl ? nl + 1 : NULL;
		if (nl)
			*nl = 0;
		slash = strchr(line, '/');
		if (!slash && sscanf(line, "%llx-%llx %7s", &start, &end, perms) == 3 &&
		    perms[2] == 'x') {
			if (fsp_grow((void **)&p->anon, &p->cap_anon, p->nr_anon + 1,
				     sizeof(*p->anon)))
				return -ENOMEM;
			p->anon[p->nr_anon++] = (struct anon_range){start, end, anon_name(line)};
		}
		if (slash && has_code(p, line))
			fprintf(out, "%.*s%s%s\n", (int)(slash - line), line, p->root, slash);
		if (nl)
			*nl = '\n';
	}
	return 0;
}

/* Reads the mappings (once) into the Dwfl: the modules, p->maps that
 * find_elf opens their files by, p->anon. */
static int report_maps(struct uproc *p)
{
	char *text = NULL, *buf = NULL;
	size_t len = 0, blen = 0;
	FILE *in = NULL, *out = NULL;
	int err;

	/* One reading: the modules and the mappings find_elf opens their
	 * files by agree. */
	err = procmaps__read_text(p->pid, &text, &len);
	if (err)
		return err;
	procmaps__free(p->maps, p->nr_maps);
	p->maps = NULL;
	p->nr_maps = 0;
	in = fmemopen(text, len, "r");
	if (!in) {
		err = -errno;
		goto cleanup;
	}
	err = procmaps__parse(in, &p->maps, &p->nr_maps);
	if (err)
		goto cleanup;
	out = open_memstream(&buf, &blen);
	if (!out) {
		err = -errno;
		goto cleanup;
	}
	err = module_lines(p, text, out);
	if (fclose(out) && !err)
		err = -ENOMEM;
	out = NULL;
	if (err)
		goto cleanup;
	fclose(in);
	in = fmemopen(buf, blen ? blen : 1, "r");
	if (!in) {
		err = -errno;
		goto cleanup;
	}
	dwfl_report_begin(p->dwfl);
	if ((blen && dwfl_linux_proc_maps_report(p->dwfl, in)) || report_vdso(p))
		err = -EIO;
	dwfl_report_end(p->dwfl, NULL, NULL);
	if (!err)
		dwfl_getmodules(p->dwfl, module_owner, p, 0);
	p->refreshed_ns = mono_ns();
cleanup:
	p->gen = ++p->u->gen; /* whatever it got to */
	if (in)
		fclose(in);
	if (out)
		fclose(out);
	free(text);
	free(buf);
	return err;
}

/* ---- the thread callbacks: the record as a stopped thread -------------------- */

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_arg)
{
	struct uproc *p = arg;

	(void)dwfl;
	if (*thread_arg || !p->rec)
		return 0;
	*thread_arg = p;
	return p->rec->tid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_arg)
{
	struct uproc *p = arg;

	(void)dwfl;
	if (!p->rec || (pid_t)p->rec->tid != tid)
		return false;
	*thread_arg = p;
	return true;
}

/* A word of a mapped file's bytes at runtime address addr (what libdw may
 * read beyond the stack: rarely, e.g. a PLT entry). */
static bool read_file_word(struct uproc *p, Dwarf_Addr addr, Dwarf_Word *out)
{
	Dwfl_Module *mod = dwfl_addrmodule(p->dwfl, addr);
	GElf_Addr bias;
	Elf *elf = mod ? dwfl_module_getelf(mod, &bias) : NULL;
	size_t nr, size;
	const char *raw;

	if (!elf || elf_getphdrnum(elf, &nr))
		return false;
	raw = elf_rawfile(elf, &size);
	for (size_t i = 0; raw && i < nr; i++) {
		GElf_Phdr ph;
		uint64_t v = addr - bias;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD || v < ph.p_vaddr ||
		    v + sizeof(*out) > ph.p_vaddr + ph.p_filesz)
			continue;
		if (ph.p_offset + (v - ph.p_vaddr) + sizeof(*out) > size)
			return false;
		memcpy(out, raw + ph.p_offset + (v - ph.p_vaddr), sizeof(*out));
		return true;
	}
	return false;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct uproc *p = arg;
	const struct fsp_native_rec *r = p->rec;
	uint64_t sp = r->regs[7];

	(void)dwfl;
	if (addr >= sp && addr - sp + sizeof(*result) <= r->stack_len) {
		memcpy(result, r->stack + (addr - sp), sizeof(*result));
		return true;
	}
	/* A register an epilogue popped: the CFI of the instructions after
	 * the pop still says where it was saved, now below sp. */
	if ((r->flags & FSP_NATIVE_REDZONE) && addr < sp && sp - addr <= sizeof(r->redzone) &&
	    addr + sizeof(*result) <= sp) {
		memcpy(result, r->redzone + (addr - (sp - sizeof(r->redzone))), sizeof(*result));
		return true;
	}
	/* Below sp or past the copy: on the stack, but not copied. A frame
	 * whose return address was past the copy ends the walk as if it were
	 * the thread's first: the stack is truncated, not complete. */
	if (addr >= sp - 128 && addr < sp + (64ULL << 20)) {
		if (addr >= sp)
			p->past_copy = true;
		return false;
	}
	return read_file_word(p, addr, result);
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct uproc *p = arg;
	Dwarf_Word regs[FSP_NATIVE_NREGS];

	for (int i = 0; i < FSP_NATIVE_NREGS; i++)
		regs[i] = p->rec->regs[i];
	return dwfl_thread_state_registers(thread, 0, FSP_NATIVE_NREGS, regs);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct uproc *p = arg;
	Dwarf_Addr pc;
	bool act;

	if (!dwfl_frame_pc(state, &pc, &act))
		return -1;
	if (!pc)
		return DWARF_CB_ABORT; /* the end of the chain (a zeroed return address) */
	if (p->n >= p->max)
		return -1; /* depth limit: truncated */
	p->pcs[p->n] = pc;
	p->act[p->n] = act;
	/* rsp (DWARF register 7): the leaf's, then each caller's, the CFA of
	 * the frame it called; where the marks of the frame were entered */
	if (dwfl_frame_reg(state, 7, &p->sps[p->n]))
		p->sps[p->n] = 0;
	p->n++;
	return DWARF_CB_OK;
}

bool uproc__read(struct uproc *p, uint64_t addr, uint64_t *out)
{
	Dwarf_Word w;

	if (!memory_read(p->dwfl, addr, &w, p))
		return false;
	*out = w;
	return true;
}

/* libdw's unwinding of p->rec (set up by uproc__dwarf): *complete. */
static bool libdw_frames(struct uproc *p)
{
	int ret;

	if (!p->attached) {
		if (!dwfl_attach_state(p->dwfl, NULL, p->pid, &thread_callbacks, p))
			return false;
		p->attached = true;
	}
	ret = dwfl_getthread_frames(p->dwfl, p->rec->tid, frame_cb, p);
	/* 0: the CFI marked the outermost frame (its return address undefined),
	 * unless a read past the copy made it look so; DWARF_CB_ABORT: a zero
	 * return address ended the chain. */
	return (ret == 0 && !p->past_copy) || ret == DWARF_CB_ABORT;
}

static void start_record(struct uproc *p)
{
	p->n = 0;
	p->past_copy = false;
}

size_t uproc__dwarf(struct uproc *p, const struct fsp_native_rec *rec, uint64_t *pcs, uint64_t *sps,
		    bool *act, size_t max, bool *complete)
{
	struct cfi_cache *c = p->u->cfi;
	bool check = cfi_cache__checking(c) && max <= STACKS_MAX_USER, cached;
	struct cfi_result fast;

	*complete = false;
	if (!rec->regs[16] || !rec->regs[7])
		return 0;
	p->rec = rec;
	p->pcs = pcs;
	p->sps = sps;
	p->act = act;
	p->max = max;
	start_record(p);
	/* The cached rules when every frame's are simple; libdw otherwise
	 * (and, to compare, always when checking). */
	cached = cfi_cache__unwind(c, p, complete);
	if (cached && check) {
		fast.n = p->n;
		fast.complete = *complete;
		memcpy(fast.pcs, pcs, p->n * sizeof(*pcs));
		memcpy(fast.sps, sps, p->n * sizeof(*sps));
		memcpy(fast.act, act, p->n * sizeof(*act));
	}
	if (!cached || check) {
		start_record(p);
		*complete = libdw_frames(p);
		if (cached)
			cfi_cache__compare(c, &fast, p, *complete);
	}
	p->rec = NULL;
	return p->n;
}

/* ---- modules ----------------------------------------------------------------- */

static bool module_addr(struct uproc *p, Dwfl_Module *mod, uint64_t pc, struct uaddr *out)
{
	const char *name;
	const unsigned char *bits;
	GElf_Addr vaddr, bias;
	size_t root = strlen(p->root);
	int n;

	name = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
	if (!name || !dwfl_module_getelf(mod, &bias))
		return false;
	n = dwfl_module_build_id(mod, &bits, &vaddr);
	if (!strcmp(name, vdso_name))
		out->path = vdso_name;
	else
		out->path = root && !strncmp(name, p->root, root) ? name + root : name;
	out->build_id = n > 0 ? bits : NULL;
	out->build_id_len = n > 0 ? n : 0;
	out->addr = pc - bias;
	out->module = mod;
	return true;
}

static const struct anon_range *in_anon(const struct uproc *p, uint64_t pc)
{
	for (size_t i = 0; i < p->nr_anon; i++)
		if (pc >= p->anon[i].start && pc < p->anon[i].end)
			return &p->anon[i];
	return NULL;
}

/* Does mod hold code at pc: its file opened (as the mapped object: it
 * fails when the file was unmapped since the reading), pc in one of its
 * executable segments? One that does not (a module of a reading that no
 * longer matches the process) explains nothing. */
static bool module_code(Dwfl_Module *mod, uint64_t pc)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	size_t nr;

	if (!elf || elf_getphdrnum(elf, &nr))
		return false;
	for (size_t i = 0; i < nr; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X) &&
		    pc - bias >= ph.p_vaddr && pc - bias < ph.p_vaddr + ph.p_memsz)
			return true;
	}
	return false;
}

/* The module whose code holds pc, NULL if none. */
static Dwfl_Module *code_at(struct uproc *p, uint64_t pc)
{
	Dwfl_Module *mod = dwfl_addrmodule(p->dwfl, pc);

	return mod && module_code(mod, pc) ? mod : NULL;
}

struct module_list {
	struct kept_module {
		const char *name;
		Dwarf_Addr start, end;
	} * v;
	size_t nr, cap;
	Dwfl_Module *drop;
};

static int keep_module(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
		       void *arg)
{
	struct module_list *l = arg;
	Dwarf_Addr start, end;

	(void)userdata;
	(void)base;
	if (mod == l->drop)
		return DWARF_CB_OK;
	dwfl_module_info(mod, NULL, &start, &end, NULL, NULL, NULL, NULL);
	if (fsp_grow((void **)&l->v, &l->cap, l->nr + 1, sizeof(*l->v)))
		return DWARF_CB_ABORT;
	l->v[l->nr++] = (struct kept_module){name, start, end};
	return DWARF_CB_OK;
}

/* Drops mod from the Dwfl, keeping the others (and their parsed CFI): a
 * module whose file could not be opened keeps that failure while it is
 * reported again as it was, so it is dropped before the mappings are read
 * again. */
static void drop_module(struct uproc *p, Dwfl_Module *mod)
{
	struct module_list l = {.drop = mod};

	if (dwfl_getmodules(p->dwfl, keep_module, &l, 0)) {
		free(l.v);
		return; /* out of memory: keep them all */
	}
	dwfl_report_begin(p->dwfl);
	for (size_t i = 0; i < l.nr; i++)
		dwfl_report_module(p->dwfl, l.v[i].name, l.v[i].start, l.v[i].end);
	dwfl_report_end(p->dwfl, NULL, NULL);
	p->gen = ++p->u->gen;
	free(l.v);
}

/* Reads the mappings again for pc, code that no module's code and no
 * anonymous executable mapping holds. The module that holds it now, or
 * NULL. */
static Dwfl_Module *refresh_for(struct uproc *p, uint64_t pc)
{
	Dwfl_Module *mod = dwfl_addrmodule(p->dwfl, pc);
	GElf_Addr bias;

	if (p->misses >= MISSES_FREE && mono_ns() - p->refreshed_ns < REFRESH_NS)
		return NULL;
	if (mod && !dwfl_module_getelf(mod, &bias))
		drop_module(p, mod);
	if (report_maps(p))
		return NULL;
	mod = code_at(p, pc);
	p->misses = mod || in_anon(p, pc) ? 0 : p->misses + 1;
	return mod;
}

bool uproc__reload(struct uproc *p, uint64_t pc)
{
	return !code_at(p, pc) && !in_anon(p, pc) && refresh_for(p, pc);
}

bool uproc__addr(struct uproc *p, uint64_t pc, bool refresh, struct uaddr *out)
{
	Dwfl_Module *mod = code_at(p, pc);

	if (refresh && !mod && !in_anon(p, pc))
		mod = refresh_for(p, pc);
	if (mod && module_addr(p, mod, pc, out))
		return true;
	if (!mod) {
		const struct anon_range *r = in_anon(p, pc);

		/* The vDSO's ELF image starts at its mapping, at address 0
		 * (its image could not be read: no module). */
		if (r && r->name) {
			*out = (struct uaddr){.path = r->name, .addr = pc - r->start};
			return true;
		}
	}
	*out = (struct uaddr){.addr = pc};
	return false;
}

const char *uproc__root(const struct uproc *p)
{
	return p->root;
}

uint64_t uproc__gen(const struct uproc *p)
{
	return p->gen;
}

/* ---- the processes ------------------------------------------------------------- */

void uproc__free(struct uproc *p)
{
	if (!p)
		return;
	dwfl_end(p->dwfl);
	free(p->anon);
	procmaps__free(p->maps, p->nr_maps);
	free(p);
}

struct uproc *uproc__new(struct unwinder *u, pid_t pid)
{
	struct uproc *p = calloc(1, sizeof(*p));
	int err;

	if (!p)
		return NULL;
	p->u = u;
	p->pid = pid;
	if (other_root(pid))
		snprintf(p->root, sizeof(p->root), "/proc/%d/root", pid);
	p->dwfl = dwfl_begin(&proc_callbacks);
	if (!p->dwfl) {
		free(p);
		errno = ENOMEM;
		return NULL;
	}
	err = report_maps(p);
	if (err) {
		uproc__free(p);
		errno = -err;
		return NULL;
	}
	return p;
}
