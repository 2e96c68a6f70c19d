// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Unit tests of the probe-map rules beyond enter/leave/instance
 * (analysis/probemap/): several providers, map names with '-', pointer +
 * length strings and pointer reads in templates, "frame none", point events
 * ("event"), conditions ("when"), "charge threads", "label sample", their
 * formatting, and
 * the jvm and ruby maps shipped in maps/. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

#include "probemap.h"
#include "unit_helpers.h"

#define PATH "t.map"
#define HEAD "map m-1\nprovider hotspot hs_private\n"

static struct probemap *parse(const char *text)
{
	struct probemap *m = NULL;
	char err[512] = "";

	if (probemap__parse(text, strlen(text), PATH, &m, err, sizeof(err)))
		fail_msg("parse failed: %s\n--- text:\n%s", err, text);
	assert_non_null(m);
	return m;
}

static void bad(const char *text, unsigned int line, const char *want)
{
	struct probemap *m = (struct probemap *)1;
	char err[512] = "", prefix[64];
	int ret = probemap__parse(text, strlen(text), PATH, &m, err, sizeof(err));

	if (ret != -EINVAL)
		fail_msg("parse returned %d, want -EINVAL\n--- text:\n%s", ret, text);
	assert_null(m);
	snprintf(prefix, sizeof(prefix), PATH ":%u: ", line);
	if (strncmp(err, prefix, strlen(prefix)) || !strstr(err, want) || strchr(err, '\n'))
		fail_msg("message \"%s\", want prefix \"%s\" and \"%s\"\n--- text:\n%s", err,
			 prefix, want, text);
}

static const struct probemap_feature *feat(const struct probemap *m, const char *name)
{
	const struct probemap_feature *f = probemap__feature(m, name);

	if (!f)
		fail_msg("no feature %s", name);
	return f;
}

static const char *tmpl(const struct probemap *m, const struct probemap_feature *f)
{
	static char buf[512];
	int n = probemap__format_template(m, f, buf, sizeof(buf));

	assert_int_equal(n, (int)strlen(buf));
	return buf;
}

static const char *cond(const struct probemap *m, const struct probemap_when *w)
{
	static char buf[512];
	int n = probemap__format_when(m, w, buf, sizeof(buf));

	assert_int_equal(n, (int)strlen(buf));
	return buf;
}

/* ---- providers and names -------------------------------------------------------------------- */

static void test_providers(void **state)
{
	struct probemap *m = parse(HEAD "feature safepoint\n"
					"  enter hs_private:safepoint__begin\n"
					"  leave hs_private:safepoint__end\n"
					"feature gc\n  enter gc__begin\n  leave hotspot:gc__end\n");
	const struct probemap_feature *f;

	(void)state;
	assert_string_equal(m->name, "m-1");
	assert_string_equal(m->provider, "hotspot");
	assert_int_equal(m->nr_providers, 2);
	assert_string_equal(m->providers[1], "hs_private");
	assert_true(probemap__has_provider(m, "hs_private"));
	assert_false(probemap__has_provider(m, "hotspot_jni"));
	f = feat(m, "safepoint");
	assert_string_equal(f->enter, "safepoint__begin");
	assert_int_equal(f->enter_provider, 1);
	assert_int_equal(f->leave_provider, 1);
	f = feat(m, "gc");
	assert_int_equal(f->enter_provider, 0);
	assert_int_equal(f->leave_provider, 0);
	probemap__free(m);

	bad(HEAD "feature a\nenter hotspot_jni:x\n", 4,
	    "provider 'hotspot_jni' of probe 'hotspot_jni:x' is not the map's");
	bad(HEAD "feature a\nenter hotspot:x y\n", 4, "unexpected text 'y' after the enter name");
	bad(HEAD "feature a\nenter hot.spot:x\n", 4, "invalid provider name 'hot.spot'");
	bad(HEAD "feature a\nenter hotspot:\n", 4, "'enter' needs a name");
	bad("map a\nprovider\n", 2, "'provider' needs a name");
	bad("map -\nprovider x\nfeature a\nenter b\nleave c\nfeature a\n", 6, "duplicate feature");
}

/* ---- templates: lengths and pointer reads --------------------------------------------------- */

