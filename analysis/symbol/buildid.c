// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The GNU build-id of an ELF file (the NT_GNU_BUILD_ID note): what ties a
 * profile's module to the exact file that ran, so that symbolization on
 * another host (report --binaries) or from a separate debug file never
 * names the wrong code. Read with libelf from the note sections, or from the
 * PT_NOTE segments of a file whose section headers were stripped.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "safeopen.h"
#include "symbol_int.h"
#include "symbolize.h"

#define BUILD_ID_MAX 64 /* bytes of id supported */

/* Looks for the GNU build-id note in one note block; its length or 0. */
static size_t note_build_id(Elf_Data *data, const unsigned char **id)
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	if (!data || !data->d_buf)
		return 0;
	while (off < data->d_size &&
	       (next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == sizeof("GNU") &&
		    !memcmp((const char *)data->d_buf + name_off, "GNU", sizeof("GNU")) &&
		    nh.n_descsz > 0 && nh.n_descsz <= BUILD_ID_MAX) {
			*id = (const unsigned char *)data->d_buf + desc_off;
			return nh.n_descsz;
		}
		off = next;
	}
	return 0;
}

static size_t sections_build_id(Elf *elf, const unsigned char **id)
{
	Elf_Scn *scn = NULL;
	size_t n;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		n = note_build_id(elf_getdata(scn, NULL), id);
		if (n)
			return n;
	}
	return 0;
}

static size_t segments_build_id(Elf *elf, const unsigned char **id)
{
	size_t nr, n;

	if (elf_getphdrnum(elf, &nr))
		return 0;
	for (size_t i = 0; i < nr; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_NOTE)
			continue;
		n = note_build_id(elf_getdata_rawchunk(elf, ph.p_offset, ph.p_filesz,
						       ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR),
				  id);
		if (n)
			return n;
	}
	return 0;
}

int elf__build_id_of(Elf *elf, char *buf, size_t size)
{
	const unsigned char *id = NULL;
	size_t n;

	if (!elf || elf_kind(elf) != ELF_K_ELF)
		return -ENOEXEC;
	n = sections_build_id(elf, &id);
	if (!n)
		n = segments_build_id(elf, &id);
	if (!n)
		return -ENOENT;
	if (size < 2 * n + 1)
		return -ENOSPC;
	for (size_t i = 0; i < n; i++)
		snprintf(buf + 2 * i, 3, "%02x", id[i]);
	return 0;
}

int elf__build_id(const char *path, char *buf, size_t size)
{
	Elf *elf;
	int fd, err;

	if (!path || !buf)
		return -EINVAL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	fd = safeopen__read(AT_FDCWD, path, 0, NULL, NULL); /* never a FIFO or device */
	if (fd == -EISDIR || fd == -EINVAL)
		return -ENOEXEC;
	if (fd < 0)
		return fd;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	err = elf ? elf__build_id_of(elf, buf, size) : -ENOEXEC;
	elf_end(elf);
	close(fd);
	return err;
}
