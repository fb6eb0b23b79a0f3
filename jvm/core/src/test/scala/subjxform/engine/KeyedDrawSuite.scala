package subjxform.engine

import java.nio.charset.StandardCharsets.UTF_8
import java.util.SplittableRandom

import org.scalatest.funsuite.AnyFunSuite

import subjxform.config.{FilterTransforms, MappingTable}

/** Keyed draws (issue 13, item 10): a pure function of (seed, key, rule), with the weights' shares. */
class KeyedDrawSuite extends AnyFunSuite {

  private val canary = MappingTable.compile(
    """{"orders.*": [{"destination": "v1.$1", "weight": "95%"}, {"destination": "v2.$1", "weight": "5%"}],
      | "svc": [{"destination": "a", "weight": 50}, {"destination": "b", "weight": 50}],
      | "other": [{"destination": "a", "weight": 50}, {"destination": "b", "weight": 50}],
      | "rnd.*": "r.{{random(10)}}.{{random(10)}}"}""".stripMargin)

  private def keyed(
      table: MappingTable, subject: String, seed: Long, key: Long, ws: Workspace = new Workspace(7)): String = {
    val b = subject.getBytes(UTF_8)
    val r = table.applyKeyed(b, 0, b.length, null, 0, 0, seed, key, ws)
    if (r eq MappingTable.Unchanged) subject else if (r == null) null else new String(r, UTF_8)
  }

  /** |observed - expected| in standard deviations of a binomial(n, p). */
  private def sigmas(observed: Long, n: Long, p: Double): Double =
    math.abs(observed - n * p) / math.sqrt(n * p * (1 - p))

  test("the same key gets the same destination whatever the order of the rows and the workspace they run in") {
    val keys = (0L until 20000L).map(k => k * 0x9e3779b97f4a7c15L)
    val subjects = keys.map(k => s"orders.${java.lang.Long.toHexString(k)}")
    val inOrder = keys.zip(subjects).map { case (k, s) => keyed(canary, s, 42, k) }
    // Shuffled, split over "partitions" of different sizes, workspaces that drew other things before.
    val shuffled = new scala.util.Random(1).shuffle(keys.indices.toList)
    val partitions = shuffled.grouped(777).toList
    val again = new Array[String](keys.length)
    for ((part, p) <- partitions.zipWithIndex) {
      val ws = new Workspace(p)
      canary("svc", null, ws) // an unkeyed draw in between moves the workspace's random source
      for (i <- part) again(i) = keyed(canary, subjects(i), 42, keys(i), ws)
    }
    assert(again.toSeq == inOrder)
    assert(inOrder.count(_.startsWith("v2.")) > 0 && inOrder.count(_.startsWith("v1.")) > 0)
  }

  test("weighted shares pass a binomial test at 1M draws (95/5 and 50/50)") {
    val n = 1000000
    val ws = new Workspace(0)
    var v2 = 0L
    var a = 0L
    var k = 0
    while (k < n) {
      if (keyed(canary, "orders.x", 42, k, ws).startsWith("v2.")) v2 += 1
      if (keyed(canary, "svc", 42, k, ws) == "a") a += 1
      k += 1
    }
    assert(sigmas(v2, n, 0.05) < 4.5, s"v2: $v2 of $n")
    assert(sigmas(a, n, 0.5) < 4.5, s"a: $a of $n")
  }

  test("{{random(n)}} is uniform (chi-square at 1M draws) and each token draws on its own") {
    val n = 1000000
    val counts = Array.ofDim[Long](10, 10)
    val ws = new Workspace(0)
    for (k <- 0 until n) {
      val Array(_, x, y) = keyed(canary, "rnd.s", 3, k, ws).split('.')
      counts(x.toInt)(y.toInt) += 1
    }
    // The 100 (first, second) pairs: uniform only if both are and they are independent.
    val expected = n / 100.0
    val chi2 = counts.flatten.map(c => (c - expected) * (c - expected) / expected).sum
    assert(chi2 < 160, s"chi-square $chi2 with 99 degrees of freedom") // p ~ 1e-4
  }

  test("different rules, seeds and keys draw independently") {
    val n = 200000
    var sameRules = 0L
    var sameSeeds = 0L
    var sameNextKey = 0L
    for (k <- 0 until n) {
      val svc = keyed(canary, "svc", 42, k)
      if (svc == keyed(canary, "other", 42, k)) sameRules += 1 // two rules, same destinations and weights
      if (svc == keyed(canary, "svc", 43, k)) sameSeeds += 1
      if (svc == keyed(canary, "svc", 42, k + 1)) sameNextKey += 1
    }
    for ((what, same) <- Seq("rules" -> sameRules, "seeds" -> sameSeeds, "consecutive keys" -> sameNextKey)) {
      assert(sigmas(same, n, 0.5) < 4.5, s"$what agree on $same of $n draws")
    }
  }

  test("a rule's draws depend on its source, not on the other rules or its position in the table") {
    val alone =
      MappingTable.compile("""{"svc": [{"destination": "a", "weight": 50}, {"destination": "b", "weight": 50}]}""")
    val amongOthers = MappingTable.compile(
      """{"x.*": "y.$1", "other": "z", "svc": [{"destination": "a", "weight": 50}, {"destination": "b", "weight": 50}]}""")
    for (k <- 0L until 1000L) assert(keyed(alone, "svc", 5, k) == keyed(amongOthers, "svc", 5, k))
  }

  test("keyed subject_transform and filter lists: random(n) a function of (seed, key, transform)") {
    val tr = SubjectTransform.compile("a.*", "b.{{random(1000)}}.$1")
    val list = FilterTransforms.of("a.*", "b.{{random(1000)}}.$1")
    val in = "a.x".getBytes(UTF_8)
    val results = (0L until 2000L).map { k =>
      val ws = new Workspace(k) // a different random source every time: it must not matter
      val t = new String(tr.applyKeyed(in, 0, in.length, 9, k, ws), UTF_8)
      assert(t == new String(tr.applyKeyed(in, 0, in.length, 9, k, new Workspace), UTF_8))
      assert(t == new String(list.applyKeyed(in, 0, in.length, 9, k, ws), UTF_8)) // same src/dest: same draw
      t
    }
    assert(results.distinct.size > 800) // a thousand values, two thousand keys
  }

  test("without a key, today's draws: a seeded workspace's random source, row after row") {
    // The weighted choice is nextInt(100) against the running totals, as before keyed draws existed.
    val ws = new Workspace(42)
    val reference = new SplittableRandom(42)
    for (_ <- 0 until 10000) {
      val expected = if (reference.nextInt(100) < 95) "v1.x" else "v2.x"
      assert(canary("orders.x", null, ws) == expected)
    }
    val tr = SubjectTransform.compile("a", "{{random(7)}}")
    val ws2 = new Workspace(5)
    val ref2 = new SplittableRandom(5)
    for (_ <- 0 until 1000)
      assert(tr("a".getBytes(UTF_8), 0, 1, ws2).sameElements(ref2.nextLong(7).toString.getBytes(UTF_8)))
  }
}
