#!/usr/bin/env bash
# Tests of the docs against the tree:
#   file_map    docs/architecture.md's "Source layout" table names every
#               product source file (bpf/, usdt/, userspace/, analysis/; a
#               header counts as named when its .c namesake is), and every
#               file it names exists
. "$(dirname "$0")/lib.sh"

# The table's section of docs/architecture.md.
file_map_text()
{
	awk '/^## Source layout/ { on = 1; next } /^## / { on = 0 } on' \
		"$FSP_SRC/docs/architecture.md"
}

test_file_map()
{
	local map files names f b t missing=() unknown=()
	map=$(file_map_text)
	[ -n "$map" ] || t_fail "docs/architecture.md has no \"Source layout\" section"
	files=$(git -C "$FSP_SRC" ls-files bpf usdt userspace analysis |
		grep -E '\.(c|h|js|css|html|mjs|proto)$') ||
		t_fail "git ls-files found no product sources in $FSP_SRC"
	# File names in backquotes, with or without a folder.
	names=$(grep -oE '`[^`]+`' <<<"$map" | tr -d '`' |
		grep -E '^[A-Za-z0-9_./-]+\.(c|h|js|css|html|mjs|proto)$' | sort -u)
	for f in $files; do
		b=${f##*/}
		grep -qxF -e "$b" -e "$f" <<<"$names" && continue
		# A header goes with its .c file of the same name.
		[[ $b == *.h ]] && grep -qxF -e "${b%.h}.c" -e "${f%.h}.c" <<<"$names" && continue
		missing+=("$f")
	done
	for t in $names; do
		[ -e "$FSP_SRC/$t" ] && continue
		grep -qE "(^|/)${t//./\\.}\$" <<<"$files" && continue
		unknown+=("$t")
	done
	[ ${#missing[@]} -eq 0 ] ||
		echo "    docs/architecture.md's Source layout misses: ${missing[*]} (add each to its row)" >&2
	[ ${#unknown[@]} -eq 0 ] ||
		echo "    docs/architecture.md's Source layout names files that do not exist: ${unknown[*]}" >&2
	[ ${#missing[@]} -eq 0 ] && [ ${#unknown[@]} -eq 0 ] || t_fail "the file map is out of step with the tree"
}

t_run test_file_map
t_end
