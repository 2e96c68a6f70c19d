/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What the command-line tests (test_options.c, test_help.c) share: a parse
 * of "fsp-bpf ARGS..." with what it printed, and its verdicts. */
#ifndef FSP_OPTIONS_HELPERS_H
#define FSP_OPTIONS_HELPERS_H

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "commands.h"
#include "options.h"
#include "unit_helpers.h"

#define MAX_ARGS 64
#define USAGE_ERROR 64 /* argp_err_exit_status */

struct parse {
	char *argv[MAX_ARGS];
	int argc;
	bool run;
	int status;
	struct fsp_options o;
	char out[16384], err[4096]; /* what it printed */
};

static inline void slurp(FILE *f, char *buf, size_t size)
{
	size_t n;

	rewind(f);
	n = fread(buf, 1, size - 1, f);
	buf[n] = 0;
	fclose(f);
}

/* Parses "fsp-bpf ARGS..." (NULL-terminated), capturing stdout and stderr. */
static inline void parse_args(struct parse *p, const char *arg, ...)
{
	FILE *out = tmpfile(), *err = tmpfile();
	int saved_out = dup(1), saved_err = dup(2), status = -1;
	va_list ap;

	memset(p, 0, sizeof(*p));
	p->argv[p->argc++] = (char *)"fsp-bpf";
	va_start(ap, arg);
	for (; arg; arg = va_arg(ap, const char *)) {
		assert_true(p->argc < MAX_ARGS - 1);
		p->argv[p->argc++] = (char *)arg;
	}
	va_end(ap);
	assert_non_null(out);
	assert_non_null(err);
	fflush(stdout);
	fflush(stderr);
	dup2(fileno(out), 1);
	dup2(fileno(err), 2);
	p->run = options__parse(p->argc, p->argv, &p->o, &status);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(saved_out);
	close(saved_err);
	p->status = p->run ? -1 : status;
	slurp(out, p->out, sizeof(p->out));
	slurp(err, p->err, sizeof(p->err));
}

#define PARSE(p, ...) parse_args((p), __VA_ARGS__, NULL)

static inline void done(struct parse *p)
{
	options__free(&p->o);
}

/* The parse succeeded: o->command is name. */
static inline void assert_runs(struct parse *p, const struct fsp_command *cmd)
{
	if (!p->run)
		fail_msg("did not parse (status %d): %s", p->status, p->err);
	assert_ptr_equal(p->o.command, cmd);
	assert_string_equal(p->err, "");
}

/* A usage error: status 64, "PROG: message" then where help is. */
static inline void assert_usage_error(struct parse *p, const char *prog, const char *msg)
{
	char want[2048];

	assert_false(p->run);
	assert_int_equal(p->status, USAGE_ERROR);
	snprintf(want, sizeof(want),
		 "%s: %s\nTry `%s --help' or `%s --usage' for more information.\n", prog, msg, prog,
		 prog);
	assert_string_equal(p->err, want);
	assert_string_equal(p->out, "");
}

#endif /* FSP_OPTIONS_HELPERS_H */
