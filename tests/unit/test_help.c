// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of --help, -h, -?, --usage and --version in every subcommand:
 * what they print, that they end the parse, and the examples' layout. */
#include <stdlib.h>
#include <string.h>

#include "options_helpers.h"

static void test_help_usage_version(void **state)
{
	struct parse p;

	(void)state;
	PARSE(&p, "--help");
	assert_false(p.run);
	assert_int_equal(p.status, 0);
	assert_string_equal(p.err, "");
	assert_true(!strncmp(p.out, "Usage: fsp-bpf [OPTION...] [--] CMD [ARGS...]\n", 46));
	/* The defaults in the help come from their macros. */
	assert_non_null(strstr(p.out, "Samples per second on each CPU (default 999,\n"));
	assert_non_null(strstr(p.out, "Distinct mark stacks kept (default 8192)"));
	assert_non_null(strstr(p.out, "view counts (default 16384)"));
	assert_non_null(strstr(p.out, "maximum 64); deeper enters"));
	assert_non_null(strstr(p.out, "time (default 0.5; 0 shows all)"));
	assert_non_null(strstr(p.out, " Report options:\n"));
	assert_non_null(strstr(p.out, "  -h, -?, --help             Give this help list\n"));
	assert_non_null(strstr(p.out, "  -V, --version              Print program version\n"));
	/* No tracker without an address: where to look instead. */
	assert_null(strstr(p.out, "Report bugs"));
	assert_non_null(strstr(p.out, "Manuals: man fsp-bpf, man fsp-bpf-SUBCOMMAND, man fsp.h"));
	assert_null(strstr(p.out, "usdt/fsp.h"));
	assert_non_null(strstr(p.out, "<fsp/fsp.h>"));
	done(&p);
	/* --help ends the parse: what follows is not looked at. */
	PARSE(&p, "report", "--help", "--bogus");
	assert_false(p.run);
	assert_int_equal(p.status, 0);
	assert_string_equal(p.err, "");
	assert_true(!strncmp(p.out, "Usage: fsp-bpf report [OPTION...] FILE\n", 39));
	assert_non_null(strstr(p.out, "      --pid=PID[,...]        Show only these processes"));
	done(&p);
	PARSE(&p, "diff", "-?");
	assert_int_equal(p.status, 0);
	assert_non_null(strstr(p.out, "(default 0.5; 0 shows all)"));
	done(&p);
	PARSE(&p, "merge", "--usage");
	assert_false(p.run);
	assert_int_equal(p.status, 0);
	assert_string_equal(p.out,
			    "Usage: fsp-bpf merge [-h?V] [-o FILE] [--file-mode=MODE] "
			    "[--output=FILE]\n            [--help] [--usage] [--version] FILE "
			    "FILE...\n");
	done(&p);
	PARSE(&p, "-p", "1", "-V", "-F", "0");
	assert_false(p.run);
	assert_int_equal(p.status, 0);
	assert_string_equal(p.out, "fsp-bpf " FSP_VERSION "\n");
	assert_string_equal(p.err, "");
	done(&p);
}

/* -h is --help, in every subcommand. */
static void test_help_short(void **state)
{
	static const char *const cmds[] = {"record", "report", "merge", "diff", "list"};
	struct parse p;
	char *help;

	(void)state;
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		PARSE(&p, cmds[i], "--help");
		help = strdup(p.out);
		done(&p);
		PARSE(&p, cmds[i], "-h");
		assert_false(p.run);
		assert_int_equal(p.status, 0);
		assert_string_equal(p.err, "");
		assert_string_equal(p.out, help);
		done(&p);
		free(help);
	}
	/* record's without the subcommand's name too. */
	PARSE(&p, "-h");
	assert_int_equal(p.status, 0);
	assert_true(!strncmp(p.out, "Usage: fsp-bpf [OPTION...]", 26));
	done(&p);
}

/*
 * Every line of a help's EXAMPLES is an example (two spaces in) or the
 * continuation of one's description (in its column): none is cut by
 * argp's wrapping at 79 columns, which starts the rest of a line at column
 * 0, mid-sentence.
 */
static void test_help_examples_unwrapped(void **state)
{
	static const char *const cmds[] = {"record", "report", "merge", "diff", "list"};
	struct parse p;

	(void)state;
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		const char *line;

		PARSE(&p, cmds[i], "--help");
		line = strstr(p.out, "\nEXAMPLES:\n");
		assert_non_null(line);
		line = strchr(line + 1, '\n') + 1;
		while (*line && *line != '\n') {
			const char *end = strchr(line, '\n');

			if (strncmp(line, "  ", 2) || (end && end - line > 79))
				fail_msg("fsp-bpf %s --help: an example line is wrapped: \"%.*s\"",
					 cmds[i], end ? (int)(end - line) : (int)strlen(line),
					 line);
			line = end ? end + 1 : line + strlen(line);
		}
		done(&p);
	}
}
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_help_usage_version),
		cmocka_unit_test(test_help_short),
		cmocka_unit_test(test_help_examples_unwrapped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
