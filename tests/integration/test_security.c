// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * fsp-bpf runs as root; the processes it profiles and the users around it do
 * not. Each case here is an attack by an ordinary user (nobody, through
 * setpriv) on root's fsp-bpf (docs/architecture.md, "Files and paths fsp-bpf
 * opens as root"):
 *
 *   label_swap       a target's labels cannot be read from its memory (the
 *                    page is past the end of its truncated file); it swaps
 *                    the file's names for links to a root-only file: no
 *                    byte of it in the profile, label errors counted
 *   label_fifo       the same with FIFOs: the session still ends, at once
 *   label_unmapped   labels at an address whose file was unmapped before the
 *                    marks: a label error, not the old file's bytes
 *   label_blank      labels that are empty strings in an anonymous page that
 *                    replaced the file there, the process gone before a
 *                    rescan: empty labels, not the old file's bytes
 *   html_source      a target names a world-readable source file in a
 *                    root-only directory: root's HTML page does not embed
 *                    it (one every user can reach: embedded)
 *   output_link      -o DIR/out.json, which nobody made a link to a root
 *                    file (or a root FIFO being read) in a directory nobody
 *                    owns: record (the profile, or an HTML page), report
 *                    (text, JSON, HTML, pprof, folded), merge and diff (text,
 *                    HTML) refuse it before doing anything; the file, the
 *                    link stay
 *   output_device    -o DIR/out.json, which nobody made a link to a block
 *                    device (a loop device over a scratch file): refused
 *                    by every command, the device's bytes unchanged
 *   output_fifo      nobody's FIFO there: refused at once (before: the end of
 *                    the session blocked for a reader, or nobody read the
 *                    profile)
 *   output_sticky    a sticky world-writable directory (/tmp): nobody's link
 *                    and nobody's file are refused; root's own link is
 *                    followed
 *   plugin_unsafe    a plug-in others could change (world-writable, nobody's,
 *                    in nobody's or a world-writable directory, through
 *                    nobody's link) is refused with the reason, not loaded
 *                    as root; root's own, also in a sticky directory, loads
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "itest.h"

#define NOBODY 65534
#define SECRET_FEATURE "ROOT-ONLY-SECRET-feature"
#define SECRET_INSTANCE "ROOT-ONLY-SECRET-instance"

#define AS_NOBODY "setpriv --reuid=65534 --regid=65534 --clear-groups "

/* A directory of the scratch directory that nobody owns (mode 0755). */
static const char *nobody_dir(const char *name)
{
	const char *dir = itest_tmp("%s", name);

	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(chown(dir, NOBODY, NOBODY), 0);
	return dir;
}

/* A root-only file (0600 in a 0700 directory) holding the two secret
 * strings at offsets 0 and 64, as wl_labelfile's labels are: its path. */
static const char *root_secret(void)
{
	const char *dir = itest_tmp("rootonly"), *path = itest_tmp("rootonly/secret");
	char text[4096] = SECRET_FEATURE;
	FILE *f;

	strcpy(text + 64, SECRET_INSTANCE);
	assert_int_equal(mkdir(dir, 0700), 0);
	f = fopen(path, "we");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, sizeof(text), f), sizeof(text));
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, 0600), 0);
	return path;
}

/* Starts wl_labelfile MODE as nobody in dir (its READY there); returns once
 * it is set up. */
static void start_labelfile(struct itest_proc *w, const char *mode, const char *dir,
			    const char *target, const char *go, const char *ms)
{
	char ready[4096];
	char *argv[] = {"/usr/bin/setpriv",
			"--reuid=65534",
			"--regid=65534",
			"--clear-groups",
			(char *)itest_workload("wl_labelfile"),
			(char *)mode,
			(char *)dir,
			(char *)target,
			ready,
			(char *)go,
			(char *)ms,
			NULL};

	snprintf(ready, sizeof(ready), "%s/ready", dir);
	itest_spawn(w, "wl", argv);
	if (!itest_wait_file(ready, ITEST_TIMEOUT_S))
		fail_msg("wl_labelfile %s did not get ready", mode);
}

/* fsp-bpf -o JSON -p (the workload), GO created once it profiles, until the
 * workload exits: the JSON profile. */
