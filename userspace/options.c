// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <argp.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <linux/types.h>

#include "profiler.h"
#include "options.h"

const struct fsp_options fsp_default_options = {
	.frequency_hz = 999,
	.duration_s = 0,
	.min_pct = 0.5,
	.max_depth = FSP_MAX_DEPTH,
	.max_stacks = 8192,
	.follow_forks = true,
};

const char *argp_program_version = "fsp-bpf " FSP_VERSION;
const char *argp_program_bug_address = "the fsp-bpf issue tracker";

static const char doc[] =
	"fsp-bpf -- a feature-specific profiler.\n\n"
	"Charges CPU time to the features that libraries mark with fsp USDT probes "
	"(usdt/fsp.h) and to their instances, by sampling every thread's mark stack.\n\n"
	"USAGE: fsp-bpf [OPTIONS] -p PID[,PID...]\n"
	"       fsp-bpf [OPTIONS] [--] CMD [ARGS...]\n"
	"\v"
	"EXAMPLES:\n"
	"  sudo fsp-bpf -p 1234                  profile a running process until Ctrl-C\n"
	"  sudo fsp-bpf -p 1234,1240 -d 30       two processes for 30 seconds\n"
	"  sudo fsp-bpf -F 4999 -- ./app --flag  launch ./app, sample at 4999 Hz\n"
	"  sudo fsp-bpf --json prof.json -p 1234 also write the profile as JSON\n"
	"  sudo fsp-bpf --min-pct 0 -p 1234      show every feature and instance\n\n"
	"The session ends on Ctrl-C or SIGTERM, after -d seconds, or when every target "
	"has exited; the report is printed in every case. Needs root.";

enum {
	OPT_JSON = 0x100,
	OPT_MIN_PCT,
	OPT_MAX_DEPTH,
	OPT_MAX_STACKS,
	OPT_NO_FOLLOW,
};

static const struct argp_option options[] = {
	{"pid", 'p', "PID[,PID...]", 0, "Profile these running processes", 0},
	{"frequency", 'F', "HZ", 0, "Samples per second on each CPU (default 999, 1-100000)", 0},
	{"duration", 'd', "SECONDS", 0,
	 "Stop after this many seconds (default: until Ctrl-C or "
	 "the targets exit)",
	 0},
	{"json", OPT_JSON, "FILE", 0, "Also write the profile as JSON to FILE (- for stdout)", 0},
	{"min-pct", OPT_MIN_PCT, "PCT", 0,
	 "Fold features and instances under PCT% of running "
	 "time (default 0.5; 0 shows all)",
	 0},
	{"max-depth", OPT_MAX_DEPTH, "N", 0,
	 "Deepest mark stack tracked per thread (default and "
	 "maximum 64); deeper enters are counted as overflows",
	 0},
	{"max-stacks", OPT_MAX_STACKS, "N", 0,
	 "Distinct mark stacks kept (default 8192); more "
	 "are reported as unknown stacks",
	 0},
	{"no-follow-forks", OPT_NO_FOLLOW, NULL, 0, "Do not profile processes the targets fork", 0},
	{"verbose", 'v', NULL, 0, "Print libbpf's messages and what was attached", 0},
	{},
};

static int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_double(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	if (!s || !*s || *s == ' ')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static void parse_pids(struct argp_state *state, struct fsp_options *o, const char *arg)
{
	char *copy = strdup(arg), *tok, *save = NULL;

	if (!copy)
		argp_failure(state, 1, ENOMEM, "out of memory");
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint64_t pid;

		if (parse_u64(tok, 1, 4194304, &pid))
			argp_error(state,
				   "invalid PID '%s': expected a process id (a positive integer)",
				   tok);
		if (o->nr_pids == FSP_MAX_PIDS)
			argp_error(state, "too many PIDs: at most %d", FSP_MAX_PIDS);
		o->pids[o->nr_pids++] = pid;
	}
	free(copy);
	if (!o->nr_pids)
		argp_error(state, "-p needs at least one PID");
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct fsp_options *o = state->input;
	uint64_t u;

	switch (key) {
	case 'p':
		parse_pids(state, o, arg);
		break;
	case 'F':
		if (parse_u64(arg, 1, 100000, &o->frequency_hz))
			argp_error(state,
				   "invalid frequency '%s': expected an integer from 1 to 100000 "
				   "(Hz)",
				   arg);
		break;
	case 'd':
		if (parse_double(arg, 0.001, 31536000, &o->duration_s))
			argp_error(state,
				   "invalid duration '%s': expected seconds, a number greater "
				   "than 0 (e.g. 10 or 0.5)",
				   arg);
		break;
	case OPT_JSON:
		if (!*arg)
			argp_error(state, "--json needs a file name (or - for stdout)");
		o->json_path = arg;
		break;
	case OPT_MIN_PCT:
		if (parse_double(arg, 0, 100, &o->min_pct))
			argp_error(state,
				   "invalid --min-pct '%s': expected a percentage from 0 to 100",
				   arg);
		break;
	case OPT_MAX_DEPTH:
		if (parse_u64(arg, 1, FSP_MAX_DEPTH, &u))
			argp_error(state, "invalid --max-depth '%s': expected 1 to %d", arg,
				   FSP_MAX_DEPTH);
		o->max_depth = u;
		break;
	case OPT_MAX_STACKS:
		if (parse_u64(arg, 16, 1 << 20, &u))
			argp_error(state, "invalid --max-stacks '%s': expected 16 to %d", arg,
				   1 << 20);
		o->max_stacks = u;
		break;
	case OPT_NO_FOLLOW:
		o->follow_forks = false;
		break;
	case 'v':
		o->verbose = true;
		break;
	case ARGP_KEY_ARG:
		/* The first operand starts the command; the rest are its arguments. */
		o->cmd = &state->argv[state->next - 1];
		state->next = state->argc;
		break;
	case ARGP_KEY_END:
		if (!o->cmd && !o->nr_pids)
			argp_error(state, "nothing to profile: give -p PID or a command to run");
		if (o->cmd && o->nr_pids)
			argp_error(state, "give either -p PID or a command, not both");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

void options__parse(int argc, char **argv, struct fsp_options *opts)
{
	static const struct argp argp = {options, parse_opt, "[--] CMD [ARGS...]", doc};

	*opts = fsp_default_options;
	argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, opts);
}
