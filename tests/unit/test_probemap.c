// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of probe maps (analysis/probemap/probemap.c): every directive, every
 * error (its line, one line of text), instance templates, --feature
 * selection, the formatter, loading files, and the maps shipped in maps/. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probemap.h"
#include "probemap_dir.h"
#include "unit_helpers.h"

#define PATH "t.map"
#define HEAD "map pg\nprovider postgresql\n"

/* ---- helpers -------------------------------------------------------------------------------- */

static struct probemap *parse_len(const char *text, size_t len)
{
	struct probemap *m = (struct probemap *)1;
	char err[512] = "";
	int ret = probemap__parse(text, len, PATH, &m, err, sizeof(err));

	if (ret)
		fail_msg("parse failed (%d): %s\n--- text:\n%.*s", ret, err, (int)len, text);
	assert_non_null(m);
	assert_string_equal(err, "");
	return m;
}

static struct probemap *parse(const char *text)
{
	return parse_len(text, strlen(text));
}

/* The message must be "t.map:LINE: ..." on one line and contain want. */
static void check_msg(const char *err, unsigned int line, const char *want, const char *text)
{
	char prefix[64];

	snprintf(prefix, sizeof(prefix), PATH ":%u: ", line);
	if (strncmp(err, prefix, strlen(prefix)) || !strstr(err, want) || strchr(err, '\n'))
		fail_msg("message \"%s\", want prefix \"%s\" and \"%s\"\n--- text:\n%s", err,
			 prefix, want, text);
}

static void bad_len(const char *text, size_t len, unsigned int line, const char *want)
{
	struct probemap *m = (struct probemap *)1;
	char err[512] = "";
	int ret = probemap__parse(text, len, PATH, &m, err, sizeof(err));

	if (ret != -EINVAL)
		fail_msg("parse returned %d, want -EINVAL\n--- text:\n%.*s", ret, (int)len, text);
	assert_null(m);
	check_msg(err, line, want, text);
}

static void bad(const char *text, unsigned int line, const char *want)
{
	bad_len(text, strlen(text), line, want);
}

static const struct probemap_feature *feat(const struct probemap *m, const char *name)
{
	const struct probemap_feature *f = probemap__feature(m, name);

	if (!f)
		fail_msg("no feature %s", name);
	return f;
}

static void check_part(const struct probemap_feature *f, unsigned int i,
		       enum probemap_part_type type, unsigned int arg, const char *lit)
{
	const struct probemap_part *p = &f->parts[i];

	assert_true(i < f->nr_parts);
	assert_int_equal(p->type, type);
	if (type == PROBEMAP_PART_LIT) {
		assert_int_equal(p->len, strlen(lit));
		assert_string_equal(p->lit, lit);
	} else {
		assert_int_equal(p->arg, arg);
	}
}

#define LIT(f, i, s) check_part((f), (i), PROBEMAP_PART_LIT, 0, (s))
#define STR(f, i, n) check_part((f), (i), PROBEMAP_PART_STR, (n), NULL)
#define INT(f, i, n) check_part((f), (i), PROBEMAP_PART_INT, (n), NULL)

/* A one-feature map whose feature x has the given instance line. */
static struct probemap *with_instance(const char *instance_line)
{
	char text[1024];

	snprintf(text, sizeof(text), HEAD "feature x\nenter a\nleave b\n%s\n", instance_line);
	return parse(text);
}

static void bad_instance(const char *instance_line, const char *want)
{
	char text[1024];

	snprintf(text, sizeof(text), HEAD "feature x\nenter a\nleave b\n%s\n", instance_line);
	bad(text, 6, want);
}

static char *format(const struct probemap *m, const struct probemap_feature *f)
{
	static char buf[512];
	int n = probemap__format_template(m, f, buf, sizeof(buf));

	assert_int_equal(n, (int)strlen(buf));
	return buf;
}

/* ---- directives ----------------------------------------------------------------------------- */

static void test_minimal(void **state)
{
	struct probemap *m = parse(HEAD "feature q\n  enter s\n  leave d\n");
	const struct probemap_feature *f;

	(void)state;
	assert_string_equal(m->name, "pg");
	assert_string_equal(m->provider, "postgresql");
	assert_string_equal(m->description, "");
	assert_string_equal(m->path, PATH);
	assert_int_equal(m->nr_features, 1);
	f = &m->features[0];
	assert_string_equal(f->name, "q");
	assert_string_equal(f->enter, "s");
	assert_string_equal(f->leave, "d");
	assert_int_equal(f->kind, PROBEMAP_MARK);
	assert_int_equal(f->payload_arg, -1);
	assert_int_equal(f->outer, -1);
	assert_int_equal(f->nr_parts, 0);
	assert_false(f->match_instance);
	assert_false(f->default_off);
	assert_int_equal(f->line, 3);
	assert_string_equal(format(m, f), "");
	probemap__free(m);
	probemap__free(NULL);
}

static void test_every_directive(void **state)
{
	const char *text = "# a map\n"
			   "\n"
			   "   map\tMy_Map9   # the name\n"
			   "provider\tpython_3 #\n"
			   "description   CPython: gc and calls \xc3\xa9\xe2\x82\xac   # trailing\n"
			   "\n"
			   "feature gc\n"
			   "\tenter gc__start\n"
			   "\tleave gc__done\n"
			   "\tinstance generation {int:0}  # comment\n"
			   "\tpayload 11\n"
			   "\tkind mark\n"
			   "feature call-2_x\n"
			   "\tdefault off\n"
			   "\tmatch instance\n"
			   "\tinstance \"{str:1} ({str:0})\"\n"
			   "\tleave function__return\n"
			   "\tenter function__entry\n"
			   "\tframe caller\n"
			   "feature cb\n"
			   "enter cb_in#comment right after\n"
			   "leave cb_out\n"
			   "kind antimark\n"
			   "default off";
	struct probemap *m = parse(text);
	const struct probemap_feature *f;

	(void)state;
	assert_string_equal(m->name, "My_Map9");
	assert_string_equal(m->provider, "python_3");
	assert_string_equal(m->description, "CPython: gc and calls \xc3\xa9\xe2\x82\xac");
	assert_int_equal(m->nr_features, 3);

	f = feat(m, "gc");
	assert_ptr_equal(f, &m->features[0]);
	assert_int_equal(f->line, 7);
	assert_string_equal(f->enter, "gc__start");
	assert_string_equal(f->leave, "gc__done");
	assert_int_equal(f->payload_arg, 11);
	assert_int_equal(f->kind, PROBEMAP_MARK);
	assert_int_equal(f->nr_parts, 2);
	LIT(f, 0, "generation ");
	INT(f, 1, 0);
	assert_false(f->default_off);
	assert_false(f->frame_caller);

	f = feat(m, "call-2_x");
	assert_int_equal(f->line, 13);
	assert_string_equal(f->enter, "function__entry");
	assert_string_equal(f->leave, "function__return");
	assert_true(f->default_off);
	assert_true(f->match_instance);
	assert_true(f->frame_caller);
	assert_int_equal(f->nr_parts, 4);
	STR(f, 0, 1);
	LIT(f, 1, " (");
	STR(f, 2, 0);
	LIT(f, 3, ")");
	assert_int_equal(f->payload_arg, -1);

	f = feat(m, "cb");
	assert_string_equal(f->enter, "cb_in");
	assert_int_equal(f->kind, PROBEMAP_ANTIMARK);
	assert_true(f->default_off);
	assert_int_equal(f->nr_parts, 0);
	probemap__free(m);

	/* CRLF line ends, a last line without '\n', a map that is only header + feature */
	m = parse("map a\r\nprovider b\r\nfeature c\r\nenter d\r\nleave e\r\ninstance x {int:1}\r");
	f = feat(m, "c");
	assert_string_equal(f->leave, "e");
	assert_int_equal(f->nr_parts, 2);
	LIT(f, 0, "x ");
	probemap__free(m);

	/* names at the length limit (63) */
	{
		char text2[512], n63[64], f63[64];

		memset(n63, 'N', 63);
		n63[63] = 0;
		memset(f63, 'f', 63);
		f63[63] = 0;
		snprintf(text2, sizeof(text2),
			 "map %s\nprovider %s\nfeature %s\nenter %s\nleave x%.62s\n", n63, n63, f63,
			 n63, n63);
		m = parse(text2);
		assert_string_equal(m->name, n63);
		assert_string_equal(m->provider, n63);
		assert_string_equal(m->features[0].name, f63);
		assert_string_equal(m->features[0].enter, n63);
		probemap__free(m);
	}
}

