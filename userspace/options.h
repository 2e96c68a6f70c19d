/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Command-line options of fsp-bpf, their defaults in one place, argp parsing. */
#ifndef FSP_OPTIONS_H
#define FSP_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define FSP_MAX_PIDS 256

struct fsp_options {
	pid_t pids[FSP_MAX_PIDS];
	int nr_pids;
	char **cmd; /* NULL-terminated argv of -- CMD, or NULL */
	uint64_t frequency_hz;
	double duration_s;
	const char *json_path;
	double min_pct;
	uint32_t max_depth;
	uint32_t max_stacks;
	bool follow_forks;
	bool verbose;
};

extern const struct fsp_options fsp_default_options;

/* Parses argv into opts (initialised from the defaults). Exits with a usage
 * error on bad options, as argp does. */
void options__parse(int argc, char **argv, struct fsp_options *opts);

#endif /* FSP_OPTIONS_H */
