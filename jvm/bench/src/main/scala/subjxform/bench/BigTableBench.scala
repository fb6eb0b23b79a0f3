package subjxform.bench

import java.lang.management.ManagementFactory

import subjxform.config.{ConfSyntax, FilterTransforms, MappingTable}
import subjxform.engine.Workspace

/**
 * Big mapping tables, one run, same subjects: the cost per subject of `MappingTable.apply` with the
 * four-rule table of the end-to-end benchmark and with 50,000 and 100,000 rules ([[BigTables]]: the
 * same four rules come last, after wildcard rules that share the subjects' first tokens), timed by the
 * thread's CPU time, best of `rounds`; the ratio to the four-rule table is the goal of issue 13 (within
 * 2x). Then the CPU time of finding every overlap between rules (and of a whole `validate`), and of a
 * source's filter-list check (`FilterTransforms.compile`) over 30,000 and 100,000 entries (CPU time:
 * the machine's cores are shared, wall-clock times swing by several times).
 *
 *   scripts/sbt "bench/runMain subjxform.bench.BigTableBench [ops] [rounds]"
 */
object BigTableBench {
  def main(args: Array[String]): Unit = {
    val ops = if (args.nonEmpty) args(0).toInt else 2000000
    val rounds = if (args.length > 1) args(1).toInt else 7
    val subjects = BenchFiles.subjects()
    val bean = ManagementFactory.getThreadMXBean
    val ws = new Workspace(42L)
    var sink = 0L

    def cpuMs(body: => Unit): Double = {
      val t0 = bean.getCurrentThreadCpuTime; body; (bean.getCurrentThreadCpuTime - t0) / 1e6
    }

    def nsPerSubject(table: MappingTable): Double = {
      var best = Double.MaxValue
      for (r <- 0 until rounds + 3) { // 3 warm-up rounds
        val t0 = bean.getCurrentThreadCpuTime
        var i = 0
        var j = 0
        while (i < ops) {
          val s = subjects(j)
          val out = table(s, 0, s.length, null, 0, 0, ws)
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

    val sizes = Seq(4, 50000, 100000)
    val tables = sizes.map(n => n -> MappingTable.compile(BigTables.text(n)))
    // The same subjects must take the same rule in every table.
    val probe = subjects.take(64).map(s =>
      tables.map { case (_, t) =>
        java.util.Arrays.toString(t(s, 0, s.length, null, 0, 0, new Workspace(1)))
      }.distinct.size)
    if (probe.exists(_ != 1)) throw new IllegalStateException("the tables map the benchmark subjects differently")

    println("subject_map engine, ns per subject (CPU time, best of rounds)")
    val base = nsPerSubject(tables.head._2)
    println(f"  ${4}%7d rules  $base%7.1f ns   1.00x")
    for ((n, t) <- tables.tail) {
      val ns = nsPerSubject(t)
      println(f"  $n%7d rules  $ns%7.1f ns  ${ns / base}%5.2fx")
    }

    println(
      "reading a table's text (ConfSyntax, nats-server's config syntax) and compiling it, ms of CPU time, best of 5")
    for (n <- Seq(10000, 100000)) {
      val text = BigTables.text(n)
      val read = (0 until 5).map(_ => cpuMs(ConfSyntax.parseMappings(text))).min
      // a comment makes each round's text another one: MappingTable.compile keeps the tables it compiled
      val compile = (0 until 5).map(r => cpuMs(MappingTable.compile(s"$text# round $r\n"))).min
      println(f"  $n%7d rules  read $read%6.0f ms  read and compile $compile%6.0f ms")
    }

    println("finding every overlap between rules (MappingTable.validate's overlap check), ms of CPU time")
    for (n <- Seq(10000, 100000)) {
      val sources = (0 until n - 4).map(i => BigTables.filler(i)._1) ++ BigTables.fourRules.map(_._1)
      var warnings = 0
      val times = (0 until 3).map(_ => cpuMs { warnings = MappingTable.overlapWarnings(sources).size })
      val validate = cpuMs(MappingTable.validate(BigTables.text(n)))
      println(f"  $n%7d rules  overlaps ${times.min}%6.0f ms ($warnings warnings)  whole validate $validate%6.0f ms")
    }

    println("a source's filter list: nats-server's overlap check and compile, ms of CPU time")
    for (n <- Seq(30000, 100000)) {
      val entries = (0 until n).map(i => (s"src.$i.*", s"dst.$i.$$1"))
      println(f"  $n%7d entries  ${(0 until 3).map(_ => cpuMs(FilterTransforms.compile(entries))).min}%7.0f ms")
    }
    if (sink == 42) println()
  }
}
