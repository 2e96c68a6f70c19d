#!/usr/bin/env bash
# The man pages (docs/man/*.rst, rendered by make man into .output/man).
#
#   options_documented  every option a subcommand's --help lists (long and
#                       short names) is in that subcommand's page, as rendered
#                       by man: an option added later without its page entry
#                       fails here
#   pages_complete      every page renders with man, has NAME, SYNOPSIS,
#                       DESCRIPTION and SEE ALSO; fsp-bpf(8) names every
#                       subcommand; each page's version is the binary's
#   sources_in_step     each subcommand has a page, each page's source renders
#                       without a docutils warning (rst2man --halt=warning)
#   docs_index          docs/README.md links every page of docs/ and every man
#                       page source, and every link in it resolves
. "$(dirname "$0")/lib.sh"

MAN_OUT=$FSP_SRC/.output/man
SUBS="record report merge diff list"

# The page as text (ASCII, no hyphenation or justification, wide).
render()
{
	LC_ALL=C MANWIDTH=250 man --nh --nj -E ascii -l "$1" 2> /dev/null | col -bx
}

setup()
{
	command -v man > /dev/null || t_fail "no man: apt-get install man-db (scripts/install-deps.sh test)"
	[ -x "$FSP_BPF" ] || t_fail "no fsp-bpf at $FSP_BPF: run make"
	[ -d "$MAN_OUT" ] || t_fail "no $MAN_OUT: run make man"
}

# The option names (-x and --long) that SUBCOMMAND's --help lists.
help_options()
{
	local args=()
	[ "$1" = record ] || args=("$1")
	"$FSP_BPF" "${args[@]}" --help |
		grep -E '^ {1,8}-' | sed -E 's/^ +//; s/(  |=|\[=).*//' | tr ',' '\n' | tr -d ' ' |
		sed '/^$/d'
}

test_options_documented()
{
	local sub page documented opt n missing=()
	setup
	for sub in $SUBS; do
		page=$MAN_OUT/fsp-bpf-$sub.8
		[ -f "$page" ] || t_fail "no page $page for subcommand $sub"
		# The option names the page documents: those of its items' terms
		# (lines indented by 7 that start with a dash: "-p, --pid=PID").
		documented=$(render "$page" | grep -E '^ {7}-' |
			grep -oE -- '(^|[ ,])--?[A-Za-z0-9?][A-Za-z0-9-]*' | tr -d ' ,')
		n=0
		while read -r opt; do
			n=$((n + 1))
			grep -qxF -- "$opt" <<< "$documented" || missing+=("$sub: $opt")
		done < <(help_options "$sub")
		[ $n -ge 3 ] || t_fail "fsp-bpf $sub --help: only $n options parsed"
		echo "    fsp-bpf-$sub(8): $n option names of --help, all checked"
	done
	[ ${#missing[@]} -eq 0 ] || t_fail "options of --help missing from their page: ${missing[*]}"
}

test_pages_complete()
{
	local page text sec version
	setup
	version=$("$FSP_BPF" --version | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -1)
	for page in "$MAN_OUT"/*; do
		text=$(render "$page")
		[ -n "$text" ] || t_fail "$page does not render"
		for sec in NAME SYNOPSIS DESCRIPTION "SEE ALSO"; do
			grep -qx "$sec" <<< "$text" || t_fail "$page has no $sec section"
		done
		grep -qF "$version" <<< "$text" || t_fail "$page does not carry version $version"
	done
	text=$(render "$MAN_OUT/fsp-bpf.8")
	for sub in $SUBS; do
		grep -qE "fsp-bpf-$sub\(8\)" <<< "$text" || t_fail "fsp-bpf(8) does not point to fsp-bpf-$sub(8)"
	done
	for page in fsp.h.3 fsp-probe-map.5; do
		[ -f "$MAN_OUT/$page" ] || t_fail "no $page"
	done
	grep -qF '#include <fsp/fsp.h>' <<< "$(render "$MAN_OUT/fsp.h.3")" ||
		t_fail "fsp.h(3) does not show #include <fsp/fsp.h>"
}

test_sources_in_step()
{
	local src sub
	setup
	for sub in $SUBS; do
		[ -f "$FSP_SRC/docs/man/fsp-bpf-$sub.8.rst" ] || t_fail "no docs/man/fsp-bpf-$sub.8.rst"
	done
	command -v rst2man > /dev/null || t_fail "no rst2man: apt-get install python3-docutils"
	for src in "$FSP_SRC"/docs/man/*.rst; do
		sed 's/@VERSION@/0/' "$src" | rst2man --halt=warning > /dev/null 2> "$T_TMP/err" ||
			t_fail "$src: $(head -3 "$T_TMP/err")"
		[ -f "$MAN_OUT/$(basename "$src" .rst)" ] || t_fail "make man did not render $src"
	done
}

test_docs_index()
{
	local index=$FSP_SRC/docs/README.md f link
	[ -f "$index" ] || t_fail "no docs/README.md"
	for f in "$FSP_SRC"/docs/*.md "$FSP_SRC"/docs/man/*.rst; do
		[ "$f" = "$index" ] && continue
		f=${f#"$FSP_SRC"/docs/}
		grep -qF "]($f)" "$index" || t_fail "docs/README.md does not link $f"
	done
	while read -r link; do
		[ -e "$FSP_SRC/docs/${link%%#*}" ] || t_fail "docs/README.md links $link, which does not exist"
	done < <(grep -oE '\]\([^)]+\)' "$index" | sed 's/^](//; s/)$//')
}

t_run test_options_documented test_pages_complete test_sources_in_step test_docs_index
t_end
