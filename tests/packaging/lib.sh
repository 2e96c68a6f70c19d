# shellcheck shell=bash
# A small harness for the packaging tests (tests/packaging/test_*.sh), which
# drive shell-level things: the man pages, bash completion, an install, the
# Debian package, builds. Each test is a function run in a subshell; it fails
# by t_fail (or any command under `t_check`), skips by t_skip; $T_TMP is its scratch directory (removed after it unless
# T_KEEP=1). The summary
# lines are cmocka's, which scripts/run-tests.sh counts.
#
#   t_run FUNCTION...   run the tests
#   t_end               print the summary; exit 1 on failures
#
# Environment: FSP_SRC (the source tree, default: two levels up), FSP_BPF (the
# fsp-bpf binary, default $FSP_SRC/fsp-bpf).
FSP_SRC=${FSP_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
FSP_BPF=${FSP_BPF:-$FSP_SRC/fsp-bpf}
t_passed=0 t_failed=0 t_skipped=0 t_failed_names=()

t_fail()
{
	echo "    FAIL: $*" >&2
	exit 1
}

t_skip()
{
	echo "    SKIP: $*" >&2
	exit 77
}

t_run()
{
	local name rc
	for name in "$@"; do
		echo "[ RUN      ] $name"
		(
			T_TMP=$(mktemp -d /tmp/fsp-packaging.XXXXXX)
			chmod 755 "$T_TMP"
			# shellcheck disable=SC2064
			[ -n "${T_KEEP:-}" ] || trap "rm -rf '$T_TMP'" EXIT
			"$name"
		)
		rc=$?
		if [ $rc -eq 0 ]; then
			echo "[       OK ] $name"
			t_passed=$((t_passed + 1))
		elif [ $rc -eq 77 ]; then
			echo "[  SKIPPED ] $name"
			t_skipped=$((t_skipped + 1))
		else
			echo "[  FAILED  ] $name"
			t_failed=$((t_failed + 1))
			t_failed_names+=("$name")
		fi
	done
}

t_end()
{
	echo "[==========] $((t_passed + t_failed + t_skipped)) test(s) run."
	echo "[  PASSED  ] $t_passed test(s)."
	[ $t_skipped -eq 0 ] || echo "[  SKIPPED ] $t_skipped test(s)."
	if [ $t_failed -ne 0 ]; then
		echo "[  FAILED  ] $t_failed test(s), listed below:"
		printf '[  FAILED  ] %s\n' "${t_failed_names[@]}"
		exit 1
	fi
	exit 0
}
