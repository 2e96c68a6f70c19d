#!/usr/bin/env bash
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The soak of system-wide mode (make soak; root; docs/benchmarks.md): fsp-bpf
# -a --off-cpu --interval 30 --listen runs SOAK_S seconds (600) while SOAK_STREAMS
# streams (5) start SOAK_RATE short processes a second (150) between them,
# each without waiting for the last: wl_brief (ABI v1 marks and antimarks,
# every mark counted) and wl_blip (ABI v2 marks, no trap), both of
# SOAK_MS_MIN-SOAK_MS_MAX ms (2-12) with 1-3 threads, and, one in
# SOAK_DL_EVERY (25), wl_dlhost (dlopens libwl_dl.so after 1-4 ms of CPU). Every SOAK_SAMPLE_S
# seconds (10) it records fsp-bpf's CPU time, RSS, its descriptors (BPF
# links, others) and the occupancy of its BPF maps; at the end it checks the
# profile against the workloads' truth (the marks they fired against the
# enters and leaves counted, the time they spent in "brief", "blip" and
# "dlfeature" against the samples charged), that every sample taken is in
# the profile and none is of an unknown stack, that the maps stayed flat
# (no more entries in the second half than in the first: nothing
# accumulates), and the rate the processes came at. A scraper reads the
# agent's /metrics every second (as Prometheus would: docs/fleet.md); the
# watch adds the series exported and the last scrape's time, and the summary
# says whether the agent's memory stayed flat after the warm-up (the first
# minute).
#
# It is system-wide: other profilers' workloads would be in it and other -a
# sessions would see its processes. It holds the integration tests' lock
# (/run/lock/fsp-integration.lock, tests/integration/itest.c) while it runs,
# waiting for a running test to end. A measurement, not a test: it
# exits 0 whatever the numbers; the summary says PASS/FAIL per check.
set -u
cd "$(dirname "$0")/.."
exec 9>>"${FSP_ITEST_LOCK:-/run/lock/fsp-integration.lock}"
flock -n 9 || { echo "soak: waiting for the integration lock"; flock 9; }
SOAK_S=${SOAK_S:-600}
SOAK_STREAMS=${SOAK_STREAMS:-5}
SOAK_RATE=${SOAK_RATE:-150}
SOAK_MS_MIN=${SOAK_MS_MIN:-2}
SOAK_MS_MAX=${SOAK_MS_MAX:-12}
SOAK_SAMPLE_S=${SOAK_SAMPLE_S:-10}
SOAK_DL_EVERY=${SOAK_DL_EVERY:-25}
OUT=.output
FSP=$PWD/fsp-bpf
MAPS=$OUT/bench/tools/bpfmaps
RES=bench/results
mkdir -p "$RES"
work=$(mktemp -d /tmp/fsp-soak.XXXXXX)
streams=()
trap 'kill ${streams[@]:-} $fsp ${scraper:-} 2>/dev/null; rm -rf "$work"' EXIT
fsp=
mkdir -p "$work/bin" "$work/truth"
# Fresh copies: files no other process maps, attached by this session.
cp $OUT/workloads/wl_brief $OUT/workloads/wl_blip $OUT/workloads/wl_dlhost \
	$OUT/workloads/libwl_dl.so "$work/bin/"
log=$RES/soak-latest.txt
exec > >(tee "$log") 2>&1

echo "soak: ${SOAK_S} s, ${SOAK_RATE} processes/s from ${SOAK_STREAMS} streams, sample every ${SOAK_SAMPLE_S} s; $(uname -r), $(nproc) CPUs"
# -v: its "N probe sites in FILE" lines count the files attached (other
# processes with probes on the machine bring theirs, and their links).
"$FSP" -v -a --off-cpu --interval 30 -d "$SOAK_S" -o "$work/prof.json" --listen 127.0.0.1:0 \
	>"$work/live.txt" 2>"$work/fsp.err" &
fsp=$!
for _ in $(seq 300); do
	grep -q "fsp-bpf: profiling" "$work/fsp.err" 2>/dev/null && break
	sleep 0.1
done
port=$(grep -o 'serving http://127.0.0.1:[0-9]*' "$work/fsp.err" | head -1 | sed 's/.*://')
# The scraper: one scrape a second, its HTTP status and time in scrapes.
(while kill -0 "$fsp" 2>/dev/null; do
	curl -s -o "$work/metrics.tmp" -w '%{http_code} %{time_total}\n' \
		"http://127.0.0.1:$port/metrics" >>"$work/scrapes" && mv "$work/metrics.tmp" "$work/metrics"
	sleep 1
done) &
scraper=$!
start=${EPOCHREALTIME/./}
# The streams stop 5 s before the session does: every process ends inside it.
stop_us=$((start + (SOAK_S - 5) * 1000000))