static void test_path_default(void **state)
{
	struct probemap *m;
	char err[256];
	const char *good = HEAD "feature a\nenter b\nleave c\n";

	(void)state;
	assert_int_equal(probemap__parse(good, strlen(good), NULL, &m, err, sizeof(err)), 0);
	assert_string_equal(m->path, "<string>");
	probemap__free(m);
	assert_int_equal(probemap__parse("bogus", 5, NULL, &m, err, sizeof(err)), -EINVAL);
	assert_null(m);
	assert_int_equal(strncmp(err, "<string>:1: unknown directive 'bogus'", 37), 0);
	/* no error buffer, or a tiny one */
	assert_int_equal(probemap__parse("bogus", 5, PATH, &m, NULL, 0), -EINVAL);
	assert_int_equal(probemap__parse("bogus", 5, PATH, &m, err, 8), -EINVAL);
	assert_string_equal(err, "t.map:1");
	assert_int_equal(probemap__parse(NULL, 0, PATH, &m, err, sizeof(err)), -EINVAL);
	check_msg(err, 1, "empty file", "");
}

static void test_many_features(void **state)
{
	char *text = malloc(64 * 1024), *p;
	struct probemap *m;
	int i;

	(void)state;
	assert_non_null(text);
	p = text + sprintf(text, HEAD);
	for (i = 0; i < PROBEMAP_MAX_FEATURES; i++)
		p += sprintf(p, "feature f%d\nenter e%d\nleave l%d\ninstance {outer:f%d}\n", i, i,
			     i, (i + 1) % PROBEMAP_MAX_FEATURES);
	m = parse(text);
	assert_int_equal(m->nr_features, PROBEMAP_MAX_FEATURES);
	for (i = 0; i < PROBEMAP_MAX_FEATURES; i++) {
		char name[16];

		snprintf(name, sizeof(name), "f%d", i);
		assert_int_equal(probemap__feature_index(m, name), i);
		assert_int_equal(m->features[i].outer, (i + 1) % PROBEMAP_MAX_FEATURES);
		assert_int_equal(m->features[i].line, 3 + 4 * i);
	}
	probemap__free(m);
	sprintf(p, "feature one-more\nenter a\nleave b\n");
	bad(text, 3 + 4 * PROBEMAP_MAX_FEATURES, "too many features (at most 64");
	free(text);
}

/* ---- instance templates --------------------------------------------------------------------- */

static void test_templates(void **state)
{
	struct probemap *m;
	const struct probemap_feature *f;

	(void)state;
	m = with_instance("instance {str:1} ({str:0})");
	f = feat(m, "x");
	assert_int_equal(f->nr_parts, 4);
	STR(f, 0, 1);
	LIT(f, 1, " (");
	STR(f, 2, 0);
	LIT(f, 3, ")");
	assert_string_equal(format(m, f), "{str:1} ({str:0})");
	probemap__free(m);

	m = with_instance("instance {int:11}{str:10}");
	f = feat(m, "x");
	assert_int_equal(f->nr_parts, 2);
	INT(f, 0, 11);
	STR(f, 1, 10);
	probemap__free(m);

	m = with_instance("instance just text");
	f = feat(m, "x");
	assert_int_equal(f->nr_parts, 1);
	LIT(f, 0, "just text");
	probemap__free(m);

	/* escapes: {{ and }} are braces, merged into the literal around them */
	m = with_instance("instance a{{{int:2}}}b {{str:0}}");
	f = feat(m, "x");
	assert_int_equal(f->nr_parts, 3);
	LIT(f, 0, "a{");
	INT(f, 1, 2);
	LIT(f, 2, "}b {str:0}");
	assert_string_equal(format(m, f), "a{{{int:2}}}b {{str:0}}");
	probemap__free(m);

	/* quotes keep white space and '#', a comment may follow them */
	m = with_instance("instance   \"  # {int:0} \"   # a comment \"x\"");
	f = feat(m, "x");
	assert_int_equal(f->nr_parts, 3);
	LIT(f, 0, "  # ");
	INT(f, 1, 0);
	LIT(f, 2, " ");
	assert_string_equal(format(m, f), "\"  # {int:0} \"");
	probemap__free(m);

	/* unquoted: trimmed, '#' starts a comment, inner quotes are text */
	m = with_instance("instance \t say \"hi\" {int:0}\t # comment");
	f = feat(m, "x");
	assert_int_equal(f->nr_parts, 2);
	LIT(f, 0, "say \"hi\" ");
	assert_string_equal(format(m, f), "say \"hi\" {int:0}");
	probemap__free(m);

	/* "#" right after the directive word: a comment, so no template */
	bad_instance("instance# nothing", "empty instance template");

	/* outer, alone (quoted too) */
	m = parse(HEAD "feature a\nenter a1\nleave a2\ninstance {str:0}\n"
		       "feature b\nenter b1\nleave b2\ninstance \"{outer:a}\"\n");
	f = feat(m, "b");
	assert_int_equal(f->outer, 0);
	assert_int_equal(f->nr_parts, 0);
	assert_string_equal(format(m, f), "{outer:a}");
	probemap__free(m);

	/* {global:SYMBOL}: a global char * of the probed file */
	m = parse(HEAD "feature x\nenter a\nleave b\ninstance q {global:debug_query_string}!\n"
		       "match instance\n");
	f = feat(m, "x");
	assert_int_equal(f->nr_parts, 3);
	LIT(f, 0, "q ");
	assert_int_equal(f->parts[1].type, PROBEMAP_PART_GLOBAL);
	assert_string_equal(f->parts[1].sym, "debug_query_string");
	LIT(f, 2, "!");
	assert_true(f->match_instance);
	assert_string_equal(format(m, f), "q {global:debug_query_string}!");
	probemap__free(m);

	/* UTF-8 text */
	m = with_instance("instance caf\xc3\xa9 {str:0} \xf0\x9f\x98\x80");
	f = feat(m, "x");
	LIT(f, 0, "caf\xc3\xa9 ");
	LIT(f, 2, " \xf0\x9f\x98\x80");
	probemap__free(m);
}

