#!/usr/bin/python3.11
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""wl_python - CPython 3.11 workload of the python probe map's tests.

Usage: python3.11 -E -s wl_python.py TRUTH [PHASES]

PHASES is a comma-separated subset of gc,import,call (default: all three, in
that order). Each phase takes about a second of CPU time and measures its own
ground truth, which is written to TRUTH in the "key value" format of the C
workloads (tests/workloads/wl_common.h): the integration test
(tests/integration/test_python.c) compares it with what fsp-bpf --map python
reports. Standard library only.

Accounting, as in wl_common.h: a probe's interval [b, c] lies inside a
bracket [a, d] of clock reads; [b, c] is certainly inside the feature, [a, b]
and [c, d] are ambiguous. A feature's truth is (c - b) plus half the ambiguous
time, and "<key>.ambig_ns" is the ambiguous time. Thread CPU time
(time.thread_time_ns) gives "<key>.ns" for sampled shares, the monotonic clock
(time.monotonic_ns, the clock of bpf_ktime_get_ns) gives "<key>.wall_ns" for
the durations of the exact event view.

gc      The probes gc__start(generation) and gc__done fire inside
        gc_collect_main(), between the "start" and "stop" calls of
        gc.callbacks. The callbacks give a = end of "start", d = start of
        "stop"; b and c are inside C and cannot be read. The bracket is
        measured instead, per generation g: with everything frozen
        (gc.freeze), 15 collections of the empty generation g, each after
        reading a 48 MiB buffer (cold caches), take (bracket + a little
        collecting) each; twice their median, U_g, bounds the mean bracket
        of a collection of generation g (same code path, same probes
        attached): every collection counts (d - a) - U_g/2 with ambiguity
        U_g. On the monotonic clock, the time the thread spent off the CPU
        inside [a, d] (monotonic minus thread CPU time: preempted, or its
        vCPU's time stolen) is ambiguous too, since a bracket may hold it:
        "<key>.wall_off_ns", part of "<key>.wall_ambig_ns". Cold, because a full collection traverses the whole heap and its
        bracket then runs with cold caches: with bpftrace on the probes it
        took 18 us where warm calibrations gave U = 15 us. The gc phase runs
        with threshold0 = 20000 so that collections are few and long
        compared with U.
        Collections are counted exactly. gc.get_stats() counts every
        collection since the interpreter started (including those that run
        without callbacks); the script reads it with the collector disabled
        and then installs its callback, so that the collections before (8
        gen-0 collections of the interpreter's start-up with python3.11 -E -s)
        and those measured partition the process's collections. It ends with
        os._exit() after writing TRUTH, so that the interpreter's finalization
        (4 generation-2 collections without callbacks) never runs.
        The start-up collections are not timed; each is a generation-0
        collection at threshold0 = 700: gc.gen0_max[_wall]_ns, the longest
        automatic gen-0 collection measured at that threshold (about 30 of
        them are made on purpose), bounds each of them.
import  import__find__load__start/done(module) bracket importlib's
        _find_and_load() in import_find_and_load(), which only the C path of
        the import statement and __import__() reaches (importlib.import_module
        does not fire them); a nested import fires its own nested pair. The
        workload imports with __import__(): modules it generates in a
        directory next to TRUTH (flat names, importing nothing, spinning at
        import) and a few standard-library modules not yet loaded (their
        nested imports are nested pairs; their truth includes them). The
        bracket is measured like the collector's: __import__ of a name bound
        to None in sys.modules fires the pair around importlib's shortest path
        (ModuleNotFoundError); U is twice the median of 15 such imports, each
        after reading the 48 MiB buffer. Time off the CPU inside an import's
        [a, d] is ambiguous on the monotonic clock, as for gc.
call    function__entry/function__return(file, function, line). CPython 3.11
        (gh-98894) fires function__entry only while a profile or trace
        function is installed, at the RESUME instruction (function start and
        each generator resume); function__return fires always: at return, at
        every yield and when an exception unwinds the frame. The phase runs
        under cProfile.Profile(builtins=False): its profile function is C, so
        it creates no Python frames of its own. (A Python profile function,
        e.g. sys.setprofile(lambda *a: None), is itself called with tracing
        suspended: each of its calls fires function__return without an entry,
        two unmatched leaves per call event; verified with bpftrace.) The
        profile function runs before function__entry and before
        function__return, so its cost is inside the ambiguous brackets.
        Measured functions read the clock at their first and last statement
        (b, c) and return those readings; the caller reads a and d. They call
        no Python function (the innermost instance would be charged), so
        their work is an inline loop. gc is disabled in this phase: a
        collection would call the gc callback (a Python function) inside
        them.
        hot_a, hot_b   called alternately with varying lengths, before and
                       after the other cases.
        gen_steps      a generator: each step works inside the generator,
                       then the caller works inline (call.gen_consumer):
                       that time must not be charged to the generator.
        raiser         works, then raises; the caller catches it and works
                       inline (call.exc_after).
        after_fn       a function called after them.
        deep           recursion of DEPTH + 1 frames of deep() and a
                       deep_leaf() below them: DEPTH + 2 marks, more than
                       fsp-bpf's 64. call.deep is the whole recursion (all of
                       it is charged to the innermost recorded deep frame),
                       call.deep_over the time while more than 64 marks are
                       live (at least deep_leaf's work, at most the whole
                       call).
        Every function whose name appears in a python:call instance here is
        a plain function of this file: the instance is "NAME (FILE)".

Work is a chain of 32-bit LCG steps in chunks that each must give the same
result (integrity_errors counts chunks that did not), as wl_burn() does.
"""
import gc

# No collection from here until the callback is installed (see above).
gc.disable()

import cProfile  # noqa: E402
import os  # noqa: E402
import resource  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

_tt = time.thread_time_ns
_mono = time.monotonic_ns

# ---- the collector's probes: every collection, timed by gc.callbacks --------

_GC_STARTUP = [s["collections"] for s in gc.get_stats()]
_gc_a = 0
_gc_aw = 0
_gc_n = [0, 0, 0]  # collections measured, per generation
_gc_cpu = [0, 0, 0]  # sum of d - a, thread CPU
_gc_wall = [0, 0, 0]  # sum of d - a, monotonic
_gc_off = [0, 0, 0]  # sum of monotonic - CPU: time off the CPU inside [a, d]
_gc_gen0_max = [0, 0]  # the longest gen-0 collection at threshold 700: CPU, wall
_gc_track_max = True  # the threshold is the default
_gc_last = [0, 0]  # the last collection: CPU, wall


def _gc_cb(phase, info):
    global _gc_a, _gc_aw
    if phase == "start":
        _gc_aw = _mono()
        _gc_a = _tt()
        return
    d = _tt()
    dw = _mono()
    g = info["generation"]
    cpu = d - _gc_a
    wall = dw - _gc_aw
    _gc_n[g] += 1
    _gc_cpu[g] += cpu
    _gc_wall[g] += wall
    _gc_off[g] += max(wall - cpu, 0)
    _gc_last[0] = cpu
    _gc_last[1] = wall
    if g == 0 and _gc_track_max:
        if cpu > _gc_gen0_max[0]:
            _gc_gen0_max[0] = cpu
        if wall > _gc_gen0_max[1]:
            _gc_gen0_max[1] = wall


gc.callbacks.append(_gc_cb)
gc.enable()

# ---- work ----------------------------------------------------------------------

# One chunk: CHUNK dependent LCG steps from SEED, about 10-20 us.
_SEED = 0x2545F491
_CHUNK = 256
_RANGE = range(_CHUNK)


def _chunk_ref():
    x = _SEED
    for _ in _RANGE:
        x = (x * 1103515245 + 12345) & 0xFFFFFFFF
    return x


_REF = _chunk_ref()
_bad = 0  # integrity errors of the inline loops in this module's frames


class Lcg:
    """A deterministic PRNG for lengths (xorshift, as wl_rand_range)."""

    def __init__(self, seed):
        self.x = seed

    def between(self, lo, hi):
        x = self.x
        x ^= (x << 13) & 0xFFFFFFFFFFFFFFFF
        x ^= x >> 7
        x ^= (x << 17) & 0xFFFFFFFFFFFFFFFF
        self.x = x
        return lo + x % (hi - lo + 1)


class Acc:
    """A feature's truth: thread CPU and monotonic, each with its ambiguity."""

    def __init__(self):
        self.calls = 0
        self.ns = 0
        self.ambig_ns = 0
        self.wall_ns = 0
        self.wall_ambig_ns = 0
        self.wall_off_ns = 0

    def span(self, a, b, c, d, aw, bw, cw, dw):
        amb = (b - a) + (d - c)
        self.ns += (c - b) + amb // 2
        self.ambig_ns += amb
        amb = (bw - aw) + (dw - cw)
        self.wall_ns += (cw - bw) + amb // 2
        self.wall_ambig_ns += amb
        self.calls += 1

    def bracket(self, a, d, aw, dw):
        """An interval all of which is ambiguous."""
        self.ns += (d - a) // 2
        self.ambig_ns += d - a
        self.wall_ns += (dw - aw) // 2
        self.wall_ambig_ns += dw - aw

    def measured(self, cpu, wall, u_cpu, u_wall, n=1, off=0):
        """n intervals [a, d] of total cpu/wall, each with a bracket <= U.

        U bounds the brackets' work. Of the wall time, off is time the thread
        was off the CPU (preempted, or its vCPU's time stolen) inside the
        intervals: the workload cannot tell whether it fell inside the
        probes' interval [b, c] or in a bracket, so on the monotonic clock it
        is ambiguous too (with a loaded machine a preemption of a few ms lands
        in a bracket of a few us now and then)."""
        self.ns += cpu - n * u_cpu // 2
        self.ambig_ns += n * u_cpu
        self.wall_ns += wall - (n * u_wall + off) // 2
        self.wall_ambig_ns += n * u_wall + off
        self.wall_off_ns += off
        self.calls += n

    def write(self, out, key):
        out.put(key + ".calls", self.calls)
        out.put(key + ".ns", max(self.ns, 0))
        out.put(key + ".ambig_ns", self.ambig_ns)
        out.put(key + ".wall_ns", max(self.wall_ns, 0))
        out.put(key + ".wall_ambig_ns", self.wall_ambig_ns)
        out.put(key + ".wall_off_ns", self.wall_off_ns)


class Truth:
    """TRUTH.tmp, renamed to TRUTH when complete (wl_out_open/close)."""

    def __init__(self, path):
        self.path = path
        self.lines = []

    def put(self, key, value):
        if " " in key or "\n" in str(value):
            raise ValueError("bad truth entry %r" % key)
        self.lines.append("%s %s\n" % (key, value))

    def close(self):
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            f.writelines(self.lines)
        os.rename(tmp, self.path)


def die(msg):
    sys.stderr.write("wl_python.py: %s\n" % msg)
    sys.stderr.flush()
    os._exit(2)


def median(v):
    v = sorted(v)
    return v[len(v) // 2]


def trash_new():
    """48 MiB, more than a last-level cache (bytearray(n) memsets: real pages)."""
    return bytearray(48 << 20)


def trash(buf):
    """Reads buf: evicts from the caches what a probe's bracket runs on."""
    buf.find(b"\x01")


# ---- phase gc ----------------------------------------------------------------------


def gc_calibrate():
    """U per generation, then automatic gen-0 collections at the default threshold."""
    buf = trash_new()
    u = []
    # Everything tracked so far into the permanent generation: the
    # collections below find their generation (next to) empty.
    gc.freeze()
    for g in range(3):
        cpu = []
        wall = []
        for _ in range(15):
            trash(buf)
            gc.collect(g)
            cpu.append(_gc_last[0])
            wall.append(_gc_last[1])
        u.append((2 * median(cpu), 2 * median(wall)))
    gc.unfreeze()
    del buf
    # About 30 automatic generation-0 collections of reference cycles at
    # threshold 700, as at start-up: the longest bounds those.
    for _ in range(10500):
        a = []
        b = [a]
        a.append(b)
    return u


def phase_gc(target_ns):
    """Cyclic garbage over a long-lived heap: automatic and explicit collections."""
    global _gc_track_max
    t0 = _tt()
    # A larger young generation: fewer, longer collections, so that their
    # brackets (bounded by a cold-cache U) are a small part of them.
    _gc_track_max = False
    thresholds = gc.get_threshold()
    gc.set_threshold(20000, 10, 10)
    # About 240,000 long-lived containers: a full collection takes ~10 ms.
    heap = []
    for i in range(80000):
        heap.append([(i, i + 1), {"k": i}])
    gc.collect()
    k = 0
    while _tt() - t0 < target_ns:
        # 1,000 reference cycles, 2,000 containers: an automatic
        # generation-0 collection every 10 rounds, generation 1 every 100;
        # explicit ones of generations 1 and 2 besides.
        for _ in range(1000):
            a = []
            b = [a]
            a.append(b)
        k += 1
        if k % 100 == 0:
            gc.collect(1)
        if k % 500 == 0:
            gc.collect(2)
    del heap
    gc.collect(2)
    gc.set_threshold(*thresholds)
    _gc_track_max = True


# ---- phase import ------------------------------------------------------------------

_STDLIB = (
    "asyncio",
    "unittest",
    "email.mime.multipart",
    "xml.dom.minidom",
    "statistics",
    "tomllib",
    "pydoc",
)

_GEN_SRC = """\
# Generated by wl_python.py: imports nothing, spins at import.
CHUNKS = {chunks}
BAD = 0
for _i in range(CHUNKS):
    _x = {seed}
    for _j in range({chunk}):
        _x = (_x * 1103515245 + 12345) & 0xFFFFFFFF
    if _x != {ref}:
        BAD += 1
"""


def gen_source(chunks):
    return _GEN_SRC.format(chunks=chunks, seed=_SEED, chunk=_CHUNK, ref=_REF)


def import_calibrate():
    """U of an import: __import__ of a name bound to None in sys.modules."""
    name = "wlpy_calib"
    cpu = []
    wall = []
    buf = trash_new()
    for _ in range(15):
        sys.modules[name] = None
        trash(buf)
        aw = _mono()
        a = _tt()
        try:
            __import__(name)
        except ImportError:
            d = _tt()
            dw = _mono()
        else:
            die("importing %s did not fail" % name)
        cpu.append(d - a)
        wall.append(dw - aw)
    del sys.modules[name]
    return len(cpu), 2 * median(cpu), 2 * median(wall)


def phase_import(out, truth_dir, ms_list):
    moddir = os.path.join(truth_dir, "wlpy_mods.%d" % os.getpid())
    os.mkdir(moddir)
    # The cost of one chunk at module level, to size the generated modules.
    code = compile(gen_source(200), "<calibration>", "exec")
    t = _tt()
    exec(code, {})
    chunk_ns = max((_tt() - t) // 200, 1)
    names = []
    for i, ms in enumerate(ms_list):
        name = "wlpy_gen_%02d" % i
        with open(os.path.join(moddir, name + ".py"), "w") as f:
            f.write(gen_source(max(ms * 1000000 // chunk_ns, 1)))
        names.append(name)
    sys.path.insert(0, moddir)
    ncal, u_cpu, u_wall = import_calibrate()
    out.put("import.calib.n", ncal)
    out.put("import.calib.ns", u_cpu)
    out.put("import.calib.wall_ns", u_wall)
    todo = [("gen", n) for n in names]
    # Standard-library modules between them, those not loaded yet.
    for i, name in enumerate(_STDLIB):
        if name not in sys.modules:
            todo.insert(min(2 * i + 1, len(todo)), ("stdlib", name))
    gen = Acc()
    global _bad
    i = 0
    for kind, name in todo:
        if name in sys.modules:
            continue  # loaded meanwhile by another one: nothing would fire
        acc = Acc()
        before = len(sys.modules)
        aw = _mono()
        a = _tt()
        __import__(name)
        d = _tt()
        dw = _mono()
        off = max((dw - aw) - (d - a), 0)
        acc.measured(d - a, dw - aw, u_cpu, u_wall, off=off)
        mod = sys.modules[name]
        if kind == "gen":
            gen.measured(d - a, dw - aw, u_cpu, u_wall, off=off)
            _bad += mod.BAD
            out.put("import.%d.chunks" % i, mod.CHUNKS)
        out.put("import.%d.name" % i, name)
        out.put("import.%d.kind" % i, kind)
        out.put("import.%d.loaded" % i, len(sys.modules) - before)
        acc.write(out, "import.%d" % i)
        i += 1
    out.put("import.n", i)
    gen.write(out, "import.gen")
    sys.path.remove(moddir)
    for name in names:
        os.remove(os.path.join(moddir, name + ".py"))
    os.rmdir(moddir)


# ---- phase call ------------------------------------------------------------------
#
# The measured functions: inline work (no Python calls), clock reads at their
# first and last statement. The work loop is the same in each:
#
#     x = _SEED
#     for _ in _RANGE:
#         x = (x * 1103515245 + 12345) & 0xFFFFFFFF
#     if x != _REF:
#         bad += 1


def hot_a(ns):
    b = _tt()
    bw = _mono()
    bad = 0
    while True:
        x = _SEED
        for _ in _RANGE:
            x = (x * 1103515245 + 12345) & 0xFFFFFFFF
        if x != _REF:
            bad += 1
        if _tt() - b >= ns:
            break
    cw = _mono()
    c = _tt()
    return b, c, bw, cw, bad


def hot_b(ns):
    b = _tt()
    bw = _mono()
    bad = 0
    while True:
        x = _SEED
        for _ in _RANGE:
            x = (x * 1103515245 + 12345) & 0xFFFFFFFF
        if x != _REF:
            bad += 1
        if _tt() - b >= ns:
            break
    cw = _mono()
    c = _tt()
    return b, c, bw, cw, bad


def after_fn(ns):
    b = _tt()
    bw = _mono()
    bad = 0
    while True:
        x = _SEED
        for _ in _RANGE:
            x = (x * 1103515245 + 12345) & 0xFFFFFFFF
        if x != _REF:
            bad += 1
        if _tt() - b >= ns:
            break
    cw = _mono()
    c = _tt()
    return b, c, bw, cw, bad


def gen_steps(lengths):
    """Each step works, then yields its (b, c, bw, cw, bad)."""
    for ns in lengths:
        b = _tt()
        bw = _mono()
        bad = 0
        while True:
            x = _SEED
            for _ in _RANGE:
                x = (x * 1103515245 + 12345) & 0xFFFFFFFF
            if x != _REF:
                bad += 1
            if _tt() - b >= ns:
                break
        cw = _mono()
        c = _tt()
        yield b, c, bw, cw, bad


class Raised(Exception):
    pass


def raiser(ns):
    b = _tt()
    bw = _mono()
    bad = 0
    while True:
        x = _SEED
        for _ in _RANGE:
            x = (x * 1103515245 + 12345) & 0xFFFFFFFF
        if x != _REF:
            bad += 1
        if _tt() - b >= ns:
            break
    cw = _mono()
    c = _tt()
    raise Raised(b, c, bw, cw, bad)


def deep_leaf(ns):
    b = _tt()
    bw = _mono()
    bad = 0
    while True:
        x = _SEED
        for _ in _RANGE:
            x = (x * 1103515245 + 12345) & 0xFFFFFFFF
        if x != _REF:
            bad += 1
        if _tt() - b >= ns:
            break
    cw = _mono()
    c = _tt()
    return b, c, bw, cw, bad


DEPTH = 100  # deep(DEPTH) .. deep(0): DEPTH + 1 frames, then deep_leaf


def deep(n, ns):
    if n == DEPTH:
        b = _tt()
        bw = _mono()
        leaf = deep(n - 1, ns)
        cw = _mono()
        c = _tt()
        return b, c, bw, cw, leaf
    if n:
        return deep(n - 1, ns)
    return deep_leaf(ns)


def call_hot(rng, a_acc, b_acc, n, lo, hi):
    global _bad
    for _ in range(n):
        for fn, acc in ((hot_a, a_acc), (hot_b, b_acc)):
            ns = rng.between(lo, hi) if fn is hot_a else rng.between(lo // 2, hi // 2)
            aw = _mono()
            a = _tt()
            b, c, bw, cw, bad = fn(ns)
            d = _tt()
            dw = _mono()
            acc.span(a, b, c, d, aw, bw, cw, dw)
            _bad += bad


def phase_call(out):
    global _bad
    rng = Lcg(0x9E3779B97F4A7C15)
    acc = {k: Acc() for k in ("hot_a", "hot_b", "gen_steps", "raiser", "after_fn", "deep",
                              "deep_leaf")}
    consumer = Acc()
    exc_after = Acc()
    over = Acc()
    was_enabled = gc.isenabled()
    gc.disable()
    prof = cProfile.Profile(builtins=False)
    prof.enable()
    # From here on function__entry fires. This frame entered before: it has
    # no mark, so the inline work below is charged to no python:call instance.

    call_hot(rng, acc["hot_a"], acc["hot_b"], 60, 1500000, 3000000)

    # A generator: each step works inside it, then this frame works inline.
    steps = 60
    g = gen_steps([rng.between(1000000, 3000000) for _ in range(steps)])
    for _ in range(steps):
        aw = _mono()
        a = _tt()
        b, c, bw, cw, bad = next(g)
        d = _tt()
        dw = _mono()
        acc["gen_steps"].span(a, b, c, d, aw, bw, cw, dw)
        _bad += bad
        ns = rng.between(1000000, 3000000)
        b = _tt()
        bw = _mono()
        while True:
            x = _SEED
            for _ in _RANGE:
                x = (x * 1103515245 + 12345) & 0xFFFFFFFF
            if x != _REF:
                _bad += 1
            if _tt() - b >= ns:
                break
        cw = _mono()
        c = _tt()
        consumer.span(b, b, c, c, bw, bw, cw, cw)
    # The last resume runs off the end of the generator: a short interval,
    # all of it ambiguous.
    aw = _mono()
    a = _tt()
    if next(g, None) is not None:
        die("gen_steps yielded too often")
    d = _tt()
    dw = _mono()
    acc["gen_steps"].bracket(a, d, aw, dw)
    out.put("call.gen_steps.resumes", steps + 1)

    # Exceptions: raiser works and raises; this frame catches and works inline.
    for _ in range(50):
        ns = rng.between(1000000, 3000000)
        aw = _mono()
        a = _tt()
        try:
            raiser(ns)
        except Raised as e:
            d = _tt()
            dw = _mono()
            b, c, bw, cw, bad = e.args
        acc["raiser"].span(a, b, c, d, aw, bw, cw, dw)
        _bad += bad
        ns = rng.between(1000000, 3000000)
        b = _tt()
        bw = _mono()
        while True:
            x = _SEED
            for _ in _RANGE:
                x = (x * 1103515245 + 12345) & 0xFFFFFFFF
            if x != _REF:
                _bad += 1
            if _tt() - b >= ns:
                break
        cw = _mono()
        c = _tt()
        exc_after.span(b, b, c, c, bw, bw, cw, cw)

    # A CPU-heavy function after them: charged to itself only.
    for _ in range(40):
        ns = rng.between(1000000, 3000000)
        aw = _mono()
        a = _tt()
        b, c, bw, cw, bad = after_fn(ns)
        d = _tt()
        dw = _mono()
        acc["after_fn"].span(a, b, c, d, aw, bw, cw, dw)
        _bad += bad

    # Deeper than fsp-bpf's 64 marks.
    for _ in range(10):
        ns = rng.between(8000000, 12000000)
        aw = _mono()
        a = _tt()
        b, c, bw, cw, leaf = deep(DEPTH, ns)
        d = _tt()
        dw = _mono()
        acc["deep"].span(a, b, c, d, aw, bw, cw, dw)
        lb, lc, lbw, lcw, bad = leaf
        acc["deep_leaf"].span(lb, lb, lc, lc, lbw, lbw, lcw, lcw)
        # Overflowed: at least the leaf's work, at most [a, d].
        over.span(a, lb, lc, d, aw, lbw, lcw, dw)
        _bad += bad

    # And the hot functions again, after all that.
    call_hot(rng, acc["hot_a"], acc["hot_b"], 60, 1500000, 3000000)

    prof.disable()
    if was_enabled:
        gc.enable()
    out.put("call.profiler", "cProfile.Profile(builtins=False)")
    for name, fn in (("hot_a", hot_a), ("hot_b", hot_b), ("gen_steps", gen_steps),
                     ("raiser", raiser), ("after_fn", after_fn), ("deep", deep),
                     ("deep_leaf", deep_leaf)):
        co = fn.__code__
        out.put("call.%s.instance" % name, "%s (%s)" % (co.co_name, co.co_filename))
        acc[name].write(out, "call." + name)
    # deep(): DEPTH + 1 frames per call, all of them entered.
    out.put("call.deep.enters", acc["deep"].calls * (DEPTH + 1))
    out.put("call.deep.depth", DEPTH)
    out.put("call.deep.marks_per_call", DEPTH + 2)
    consumer.write(out, "call.gen_consumer")
    exc_after.write(out, "call.exc_after")
    over.write(out, "call.deep_over")


# ---- main --------------------------------------------------------------------


def main():
    global _bad
    if len(sys.argv) not in (2, 3):
        die("usage: wl_python.py TRUTH [gc,import,call]")
    path = sys.argv[1]
    phases = (sys.argv[2] if len(sys.argv) == 3 else "gc,import,call").split(",")
    for p in phases:
        if p not in ("gc", "import", "call"):
            die("unknown phase '%s'" % p)
    # No __pycache__ writes (the standard library's directory is root's).
    sys.dont_write_bytecode = True
    out = Truth(path)
    out.put("python.version", "%d.%d.%d" % sys.version_info[:3])
    out.put("phases", ",".join(phases))
    u_gc = gc_calibrate()
    for p in phases:
        t = _tt()
        w = _mono()
        if p == "gc":
            phase_gc(1000000000)
        elif p == "import":
            phase_import(out, os.path.dirname(os.path.abspath(path)),
                         (40, 110, 60, 90, 130, 50, 100, 70))
        else:
            phase_call(out)
        out.put("phase.%s.cpu_ns" % p, _tt() - t)
        out.put("phase.%s.wall_ns" % p, _mono() - w)

    # The end of the window: no collection after this.
    gc.disable()
    stats = [s["collections"] for s in gc.get_stats()]
    cpu_total = time.process_time_ns()
    thread_total = _tt()

    measured = sum(_gc_n)
    if sum(_GC_STARTUP) + measured != sum(stats):
        die("collections: %d at start-up + %d measured != %d" %
            (sum(_GC_STARTUP), measured, sum(stats)))
    out.put("gc.startup.count", sum(_GC_STARTUP))
    out.put("gc.measured", measured)
    total = Acc()
    for g in range(3):
        out.put("gc.count.%d" % g, stats[g])
        out.put("gc.%d.calib.ns" % g, u_gc[g][0])
        out.put("gc.%d.calib.wall_ns" % g, u_gc[g][1])
        acc = Acc()
        acc.measured(_gc_cpu[g], _gc_wall[g], u_gc[g][0], u_gc[g][1], _gc_n[g], _gc_off[g])
        acc.write(out, "gc.%d" % g)
        total.measured(_gc_cpu[g], _gc_wall[g], u_gc[g][0], u_gc[g][1], _gc_n[g], _gc_off[g])
    total.write(out, "gc")
    out.put("gc.gen0_max_ns", _gc_gen0_max[0])
    out.put("gc.gen0_max_wall_ns", _gc_gen0_max[1])
    out.put("thread_cpu_ns", thread_total)
    out.put("cpu_total_ns", cpu_total)
    out.put("pid", os.getpid())
    out.put("integrity_errors", _bad)
    ru = resource.getrusage(resource.RUSAGE_SELF)
    out.put("ctx_switches", ru.ru_nvcsw + ru.ru_nivcsw)
    out.put("end", 1)
    out.close()
    sys.stdout.flush()
    sys.stderr.flush()
    # No interpreter finalization: its collections run without callbacks.
    os._exit(0)


main()
