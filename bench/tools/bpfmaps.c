// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * bpfmaps - the occupancy of the BPF maps a process holds open (bench/soak.sh
 * watches fsp-bpf's with it).
 *
 *   bpfmaps PID
 *
 * Finds the maps among PID's descriptors (their /proc/PID/fdinfo has a
 * map_id), opens each by id and prints one line per map, "NAME ENTRIES MAX":
 * a hash map's entries are counted by walking its keys, an array's are its
 * max_entries, a map whose entries cannot be counted (ring buffer, queue,
 * task storage) prints "-". Needs root.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

/* The map id of descriptor fd of pid, 0 if it is no map. */
static __u32 fd_map_id(int pid, const char *fd)
{
	char path[320], line[256];
	unsigned int id = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%s", pid, fd);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "map_id: %u", &id) == 1)
			break;
	fclose(f);
	return id;
}

/* Keys of a hash map, walked; -1 on error. */
static long count_keys(int fd, __u32 key_size)
{
	char *key = calloc(2, key_size ? key_size : 1), *next = key + key_size;
	long n = 0;
	void *prev = NULL;

	if (!key)
		return -1;
	while (!bpf_map_get_next_key(fd, prev, next)) {
		memcpy(key, next, key_size);
		prev = key;
		n++;
	}
	free(key);
	return n;
}

static void show(__u32 id)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	int fd = bpf_map_get_fd_by_id(id);
	long n = -1;

	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len)) {
		if (fd >= 0)
			close(fd);
		return;
	}
	switch (info.type) {
	case BPF_MAP_TYPE_HASH:
	case BPF_MAP_TYPE_PERCPU_HASH:
	case BPF_MAP_TYPE_LRU_HASH:
		n = count_keys(fd, info.key_size);
		break;
	case BPF_MAP_TYPE_ARRAY:
	case BPF_MAP_TYPE_PERCPU_ARRAY:
		n = info.max_entries;
		break;
	default:
		break;
	}
	if (n >= 0)
		printf("%s %ld %u\n", info.name, n, info.max_entries);
	else
		printf("%s - %u\n", info.name, info.max_entries);
	close(fd);
}

int main(int argc, char **argv)
{
	char path[64];
	struct dirent *de;
	__u32 seen[256];
	int pid, nr = 0;
	DIR *d;

	if (argc != 2 || (pid = atoi(argv[1])) <= 0) {
		fprintf(stderr, "usage: bpfmaps PID\n");
		return 2;
	}
	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	d = opendir(path);
	if (!d) {
		fprintf(stderr, "bpfmaps: %s: %s\n", path, strerror(errno));
		return 1;
	}
	while ((de = readdir(d))) {
		__u32 id = de->d_name[0] != '.' ? fd_map_id(pid, de->d_name) : 0;
		int dup = 0;

		for (int i = 0; i < nr; i++)
			dup |= seen[i] == id;
		if (!id || dup || nr == 256)
			continue;
		seen[nr++] = id;
		show(id);
	}
	closedir(d);
	return 0;
}
