package subjxform.bench

import java.lang.management.ManagementFactory
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Paths}

import subjxform.engine.Workspace

/**
 * The JMH cases timed by this thread's CPU time instead of wall time: on a machine whose cores are
 * shared with other work, wall-clock JMH numbers swing by several times, CPU time much less.
 * Best of `rounds` rounds of `ops` operations each, after warm-up; prints and optionally writes
 * `name<TAB>ns/op` (a Go benchmark of nats-server measured the same way sits beside it in JMH.md).
 *
 *   scripts/sbt "bench/runMain subjxform.bench.CpuTimeBench [out.tsv] [ops] [rounds]"
 */
object CpuTimeBench {
  def main(args: Array[String]): Unit = {
    val ops = if (args.length > 1) args(1).toInt else 4000000
    val rounds = if (args.length > 2) args(2).toInt else 7
    val subjects = BenchFiles.subjects()
    val bean = ManagementFactory.getThreadMXBean
    val ws = new Workspace(42L)
    var sink = 0L

    def run(apply: Array[Byte] => Array[Byte]): Double = {
      var best = Double.MaxValue
      for (r <- 0 until rounds + 3) { // 3 warm-up rounds
        val t0 = bean.getCurrentThreadCpuTime
        var i = 0
        var j = 0
        while (i < ops) {
          val out = apply(subjects(j))
          if (out != null) sink += out.length
          j += 1
          if (j == subjects.length) j = 0
          i += 1
        }
        val ns = (bean.getCurrentThreadCpuTime - t0).toDouble / ops
        if (r >= 3) best = math.min(best, ns)
      }
      best
    }

    val lines =
      (BenchFiles.CopyFloor +: BenchFiles.cases().map(_._1)).map(name => name -> run(BenchFiles.work(name, ws)))
    val text = lines.map { case (n, ns) => f"$n\t$ns%.1f" }.mkString("", "\n", "\n")
    print(text)
    if (sink == 42) println() // keep the results alive
    if (args.nonEmpty) Files.write(Paths.get(args(0)), text.getBytes(UTF_8))
  }
}