# Each stream starts a process every SOAK_STREAMS/SOAK_RATE seconds without
# waiting for it (the rate holds whatever the processes last), sleeping with
# read -t on a pipe nobody writes (a builtin: no process per sleep).
stream() {
	local s=$1 n=0 next period_us=$((1000000 * SOAK_STREAMS / SOAK_RATE)) wait_us sfd ms
	exec {sfd}<> <(:)
	next=${EPOCHREALTIME/./}
	while ((${EPOCHREALTIME/./} < stop_us)); do
		ms=$((SOAK_MS_MIN + RANDOM % (SOAK_MS_MAX - SOAK_MS_MIN + 1)))
		if ((RANDOM % SOAK_DL_EVERY == 0)); then
			"$work/bin/wl_dlhost" "$work/truth/d.$s.$n" $((1 + RANDOM % 4)) "$ms" >/dev/null &
		elif ((n % 2)); then
			"$work/bin/wl_blip" "$work/truth/v.$s.$n" "$ms" $((1 + RANDOM % 3)) >/dev/null &
		else
			"$work/bin/wl_brief" "$work/truth/b.$s.$n" "$ms" $((1 + RANDOM % 3)) >/dev/null &
		fi
		n=$((n + 1))
		next=$((next + period_us))
		wait_us=$((next - ${EPOCHREALTIME/./}))
		if ((wait_us > 0)); then
			read -rt "$((wait_us / 1000000)).$(printf %06d $((wait_us % 1000000)))" -u "$sfd" || :
		fi
	done
	wait
}
streams=()
for s in $(seq "$SOAK_STREAMS"); do
	stream "$s" &
	streams+=($!)
done

# The watch: one line per sample.
map_of() { awk -v m="$1" '$1 == m { print $2 }' "$work/maps"; }
printf '%6s %9s %6s %8s %5s %6s %5s %8s %7s %7s %7s %8s %8s %9s %7s %9s\n' t_s processes cpu_s \
	rss_kb files links fds targets counts stacks labels mark_ids v2_procs v2_counts series scrape_ms
: >"$work/watch"
while kill -0 "$fsp" 2>/dev/null; do
	sleep "$SOAK_SAMPLE_S"
	kill -0 "$fsp" 2>/dev/null || break
	t=$(((${EPOCHREALTIME/./} - start) / 1000000))
	rss=$(awk '/^VmRSS:/ { print $2 }' /proc/$fsp/status 2>/dev/null)
	links=$(ls -l /proc/$fsp/fd 2>/dev/null | grep -c bpf_link)
	fds=$(ls /proc/$fsp/fd 2>/dev/null | wc -l)
	"$MAPS" "$fsp" >"$work/maps" 2>/dev/null
	procs=$(ls "$work/truth" | grep -vc '\.tmp$')
	# utime + stime, in clock ticks (fields 14 and 15; comm has no space).
	cpu=$(awk -v hz="$(getconf CLK_TCK)" '{ printf "%.1f", ($14 + $15) / hz }' /proc/$fsp/stat)
	files=$(grep -c ' probe sites in ' "$work/fsp.err")
	series=$(grep -vc '^#' "$work/metrics" 2>/dev/null)
	scrape=$(tail -n 1 "$work/scrapes" 2>/dev/null | awk '{ printf "%.1f", $2 * 1000 }')
	printf '%6s %9s %6s %8s %5s %6s %5s %8s %7s %7s %7s %8s %8s %9s %7s %9s\n' "$t" "$procs" \
		"$cpu" "$rss" "$files" "$links" "$((fds - links))" "$(map_of targets)" \
		"$(map_of counts)" "$(map_of stacks)" "$(map_of labels)" "$(map_of mark_ids)" \
		"$(map_of v2_procs)" "$(map_of v2_counts)" "${series:-0}" "${scrape:-n/a}" |
		tee -a "$work/watch"
	echo "$t $rss" >>"$work/rss"
done
wait "$fsp"
echo "fsp-bpf exited with status $?"
wait "${streams[@]}"
wait "$scraper" 2>/dev/null
# The agent: scrapes answered, their times; memory after the warm-up (the
# first sample from 60 s on) against the end, per hour of growth.
sort -k2 -g "$work/scrapes" | awk '{ n++; if ($1 == 200) ok++; t[n] = $2 * 1000 } END {
	printf "agent: %d scrapes, %d answered 200, scrape time median %.1f ms, max %.1f ms\n",
	n, ok, t[int((n + 1) / 2)], t[n] }'