static void test_template_refs(void **state)
{
	struct probemap *m = parse(
		HEAD "feature jit\n  enter a\n  leave b\n"
		     "  instance {str:2,len:3}.{str:4,len:5}\n"
		     "feature exc\n  event hotspot:x\n  instance {str:1[8]} {int:0[0x10][4]}\n");
	const struct probemap_feature *f = feat(m, "jit");

	(void)state;
	assert_int_equal(f->nr_parts, 3);
	assert_int_equal(f->parts[0].type, PROBEMAP_PART_STR);
	assert_int_equal(f->parts[0].arg, 2);
	assert_int_equal(f->parts[0].len_arg, 3);
	assert_int_equal(f->parts[0].nr_deref, 0);
	assert_int_equal(f->parts[2].len_arg, 5);
	assert_string_equal(tmpl(m, f), "{str:2,len:3}.{str:4,len:5}");
	f = feat(m, "exc");
	assert_true(f->point);
	assert_string_equal(f->leave, "");
	assert_int_equal(f->parts[0].nr_deref, 1);
	assert_int_equal(f->parts[0].deref[0], 8);
	assert_int_equal(f->parts[0].len_arg, -1);
	assert_int_equal(f->parts[2].type, PROBEMAP_PART_INT);
	assert_int_equal(f->parts[2].nr_deref, 2);
	assert_int_equal(f->parts[2].deref[0], 16);
	assert_int_equal(f->parts[2].deref[1], 4);
	assert_string_equal(tmpl(m, f), "{str:1[8]} {int:0[16][4]}");
	probemap__free(m);

#define BAD_INSTANCE(line, want)                                                                   \
	bad(HEAD "feature a\nenter b\nleave c\ninstance " line "\n", 6, want)
	BAD_INSTANCE("{int:0,len:1}", "unknown option 'len:1'");
	BAD_INSTANCE("{str:0,size:1}", "unknown option 'size:1'");
	BAD_INSTANCE("{str:0,len:12}", "bad argument number '12'");
	BAD_INSTANCE("{str:0,len:}", "bad argument number ''");
	BAD_INSTANCE("{str:0[8}", "unterminated '['");
	BAD_INSTANCE("{str:0[8][8][8]}", "reads memory more than 2 times");
	BAD_INSTANCE("{str:0[65536]}", "bad offset '65536'");
	BAD_INSTANCE("{str:0[-8]}", "bad offset '-8'");
	BAD_INSTANCE("{str:0[0x]}", "bad offset '0x'");
	BAD_INSTANCE("{str:0[8]x}", "unexpected text after ']'");
	BAD_INSTANCE("{str:[8]}", "bad argument number ''");
#undef BAD_INSTANCE
}

/* ---- frames and point events ---------------------------------------------------------------- */

static void test_frame_none_and_events(void **state)
{
	struct probemap *m = parse(HEAD "feature unwind\n  enter a\n  leave b\n  frame none\n"
					"feature thrown\n  event c\n  instance {str:1[8]}\n"
					"  when arg0 != 0\n  default off\n");
	const struct probemap_feature *f = feat(m, "unwind");

	(void)state;
	assert_true(f->unframed);
	assert_false(f->frame_caller);
	assert_false(f->point);
	f = feat(m, "thrown");
	assert_true(f->point);
	assert_true(f->default_off);
	assert_string_equal(f->enter, "c");
	probemap__free(m);

	bad(HEAD "feature a\nevent b\nleave c\n", 5, "has both 'event' and 'leave'");
	bad(HEAD "feature a\nenter b\nevent c\n", 5, "has both 'event' and 'enter'");
	bad(HEAD "feature a\nevent b\nkind antimark\n", 5, "point event 'a' cannot have 'kind'");
	bad(HEAD "feature a\nevent b\nframe none\n", 5, "point event 'a' cannot have 'frame'");
	bad(HEAD "feature a\nevent b\ncharge threads *\n", 5,
	    "point event 'a' cannot have 'charge'");
	bad(HEAD "feature a\nevent b\npayload 1\n", 5, "point event 'a' cannot have 'payload'");
	bad(HEAD "feature a\nevent b\nevent c\n", 5, "second 'event'");
	bad(HEAD "feature a\nevent b\nfeature c\nenter d\nleave e\ninstance {outer:a}\n", 8,
	    "{outer:a} of feature 'c' names a point event");
	bad(HEAD "feature a\nframe nowhere\n", 4, "unknown frame 'nowhere'");
}