static void test_template_split(void **state)
{
	const int L = PROBEMAP_LIT_LEN, N = PROBEMAP_MAX_PARTS;
	char line[512], lit[256], one[2] = "";
	struct probemap *m;
	const struct probemap_feature *f;
	int i;

	(void)state;
	for (i = 0; i < (int)sizeof(lit) - 1; i++)
		lit[i] = 'a' + i % 26;
	lit[sizeof(lit) - 1] = 0;

	/* exactly PROBEMAP_LIT_LEN bytes: one part */
	snprintf(line, sizeof(line), "instance %.*s", L, lit);
	m = with_instance(line);
	f = feat(m, "x");
	assert_int_equal(f->nr_parts, 1);
	assert_int_equal(f->parts[0].len, L);
	assert_int_equal(strlen(f->parts[0].lit), L);
	probemap__free(m);

	/* one byte more: L + 1 */
	snprintf(line, sizeof(line), "instance %.*s{int:3}", L + 1, lit);
	m = with_instance(line);
	f = feat(m, "x");
	assert_int_equal(f->nr_parts, 3);
	assert_int_equal(f->parts[0].len, L);
	assert_memory_equal(f->parts[0].lit, lit, L);
	assert_int_equal(f->parts[0].lit[L], 0);
	one[0] = lit[L];
	LIT(f, 1, one);
	INT(f, 2, 3);
	assert_int_equal(strncmp(format(m, f), lit, L + 1), 0);
	probemap__free(m);

	/* N * L bytes: the most literal text a template holds */
	snprintf(line, sizeof(line), "instance %.*s", N * L, lit);
	m = with_instance(line);
	f = feat(m, "x");
	assert_int_equal(f->nr_parts, N);
	for (i = 0; i < N; i++) {
		assert_int_equal(f->parts[i].type, PROBEMAP_PART_LIT);
		assert_int_equal(f->parts[i].len, L);
		assert_memory_equal(f->parts[i].lit, lit + L * i, L);
	}
	assert_string_equal(format(m, f), line + strlen("instance "));
	probemap__free(m);

	/* a split escape: the last byte of the first part is the '{' of "{{" */
	snprintf(line, sizeof(line), "instance %.*s{{x", L - 1, lit);
	m = with_instance(line);
	f = feat(m, "x");
	assert_int_equal(f->nr_parts, 2);
	assert_int_equal(f->parts[0].lit[L - 1], '{');
	LIT(f, 1, "x");
	assert_string_equal(format(m, f), line + strlen("instance "));
	probemap__free(m);

	/* one byte over */
	snprintf(line, sizeof(line), "instance %.*s", N * L + 1, lit);
	bad_instance(line, "more than 6 parts");
	snprintf(line, sizeof(line), "instance {int:0}{int:1}{int:2}{int:3}{int:4}%.*s", L + 1,
		 lit);
	bad_instance(line, "more than 6 parts");
	bad_instance("instance {int:0}{int:1}{int:2}{int:3}{int:4}{int:5}{int:6}",
		     "more than 6 parts");
	bad_instance("instance a{int:0}b{int:1}c{int:2}d", "more than 6 parts");
	m = with_instance("instance {int:0}{int:1}{int:2}{int:3}{int:4}{int:5}");
	assert_int_equal(m->features[0].nr_parts, 6);
	probemap__free(m);
	m = with_instance("instance a{int:0}b{int:1}c{int:2}");
	assert_int_equal(m->features[0].nr_parts, 6);
	probemap__free(m);
}

static void test_template_errors(void **state)
{
	(void)state;
	bad_instance("instance", "empty instance template");
	bad_instance("instance   ", "empty instance template");
	bad_instance("instance \"\"", "empty instance template");
	bad_instance("instance # nothing", "empty instance template");
	bad_instance("instance {str:0", "unterminated '{'");
	bad_instance("instance x {", "unterminated '{'");
	bad_instance("instance \"{str:0\"", "unterminated '{'");
	bad_instance("instance x }", "unmatched '}'");
	bad_instance("instance {str:0}}", "unmatched '}'");
	bad_instance("instance {foo:1}", "unknown placeholder '{foo:1}'");
	bad_instance("instance {str}", "unknown placeholder '{str}'");
	bad_instance("instance {}", "unknown placeholder '{}'");
	bad_instance("instance { str:0}", "unknown placeholder");
	bad_instance("instance {STR:0}", "unknown placeholder");
	bad_instance("instance {str:}", "bad argument number ''");
	bad_instance("instance {str:12}", "bad argument number '12' (USDT arguments are numbered "
					  "0 to 11)");
	bad_instance("instance {int:-1}", "bad argument number '-1'");
	bad_instance("instance {int:1a}", "bad argument number '1a'");
	bad_instance("instance {int:007}", "bad argument number '007'");
	bad_instance("instance {int: 1}", "bad argument number ' 1'");
	bad_instance("instance {int:99999999999999999999}", "bad argument number");
	bad_instance("instance {global:}", "global symbol name missing");
	bad_instance("instance {global:a-b}", "invalid global symbol name 'a-b'");
	bad_instance("instance {global:a b}", "invalid global symbol name 'a b'");
	bad_instance("instance {global}", "unknown placeholder '{global}' (use {str:N}, {int:N}, "
					  "{global:SYMBOL} or {outer:FEATURE}");
	bad_instance("instance {int:0}{int:1}{int:2}{int:3}{int:4}{int:5}{global:g}",
		     "more than 6 parts");
	bad_instance("instance \"abc", "unterminated quote");
	bad_instance("instance \"abc\" def", "unexpected text 'def' after the quoted template");
	bad_instance("instance \"a\"b\"\"", "unexpected text 'b\"\"'");
	bad_instance("instance x {outer:a}", "{outer:a} must be the whole template");
	bad_instance("instance {outer:a}   # not part of it", "{outer:a} of feature 'x' names no "
							      "feature");
	bad_instance("instance \" {outer:a}\"", "must be the whole template");
	bad_instance("instance {outer:a}{outer:b}", "{outer:a} must be the whole template");
	bad_instance("instance {outer:A}", "invalid outer feature name 'A'");
	bad_instance("instance {outer:}", "outer feature name missing");
	bad_instance("instance {outer:x}", "feature 'x' is its own {outer:x}");
	bad_instance("instance {outer:nope}", "{outer:nope} of feature 'x' names no feature of map "
					      "'pg'");
}