awk 'NR == 1 { t0 = $1 } $1 >= 60 && !w { w = 1; tw = $1; rw = $2 } { te = $1; re = $2 } END {
	if (!w || te <= tw) { print "rss: too short a soak for a warm-up"; exit }
	slope = (re - rw) / (te - tw) * 3600 / 1024
	printf "rss: %d kB at %d s (after warm-up), %d kB at %d s: %+.1f MB per hour %s\n", rw, tw, re, te,
	slope, (re - rw < 4096 ? "(flat: PASS)" : "(grows: FAIL)") }' "$work/rss"
echo "fsp-bpf's messages (-v lines of libbpf and attached files left out):"
grep -v -e '^libbpf' -e ' probe sites in ' "$work/fsp.err" | sed 's/^/  /'
echo "files attached: $(grep -c ' probe sites in ' "$work/fsp.err")"
grep ' probe sites in ' "$work/fsp.err" | sed 's/^/  /' 
echo "live reports written: $(grep -c '^--- live report' "$work/live.txt")"
sed -n '/^Diagnostics/,$p' < <("$FSP" report "$work/prof.json")

python3 - "$work" "$SOAK_S" <<'EOF'
import glob, json, math, os, re, sys
work, soak_s = sys.argv[1], float(sys.argv[2])
truth = {}
for path in glob.glob(os.path.join(work, "truth", "*")):
    if path.endswith(".tmp"):
        continue
    d = dict(l.split(" ", 1) for l in open(path).read().splitlines())
    truth[path] = d
prof = json.load(open(os.path.join(work, "prof.json")))
strs = prof["strings"]
def name(v):
    return strs[v] if isinstance(v, int) else v
counted = {}
for e in prof["events"]:
    k = (e["pid"], name(e["feature"]))
    c = counted.setdefault(k, [0, 0])
    c[0] += e["enters"]
    c[1] += e["leaves"]

def verdict(ok):
    return "PASS" if ok else "FAIL"

# The rate: processes over the time the streams ran (SOAK_S - 5 s).
print(f"rate: {len(truth)} processes in {soak_s - 5:.0f} s, "
      f"{len(truth) / (soak_s - 5):.1f} a second")

# Enters that may slip through uncounted: while a file's links are made,
# the kernel raises a probe's semaphore just before it writes the breakpoint,
# so each thread of a process running then may fire the enter once unseen
# (its leave counts as unmatched). Not in processes armed from their start.
def slip(d):
    if "sema.enter.first" in d:
        return 0 if int(d["sema.enter.first"]) else int(d["threads"])
    return 1 if int(d["cycles_unarmed"]) else 0

# A mark whose feature label fsp-bpf could not read (its page not yet in
# the process when the probe fired, and the process gone before userspace
# read it: label_errors) is counted under "<label at 0x...>": counted, not
# named. Since the BPF side says where in the mapped file such a label is
# (FSP_LABEL_IN_FILE), fsp-bpf reads it from the library it keeps open: none
# should be. The count check takes those marks of the workload's processes
# exactly (their only marks are the checked feature's); the label check
# says how many went unnamed.
unnamed_total = {}
def check(prefix, feature, enter_key, leave_key):
    pids = set(); fe = fl = n = slipped = 0
    for path, d in truth.items():
        if not os.path.basename(path).startswith(prefix):
            continue
        n += 1
        pids.add(int(d["pid"]))
        fe += int(d[enter_key]); fl += int(d[leave_key])
        slipped += slip(d) if int(d[enter_key]) else 0
    ce = sum(v[0] for (pid, f), v in counted.items() if f == feature and pid in pids)
    cl = sum(v[1] for (pid, f), v in counted.items() if f == feature and pid in pids)
    unnamed = [(pid, v) for (pid, f), v in counted.items()
               if f.startswith("<label at 0x") and pid in pids]
    ue = sum(v[0] for _, v in unnamed); ul = sum(v[1] for _, v in unnamed)
    ok = fe == fl and ce + ue == cl + ul and ce + ue <= fe <= ce + ue + slipped
    print(f"{feature}: {n} processes fired {fe} enters, {fl} leaves; the profile counts "
          f"{ce} and {cl}, and {ue} and {ul} unnamed (up to {slipped} may slip through "
          f"while attaching): {verdict(ok)}")
    if not ok:
        mismatches(prefix, feature, enter_key, leave_key)
    unnamed_total[feature] = (ue, len({pid for pid, _ in unnamed}))