/* ---- when ----------------------------------------------------------------------------------- */

static void test_when(void **state)
{
	struct probemap *m =
		parse(HEAD "feature vm-op\n  enter a\n  leave b\n  instance {str:0,len:1}\n"
			   "feature gc\n  enter c\n  leave d\n"
			   "  when {outer:vm-op} != G1PauseRemark   # a comment\n"
			   "  when {outer:vm-op} != \"G1 # Cleanup \"\n"
			   "  when arg0 >= -0x10\n  when {int:1[8]} < 18446744073709551615\n"
			   "feature full\n  enter c\n  leave d\n  when {str:0,len:1} == \"\"\n");
	const struct probemap_feature *f = feat(m, "gc");

	(void)state;
	assert_int_equal(f->nr_when, 4);
	assert_true(f->when[0].is_string);
	assert_int_equal(f->when[0].outer, 0);
	assert_int_equal(f->when[0].op, PROBEMAP_NE);
	assert_string_equal(f->when[0].value_text, "G1PauseRemark");
	assert_string_equal(f->when[1].value_text, "G1 # Cleanup ");
	assert_false(f->when[2].is_string);
	assert_int_equal(f->when[2].outer, -1);
	assert_int_equal(f->when[2].operand.type, PROBEMAP_PART_INT);
	assert_int_equal(f->when[2].operand.arg, 0);
	assert_int_equal(f->when[2].op, PROBEMAP_GE);
	assert_true(f->when[2].value == -16);
	assert_true(f->when[3].value == -1); /* UINT64_MAX as two's complement */
	assert_int_equal(f->when[3].operand.nr_deref, 1);
	assert_string_equal(cond(m, &f->when[0]), "{outer:vm-op} != \"G1PauseRemark\"");
	assert_string_equal(cond(m, &f->when[2]), "arg0 >= -16");
	assert_string_equal(cond(m, &f->when[3]), "{int:1[8]} < -1");
	f = feat(m, "full");
	assert_int_equal(f->when[0].operand.type, PROBEMAP_PART_STR);
	assert_int_equal(f->when[0].operand.len_arg, 1);
	assert_string_equal(f->when[0].value_text, "");
	assert_string_equal(cond(m, &f->when[0]), "{str:0,len:1} == \"\"");
	probemap__free(m);

#define BAD_WHEN(line, want) bad(HEAD "feature a\nenter b\nleave c\nwhen " line "\n", 6, want)
	BAD_WHEN("", "'when' needs a condition");
	BAD_WHEN("arg0", "'when' needs a condition");
	BAD_WHEN("arg0 ==", "'when' needs a value after '=='");
	BAD_WHEN("arg0 = 1", "unknown comparison '='");
	BAD_WHEN("arg0 == x", "bad number 'x'");
	BAD_WHEN("arg0 == 18446744073709551616", "bad number");
	BAD_WHEN("arg0 == -9223372036854775809", "bad number");
	BAD_WHEN("arg12 == 1", "bad argument number '12'");
	BAD_WHEN("{str:0} < x", "'<' compares a string");
	BAD_WHEN("{outer:a} == x", "feature 'a' is its own {outer:a}");
	BAD_WHEN("{outer:zz} == x", "{outer:zz} of feature 'a' names no feature");
	BAD_WHEN("len == 1", "unknown operand 'len'");
	BAD_WHEN("{str:0} == \"x", "unterminated quote in 'when' value");
	BAD_WHEN("{str:0} == \"x\" y", "unexpected text 'y' after the quoted 'when' value");
	BAD_WHEN("{arg:0} == 1", "unknown placeholder '{arg:0}'");
#undef BAD_WHEN
	bad(HEAD "feature a\nenter b\nleave c\nwhen arg0 == 1\nwhen arg0 == 1\nwhen arg0 == "
		 "1\nwhen arg0 == 1\nwhen arg0 == 1\n",
	    10, "more than 4 'when' in feature 'a'");
	bad(HEAD "feature a\nenter b\nleave c\nkind antimark\nwhen arg0 == 1\n", 7,
	    "antimark feature 'a' cannot have 'when'");
}

/* ---- charge threads ------------------------------------------------------------------------- */