static json_object *profile_labelfile(struct itest_proc *w, const char *go, const char *json)
{
	struct itest_proc p;
	int fd;

	itest_attach_fsp(&p, w->pid, "-o", json, NULL);
	fd = open(go, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	close(fd);
	itest_wait(&p, ITEST_TIMEOUT_S);
	itest_wait(w, ITEST_TIMEOUT_S);
	itest_assert_exit(w, 0);
	itest_assert_exit(&p, 0);
	print_message("  %s", p.err);
	assert_null(strstr(p.out, "SECRET"));
	assert_null(strstr(p.out, "decoy"));
	return itest_json_load(json);
}

/* The profile has no byte of the secret nor of the old file, the control
 * mark is there, and the unreadable labels are counted as errors. */
static void assert_no_file_labels(json_object *prof, const char *json)
{
	char *text = itest_slurp(json);

	assert_non_null(text);
	assert_null(strstr(text, "SECRET"));
	assert_null(strstr(text, "decoy"));
	free(text);
	print_message("  label_errors %llu, control samples %llu\n",
		      (unsigned long long)itest_diag(prof, "label_errors"),
		      (unsigned long long)itest_instance_samples(prof, "labelfile", "control"));
	assert_true(itest_instance_samples(prof, "labelfile", "control") > 0);
	assert_true(itest_diag(prof, "label_errors") > 0);
}

/* wl_labelfile MODE TARGET as nobody, profiled by root: no byte of a file
 * in the profile, label errors counted. */
static void label_attack(const char *mode, const char *target)
{
	const char *dir = nobody_dir("home"), *go = itest_tmp("go"), *json = itest_tmp("p.json");
	struct itest_proc w;
	json_object *prof;

	start_labelfile(&w, mode, dir, target, go, "1500");
	prof = profile_labelfile(&w, go, json);
	assert_no_file_labels(prof, json);
	json_object_put(prof);
}

static void test_label_swap(void **state)
{
	(void)state;
	label_attack("swap", root_secret());
}

static void test_label_fifo(void **state)
{
	(void)state;
	label_attack("swap", "fifo");
}

static void test_label_unmapped(void **state)
{
	(void)state;
	label_attack("unmapped", "-");
}

/* The process ends before the once-a-second rescan: its last scan saw the
 * file at the labels' address. */
static void test_label_blank(void **state)
{
	const char *dir = nobody_dir("home"), *go = itest_tmp("go"), *json = itest_tmp("p.json");
	struct itest_proc w;
	json_object *prof;
	char *text;

	(void)state;
	start_labelfile(&w, "blank", dir, "-", go, "200");
	prof = profile_labelfile(&w, go, json);
	text = itest_slurp(json);
	assert_non_null(text);
	assert_null(strstr(text, "decoy"));
	free(text);
	print_message("  samples of the empty feature %llu, label_errors %llu\n",
		      (unsigned long long)itest_feature_samples(prof, ""),
		      (unsigned long long)itest_diag(prof, "label_errors"));
	assert_true(itest_instance_samples(prof, "labelfile", "control") > 0);
	json_object_put(prof);
}

/* ---- the HTML page's sources --------------------------------------------------- */

/* path made a file holding text, mode 0644. */
static void write_source(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, 0644), 0);
}

/* root's HTML page of prof: its text (caller frees). */
static char *html_page(const char *prof, const char *html)
{
	struct itest_proc p;
	char *text;

	itest_run_fsp(&p, "html", ITEST_TIMEOUT_S, "report", "--format", "html", "-o", html, prof,
		      NULL);
	itest_assert_exit(&p, 0);
	text = itest_slurp(html);
	assert_non_null(text);
	return text;
}

/*
 * nobody's target names, as a source location, a file every user may read
 * (0644) in a directory only root may enter (0700): root's HTML page of its
 * profile does not embed it (before, it did), and says why. The same profile
 * naming a file on a path every user can walk: embedded.
 */
static void test_html_source(void **state)
{
	const char *dir = nobody_dir("home"), *go = itest_tmp("go"), *json = itest_tmp("p.json");
	const char *priv = itest_tmp("rootonly"), *secret = itest_tmp("rootonly/s.c");
	const char *pub = itest_tmp("pub.c"), *pub_json = itest_tmp("pub.json");
	char label[4200], *page;
	struct itest_proc w;
	json_object *prof;

	(void)state;
	assert_int_equal(mkdir(priv, 0700), 0);
	write_source(secret, "int ROOT_ONLY_SECRET_source;\n");
	write_source(pub, "int EVERY_USER_public_source;\n");
	snprintf(label, sizeof(label), "%s:1", secret);
	start_labelfile(&w, "source", dir, label, go, "300");
	prof = profile_labelfile(&w, go, json);
	assert_true(itest_instance_samples(prof, "source", label) > 0);
	json_object_put(prof);
	page = html_page(json, itest_tmp("p.html"));
	assert_null(strstr(page, "ROOT_ONLY_SECRET"));
	assert_non_null(strstr(page, "is not open to every user"));
	free(page);
	/* the control: the same profile naming a public file */
	assert_true(itest_shell("sed 's|%s|%s|g' '%s' > '%s'", secret, pub, json, pub_json));
	page = html_page(pub_json, itest_tmp("pub.html"));
	assert_non_null(strstr(page, "EVERY_USER_public_source"));
	free(page);
}

