package subjxform.bench

import java.lang.management.ManagementFactory
import java.nio.charset.StandardCharsets.UTF_8

import subjxform.config.MappingTable

/**
 * What a compiled mapping table holds on the heap, per rule and per byte of its text: the heap in use
 * after full collections with the table alive, minus the same without it (the text is held throughout,
 * so only the compiled table counts). Also how long compiling and validating (every overlap warning)
 * take.
 *
 *   scripts/sbt "bench/runMain subjxform.bench.TableFootprint [rules...]"   (default 1000 10000 100000)
 */
object TableFootprint {
  private val memory = ManagementFactory.getMemoryMXBean

  private def usedAfterGc(): Long = {
    var last = Long.MaxValue
    for (_ <- 0 until 4) { System.gc(); Thread.sleep(100); last = math.min(last, memory.getHeapMemoryUsage.getUsed) }
    last
  }

  def main(args: Array[String]): Unit = {
    val sizes = if (args.nonEmpty) args.map(_.toInt).toSeq else Seq(1000, 10000, 100000)
    println("rules\ttext bytes\theap bytes\tbytes/rule\theap/text\tcompile ms\tvalidate ms\twarnings")
    for (n <- sizes) {
      val text = BigTables.text(n)
      val textBytes = text.getBytes(UTF_8).length
      MappingTable.compile(text + "\n# warm-up") // another text: compile shares a table by its text
      val before = usedAfterGc()
      val t0 = System.nanoTime()
      val table = MappingTable.compile(text)
      val compileMs = (System.nanoTime() - t0) / 1e6
      val heap = usedAfterGc() - before
      val t1 = System.nanoTime()
      val problems = MappingTable.validate(text)
      val validateMs = (System.nanoTime() - t1) / 1e6
      println(
        f"$n\t$textBytes\t$heap\t${heap.toDouble / n}%.0f\t${heap.toDouble / textBytes}%.1f\t$compileMs%.0f\t$validateMs%.0f\t${problems.size}")
      if (table.rules.length != n) throw new IllegalStateException("table lost rules")
    }
  }
}