static void test_charge(void **state)
{
	struct probemap *m =
		parse(HEAD "feature gc\n  enter a\n  leave b\n"
			   "  charge threads \"GC Thread#*\"  # the workers\n"
			   "feature all\n  enter a\n  leave b\n  charge threads *\n"
			   "feature one\n  enter a\n  leave b\n  charge threads VM Thread\n");

	(void)state;
	assert_string_equal(feat(m, "gc")->charge, "GC Thread#*");
	assert_string_equal(feat(m, "all")->charge, "*");
	assert_string_equal(feat(m, "one")->charge, "VM Thread");
	assert_string_equal(feat(m, "one")->enter, "a");
	probemap__free(m);

	assert_true(probemap__pattern_match("GC Thread#*", "GC Thread#0"));
	assert_true(probemap__pattern_match("GC Thread#*", "GC Thread#"));
	assert_false(probemap__pattern_match("GC Thread#*", "G1 Conc#0"));
	assert_true(probemap__pattern_match("*", "anything"));
	assert_true(probemap__pattern_match("*", ""));
	assert_true(probemap__pattern_match("VM Thread", "VM Thread"));
	assert_false(probemap__pattern_match("VM Thread", "VM Thread2"));

#define BAD_CHARGE(line, want) bad(HEAD "feature a\nenter b\nleave c\ncharge " line "\n", 6, want)
	BAD_CHARGE("threads", "'charge threads' needs a pattern");
	BAD_CHARGE("processes *", "unknown charge 'processes'");
	BAD_CHARGE("threads G*C", "'*' only at the end of thread pattern 'G*C'");
	BAD_CHARGE("threads 0123456789abcdef", "thread pattern '0123456789abcdef' too long");
#undef BAD_CHARGE
	/* 15 bytes and a '*' fit */
	m = parse(HEAD "feature a\nenter b\nleave c\ncharge threads 0123456789abcde*\n");
	assert_string_equal(m->features[0].charge, "0123456789abcde*");
	probemap__free(m);
	bad(HEAD "feature a\nenter b\nleave c\nkind antimark\ncharge threads *\n", 7,
	    "antimark feature 'a' cannot have 'charge'");
}

/* ---- the shipped maps ----------------------------------------------------------------------- */

static struct probemap *load_shipped(const char *name)
{
	char path[256], err[512] = "";
	struct probemap *m = NULL;

	snprintf(path, sizeof(path), "maps/%s.map", name);
	if (probemap__load(path, &m, err, sizeof(err)))
		fail_msg("%s", err);
	return m;
}

/* "label sample": the template is one {global:S}, read by the sampler. */
static void test_label_sample(void **state)
{
	struct probemap *m;

	(void)state;
	m = parse(HEAD
		  "feature plan\n  enter a\n  leave b\n  label sample\n"
		  "  instance {global:debug_query_string}\n"
		  "feature exec\n  enter c\n  leave d\n  instance {global:debug_query_string}\n"
		  "feature inner\n  enter e\n  leave f\n  instance {outer:plan}\n");
	assert_true(feat(m, "plan")->label_sample);
	assert_string_equal(tmpl(m, feat(m, "plan")), "{global:debug_query_string}");
	assert_false(feat(m, "exec")->label_sample);
	assert_false(feat(m, "inner")->label_sample);
	probemap__free(m);
	bad(HEAD "feature a\nenter b\nleave c\nlabel sample\n", 6,
	    "'label sample' in feature 'a' needs an instance template of one {global:SYMBOL}");
	bad(HEAD "feature a\nenter b\nleave c\ninstance q {global:x}\nlabel sample\n", 7,
	    "needs an instance template of one {global:SYMBOL} part");
	bad(HEAD "feature a\nenter b\nleave c\ninstance {str:0}\nlabel sample\n", 7,
	    "needs an instance template of one {global:SYMBOL} part");
	bad(HEAD "feature o\nenter b\nleave c\ninstance {str:0}\n"
		 "feature a\nenter d\nleave e\ninstance {outer:o}\nlabel sample\n",
	    11, "needs an instance template of one {global:SYMBOL} part");
	bad(HEAD "feature a\nenter b\nleave c\ninstance {global:x}\nlabel sample\n"
		 "match instance\n",
	    8, "'match instance' in feature 'a' cannot match an instance read at sample time");
	bad(HEAD "feature a\nenter b\nleave c\nkind antimark\nlabel sample\n", 7,
	    "antimark feature 'a' has no instance to read at sample time");
	bad(HEAD "feature a\nevent b\ninstance {global:x}\nlabel sample\n", 6,
	    "point event 'a' cannot have 'label'");
	bad(HEAD "feature a\nenter b\nleave c\ninstance {global:x}\nlabel probe\n", 7,
	    "unknown label 'probe' (the only form is \"label sample\"");
	bad(HEAD "feature a\nenter b\nleave c\ninstance {global:x}\nlabel sample\n"
		 "label sample\n",
	    8, "second 'label' in feature 'a'");
	bad(HEAD "feature a\nenter b\nleave c\ninstance {global:x}\nlabel\n", 7, "label");
	/* A function feature's {global:S} instance is read at sample time anyway. */
	bad("map m\nfeature f\nfunction libc.so.6:write\ninstance {global:x}\nlabel sample\n", 5,
	    "function feature 'f' cannot have 'label sample'");
}