static void test_outer(void **state)
{
	struct probemap *m;

	(void)state;
	/* forward references, chains */
	m = parse(HEAD "feature c\nenter c1\nleave c2\ninstance {outer:b}\n"
		       "feature b\nenter b1\nleave b2\ninstance {outer:a}\n"
		       "feature a\nenter a1\nleave a2\ninstance {str:0}\n");
	assert_int_equal(feat(m, "c")->outer, 1);
	assert_int_equal(feat(m, "b")->outer, 2);
	assert_int_equal(feat(m, "a")->outer, -1);
	probemap__free(m);

	/* the error is at the instance line */
	bad(HEAD
	    "feature a\nenter a1\nleave a2\n\n\ninstance {outer:zz}\nfeature b\nenter x\nleave "
	    "y\n",
	    8, "{outer:zz} of feature 'a' names no feature");
	bad(HEAD "feature a\nenter a1\nleave a2\ninstance {outer:b}\n"
		 "feature b\nenter b1\nleave b2\nkind antimark\n",
	    6, "{outer:b} of feature 'a' names an antimark");
	/* outer and match instance */
	bad(HEAD "feature a\nenter a1\nleave a2\n"
		 "feature b\nenter b1\nleave b2\ninstance {outer:a}\nmatch instance\n",
	    10, "'match instance' in feature 'b' needs an instance template");
}

/* ---- errors ----------------------------------------------------------------------------------- */

static void test_errors_file(void **state)
{
	char *big;

	(void)state;
	bad_len("", 0, 1, "empty file (a map file starts with \"map NAME\")");
	bad(" \n\t\r\n  ", 1, "empty file");
	bad("# only\n# comments\n", 2, "no 'map' directive");
	bad("# only\n# comments", 2, "no 'map' directive");
	bad("map x\n", 1, "no 'provider' directive");
	bad("map x\nprovider y\n\n# nothing more\n", 4, "map 'x' has no feature");
	bad("map x\nprovider y\ndescription d\n", 3, "has no feature");

	/* NUL and UTF-8, with their line */
	bad_len(HEAD "feature a\0\n", sizeof(HEAD "feature a\0\n") - 1, 3, "NUL byte");
	bad_len("\0", 1, 1, "NUL byte");
	bad(HEAD "description \xff\n", 3, "invalid UTF-8");
	bad(HEAD "\n\n# \x80 comment\n", 5, "invalid UTF-8");
	bad(HEAD "# \xc0\x80 overlong\n", 3, "invalid UTF-8");
	bad(HEAD "# \xe0\x80\x80 overlong\n", 3, "invalid UTF-8");
	bad(HEAD "# \xf0\x80\x80\x80 overlong\n", 3, "invalid UTF-8");
	bad(HEAD "# \xed\xa0\x80 surrogate\n", 3, "invalid UTF-8");
	bad(HEAD "# \xf4\x90\x80\x80 above U+10FFFF\n", 3, "invalid UTF-8");
	bad(HEAD "# \xf5\x80\x80\x80\n", 3, "invalid UTF-8");
	bad(HEAD "# \xc3", 3, "invalid UTF-8");
	bad(HEAD "# \xe2\x82", 3, "invalid UTF-8");
	bad(HEAD "# \xe2\x82x", 3, "invalid UTF-8");

	/* the size limit: 1 MiB of comment is fine, one byte more is not */
	big = malloc((1 << 20) + 2);
	assert_non_null(big);
	memset(big, ' ', (1 << 20) + 1);
	memcpy(big, HEAD "feature a\nenter b\nleave c\n#",
	       strlen(HEAD "feature a\nenter b\nleave c\n#"));
	probemap__free(parse_len(big, 1 << 20));
	bad_len(big, (1 << 20) + 1, 1, "file too large: 1048577 bytes");
	free(big);
}

static void test_errors_header(void **state)
{
	(void)state;
	bad("provider x\nmap y\n", 1, "'provider' before 'map'");
	bad("\n\n  feature x\n", 3, "'feature' before 'map' (a map file starts with \"map NAME\")");
	bad("map a\nmap b\n", 2, "second 'map' (the first is at line 1)");
	bad(HEAD "provider again\n", 3, "second 'provider' (the first is at line 2)");
	bad(HEAD "description a\ndescription b\n", 4,
	    "second 'description' (the first is at line "
	    "3)");
	bad(HEAD "feature a\nenter b\nleave c\nprovider p\n", 6, "second 'provider'");
	bad(HEAD "feature a\nenter b\nleave c\ndescription d\n", 6,
	    "'description' after a "
	    "feature");
	bad(HEAD "feature a\nenter b\nleave c\nmap m\n", 6, "second 'map'");
	bad("map a\nfeature x\nenter b\nleave c\n", 2, "feature 'x' needs a 'provider'");
	bad("map a\ndescription d\nfeature x\n", 3, "feature 'x' needs a 'provider'");
	bad("map\n", 1, "'map' needs a name");
	bad("map # name?\n", 1, "'map' needs a name");
	bad("map a b\n", 1, "unexpected text 'b' after the map name");
	bad("map a.b\n", 1, "invalid map name 'a.b' (letters, digits, '_' and '-' only)");
	bad("map a:b\n", 1, "invalid map name 'a:b'");
	bad("map \xc3\xa9\n", 1, "invalid map name '\xc3\xa9'");
	bad("map a\nprovider\n", 2, "'provider' needs a name");
	bad("map a\nprovider p.q\n", 2, "invalid provider name 'p.q'");
	bad("map a\nprovider p q p\n", 2, "provider 'p' named twice");
	bad("map a\nprovider p q r s t\n", 2, "more than 4 providers");
	bad(HEAD "description\n", 3, "'description' needs text");
	bad(HEAD "description   # only a comment\n", 3, "'description' needs text");
	{
		char text[600], n64[65], d256[257];

		memset(n64, 'a', 64);
		n64[64] = 0;
		snprintf(text, sizeof(text), "map %s\n", n64);
		bad(text, 1,
		    "map name 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...' too long (at "
		    "most 63 characters)");
		memset(d256, 'd', 256);
		d256[256] = 0;
		snprintf(text, sizeof(text), HEAD "description %s\n", d256);
		bad(text, 3, "description 'dddd");
		bad(text, 3, "too long (at most 255 bytes)");
		d256[255] = 0;
		snprintf(text, sizeof(text), HEAD "description %s\nfeature a\nenter b\nleave c\n",
			 d256);
		probemap__free(parse(text));
	}
	/* unknown directives, quoted as they are (log__err escapes the message:
	 * test_escape's test_log) */
	bad("mapp a\n", 1,
	    "unknown directive 'mapp' (map, provider, description, feature, enter, "
	    "leave, event, instance, kind, payload, match, default, frame, when, charge, function, "
	    "antimark or label)");
	bad("Map a\n", 1, "unknown directive 'Map'");
	bad(HEAD "\x01\x1b[31m x\n", 3, "unknown directive '\x01\x1b[31m'");
	bad(HEAD "feature a\nenter b\nleave c\nexit d\n", 6, "unknown directive 'exit'");
	bad(HEAD "\"instance\" x\n", 3, "unknown directive '\"instance\"'");
	{
		char text[300];

		snprintf(text, sizeof(text), HEAD "%s\n",
			 "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
			 "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
			 "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9");
		/* cut at 40 bytes, on a character boundary */
		bad(text, 3,
		    "unknown directive '\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
		    "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3"
		    "\xa9\xc3\xa9\xc3\xa9\xc3\xa9...'");
	}
}

