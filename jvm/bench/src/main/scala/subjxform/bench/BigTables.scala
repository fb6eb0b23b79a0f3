package subjxform.bench

/**
 * Mapping tables of any size for the big-table benchmarks, in nats-server config syntax, built so that
 * a table of n rules keeps the benchmark subjects' work the same as the four-rule table's:
 *
 *  - the [[fourRules]] of the end-to-end benchmark (bench/bench.py) come last, so every benchmark
 *    subject is mapped by the same rule and destination whatever n is;
 *  - the n - 4 rules before them are wildcard rules that share the subjects' first tokens (`orders`,
 *    `payments`, `shipments`, `telemetry`) or start with a `*`, but never match a benchmark subject:
 *    a linear scan looks at every one of them for every subject before it reaches its rule;
 *  - one rule in five has weighted destinations, so choices take their share of memory.
 */
object BigTables {
  val fourRules: Seq[(String, String)] = Seq(
    "orders.*.*.*" -> "\"orders.{{wildcard(2)}}.$1.$3\"",
    "payments.*.*" -> "\"payments.{{partition(8,2)}}.$1.$2\"",
    "shipments.>" -> "archive.shipments.>",
    "telemetry.*.>" -> "\"t.$1.>\"")

  private val firsts = Array("orders", "payments", "shipments", "telemetry", "*")

  /** The i-th filler rule: a wildcard rule no benchmark subject matches. */
  def filler(i: Int): (String, String) = {
    val first = firsts(i % firsts.length)
    val src = if (first == "*") s"*.zone$i.*" else s"$first.zone$i.*.>"
    val tail = if (first == "*") "{{wildcard(2)}}" else "{{wildcard(1)}}.>"
    val dest =
      if (i % 10 < 2) s"""[{destination: "moved.$i.$tail", weight: 60%}, {destination: "kept.$i.$tail", weight: 40%}]"""
      else s""""moved.$i.$tail""""
    src -> dest
  }

  /** Writes the table of `n` rules to a file, for the Python reader's timing (bench/conf_read.py): `n FILE`. */
  def main(args: Array[String]): Unit =
    java.nio.file.Files.write(java.nio.file.Paths.get(args(1)), text(args(0).toInt).getBytes("UTF-8"))

  /** `n` rules in all (n >= 4), as the content of a `mappings { }` block. */
  def text(n: Int): String = {
    val sb = new java.lang.StringBuilder
    for (i <- 0 until n - fourRules.length) {
      val (s, d) = filler(i)
      sb.append(s).append(": ").append(d).append('\n')
    }
    for ((s, d) <- fourRules) sb.append(s).append(": ").append(d).append('\n')
    sb.toString
  }
}
