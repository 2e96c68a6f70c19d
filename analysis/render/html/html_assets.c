// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The HTML report's page template, built from analysis/render/html/ by the
 * Makefile (npm ci from the committed lock file, then build.mjs: the page
 * with its CSS, its script and the bundled libraries inline) and put into
 * the binary here, at build time: fsp-bpf needs no file at run time.
 * FSP_HTML_PAGE is the built file's path (the Makefile defines it).
 */
#include <stddef.h>

#include "report_html.h"

#ifndef FSP_HTML_PAGE
#error "FSP_HTML_PAGE (the built page template) is not defined: build with make"
#endif

/* The bytes of the file, then a NUL, in .rodata; the end label marks the NUL. */
__asm__(".pushsection .rodata,\"a\",@progbits\n"
	".balign 16\n"
	".globl fsp_html_page_start\n"
	".hidden fsp_html_page_start\n"
	".type fsp_html_page_start, @object\n"
	".globl fsp_html_page_end\n"
	".hidden fsp_html_page_end\n"
	"fsp_html_page_start:\n"
	".incbin \"" FSP_HTML_PAGE "\"\n"
	"fsp_html_page_end:\n"
	".byte 0\n"
	".popsection\n");

extern const char fsp_html_page_start[] __attribute__((visibility("hidden")));
extern const char fsp_html_page_end[] __attribute__((visibility("hidden")));

const char *report_html__page(size_t *len)
{
	*len = (size_t)(fsp_html_page_end - fsp_html_page_start);
	return fsp_html_page_start;
}