static void test_errors_block(void **state)
{
	(void)state;
	bad(HEAD "enter x\n", 3, "'enter' outside a feature (start a block with \"feature NAME\")");
	bad(HEAD "instance {str:0}\n", 3, "'instance' outside a feature");
	bad(HEAD "default off\n", 3, "'default' outside a feature");
	bad(HEAD "feature a\nenter b\nleave c\nframe callee\n", 6,
	    "unknown frame 'callee' (expected \"frame probe\", \"frame caller\" or \"frame "
	    "none\")");
	bad(HEAD "feature a\nenter b\nleave c\nframe caller\nframe probe\n", 7,
	    "second 'frame' in feature 'a'");
	bad(HEAD "feature a\nenter b\nleave c\nfeature a\n", 6,
	    "duplicate feature 'a' (the first "
	    "is at line 3");
	bad(HEAD "feature\n", 3, "'feature' needs a name");
	bad(HEAD "feature Plan\n", 3,
	    "invalid feature name 'Plan' (lowercase letters, digits, '_' "
	    "and '-' only)");
	bad(HEAD "feature a.b\n", 3, "invalid feature name 'a.b'");
	bad(HEAD "feature a:b\n", 3, "invalid feature name 'a:b'");
	bad(HEAD "feature a b\n", 3, "unexpected text 'b' after the feature name");
	bad(HEAD "feature a\nleave c\n\nfeature b\nenter x\nleave y\n", 3,
	    "feature 'a' has no enter probe (add \"enter PROBE\")");
	bad(HEAD "feature a\nenter c\n", 3, "feature 'a' has no leave probe");
	bad(HEAD "feature a\nenter c\n# comment\n", 3, "feature 'a' has no leave probe");
	bad(HEAD "feature a\n", 3, "feature 'a' has no enter probe");
	bad(HEAD "feature a\nenter s\n\nleave s\n", 6,
	    "feature 'a' enters and leaves at the same probe 's' (a probe cannot both enter and "
	    "leave)");
	bad(HEAD "feature a\nenter b\nenter c\n", 5,
	    "second 'enter' in feature 'a' (the first is "
	    "at line 4)");
	bad(HEAD "feature a\nleave b\nleave c\n", 5, "second 'leave'");
	bad(HEAD "feature a\ninstance x\ninstance y\n", 5, "second 'instance'");
	bad(HEAD "feature a\nkind mark\nkind mark\n", 5, "second 'kind'");
	bad(HEAD "feature a\npayload 1\npayload 1\n", 5, "second 'payload'");
	bad(HEAD "feature a\nmatch instance\nmatch instance\n", 5, "second 'match'");
	bad(HEAD "feature a\ndefault off\ndefault off\n", 5, "second 'default'");
	bad(HEAD "feature a\nenter\n", 4, "'enter' needs a name (enter NAME)");
	bad(HEAD "feature a\nenter a-b\n", 4, "invalid probe name 'a-b'");
	bad(HEAD "feature a\nleave a b\n", 4, "unexpected text 'b' after the leave name");
	bad(HEAD "feature a\nkind\n", 4, "'kind' needs an argument (kind mark or kind antimark)");
	bad(HEAD "feature a\nkind marks\n", 4, "unknown kind 'marks'");
	bad(HEAD "feature a\nkind mark x\n", 4, "unexpected text 'x' after 'kind mark'");
	bad(HEAD "feature a\npayload\n", 4, "'payload' needs an argument number");
	bad(HEAD "feature a\npayload 12\n", 4, "bad argument number '12'");
	bad(HEAD "feature a\npayload x\n", 4, "bad argument number 'x'");
	bad(HEAD "feature a\npayload 1 2\n", 4, "unexpected text '2' after the payload argument");
	bad(HEAD "feature a\nmatch\n", 4, "'match' needs an argument (match instance)");
	bad(HEAD "feature a\nmatch leave\n", 4,
	    "unknown match 'leave' (the only form is \"match "
	    "instance\")");
	bad(HEAD "feature a\nmatch instance please\n", 4,
	    "unexpected text 'please' after 'match "
	    "instance'");
	bad(HEAD "feature a\ndefault\n", 4, "'default' needs an argument (default off)");
	bad(HEAD "feature a\ndefault on\n", 4, "unknown default 'on'");
	bad(HEAD "feature a\ndefault off now\n", 4, "unexpected text 'now' after 'default off'");
	bad(HEAD "feature a\nenter b\nleave c\nmatch instance\n", 6,
	    "'match instance' in feature 'a' needs an instance template");
	bad(HEAD "feature a\nenter b\nleave c\nmatch instance\nfeature d\n", 6,
	    "'match instance' in feature 'a'");
	bad(HEAD "feature a\nenter b\nleave c\ninstance {int:0}\nkind antimark\n", 6,
	    "antimark feature 'a' cannot have an instance");
	bad(HEAD "feature a\nenter b\nleave c\nkind antimark\npayload 0\n", 7,
	    "antimark feature 'a' cannot have a payload");
	bad(HEAD "feature a\nenter b\nleave c\nkind antimark\nmatch instance\n", 7,
	    "antimark feature 'a' has no instance to match");
	/* the first error wins */
	bad(HEAD "feature a\nenter b\nbogus\nleave b\n", 5, "unknown directive 'bogus'");
}

/* Every way to break a good map by one byte: a message or a map, never a
 * crash (the sanitized build runs this too), and messages are one line. */
static void test_mutations(void **state)
{
	static const char good[] =
		HEAD "description d\n"
		     "feature q\n\tenter a\n\tleave b\n\tinstance \"{str:0} x\"\n"
		     "\tpayload 2\n"
		     "feature r\n\tenter c\n\tleave d\n\tinstance {outer:q}\n"
		     "feature s\n\tenter e\n\tleave f\n\tinstance {str:1}{global:g}#c\n"
		     "\tmatch instance\n\tdefault off\n";
	static const char bytes[] = {0, '\n', ' ', '#', '"', '{', '}', ':', 'x', '\xff', '1'};
	char text[sizeof(good)], err[512];
	size_t i, j, ok = 0, nr = 0;

	(void)state;
	for (i = 0; i < sizeof(good) - 1; i++) {
		for (j = 0; j <= sizeof(bytes); j++) {
			struct probemap *m;
			size_t len = sizeof(good) - 1;
			int ret;

			memcpy(text, good, sizeof(good));
			if (j == sizeof(bytes)) { /* delete byte i */
				memmove(text + i, text + i + 1, len - i);
				len--;
			} else {
				text[i] = bytes[j];
			}
			err[0] = 0;
			ret = probemap__parse(text, len, PATH, &m, err, sizeof(err));
			nr++;
			if (ret == 0) {
				char buf[256];
				size_t k;

				ok++;
				for (k = 0; k < m->nr_features; k++)
					assert_true(probemap__format_template(m, &m->features[k],
									      buf,
									      sizeof(buf)) >= 0);
				probemap__free(m);
				continue;
			}
			assert_int_equal(ret, -EINVAL);
			assert_null(m);
			assert_int_equal(strncmp(err, PATH ":", strlen(PATH ":")), 0);
			assert_null(strchr(err, '\n'));
		}
	}
	print_message("%zu mutations, %zu parsed\n", nr, ok);
	assert_true(ok > 0 && ok < nr);
}

/* ---- selection, names, formatting ---------------------------------------------------------- */