# The processes (by PID: a reused PID sums its processes) whose marks the
# profile counts otherwise than they fired them (a folded process's count is
# its representative's: meaningful where nothing was folded).
def mismatches(prefix, feature, enter_key, leave_key):
    by_pid = {}
    for path, d in truth.items():
        if os.path.basename(path).startswith(prefix):
            by_pid.setdefault(int(d["pid"]), []).append((path, d))
    shown = 0
    for pid, ds in sorted(by_pid.items()):
        fe = sum(int(d[enter_key]) for _, d in ds)
        fl = sum(int(d[leave_key]) for _, d in ds)
        ce, cl = counted.get((pid, feature), [0, 0])
        if (fe, fl) == (ce, cl) or shown >= 10:
            continue
        shown += 1
        other = {f: v for (p, f), v in counted.items() if p == pid and f != feature}
        print(f"  pid {pid}: fired {fe}/{fl}, counted {ce}/{cl} (other features: {other}); " +
              "; ".join(os.path.basename(p) + " " + " ".join(
                  f"{k}={d[k]}" for k in ("cycles_unarmed", "latency_ns", "threads",
                                          "sema.enter.first") if k in d)
                        for p, d in ds))

check("b.", "brief", "fired.enter", "fired.leave")
check("d.", "dlfeature", "enters_fired", "leaves_fired")
for feature, (ue, up) in unnamed_total.items():
    print(f"{feature} labels: {ue} marks under {up} PIDs counted unnamed "
          f"(label_errors {prof['diagnostics'].get('label_errors', 0)} in all): "
          f"{verdict(ue == 0)}")

# Samples charged to feature by the attribution rule (docs/attribution.md),
# over the whole profile: after the first 1000 exited processes, those of a
# name are folded into one, so their PIDs are not all in it. The soak's
# features are its own.
def charged(feature):
    k = 0
    for row in prof["samples"]:
        st = row[3]
        if not isinstance(st, int):
            continue
        top = None
        for fr in prof["stacks"][st]["frames"]:
            if name(fr[1]) == feature:
                top = fr[0]
        k += row[4] if top == "m" else 0
    return k

def sums(prefix, feature):
    ns = ambig = cpu = 0
    for path, d in truth.items():
        if os.path.basename(path).startswith(prefix):
            ns += int(d[f"feature.{feature}.ns"]); ambig += int(d[f"feature.{feature}.ambig_ns"])
            cpu += int(d["cpu_total_ns"])
    return ns, ambig, cpu

# The time in a feature against the samples charged to it: within 4 sqrt of
# the expected count plus half the ambiguous time at the marks' ends.
period = prof["period_ns"]
def time_check(prefix, feature):
    ns, ambig, cpu = sums(prefix, feature)
    k = charged(feature)
    want = ns / period
    tol = 4 * math.sqrt(want) + ambig / (2 * period)
    print(f"{feature}: truth {ns / 1e6:.1f} ms of {cpu / 1e6:.1f} ms CPU, profile "
          f"{k * period / 1e6:.1f} ms ({k} samples, {100 * (k - want) / max(want, 1):+.2f}%), "
          f"tolerance {tol * period / 1e6:.1f} ms: {verdict(abs(k - want) <= tol)}")

time_check("b.", "brief")
time_check("v.", "blip")
time_check("d.", "dlfeature")

# Every sample the sampler took of a target is in the profile (the exited
# processes' too, folded or not), none of an unknown stack.
d = prof["diagnostics"]
m = re.search(r"(\d+) samples of the targets", open(os.path.join(work, "fsp.err")).read())
taken = int(m.group(1)) if m else -1
total = prof["total_samples"]
ok = taken == total and not d.get("unknown_stacks") and not d.get("lost_samples")
print(f"samples: {taken} taken, {total} in the profile, {d.get('lost_samples', 0)} lost, "
      f"{d.get('unknown_stacks', 0)} of an unknown stack: {verdict(ok)}")

# Flat: what the live processes need does not grow, what accumulates does:
# no map holds on average more than half as much again in the second half
# of the session as in the first (plus ten entries: they come and go by
# the process).
cols = ["t", "processes", "cpu", "rss", "files", "links", "fds", "targets", "counts",
        "stacks", "labels", "mark_ids", "v2_procs", "v2_counts", "series", "scrape_ms"]
rows = [dict(zip(cols, l.split())) for l in open(os.path.join(work, "watch"))
        if len(l.split()) == len(cols)]
half = len(rows) // 2
flat, parts = half > 0, []
for c in ["targets", "counts", "stacks", "labels", "mark_ids", "v2_procs", "v2_counts"]:
    vals = [int(r[c]) if r[c].isdigit() else 0 for r in rows]
    a = sum(vals[:half]) / max(half, 1)
    b = sum(vals[half:]) / max(len(vals) - half, 1)
    parts.append(f"{c} {a:.0f}/{b:.0f} (max {max(vals or [0])})")
    flat &= b <= 1.5 * a + 10
print(f"maps (mean entries in the first half / in the second): {', '.join(parts)}: "
      f"{verdict(flat)}")
print("diagnostics: " + ", ".join(f"{k} {v}" for k, v in d.items() if v))
EOF
echo "soak: the output is in $log"
