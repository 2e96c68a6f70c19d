#!/usr/bin/env bash
# Bash completion of fsp-bpf (scripts/fsp-bpf.bash-completion), driven as
# bash drives it: the script is sourced after bash-completion, COMP_WORDS and
# COMP_CWORD are set as readline splits the line (COMP_WORDBREAKS, so
# --stacks= is two words), the completion function is called, and COMPREPLY is
# checked.
#
#   subcommands       the first word: the subcommands (and programs)
#   options           each subcommand's options, as its --help lists them
#   values            --format (record's and diff's), --by, --order, --value,
#                     --stacks=
#   maps              --map: the shipped maps, auto; their features after --feature
#   profile_features  --feature: the features of a profile named on the line,
#                     also after a comma
#   plugins           --plugin: the built-in plug-ins
#   pids_and_files    -p: PIDs; -o: files; report: *.json files; after --: commands
# Needs bash-completion (Debian's package) and a built fsp-bpf.
. "$(dirname "$0")/lib.sh"

BC=/usr/share/bash-completion/bash_completion

# complete LINE: what completion offers at the end of LINE, one per line.
complete_line()
{
	local line=$1
	bash -c '
		. "$1" && . "$2/scripts/fsp-bpf.bash-completion" || exit 1
		line=$3
		split=${line//=/ = }
		read -r -a COMP_WORDS <<< "$split"
		case $line in *" " | *=) COMP_WORDS+=("") ;; esac
		[ "${line: -1}" = "=" ] && unset "COMP_WORDS[${#COMP_WORDS[@]}-1]"
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMP_LINE=$line COMP_POINT=${#line}
		_fsp_bpf 2>/dev/null
		printf "%s\n" "${COMPREPLY[@]}"
	' _ "$BC" "$FSP_SRC" "$line"
}

# expect LINE WORD...: each WORD is offered.
expect()
{
	local line=$1 out w
	shift
	out=$(complete_line "$line")
	for w in "$@"; do
		grep -qxF -- "$w" <<< "$out" || t_fail "'$line<TAB>' does not offer '$w' (offers: $(echo $out | cut -c1-300))"
	done
}

# expect_only LINE WORD...: exactly these WORDs, in any order.
expect_only()
{
	local line=$1 out
	shift
	out=$(complete_line "$line" | sort)
	[ "$out" = "$(printf '%s\n' "$@" | sort)" ] ||
		t_fail "'$line<TAB>' offers '$(echo $out)', want '$*'"
}

setup()
{
	[ -r "$BC" ] || t_fail "$BC is missing: apt-get install bash-completion (scripts/install-deps.sh test)"
	[ -x "$FSP_BPF" ] || t_fail "no fsp-bpf at $FSP_BPF: run make"
	cd "$FSP_SRC" || exit 1
}

test_subcommands()
{
	setup
	expect_only "./fsp-bpf rep" report
	expect "./fsp-bpf " record report merge diff list
	expect_only "./fsp-bpf report --form" --format
}

test_options()
{
	local sub args opt n
	setup
	for sub in record report merge diff list; do
		args=()
		[ $sub = record ] || args=($sub)
		n=0
		# Every long option of the subcommand's --help is offered after "--".
		for opt in $("$FSP_BPF" "${args[@]}" --help | grep -oE '^ {1,8}(-[^-], )*--[a-z0-9-]+' |
			grep -oE -- '--[a-z0-9-]+'); do
			n=$((n + 1))
			expect "./fsp-bpf ${args[*]} --" "$opt"
		done
		[ $n -ge 3 ] || t_fail "$sub --help lists only $n options: the parse is wrong"
	done
	expect "./fsp-bpf -" -p -a -o --stacks --map -h --help
	expect_only "./fsp-bpf merge --o" --output
}

test_values()
{
	setup
	expect_only "./fsp-bpf --format " text json folded pprof html dot
	expect_only "./fsp-bpf report --format p" pprof
	expect_only "./fsp-bpf diff --format " text json html
	expect_only "./fsp-bpf report --by " feature thread process
	expect_only "./fsp-bpf report --order " cost samples name
	expect_only "./fsp-bpf report --value " samples offcpu wall
	expect_only "./fsp-bpf --stacks=" user kernel all
	expect_only "./fsp-bpf --stacks=k" kernel
	expect_only "./fsp-bpf --metrics-by " name pid
}

test_maps()
{
	setup
	expect "./fsp-bpf --map " postgresql python jvm ruby libstdcxx auto
	expect_only "./fsp-bpf --map py" python
	expect "./fsp-bpf --map postgresql,r" postgresql,ruby
	expect "./fsp-bpf --map postgresql --feature " plan query
	expect "./fsp-bpf --map=jvm --feature=" gc safepoint jit
}

test_profile_features()
{
	setup
	local prof=$T_TMP/prof.json
	[ "$(id -u)" -eq 0 ] || t_skip "recording a profile needs root"
	"$FSP_BPF" -o "$prof" -- "$FSP_SRC/.output/examples/demo" 300 > /dev/null 2>&1 ||
		t_fail "fsp-bpf -o $prof -- .output/examples/demo 300 failed (make examples?)"
	expect_only "./fsp-bpf report $prof --feature " output parse contract
	expect_only "./fsp-bpf report --by thread $prof --feature pa" parse
	expect_only "./fsp-bpf report $prof --feature output,c" output,contract
}

test_plugins()
{
	setup
	expect_only "./fsp-bpf report --plugin " backtrack boundary tasks
	expect_only "./fsp-bpf --plugin t" tasks
}

test_pids_and_files()
{
	setup
	local out
	expect "./fsp-bpf -p " $$ 1
	expect "./fsp-bpf list --pid " 1
	mkdir -p "$T_TMP/d" && touch "$T_TMP/d/a.json" "$T_TMP/d/b.txt"
	expect_only "./fsp-bpf report $T_TMP/d/" "$T_TMP/d/a.json"
	expect_only "./fsp-bpf diff $T_TMP/d/a.json $T_TMP/d/" "$T_TMP/d/a.json"
	expect "./fsp-bpf -o $T_TMP/d/" "$T_TMP/d/a.json" "$T_TMP/d/b.txt"
	expect "./fsp-bpf -- bas" bash
	touch "$T_TMP/d/c.pem"
	expect_only "./fsp-bpf --tls-cert $T_TMP/d/" "$T_TMP/d/c.pem"
	expect "./fsp-bpf --auth-file $T_TMP/d/" "$T_TMP/d/a.json" "$T_TMP/d/b.txt"
	out=$(complete_line "./fsp-bpf --listen ")
	[ -z "$out" ] || t_fail "--listen offers words for its address: $(echo $out | cut -c1-200)"
	out=$(complete_line "./fsp-bpf --pid ")
	grep -qvE '^[0-9]+$' <<< "$out" && t_fail "--pid offers non-PIDs: $(echo $out | cut -c1-200)"
	true
}

t_run test_subcommands test_options test_values test_maps test_profile_features test_plugins \
	test_pids_and_files
t_end
