// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A target's text never reaches the terminal raw. wl_hostile's labels and
 * comm hold a terminal title (OSC 0), a screen clear, a colour, a newline, a
 * tab, invalid UTF-8 and a right-to-left override; it runs from a file whose
 * name holds some too, with such an argument.
 *
 *   tty       fsp-bpf in a terminal (tmux): the live view (--interval) and
 *             the final reports (--by thread, --by feature) and fsp-bpf's
 *             messages. Everything the program wrote to the terminal (the
 *             pane's output, piped) has no ESC or BEL but those of the live
 *             view's own redraw, no C1 control, no invalid UTF-8, no U+202E;
 *             the pane's title did not change; nothing is red; the screen
 *             was not cleared; the labels show escaped. A control run
 *             first shows that the same checks see the raw bytes.
 *   formats   the machine formats of a live session: folded stacks are
 *             valid UTF-8 with the labels percent-encoded (%FF%FE, %E2%80%AE);
 *             pprof strings valid UTF-8 (U+FFFD for the invalid bytes);
 *             the JSON profile valid UTF-8 with controls escaped, its
 *             labels read back exactly; its text report escaped again.
 *   list      fsp-bpf list -p PID of the running target (its comm, its
 *             executable's path from /proc/PID/maps) and list --map of a
 *             map whose description is hostile: escaped.
 *   long_labels
 *             wl_longlabel's instances of 300 bytes, of exactly 255 and of
 *             255 whose last character (an "é") the cut splits: the first
 *             and last are cut at 255 bytes, after their last whole
 *             character, and end with "…" (they were cut without a word);
 *             the second is whole.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "escape.h"
#include "itest.h"
#include "profile.pb-c.h"
#include "utf8.h"

#define TITLE "\x1b]0;owned\x07\x1b[2J\x1b[31mRED"
#define TITLE_E "\\x1b]0;owned\\x07\\x1b[2J\\x1b[31mRED"
#define COMM_E "\\x1b]0;owned\\x07"
/* The executable's name: a title and a right-to-left override. */
#define EXE_NAME "wl\x1b]0;owned\x07\xe2\x80\xae"
#define EXE_NAME_E "wl\\x1b]0;owned\\x07\\u202e"
#define EXE_NAME_SH "wl\\033]0;owned\\007\\342\\200\\256" /* for printf(1) */
#define ARG_SH "\\033[31mARG" /* an argument, for printf(1) */

/* The whole file at path (binary), its length in *len. */
static char *slurp_bin(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		fail_msg("cannot read %s: %s", path, strerror(errno));
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = 0;
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* Fails unless text[0..n) is what a terminal may get raw: valid UTF-8, no
 * control but line ends (\n, and \r from the terminal's line discipline),
 * no character escape.h escapes. */
static void assert_terminal_safe(const char *what, const char *text, size_t n)
{
	size_t i, len;
	uint32_t cp;

	for (i = 0; i < n; i += len) {
		if (text[i] == '\n' || text[i] == '\r') {
			len = 1;
			continue;
		}
		if (escape__unit(text + i, n - i, &len, &cp) != ESCAPE_KEEP) {
			printf("%s:\n%.*s\n", what, (int)n, text);
			fail_msg("%s: byte %zu (0x%02x, U+%04X) reached the terminal raw", what, i,
				 (unsigned char)text[i], cp);
		}
	}
}

static void assert_has(const char *what, const char *text, const char *needle)
{
	if (!strstr(text, needle)) {
		printf("%s:\n%s\n", what, text);
		fail_msg("%s: \"%s\" is not there", what, needle);
	}
}

/* Removes every occurrence of cut from s (NUL-terminated, length *n). */
static void remove_all(char *s, size_t *n, const char *cut)
{
	size_t k = strlen(cut);
	char *at;

	while ((at = memmem(s, *n, cut, k))) {
		memmove(at, at + k, *n - (size_t)(at - s) - k + 1);
		*n -= k;
	}
}

/* A copy of wl_hostile named EXE_NAME in the scratch directory: its path. */
static const char *hostile_exe(void)
{
	const char *path = itest_tmp("%s", EXE_NAME);

	assert_true(itest_shell("cp '%s' '%s' && chmod 755 '%s'", itest_workload("wl_hostile"),
				path, path));
	return path;
}

/* ---- a terminal ------------------------------------------------------------------ */

/* What tmux tells about pane `target`: format fmt ("#{pane_title}"). */
static char *tmux_get(const char *sock, const char *target, const char *fmt)
{
	const char *out = itest_tmp("tmux-get.txt");

	assert_true(itest_shell("tmux -S %s display-message -p -t %s '%s' > %s", sock, target, fmt,
				out));
	return itest_slurp(out);
}

/* The control: a program printing TITLE raw does change the title, colour
 * the text and clear the screen, as seen by the checks of test_tty. */
static void tty_control(const char *sock)
{
	const char *screen = itest_tmp("ctl.txt");
	char *title = NULL, *text;

	assert_true(itest_shell("tmux -S %s new-session -d -x 120 -y 40 -s ctl "
				"'echo BEFORE-MARKER; printf \"%s\\n\"; sleep 30'",
				sock, "\\033]0;owned\\007\\033[2J\\033[31mRED"));
	/* until tmux has read the program's output (5 s at most) */
	for (int i = 0; i < 50; i++) {
		itest_sleep(0.1);
		title = tmux_get(sock, "ctl", "#{pane_title}");
		if (title && !strncmp(title, "owned", 5))
			break;
		free(title);
		title = NULL;
	}
	assert_true(itest_shell("tmux -S %s capture-pane -e -p -t ctl > %s", sock, screen));
	text = itest_slurp(screen);
	printf("  control: title \"%s\"\n", title ? strtok(title, "\n") : "?");
	assert_non_null(title);
	assert_string_equal(title, "owned");
	assert_non_null(text);
	assert_has("the control's screen", text, "\x1b[31mRED");
	assert_null(strstr(text, "BEFORE-MARKER"));
	free(title);
	free(text);
	itest_shell("tmux -S %s kill-session -t ctl 2>/dev/null", sock);
}

/* The script the pane runs: waits for GO, then the live view by thread,
 * a marker, the final report by feature (saving the profile). */
static void tty_script(const char *script, const char *exe_dir)
{
	FILE *f = fopen(script, "w");

	assert_non_null(f);
	fprintf(f,
		"#!/bin/sh\n"
		"while [ ! -e %s ]; do sleep 0.05; done\n"
		"H=\"%s/$(printf '%s')\"\n"
		"A=\"$(printf '%s')\"\n"
		"%s -F %s --interval 0.3 --by thread -- \"$H\" %s 700 \"$A\"\n"
		"echo BEFORE-MARKER\n"
		"%s -F %s --min-pct 0 -o %s -- \"$H\" %s 700 \"$A\"\n"
		"echo FSP-EXIT=$?\n"
		"sleep 60\n",
		itest_tmp("go"), exe_dir, EXE_NAME_SH, ARG_SH, itest_fsp_bpf(), ITEST_HZ,
		itest_tmp("ready1"), itest_fsp_bpf(), ITEST_HZ, itest_tmp("prof.json"),
		itest_tmp("ready2"));
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(script, 0755), 0);
}

/* Waits for the script's end (FSP-EXIT= in the pane's history). */
static char *tty_wait(const char *sock)
{
	const char *screen = itest_tmp("screen.txt");
	char *text = NULL;

	for (int i = 0; i < 150 && !text; i++) {
		itest_sleep(0.2);
		itest_shell("tmux -S %s capture-pane -p -S -300 -t hostile > %s", sock, screen);
		text = itest_slurp(screen);
		if (text && !strstr(text, "FSP-EXIT=")) {
			free(text);
			text = NULL;
		}
	}
	if (!text)
		fail_msg("the script did not end within 30 s");
	return text;
}

/* What the programs wrote to the terminal, piped out of the pane. */
static void tty_check_raw(const char *raw_path)
{
	size_t n;
	char *raw = slurp_bin(raw_path, &n);

	/* the live view's own redraw is fsp-bpf's: the only escapes allowed */
	remove_all(raw, &n, "\x1b[H\x1b[2J");
	assert_terminal_safe("the terminal's input", raw, n);
	assert_has("the terminal's input", raw, "--- live report 1 at");
	assert_has("the terminal's input", raw, "\n  " TITLE_E " accounts for");
	assert_has("the terminal's input", raw, "\n" TITLE_E " accounts for");
	assert_has("the terminal's input", raw, "  line\\x0abreak\\x09tab\r\n");
	assert_has("the terminal's input", raw, "  bad\\xff\\xfe\r\n");
	assert_has("the terminal's input", raw, "  evil\\u202etxt.c\r\n");
	assert_has("the terminal's input", raw, " (" COMM_E ") of pid ");
	assert_has("the terminal's input", raw, "feature profile of ");
	assert_has("the terminal's input", raw, EXE_NAME_E " ");
	assert_has("the terminal's input", raw, " \\x1b[31mARG\r\n");
	free(raw);
}

static void test_tty(void **state)
{
	const char *sock = itest_tmp("tmux.sock"), *script = itest_tmp("run.sh");
	const char *screen = itest_tmp("final.txt"), *raw = itest_tmp("raw.log");
	char *text, *title, dir[4096];

	(void)state;
	if (system("command -v tmux >/dev/null 2>&1")) {
		fprintf(stderr,
			"SKIP: tmux is not installed (scripts/install-deps.sh installs it)\n");
		skip();
	}
	tty_control(sock);
	snprintf(dir, sizeof(dir), "%s", hostile_exe());
	*strrchr(dir, '/') = 0;
	tty_script(script, dir);
	assert_true(
		itest_shell("tmux -S %s new-session -d -x 160 -y 100 -s hostile %s", sock, script));
	assert_true(itest_shell("tmux -S %s pipe-pane -o -t hostile 'cat > %s'", sock, raw));
	itest_sleep(0.3); /* pipe-pane starts its command asynchronously */
	assert_true(itest_shell("touch %s", itest_tmp("go")));
	text = tty_wait(sock);
	printf("  the pane:\n%s\n", text);
	free(text);
	title = tmux_get(sock, "hostile", "#{pane_title}");
	assert_true(itest_shell("tmux -S %s capture-pane -e -p -t hostile > %s", sock, screen));
	text = itest_slurp(screen);
	itest_shell("tmux -S %s kill-server 2>/dev/null", sock);
	assert_non_null(title);
	assert_non_null(text);
	printf("  title \"%s\"\n", strtok(title, "\n"));
	assert_null(strstr(title, "owned"));
	assert_has("the screen", text, "FSP-EXIT=0");
	/* not cleared after the marker, no red text */
	assert_has("the screen", text, "BEFORE-MARKER");
	assert_null(strstr(text, "\x1b[31m"));
	assert_has("the screen", text, TITLE_E " accounts for");
	free(text);
	free(title);
	tty_check_raw(raw);
}

/* ---- machine formats ----------------------------------------------------------- */

static Perftools__Profiles__Profile *pprof_load(const char *path)
{
	size_t gz_len, cap = 1 << 20;
	char *gz = slurp_bin(path, &gz_len);
	unsigned char *raw = malloc(cap);
	Perftools__Profiles__Profile *prof;
	z_stream zs = {};

	assert_non_null(raw);
	assert_int_equal(inflateInit2(&zs, 15 + 16), Z_OK);
	zs.next_in = (Bytef *)gz;
	zs.avail_in = (uInt)gz_len;
	zs.next_out = raw;
	zs.avail_out = (uInt)cap;
	assert_int_equal(inflate(&zs, Z_FINISH), Z_STREAM_END);
	prof = perftools__profiles__profile__unpack(NULL, zs.total_out, raw);
	assert_non_null(prof);
	inflateEnd(&zs);
	free(raw);
	free(gz);
	return prof;
}

static void check_pprof(const char *path)
{
	Perftools__Profiles__Profile *prof = pprof_load(path);
	bool repaired = false, title = false;

	for (size_t i = 0; i < prof->n_string_table; i++) {
		const char *s = prof->string_table[i];

		if (utf8__valid_len(s, strlen(s)) != strlen(s))
			fail_msg("pprof string %zu is not valid UTF-8", i);
		repaired |= !strcmp(s, "bad\xef\xbf\xbd\xef\xbf\xbd");
		title |= !strcmp(s, TITLE);
	}
	assert_true(repaired);
	assert_true(title);
	perftools__profiles__profile__free_unpacked(prof, NULL);
}

/* The JSON profile: valid UTF-8, no raw control (json-c's line ends
 * aside), the labels back exactly (invalid bytes as U+FFFD). */
static void check_json(const char *path)
{
	size_t n;
	char *text = slurp_bin(path, &n);
	json_object *prof;

	assert_int_equal(utf8__valid_len(text, n), n);
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)text[i] < 0x20 && text[i] != '\n')
			fail_msg("raw control 0x%02x at byte %zu of the JSON profile",
				 (unsigned char)text[i], i);
	free(text);
	prof = itest_json_load(path);
	assert_true(itest_instance_samples(prof, TITLE, "line\nbreak\ttab") > 0);
	assert_true(itest_instance_samples(prof, TITLE, "bad\xef\xbf\xbd\xef\xbf\xbd") > 0);
	assert_true(itest_instance_samples(prof, "hostile", "evil\xe2\x80\xaetxt.c") > 0);
	json_object_put(prof);
}

static void test_formats(void **state)
{
	const char *exe = hostile_exe(), *json = itest_tmp("prof.json");
	const char *pb_file = itest_tmp("file.pb.gz");
	struct itest_proc p;

	(void)state;
	/* live: folded to stdout, the profile to a file */
	itest_run_fsp(&p, "folded", ITEST_TIMEOUT_S, "-F", ITEST_HZ, "--min-pct", "0", "--format",
		      "folded", "--json", json, "--", exe, itest_tmp("ready1"), "500", TITLE, NULL);
	itest_assert_exit(&p, 0);
	printf("  folded:\n%s", p.out);
	assert_terminal_safe("folded stacks", p.out, strlen(p.out));
	assert_has("folded stacks", p.out, "%1B]0%3Bowned%07%1B[2J%1B[31mRED;line%0Abreak%09tab ");
	assert_has("folded stacks", p.out, "%1B]0%3Bowned%07%1B[2J%1B[31mRED;bad%FF%FE ");
	assert_has("folded stacks", p.out, "\nhostile;evil%E2%80%AEtxt.c ");
	free(p.out);
	free(p.err);
	check_json(json);
	/* live pprof (the raw labels) and pprof of the file */
	itest_run_fsp(&p, "pprof", ITEST_TIMEOUT_S, "-F", ITEST_HZ, "--format", "pprof", "--", exe,
		      itest_tmp("ready2"), "500", NULL);
	itest_assert_exit(&p, 0);
	check_pprof(p.out_path);
	free(p.out);
	free(p.err);
	itest_run_fsp(&p, "report-pprof", ITEST_TIMEOUT_S, "report", "--format", "pprof", "-o",
		      pb_file, json, NULL);
	itest_assert_exit(&p, 0);
	free(p.out);
	free(p.err);
	check_pprof(pb_file);
	/* the file's text report: its \u001b read back, escaped again */
	itest_run_fsp(&p, "report", ITEST_TIMEOUT_S, "report", "--by", "process", json, NULL);
	itest_assert_exit(&p, 0);
	assert_terminal_safe("fsp-bpf report", p.out, strlen(p.out));
	assert_has("fsp-bpf report", p.out, "\n  " TITLE_E " accounts for");
	assert_has("fsp-bpf report", p.out, " (" COMM_E "): ");
	assert_has("fsp-bpf report", p.out, "  bad\xef\xbf\xbd\xef\xbf\xbd\n");
	free(p.out);
	free(p.err);
}

/* ---- fsp-bpf list ------------------------------------------------------------------- */

static void test_list(void **state)
{
	const char *exe = hostile_exe(), *ready = itest_tmp("ready"), *map = itest_tmp("evil.map");
	char *argv[] = {(char *)exe, (char *)ready, "20000", NULL}, pid[16];
	struct itest_proc w, p;
	FILE *f;

	(void)state;
	itest_spawn(&w, "wl", argv);
	assert_true(itest_wait_file(ready, 10));
	snprintf(pid, sizeof(pid), "%d", w.pid);
	itest_run_fsp(&p, "list", ITEST_TIMEOUT_S, "list", "-p", pid, NULL);
	itest_kill(&w);
	itest_assert_exit(&p, 0);
	printf("  list -p:\n%s", p.out);
	assert_terminal_safe("fsp-bpf list -p", p.out, strlen(p.out));
	assert_terminal_safe("fsp-bpf list -p (stderr)", p.err, strlen(p.err));
	assert_has("fsp-bpf list -p", p.out, " (" COMM_E "): USDT probes by file\n");
	assert_has("fsp-bpf list -p", p.out, "/" EXE_NAME_E "\n    provider fsp\n");
	free(p.out);
	free(p.err);
	/* a map file's text */
	f = fopen(map, "w");
	assert_non_null(f);
	fputs("map evil\nprovider fsp\ndescription a \x1b]0;owned\x07 \xe2\x80\xae map\n"
	      "feature f\nenter mark_enter\nleave mark_leave\n",
	      f);
	assert_int_equal(fclose(f), 0);
	itest_run_fsp(&p, "list-map", ITEST_TIMEOUT_S, "list", "--map", map, NULL);
	printf("  list --map:\n%s%s", p.out, p.err);
	assert_terminal_safe("fsp-bpf list --map", p.out, strlen(p.out));
	assert_terminal_safe("fsp-bpf list --map (stderr)", p.err, strlen(p.err));
	assert_has("fsp-bpf list --map", p.out, "\n  a \\x1b]0;owned\\x07 \\u202e map\n");
	free(p.out);
	free(p.err);
}

static void test_long_labels(void **state)
{
	const char *json = itest_tmp("long.json");
	char a[300], b[300], c[300];
	struct itest_proc p;
	json_object *prof;

	(void)state;
	itest_run_fsp(&p, "long", ITEST_TIMEOUT_S, "-F", ITEST_HZ, "-o", json, "--min-pct", "0",
		      "--", itest_workload("wl_longlabel"), itest_tmp("truth"), "600", NULL);
	itest_assert_exit(&p, 0);
	prof = itest_json_load(json);
	memset(a, 'a', 255);
	strcpy(a + 255, "\xe2\x80\xa6");
	memset(b, 'b', 255);
	b[255] = 0;
	memset(c, 'c', 254);
	strcpy(c + 254, "\xe2\x80\xa6");
	assert_true(itest_instance_samples(prof, "long", a) >= 100);
	assert_true(itest_instance_samples(prof, "long", b) >= 100);
	assert_true(itest_instance_samples(prof, "long", c) >= 100);
	/* The report shows them so. */
	assert_has("the text report", p.out, "aaaa\xe2\x80\xa6\n");
	assert_has("the text report", p.out, "cccc\xe2\x80\xa6\n");
	json_object_put(prof);
	free(p.out);
	free(p.err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ITEST(test_tty),
		ITEST(test_formats),
		ITEST(test_list),
		ITEST(test_long_labels),
	};

	return ITEST_MAIN("escape", tests);
}