/* ---- output files ------------------------------------------------------------ */

/* A root file (mode 0644, "ORIGINAL") in the scratch directory: its path. */
static const char *root_file(const char *name)
{
	const char *path = itest_tmp("%s", name);
	FILE *f = fopen(path, "we");

	assert_non_null(f);
	fputs("ORIGINAL\n", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, 0644), 0);
	return path;
}

static void assert_unchanged(const char *path)
{
	char *text = itest_slurp(path);

	assert_non_null(text);
	assert_string_equal(text, "ORIGINAL\n");
	free(text);
}

static void assert_link(const char *path)
{
	struct stat st;

	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
}

/* A profile of wl_short, root's, for report, merge and diff. */
static const char *some_profile(void)
{
	const char *json = itest_tmp("in.json");
	struct itest_proc p;

	itest_run_fsp(&p, "rec", ITEST_TIMEOUT_S, "-o", json, "--", itest_workload("wl_short"),
		      itest_tmp("truth"), NULL);
	itest_assert_exit(&p, 0);
	return json;
}

/* Every command that writes out: refused, with one error line holding
 * needle; nothing profiled or written. */
static void assert_all_refuse(const char *out, const char *in, const char *needle)
{
	char *wl = (char *)itest_workload("wl_short"), *truth = (char *)itest_tmp("truth2");
	char *cmds[][10] = {
		{NULL, "-o", (char *)out, "--", wl, truth, NULL},
		{NULL, "--format", "html", "-o", (char *)out, "--", wl, truth, NULL},
		{NULL, "report", "-o", (char *)out, (char *)in, NULL},
		{NULL, "report", "--format", "json", "-o", (char *)out, (char *)in, NULL},
		{NULL, "report", "--format", "html", "-o", (char *)out, (char *)in, NULL},
		{NULL, "report", "--format", "pprof", "-o", (char *)out, (char *)in, NULL},
		{NULL, "report", "--format", "folded", "-o", (char *)out, (char *)in, NULL},
		{NULL, "merge", "-o", (char *)out, (char *)in, (char *)in, NULL},
		{NULL, "diff", "-o", (char *)out, (char *)in, (char *)in, NULL},
		{NULL, "diff", "--format", "html", "-o", (char *)out, (char *)in, (char *)in, NULL},
	};

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		struct itest_proc p;

		itest_run_fspv(&p, "out", ITEST_TIMEOUT_S, cmds[i]);
		itest_assert_failed_cleanly(&p);
		itest_assert_one_error_line(&p, out, needle, NULL);
		/* refused before profiling: the workload never ran */
		assert_int_equal(access(truth, F_OK), -1);
	}
}

static void test_output_link(void **state)
{
	const char *dir = nobody_dir("home"), *rootf = root_file("rootfile");
	const char *in = some_profile(), *out = itest_tmp("home/out.json");
	const char *fifo = itest_tmp("rootfifo"), *got = itest_tmp("got");
	char *argv[] = {"/bin/sh", "-c", NULL, NULL};
	char cmd[8192];
	struct itest_proc reader;
	char *text;

	(void)state;
	(void)dir;
	assert_true(itest_shell(AS_NOBODY "ln -s '%s' '%s'", rootf, out));
	assert_all_refuse(out, in, "symbolic link");
	assert_unchanged(rootf);
	assert_link(out);
	/* A link to a FIFO root reads: no byte comes through it. */
	assert_int_equal(mkfifo(fifo, 0600), 0);
	snprintf(cmd, sizeof(cmd), "cat '%s' > '%s'", fifo, got);
	argv[2] = cmd;
	itest_spawn(&reader, "reader", argv);
	assert_true(itest_shell(AS_NOBODY "ln -sfn '%s' '%s'", fifo, out));
	assert_all_refuse(out, in, "symbolic link");
	itest_kill(&reader);
	text = itest_slurp(got);
	assert_non_null(text);
	assert_string_equal(text, "");
	free(text);
}