static void test_shipped_jvm(void **state)
{
	struct probemap *m = load_shipped("jvm");
	const struct probemap_feature *f;

	(void)state;
	assert_string_equal(m->name, "jvm");
	assert_string_equal(m->provider, "hotspot");
	assert_true(probemap__has_provider(m, "hs_private"));
	f = feat(m, "gc");
	assert_string_equal(f->enter, "gc__begin");
	assert_true(f->unframed);
	assert_string_equal(f->charge, "GC Thread#*");
	assert_true(f->nr_when >= 1);
	f = feat(m, "jit");
	assert_string_equal(f->enter, "method__compile__begin");
	assert_true(f->parts[0].len_arg >= 0);
	f = feat(m, "safepoint");
	assert_int_equal(f->enter_provider, 1);
	assert_true(f->unframed);
	assert_true(feat(m, "class-load")->point);
	assert_non_null(feat(m, "vm-op"));
	assert_non_null(feat(m, "monitor-contended"));
	assert_true(feat(m, "class-init")->parts[0].len_arg == 1);
	f = feat(m, "method");
	assert_true(f->default_off);
	assert_true(f->unframed);
	assert_true(f->match_instance);
	probemap__free(m);
}

static void test_shipped_ruby(void **state)
{
	struct probemap *m = load_shipped("ruby");

	(void)state;
	assert_string_equal(m->name, "ruby");
	assert_string_equal(m->provider, "ruby");
	assert_string_equal(feat(m, "gc-mark")->enter, "gc__mark__begin");
	assert_string_equal(feat(m, "gc-sweep")->leave, "gc__sweep__end");
	assert_non_null(feat(m, "require"));
	assert_non_null(feat(m, "load"));
	assert_true(feat(m, "method")->default_off);
	assert_true(feat(m, "cmethod")->default_off);
	/* '#' inside the quotes is text, not a comment */
	assert_string_equal(tmpl(m, feat(m, "method")), "\"{str:0}#{str:1}\"");
	assert_int_equal(feat(m, "cmethod")->nr_parts, 3);
	probemap__free(m);
}

static void test_shipped_libstdcxx(void **state)
{
	struct probemap *m = load_shipped("libstdcxx");
	const struct probemap_feature *f;

	(void)state;
	f = feat(m, "throw");
	assert_true(f->point);
	assert_int_equal(f->parts[0].type, PROBEMAP_PART_STR);
	assert_int_equal(f->parts[0].arg, 1);
	assert_int_equal(f->parts[0].nr_deref, 1);
	assert_int_equal(f->parts[0].deref[0], 8);
	f = feat(m, "unwind");
	assert_string_equal(f->leave, "catch");
	assert_true(f->unframed);
	assert_true(f->match_instance);
	probemap__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_providers),
		cmocka_unit_test(test_template_refs),
		cmocka_unit_test(test_frame_none_and_events),
		cmocka_unit_test(test_when),
		cmocka_unit_test(test_charge),
		cmocka_unit_test(test_label_sample),
		cmocka_unit_test(test_shipped_jvm),
		cmocka_unit_test(test_shipped_ruby),
		cmocka_unit_test(test_shipped_libstdcxx),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