static const char select_map[] = "map postgresql\nprovider postgresql\n"
				 "feature query\nenter a\nleave b\n"
				 "feature plan\nenter c\nleave d\n"
				 "feature buffer-read\nenter e\nleave f\ndefault off\n"
				 "feature sort\nenter g\nleave h\n";

static void check_select(const struct probemap *m, const char *list, int want_nr, const char *want,
			 int want_unknown)
{
	bool enabled[PROBEMAP_MAX_FEATURES];
	int unknown = -1, nr = probemap__select(m, list, enabled, &unknown);
	char got[PROBEMAP_MAX_FEATURES + 1];
	size_t i;

	for (i = 0; i < m->nr_features; i++)
		got[i] = enabled[i] ? '1' : '0';
	got[i] = 0;
	if (nr != want_nr || strcmp(got, want) || unknown != want_unknown)
		fail_msg("select \"%s\": %d %s %d, want %d %s %d", list ? list : "(null)", nr, got,
			 unknown, want_nr, want, want_unknown);
	/* unknown may be NULL */
	assert_int_equal(probemap__select(m, list, enabled, NULL), want_nr);
}

static void test_select(void **state)
{
	struct probemap *m = parse(select_map);

	(void)state;
	check_select(m, NULL, 3, "1101", 0);
	check_select(m, "", 3, "1101", 0);
	check_select(m, " \t ", 3, "1101", 0);
	check_select(m, "plan", 1, "0100", 0);
	check_select(m, "postgresql:plan", 1, "0100", 0);
	check_select(m, "buffer-read", 1, "0010", 0);
	check_select(m, "postgresql:buffer-read,query", 2, "1010", 0);
	check_select(m, " plan , query ,", 2, "1100", 0);
	check_select(m, ",,plan,,", 1, "0100", 0);
	check_select(m, "plan,plan,postgresql:plan", 1, "0100", 0);
	check_select(m, "python:gc,python:plan", 0, "0000", 2);
	check_select(m, "gc,plan,python:call", 1, "0100", 2);
	check_select(m, "Plan,pla,plann,plan x", 0, "0000", 4);
	check_select(m, "postgresql:,:plan,postgresql:plan:x", 0, "0000", 3);
	check_select(m, "postgresql : plan", 0, "0000", 1);
	check_select(m, "query,plan,buffer-read,sort", 4, "1111", 0);
	check_select(m,
		     "a-very-long-name-that-is-not-a-feature-at-all-of-this-map-or-any-map-"
		     "longer-than-sixty-four",
		     0, "0000", 1);
	probemap__free(m);
}

static void test_names(void **state)
{
	struct probemap *m = parse(select_map);
	char buf[64];

	(void)state;
	assert_int_equal(probemap__feature_index(m, "query"), 0);
	assert_int_equal(probemap__feature_index(m, "sort"), 3);
	assert_int_equal(probemap__feature_index(m, "Sort"), -1);
	assert_int_equal(probemap__feature_index(m, ""), -1);
	assert_ptr_equal(probemap__feature(m, "plan"), &m->features[1]);
	assert_null(probemap__feature(m, "postgresql:plan"));
	assert_int_equal(probemap__full_name(m, &m->features[2], buf, sizeof(buf)), 22);
	assert_string_equal(buf, "postgresql:buffer-read");
	assert_int_equal(probemap__full_name(m, &m->features[1], buf, 8), 15);
	assert_string_equal(buf, "postgre");
	assert_int_equal(probemap__full_name(m, &m->features[1], NULL, 0), 15);
	probemap__free(m);
}

static void test_format(void **state)
{
	static const char *const round_trip[] = {
		"{str:1} ({str:0})",
		"flags {int:0}",
		"{int:11}",
		"type {int:4} mode {int:5} obj {int:1}",
		"\" leading\"",
		"\"trailing \"",
		"\"\tx\"",
		"\"a # b\"",
		"a\"b",
		"a\"b\"",
		"{{}}",
		"x{{y}}z{str:3}",
		"{global:sym_1} {int:0}",
		"caf\xc3\xa9",
	};
	struct probemap *m;
	struct probemap_feature f;
	char line[300], buf[256], small[8];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(round_trip) / sizeof(round_trip[0]); i++) {
		struct probemap *m2;
		char first[256];

		snprintf(line, sizeof(line), "instance %s", round_trip[i]);
		m = with_instance(line);
		snprintf(first, sizeof(first), "%s", format(m, &m->features[0]));
		assert_string_equal(first, round_trip[i]);
		/* parsing the output again gives the same parts */
		snprintf(line, sizeof(line), "instance %s", first);
		m2 = with_instance(line);
		assert_int_equal(m2->features[0].nr_parts, m->features[0].nr_parts);
		assert_memory_equal(m2->features[0].parts, m->features[0].parts,
				    m->features[0].nr_parts * sizeof(struct probemap_part));
		probemap__free(m2);
		probemap__free(m);
	}

	/* snprintf semantics */
	m = with_instance("instance {str:1} ({str:0})");
	assert_int_equal(probemap__format_template(m, &m->features[0], small, sizeof(small)), 17);
	assert_string_equal(small, "{str:1}");
	assert_int_equal(probemap__format_template(m, &m->features[0], NULL, 0), 17);
	probemap__free(m);

	/* a hand-made template the syntax cannot write: -EINVAL */
	m = with_instance("instance {int:0}");
	memset(&f, 0, sizeof(f));
	f.outer = -1;
	f.nr_parts = 1;
	f.parts[0].type = PROBEMAP_PART_LIT;
	strcpy(f.parts[0].lit, " \"x");
	f.parts[0].len = 3;
	assert_int_equal(probemap__format_template(m, &f, buf, sizeof(buf)), -EINVAL);
	assert_string_equal(buf, "");
	strcpy(f.parts[0].lit, "\"x");
	f.parts[0].len = 2;
	assert_int_equal(probemap__format_template(m, &f, buf, sizeof(buf)), -EINVAL);
	strcpy(f.parts[0].lit, "x\"");
	f.parts[0].len = 2;
	assert_int_equal(probemap__format_template(m, &f, buf, sizeof(buf)), 2);
	assert_string_equal(buf, "x\"");
	probemap__free(m);
}

/* ---- files ---------------------------------------------------------------------------------- */

static void write_file(const char *path, const char *text, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
}