/*
 * A block device over a scratch file of 1 MiB holding "ORIGINAL\n": a loop
 * device that goes away when *fd, kept open by the test, is closed (also when
 * the test dies). Its path, or NULL (said loudly) where loop devices cannot
 * be made (a container without /dev/loop-control).
 */
static const char *loop_device(int *fd)
{
	static char dev[32];
	const char *back = root_file("disk");
	struct loop_config cfg = {.info.lo_flags = LO_FLAGS_AUTOCLEAR};
	int ctl, n, bfd;

	assert_int_equal(truncate(back, 1 << 20), 0);
	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	n = ctl < 0 ? -1 : ioctl(ctl, LOOP_CTL_GET_FREE);
	if (ctl >= 0)
		close(ctl);
	if (n < 0) {
		print_message("  NOT TESTED: no loop device (/dev/loop-control: %s): the "
			      "block device case is left out\n",
			      strerror(errno));
		return NULL;
	}
	snprintf(dev, sizeof(dev), "/dev/loop%d", n);
	*fd = open(dev, O_RDWR | O_CLOEXEC);
	bfd = open(back, O_RDWR | O_CLOEXEC);
	assert_true(*fd >= 0 && bfd >= 0);
	cfg.fd = bfd;
	assert_int_equal(ioctl(*fd, LOOP_CONFIGURE, &cfg), 0);
	close(bfd);
	return dev;
}

/* The issue's own case: nobody links out.json to a block device (before,
 * root's fsp-bpf wrote the profile over the device's first bytes). */
static void test_output_device(void **state)
{
	const char *dir = nobody_dir("home"), *in = some_profile();
	const char *out = itest_tmp("home/out.json"), *disk;
	const char *dev;
	char head[16] = "";
	int fd = -1;
	FILE *f;

	(void)state;
	(void)dir;
	dev = loop_device(&fd);
	if (!dev)
		return;
	disk = itest_tmp("disk");
	assert_true(itest_shell(AS_NOBODY "ln -s '%s' '%s'", dev, out));
	assert_all_refuse(out, in, "symbolic link");
	close(fd);
	f = fopen(disk, "re");
	assert_non_null(f);
	assert_non_null(fgets(head, sizeof(head), f));
	fclose(f);
	assert_string_equal(head, "ORIGINAL\n");
	assert_link(out);
}

static void test_output_fifo(void **state)
{
	const char *dir = nobody_dir("home"), *in = some_profile();
	const char *out = itest_tmp("home/out.json"), *got = itest_tmp("home/got");
	char *argv[] = {"/bin/sh", "-c", NULL, NULL};
	struct itest_proc reader;
	char cmd[8192];
	char *text;

	(void)state;
	(void)dir;
	assert_true(itest_shell(AS_NOBODY "mkfifo -m 0666 '%s'", out));
	/* nobody reads it: before, the session's end waited for a reader */
	assert_all_refuse(out, in, "FIFO of user nobody");
	/* nobody reads it: before, nobody got the profile */
	snprintf(cmd, sizeof(cmd), AS_NOBODY "sh -c \"while :; do cat '%s' >> '%s'; done\"", out,
		 got);
	argv[2] = cmd;
	itest_spawn(&reader, "reader", argv);
	assert_all_refuse(out, in, "FIFO of user nobody");
	itest_kill(&reader);
	text = itest_slurp(got);
	assert_true(!text || !*text);
	free(text);
}

static void test_output_sticky(void **state)
{
	const char *dir = itest_tmp("tmp"), *rootf = root_file("rootfile"), *in = some_profile();
	const char *out = itest_tmp("tmp/out.json"), *theirs = itest_tmp("tmp/theirs.json");
	const char *mine = itest_tmp("tmp/mine.json"), *target = itest_tmp("target.json");
	struct itest_proc p;
	struct stat st;

	(void)state;
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(chmod(dir, 01777), 0);
	assert_true(itest_shell(AS_NOBODY "ln -s '%s' '%s'", rootf, out));
	assert_all_refuse(out, in, "symbolic link");
	assert_unchanged(rootf);
	assert_link(out);
	/* nobody's own file: root does not write into it (it stays nobody's,
	 * who would read the profile) */
	assert_true(itest_shell(AS_NOBODY "sh -c 'umask 0; echo ORIGINAL > %s'", theirs));
	assert_all_refuse(theirs, in, "file of user nobody");
	assert_unchanged(theirs);
	/* root's own link there is root's choice: followed */
	assert_int_equal(symlink(target, mine), 0);
	itest_run_fsp(&p, "mine", ITEST_TIMEOUT_S, "report", "--format", "json", "-o", mine, in,
		      NULL);
	itest_assert_exit(&p, 0);
	assert_link(mine);
	assert_int_equal(stat(target, &st), 0);
	assert_true(S_ISREG(st.st_mode) && st.st_size > 0);
}

