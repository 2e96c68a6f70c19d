# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#
# The Ruby workload of tests/integration/test_ruby.c (maps/ruby.map):
#
#   ruby wl_ruby.rb TRUTH SECONDS CALLS
#
# requires 'set' (a feature not loaded at start), calls Wl#hot CALLS times
# (an empty method) and Wl#outer CALLS / 10 times (each calls hot twice)
# under a TracePoint for :call and :return (Ruby 3.1 fires its method probes
# only then),
# then allocates short-lived strings for SECONDS of CPU time, keeping a
# small live set, so that almost every collection is a minor one. Writes
# what Ruby measured itself, "key value" lines, to TRUTH:
#   gc.count, gc.minor, gc.major   GC.stat
#   gc.time_ms                     GC.stat[:time] (Ruby 3.1: ms spent in GC)
#   cpu_total_ns                   the process's CPU time
#   hot.calls, outer.calls         the calls made
class Wl
  def hot
  end

  def outer
    hot
    hot
  end
end

truth, seconds, calls = ARGV[0], ARGV[1].to_f, ARGV[2].to_i
require 'set'
w = Wl.new
tp = TracePoint.new(:call, :return) {}
tp.enable
calls.times { w.hot }
(calls / 10).times { w.outer }
tp.disable
keep = Array.new(1000)
clock = Process::CLOCK_PROCESS_CPUTIME_ID
deadline = Process.clock_gettime(clock) + seconds
while Process.clock_gettime(clock) < deadline
  1000.times { |i| s = 'x' * 50; keep[i] = s if i % 100 == 0 }
end
s = GC.stat
cpu = Process.clock_gettime(clock, :nanosecond)
File.write(truth + '.tmp', <<~TRUTH)
  gc.count #{s[:count]}
  gc.minor #{s[:minor_gc_count]}
  gc.major #{s[:major_gc_count]}
  gc.time_ms #{s[:time]}
  cpu_total_ns #{cpu}
  hot.calls #{calls + 2 * (calls / 10)}
  outer.calls #{calls / 10}
TRUTH
File.rename(truth + '.tmp', truth)