static void test_load(void **state)
{
	char dir[] = "/tmp/fsp-pmap-XXXXXX", path[128], err[512];
	struct probemap *m = (struct probemap *)1;
	const char *good = HEAD "feature a\nenter b\nleave c\n";

	(void)state;
	assert_non_null(mkdtemp(dir));

	snprintf(path, sizeof(path), "%s/missing.map", dir);
	assert_int_equal(probemap__load(path, &m, err, sizeof(err)), -ENOENT);
	assert_null(m);
	assert_non_null(strstr(err, "missing.map: No such file or directory"));
	assert_null(strchr(err, '\n'));

	assert_int_equal(probemap__load(dir, &m, err, sizeof(err)), -EISDIR);
	assert_null(m);
	assert_non_null(strstr(err, ": Is a directory"));

	snprintf(path, sizeof(path), "%s/empty.map", dir);
	write_file(path, "", 0);
	assert_int_equal(probemap__load(path, &m, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "empty.map:1: empty file"));

	/* over the size limit: a sparse file, never read */
	assert_int_equal(truncate(path, (1 << 20) + 1), 0);
	assert_int_equal(probemap__load(path, &m, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "empty.map:1: file too large: 1048577 bytes"));
	unlink(path);

	snprintf(path, sizeof(path), "%s/bad.map", dir);
	write_file(path, HEAD "feature a\nenter b\n", strlen(HEAD "feature a\nenter b\n"));
	assert_int_equal(probemap__load(path, &m, err, sizeof(err)), -EINVAL);
	assert_null(m);
	assert_non_null(strstr(err, "bad.map:3: feature 'a' has no leave probe"));
	assert_int_equal(strncmp(err, dir, strlen(dir)), 0);
	unlink(path);

	/* not readable (root reads anyway) */
	snprintf(path, sizeof(path), "%s/secret.map", dir);
	write_file(path, good, strlen(good));
	if (geteuid() != 0) {
		assert_int_equal(chmod(path, 0), 0);
		assert_int_equal(probemap__load(path, &m, err, sizeof(err)), -EACCES);
		assert_non_null(strstr(err, "secret.map: Permission denied"));
	}
	unlink(path);

	snprintf(path, sizeof(path), "%s/good.map", dir);
	write_file(path, good, strlen(good));
	assert_int_equal(probemap__load(path, &m, err, sizeof(err)), 0);
	assert_string_equal(m->path, path);
	assert_string_equal(m->features[0].leave, "c");
	probemap__free(m);
	unlink(path);

	/* a pipe: read to the end, not stat'ed for size */
	{
		int fds[2];
		char pipe_path[64];

		assert_int_equal(pipe(fds), 0);
		assert_int_equal(write(fds[1], good, strlen(good)), (ssize_t)strlen(good));
		close(fds[1]);
		snprintf(pipe_path, sizeof(pipe_path), "/proc/self/fd/%d", fds[0]);
		assert_int_equal(probemap__load(pipe_path, &m, err, sizeof(err)), 0);
		assert_int_equal(m->nr_features, 1);
		probemap__free(m);
		close(fds[0]);
	}
	assert_int_equal(rmdir(dir), 0);
}

/* ---- the shipped maps ----------------------------------------------------------------------- */

/* maps/NAME relative to the repository (this file is tests/unit/...). */
static struct probemap *load_shipped(const char *name)
{
	char src[512], path[1024], err[512];
	struct probemap *m;
	int ret;

	snprintf(src, sizeof(src), "%s", __FILE__);
	snprintf(path, sizeof(path), "%s/../../maps/%s", dirname(src), name);
	ret = probemap__load(path, &m, err, sizeof(err));
	if (ret)
		fail_msg("%s: %s", path, err);
	return m;
}

static void check_feature(const struct probemap *m, const char *name, const char *enter,
			  const char *leave, const char *instance, bool off)
{
	const struct probemap_feature *f = feat(m, name);

	assert_string_equal(f->enter, enter);
	assert_string_equal(f->leave, leave);
	assert_string_equal(format(m, f), instance);
	assert_int_equal(f->kind, PROBEMAP_MARK);
	assert_int_equal(f->payload_arg, -1);
	assert_int_equal(f->default_off, off);
}

static void test_shipped_postgresql(void **state)
{
	struct probemap *m = load_shipped("postgresql.map");
	bool enabled[PROBEMAP_MAX_FEATURES];
	int unknown;

	(void)state;
	assert_string_equal(m->name, "postgresql");
	assert_string_equal(m->provider, "postgresql");
	assert_non_null(strstr(m->description, "PostgreSQL"));
	assert_int_equal(m->nr_features, 10);
	check_feature(m, "query", "query__start", "query__done", "{str:0}", false);
	check_feature(m, "parse", "query__parse__start", "query__parse__done", "{str:0}", false);
	check_feature(m, "rewrite", "query__rewrite__start", "query__rewrite__done",
		      "{global:debug_query_string}", false);
	check_feature(m, "plan", "query__plan__start", "query__plan__done",
		      "{global:debug_query_string}", false);
	check_feature(m, "execute", "query__execute__start", "query__execute__done",
		      "{global:debug_query_string}", false);
	check_feature(m, "sort", "sort__start", "sort__done", "type {int:0} keys {int:2}", true);
	check_feature(m, "buffer-read", "buffer__read__start", "buffer__read__done",
		      "db {int:3} rel {int:4} fork {int:0}", true);
	check_feature(m, "lock-wait", "lock__wait__start", "lock__wait__done",
		      "type {int:4} mode {int:5} obj {int:1}", false);
	check_feature(m, "lwlock-wait", "lwlock__wait__start", "lwlock__wait__done", "{str:0}",
		      false);
	check_feature(m, "checkpoint", "checkpoint__start", "checkpoint__done", "flags {int:0}",
		      false);
	assert_int_equal(feat(m, "plan")->outer, -1);
	assert_int_equal(feat(m, "plan")->parts[0].type, PROBEMAP_PART_GLOBAL);
	assert_string_equal(feat(m, "plan")->parts[0].sym, "debug_query_string");
	assert_int_equal(probemap__select(m, NULL, enabled, &unknown), 8);
	assert_false(enabled[probemap__feature_index(m, "buffer-read")]);
	assert_false(enabled[probemap__feature_index(m, "sort")]);
	assert_int_equal(probemap__select(m, "postgresql:plan,python:gc", enabled, &unknown), 1);
	assert_int_equal(unknown, 1);
	probemap__free(m);
}

static void test_shipped_python(void **state)
{
	struct probemap *m = load_shipped("python.map");
	const struct probemap_feature *f;
	bool enabled[PROBEMAP_MAX_FEATURES];

	(void)state;
	assert_string_equal(m->name, "python");
	assert_string_equal(m->provider, "python");
	assert_int_equal(m->nr_features, 3);
	check_feature(m, "gc", "gc__start", "gc__done", "generation {int:0}", false);
	check_feature(m, "import", "import__find__load__start", "import__find__load__done",
		      "{str:0}", false);
	check_feature(m, "call", "function__entry", "function__return", "{str:1} ({str:0})", true);
	f = feat(m, "call");
	assert_true(f->match_instance);
	assert_int_equal(f->nr_parts, 4);
	STR(f, 0, 1);
	LIT(f, 1, " (");
	STR(f, 2, 0);
	LIT(f, 3, ")");
	assert_int_equal(probemap__select(m, "", enabled, NULL), 2);
	assert_false(enabled[2]);
	assert_int_equal(probemap__select(m, "python:call,gc", enabled, NULL), 2);
	assert_true(enabled[0] && !enabled[1] && enabled[2]);
	probemap__free(m);
}

/* ---- the map search path (analysis/probemap/probemap_dir.c) --------------------------------------- */

struct dirs {
	char v[8][PATH_MAX + 64];
	int n, stop_at;
};

static int dir_cb(void *ctx, const char *dir)
{
	struct dirs *d = ctx;

	if (d->n < 8)
		snprintf(d->v[d->n], sizeof(d->v[0]), "%s", dir);
	d->n++;
	return d->n == d->stop_at ? 42 : 0;
}

struct listed {
	char path[16][PATH_MAX];
	int n, all;
	char last[256];
	const char *prefix;
};

