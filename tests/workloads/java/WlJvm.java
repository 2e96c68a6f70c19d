// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The JVM workload of tests/integration/test_jvm.c: allocates garbage for a
 * while (young collections), asks for a few full collections (System.gc()),
 * and lets the JIT compile what runs hot, then writes what the JVM measured
 * itself, as "key value" lines, to the truth file:
 *
 *   gc.young.count, gc.young.ms   GarbageCollectorMXBean of the young collector
 *   gc.old.count, gc.old.ms       ... of the old (full) collector
 *   jit.ms                        CompilationMXBean.getTotalCompilationTime()
 *   cpu_total_ns                  the process's CPU time (all threads, also
 *                                 exited ones: CLOCK_PROCESS_CPUTIME_ID)
 *   gcthreads.ns, gcthreads.n     CPU time of the threads named "GC Thread#*"
 *                                 (G1's and Parallel's workers), from
 *                                 /proc/self/task/TID/schedstat (ns)
 *   vmthread.ns                   CPU time of the "VM Thread"
 *   full_gcs                      the System.gc() calls made
 *
 * Usage: java WlJvm TRUTH SECONDS FULL_GCS
 * The live set stays small (a ring of 4000 arrays of at most 4 KiB), so that
 * G1 never starts a concurrent cycle (no Remark or Cleanup pause) and the
 * serial collector's young collections never escalate to full ones.
 */
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

public class WlJvm {
    static final Object[] ring = new Object[4000];
    static long sink;

    /* Some arithmetic the JIT compiles. */
    static long mix(long x) {
        x ^= x >>> 33;
        x *= 0xff51afd7ed558ccdL;
        x ^= x >>> 33;
        return x;
    }

    static void churn(long seed, int n) {
        long x = seed;
        for (int i = 0; i < n; i++) {
            x = mix(x + i);
            ring[(int) ((x >>> 1) % ring.length)] = new byte[(int) ((x >>> 20) & 4095)];
        }
        sink += x;
    }

    static String readFirst(Path p) throws IOException {
        List<String> l = Files.readAllLines(p);
        return l.isEmpty() ? "" : l.get(0).trim();
    }

    public static void main(String[] args) throws Exception {
        String truth = args[0];
        double seconds = Double.parseDouble(args[1]);
        int fulls = Integer.parseInt(args[2]);
        long start = System.nanoTime(), end = start + (long) (seconds * 1e9);
        int done = 0;
        long rounds = 0;

        while (System.nanoTime() < end) {
            churn(rounds, 10000);
            rounds++;
            double t = (System.nanoTime() - start) / (seconds * 1e9);
            if (done < fulls && t >= (done + 1.0) / (fulls + 1)) {
                System.gc();
                done++;
            }
        }
        long gcNs = 0, vmNs = 0;
        int gcThreads = 0;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(Paths.get("/proc/self/task"))) {
            for (Path task : ds) {
                String comm = readFirst(task.resolve("comm"));
                long ns = Long.parseLong(readFirst(task.resolve("schedstat")).split(" ")[0]);
                if (comm.startsWith("GC Thread#")) {
                    gcNs += ns;
                    gcThreads++;
                } else if (comm.equals("VM Thread")) {
                    vmNs += ns;
                }
            }
        }
        long youngCount = 0, youngMs = 0, oldCount = 0, oldMs = 0;
        for (GarbageCollectorMXBean b : ManagementFactory.getGarbageCollectorMXBeans()) {
            String n = b.getName();
            boolean young = n.equals("Copy") || n.equals("G1 Young Generation")
                    || n.equals("PS Scavenge");
            boolean old = n.equals("MarkSweepCompact") || n.equals("G1 Old Generation")
                    || n.equals("PS MarkSweep");
            if (young) {
                youngCount += b.getCollectionCount();
                youngMs += b.getCollectionTime();
            } else if (old) {
                oldCount += b.getCollectionCount();
                oldMs += b.getCollectionTime();
            } else {
                throw new IllegalStateException("unknown collector " + n);
            }
        }
        long jitMs = ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpu = os.getProcessCpuTime();
        try (PrintWriter w = new PrintWriter(truth)) {
            w.println("gc.young.count " + youngCount);
            w.println("gc.young.ms " + youngMs);
            w.println("gc.old.count " + oldCount);
            w.println("gc.old.ms " + oldMs);
            w.println("jit.ms " + jitMs);
            w.println("cpu_total_ns " + cpu);
            w.println("gcthreads.ns " + gcNs);
            w.println("gcthreads.n " + gcThreads);
            w.println("vmthread.ns " + vmNs);
            w.println("full_gcs " + done);
            w.println("rounds " + rounds);
        }
        System.exit(0);
    }
}
