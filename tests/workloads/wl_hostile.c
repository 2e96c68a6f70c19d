// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * wl_hostile - a target whose labels and comm would take over the terminal
 * of whoever reads its profile, were they printed raw.
 *
 *   wl_hostile READY MS [ANY...]
 *
 * Sets its comm to "\x1b]0;owned\x07" (a terminal title), writes READY
 * ("pid N"), then burns MS ms of CPU time in rounds of three marks:
 *
 *   feature "\x1b]0;owned\x07\x1b[2J\x1b[31mRED" (sets the title, clears the
 *   screen, turns the text red), instance "line\nbreak\ttab", 2 ms, and
 *   instance "bad\xff\xfe" (invalid UTF-8), 1 ms;
 *   feature "hostile", instance "evil" U+202E "txt.c" (a right-to-left
 *   override), 1 ms.
 *
 * The arguments after MS are not used: they only make the command line
 * (the profile's target) hostile too.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/prctl.h>

#include "fsp.h"
#include "wl_common.h"

#define TITLE "\x1b]0;owned\x07\x1b[2J\x1b[31mRED"

int main(int argc, char **argv)
{
	uint64_t end;

	if (argc < 3)
		wl_die("usage: wl_hostile READY MS [ANY...]");
	if (prctl(PR_SET_NAME, "\x1b]0;owned\x07", 0, 0, 0))
		wl_die("prctl(PR_SET_NAME) failed");
	wl_write_ready(argv[1]);
	end = wl_thread_ns() + strtoull(argv[2], NULL, 10) * WL_NS_PER_MS;
	while (wl_thread_ns() < end) {
		FSP_MARK_ENTER(TITLE, "line\nbreak\ttab", 0);
		wl_burn(2 * WL_NS_PER_MS);
		FSP_MARK_LEAVE(TITLE, "line\nbreak\ttab", 0);
		FSP_MARK_ENTER(TITLE, "bad\xff\xfe", 0);
		wl_burn(WL_NS_PER_MS);
		FSP_MARK_LEAVE(TITLE, "bad\xff\xfe", 0);
		FSP_MARK_ENTER("hostile", "evil\xe2\x80\xaetxt.c", 0);
		wl_burn(WL_NS_PER_MS);
		FSP_MARK_LEAVE("hostile", "evil\xe2\x80\xaetxt.c", 0);
	}
	return wl_integrity_errors() ? 3 : 0;
}