static int list_cb(void *ctx, const char *path)
{
	struct listed *l = ctx;
	const char *base = strrchr(path, '/') + 1;

	/* sorted by name, each name once, whatever else the system has */
	assert_true(strcmp(l->last, base) < 0);
	snprintf(l->last, sizeof(l->last), "%s", base);
	l->all++;
	if (!strncmp(path, l->prefix, strlen(l->prefix)) && l->n < 16)
		snprintf(l->path[l->n++], sizeof(l->path[0]), "%s", path);
	return 0;
}

static int stop_cb(void *ctx, const char *path)
{
	(void)path;
	return ++*(int *)ctx == 2 ? -7 : 0;
}

static void test_probemap_dir(void **state)
{
	char top[] = "/tmp/fsp-mapdir-XXXXXX", d1[64], d2[64], env[256], path[PATH_MAX + 128],
	     exe[PATH_MAX];
	const char *old = getenv("FSP_MAP_PATH");
	char *saved = old ? strdup(old) : NULL;
	struct dirs dirs = {.stop_at = -1};
	struct listed l = {.prefix = top};
	ssize_t n;
	int count = 0;

	(void)state;
	assert_non_null(mkdtemp(top));
	snprintf(d1, sizeof(d1), "%s/one", top);
	snprintf(d2, sizeof(d2), "%s/two", top);
	assert_int_equal(mkdir(d1, 0755), 0);
	assert_int_equal(mkdir(d2, 0755), 0);
#define TOUCH(dir, name)                                                                           \
	do {                                                                                       \
		snprintf(path, sizeof(path), "%s/%s", (dir), (name));                              \
		write_file(path, "x", 1);                                                          \
	} while (0)
	TOUCH(d1, "zz-fsp-test-b.map");
	TOUCH(d1, "zz-fsp-test-a.map");
	TOUCH(d2, "zz-fsp-test-b.map"); /* hidden by one/ */
	TOUCH(d2, "zz-fsp-test-c.map");
	TOUCH(d2, "zz-fsp-test-d.txt");
	TOUCH(d2, ".zz-fsp-test-e.map");
	TOUCH(d2, ".map");
	snprintf(path, sizeof(path), "%s/zz-fsp-test-f.map", d2);
	assert_int_equal(mkdir(path, 0755), 0); /* a directory, not a map */

	/* the search path: FSP_MAP_PATH (empty entries skipped), next to the
	 * executable, its ../share/fsp-bpf/maps, FSP_MAP_DIR */
	snprintf(env, sizeof(env), ":%s::%s/missing:%s:", d1, top, d2);
	assert_int_equal(setenv("FSP_MAP_PATH", env, 1), 0);
	assert_int_equal(probemap_dir__for_each_dir(dir_cb, &dirs), 0);
	assert_int_equal(dirs.n, 6);
	assert_string_equal(dirs.v[0], d1);
	assert_string_equal(dirs.v[2], d2);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = 0;
	*strrchr(exe, '/') = 0;
	snprintf(path, sizeof(path), "%s/maps", exe);
	assert_string_equal(dirs.v[3], path);
	snprintf(path, sizeof(path), "%s/../share/fsp-bpf/maps", exe);
	assert_string_equal(dirs.v[4], path);
	assert_string_equal(dirs.v[5], FSP_MAP_DIR);
	dirs.n = 0;
	dirs.stop_at = 2;
	assert_int_equal(probemap_dir__for_each_dir(dir_cb, &dirs), 42);
	assert_int_equal(dirs.n, 2);

	/* find: the first directory that has NAME.map */
	assert_int_equal(probemap_dir__find("zz-fsp-test-b", path, sizeof(path)), 0);
	assert_int_equal(strncmp(path, d1, strlen(d1)), 0);
	assert_int_equal(probemap_dir__find("zz-fsp-test-c", path, sizeof(path)), 0);
	snprintf(exe, sizeof(exe), "%s/zz-fsp-test-c.map", d2);
	assert_string_equal(path, exe);
	assert_int_equal(probemap_dir__find("zz-fsp-test-d", path, sizeof(path)), -ENOENT);
	assert_int_equal(probemap_dir__find("zz-fsp-test-f", path, sizeof(path)), -ENOENT);
	assert_int_equal(probemap_dir__find("", path, sizeof(path)), -EINVAL);
	assert_int_equal(probemap_dir__find(NULL, path, sizeof(path)), -EINVAL);
	assert_int_equal(probemap_dir__find("zz-fsp-test-c", path, 8), -ENAMETOOLONG);
	/* a file name: as it is, if it exists */
	assert_int_equal(probemap_dir__find(exe, path, sizeof(path)), 0);
	assert_string_equal(path, exe);
	assert_int_equal(probemap_dir__find("zz-fsp-test-none.map", path, sizeof(path)), -ENOENT);
	assert_int_equal(probemap_dir__find("./zz-fsp-test-a", path, sizeof(path)), -ENOENT);
	assert_int_equal(probemap_dir__find(exe, path, 8), -ENAMETOOLONG);

	/* list: each name once (the first found), sorted */
	assert_int_equal(probemap_dir__list(list_cb, &l), 0);
	assert_int_equal(l.n, 3);
	snprintf(path, sizeof(path), "%s/zz-fsp-test-a.map", d1);
	assert_string_equal(l.path[0], path);
	snprintf(path, sizeof(path), "%s/zz-fsp-test-b.map", d1);
	assert_string_equal(l.path[1], path);
	snprintf(path, sizeof(path), "%s/zz-fsp-test-c.map", d2);
	assert_string_equal(l.path[2], path);
	assert_int_equal(probemap_dir__list(stop_cb, &count), -7);
	assert_int_equal(count, 2);

	/* the repository's own maps, through FSP_MAP_PATH */
	{
		char src[512], maps[600];
		struct probemap *m;
		char err[512];

		snprintf(src, sizeof(src), "%s", __FILE__);
		snprintf(maps, sizeof(maps), "%s/../../maps", dirname(src));
		assert_int_equal(setenv("FSP_MAP_PATH", maps, 1), 0);
		assert_int_equal(probemap_dir__find("python", path, sizeof(path)), 0);
		assert_int_equal(probemap__load(path, &m, err, sizeof(err)), 0);
		assert_string_equal(m->name, "python");
		probemap__free(m);
	}

	if (saved)
		setenv("FSP_MAP_PATH", saved, 1);
	else
		unsetenv("FSP_MAP_PATH");
	free(saved);
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
		assert_int_equal(system(cmd), 0);
	}
#undef TOUCH
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_minimal),
		cmocka_unit_test(test_every_directive),
		cmocka_unit_test(test_path_default),
		cmocka_unit_test(test_many_features),
		cmocka_unit_test(test_templates),
		cmocka_unit_test(test_template_split),
		cmocka_unit_test(test_template_errors),
		cmocka_unit_test(test_outer),
		cmocka_unit_test(test_errors_file),
		cmocka_unit_test(test_errors_header),
		cmocka_unit_test(test_errors_block),
		cmocka_unit_test(test_mutations),
		cmocka_unit_test(test_select),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_shipped_postgresql),
		cmocka_unit_test(test_shipped_python),
		cmocka_unit_test(test_probemap_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
