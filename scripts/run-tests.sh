#!/usr/bin/env bash
# Runs cmocka test binaries and keeps a tally across suites.
#   run-tests.sh SUITE BIN...   run the binaries of one suite
#   run-tests.sh all-begin      reset the tally
#   run-tests.sh all-end        print "N passed, N failed, N skipped"; exit 1 on failures
# cmocka prints "[  PASSED  ] N test(s)." / "[  FAILED  ] N test(s)" / "[  SKIPPED ] N test(s)".
set -u
tally=${FSP_TALLY:-.output/test-tally}
suite=${1:?suite}
shift

if [ "$suite" = all-begin ]; then
	mkdir -p "$(dirname "$tally")"
	echo "0 0 0" > "$tally"
	exit 0
fi
if [ "$suite" = all-end ]; then
	read -r p f s < "$tally" || { echo "no tally"; exit 1; }
	echo
	echo "tests: $p passed, $f failed, $s skipped"
	[ "$f" -eq 0 ]
	exit
fi

passed=0 failed=0 skipped=0 crashed=0
for bin in "$@"; do
	log=$(mktemp)
	"$bin" > "$log" 2>&1
	rc=$?
	cat "$log"
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
	s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
	rm -f "$log"
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-0}))
	skipped=$((skipped + ${s:-0}))
	if [ $rc -ne 0 ] && [ -z "$f" ]; then
		echo "!! $bin exited with status $rc without a cmocka summary (crash?)"
		failed=$((failed + 1))
		crashed=1
	fi
done
echo "== $suite: $passed passed, $failed failed, $skipped skipped"
if [ -f "$tally" ]; then
	read -r tp tf ts < "$tally"
	echo "$((tp + passed)) $((tf + failed)) $((ts + skipped))" > "$tally"
fi
[ $failed -eq 0 ] && [ $crashed -eq 0 ]