/* ---- plug-ins ------------------------------------------------------------------ */

/* fsp-bpf report --plugin SO=short_feature IN: refused with one error line
 * holding needle, or (needle NULL) loaded and run. */
static void plugin_run(const char *so, const char *in, const char *needle)
{
	char spec[4200];
	struct itest_proc p;

	snprintf(spec, sizeof(spec), "%s=short_feature", so);
	itest_run_fsp(&p, "plugin", ITEST_TIMEOUT_S, "report", "--plugin", spec, in, NULL);
	if (!needle) {
		itest_assert_exit(&p, 0);
		assert_non_null(strstr(p.out, "payloads"));
	} else {
		/* an option's error: argp's "fsp-bpf report: " line, exit 64 */
		itest_assert_exit(&p, 64);
		print_message("  %.*s\n", (int)strcspn(p.err, "\n"), p.err);
		assert_non_null(strstr(p.err, "refusing plug-in"));
		assert_non_null(strstr(p.err, so));
		assert_non_null(strstr(p.err, needle));
		assert_null(strstr(p.out, "payloads"));
	}
	free(p.out);
	free(p.err);
}

/* A copy of examples/libpayloads.so at path (root's, mode 0755). */
static void copy_plugin(const char *path)
{
	assert_true(itest_shell("install -m 0755 '%s/examples/libpayloads.so' '%s'",
				getenv("FSP_OUT"), path));
}

static void test_plugin_unsafe(void **state)
{
	const char *in = some_profile(), *dir = itest_tmp("plug"), *so = itest_tmp("plug/lib.so");
	const char *home = nobody_dir("home"), *link = itest_tmp("home/lib.so");
	const char *sticky = itest_tmp("sticky"), *sso = itest_tmp("sticky/lib.so");

	(void)state;
	assert_int_equal(mkdir(dir, 0755), 0);
	copy_plugin(so);
	plugin_run(so, in, NULL);
	/* the file: writable by everyone, or nobody's */
	assert_int_equal(chmod(so, 0666), 0);
	plugin_run(so, in, "every user (mode 0666)");
	assert_int_equal(chmod(so, 0755), 0);
	assert_int_equal(chown(so, NOBODY, NOBODY), 0);
	plugin_run(so, in, "uid 65534");
	assert_int_equal(chown(so, 0, 0), 0);
	/* its directory: nobody's, or writable by everyone without sticky */
	assert_int_equal(chown(dir, NOBODY, NOBODY), 0);
	plugin_run(so, in, "user nobody");
	assert_int_equal(chown(dir, 0, 0), 0);
	assert_int_equal(chmod(dir, 0777), 0);
	plugin_run(so, in, "every user (mode 0777)");
	assert_int_equal(chmod(dir, 0755), 0);
	/* root's good plug-in through a link in nobody's directory */
	assert_true(itest_shell(AS_NOBODY "ln -s '%s' '%s'", so, link));
	plugin_run(link, in, "user nobody");
	(void)home;
	/* sticky: no one else can replace root's file there, but nobody's
	 * link could point anywhere */
	assert_int_equal(mkdir(sticky, 0755), 0);
	assert_int_equal(chmod(sticky, 01777), 0);
	copy_plugin(sso);
	plugin_run(sso, in, NULL);
	link = itest_tmp("sticky/link.so");
	assert_true(itest_shell(AS_NOBODY "ln -s '%s' '%s'", so, link));
	plugin_run(link, in, "symbolic link");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		ITEST(test_label_swap),	   ITEST(test_label_fifo),    ITEST(test_label_unmapped),
		ITEST(test_label_blank),   ITEST(test_html_source),   ITEST(test_output_link),
		ITEST(test_output_fifo),   ITEST(test_output_sticky), ITEST(test_output_device),
		ITEST(test_plugin_unsafe),
	};

	if (access("/usr/bin/setpriv", X_OK)) {
		fprintf(stderr,
			"test_security: SKIPPED: /usr/bin/setpriv (util-linux) is missing\n");
		return 0;
	}
	return ITEST_MAIN("security", tests);
}
