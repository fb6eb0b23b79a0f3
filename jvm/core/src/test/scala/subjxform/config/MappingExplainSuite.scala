package subjxform.config

import java.nio.charset.StandardCharsets.UTF_8

import org.scalacheck.{Gen, Prop, Test}
import org.scalacheck.rng.Seed
import org.scalatest.funsuite.AnyFunSuite

import subjxform.engine.{Golden, GoQuote, Subjects, Workspace}

/**
 * `MappingTable.explain` reports the decision `apply` / `applyKeyed` take: the same result for the same
 * arguments and the same random state (it draws as they do), and the rule, scope and destination that
 * produced it.
 */
class MappingExplainSuite extends AnyFunSuite {

  private def bytes(s: String): Array[Byte] = if (s == null) null else s.getBytes(UTF_8)

  private def applied(
      t: MappingTable, s: String, c: String, ws: Workspace, keyed: Boolean, seed: Long, key: Long): Array[Byte] = {
    val b = bytes(s)
    val cb = bytes(c)
    val clen = if (cb == null) 0 else cb.length
    if (keyed) t.applyKeyed(b, 0, b.length, cb, 0, clen, seed, key, ws) else t(b, 0, b.length, cb, 0, clen, ws)
  }

  private def explained(t: MappingTable, s: String, c: String, ws: Workspace, keyed: Boolean, seed: Long, key: Long) = {
    val b = bytes(s)
    val cb = bytes(c)
    t.explain(b, 0, b.length, cb, 0, if (cb == null) 0 else cb.length, ws, keyed, seed, key)
  }

  /** Whether explain and apply, each on its own workspace seeded alike, agree on every subject in turn. */
  private def agreeOnSequence(
      t: MappingTable, subjects: Seq[String], cluster: String, seed: Long, keyed: Boolean): Option[String] = {
    val a = new Workspace(seed)
    val e = new Workspace(seed)
    subjects.zipWithIndex.collectFirst(Function.unlift { case (s, i) =>
      val want = applied(t, s, cluster, a, keyed, seed, i.toLong * 7919)
      val x = explained(t, s, cluster, e, keyed, seed, i.toLong * 7919)
      val got = if (x == null) null else x.result
      val same = (want == null && got == null) || (want != null && got != null &&
        ((want eq MappingTable.Unchanged) == (got eq MappingTable.Unchanged)) && java.util.Arrays.equals(want, got))
      val consistent = x == null || {
        val expectedOutcome =
          if (got eq MappingTable.Unchanged) MappingExplanation.NoMatch
          else if (got == null) MappingExplanation.Dropped
          else if (java.util.Arrays.equals(got, bytes(s))) MappingExplanation.Unchanged
          else MappingExplanation.Mapped
        x.outcome == expectedOutcome && (x.matched == (x.outcome != MappingExplanation.NoMatch)) &&
        (!x.matched || (t.rules(x.ruleNumber) eq x.rule))
      }
      if (same && consistent) None
      else Some(s"subject #$i ${GoQuote(s)} cluster $cluster seed $seed keyed $keyed: apply gave " +
        s"${Option(want).map(new String(_, UTF_8))}, explain $x with ${Option(got).map(new String(_, UTF_8))}")
    })
  }

  test("explain agrees with apply on every accepted golden mapping case, for several seeds, clusters and keys") {
    val failures = Golden.mapCases.filter(_.accepted).flatMap { c =>
      val t = MappingTable.compile(c.mappings)
      val clusters = null +: t.rules.flatMap(_.clusterNames).map(new String(_, UTF_8)).distinct.toSeq :+ "nowhere"
      for {
        cluster <- clusters
        seed <- 0L until 20L
        keyed <- Seq(false, true)
        failure <- agreeOnSequence(t, Seq.fill(5)(c.subject), cluster, seed, keyed)
      } yield s"${c.id}: $failure"
    }
    assert(Golden.mapCases.count(_.accepted) > 50)
    assert(failures.isEmpty, failures.take(20).mkString("\n", "\n", s"\n(${failures.size} failures)"))
  }

  test("the golden cases' explanations give nats-server's result where it is certain") {
    val failures = Golden.mapCases.filter(c => c.accepted && c.expected.isDefined).flatMap { c =>
      val x = MappingTable.compile(c.mappings).explain(c.subject, null, new Workspace(1))
      val got = if (x == null) None
      else if (x.result eq MappingTable.Unchanged) Some(c.subject)
      else Option(x.result).map(new String(_, UTF_8))
      if (got == c.expected.get) None else Some(s"${c.id}: ${c.subject} explained as $x, expected ${c.expected.get}")
    }
    assert(failures.isEmpty, failures.take(20).mkString("\n", "\n", ""))
  }

  // Random tables: literal and wildcard rules over a small alphabet (so they overlap and shadow each
  // other), weighted entries with and without clusters, the source listed or not (remainder dropped or kept).
  private val token = Gen.oneOf("a", "b", "c", "orders", "x1")
  private val sourceToken = Gen.frequency(5 -> token, 2 -> Gen.const("*"))
  private val source: Gen[String] = for {
    n <- Gen.choose(1, 3)
    toks <- Gen.listOfN(n, sourceToken)
    full <- Gen.oneOf(true, false, false)
  } yield (toks :+ (if (full) ">" else "")).filter(_.nonEmpty).mkString(".")

  private def destinationFor(src: String, i: Int): String = {
    val stars = Subjects.tokens(src).count(_ == "*")
    val parts = (1 to stars).map(k => s"{{wildcard($k)}}") ++ (if (src.endsWith(">")) Seq(">") else Nil)
    (Seq(s"d$i") ++ parts).mkString(".")
  }

  private val rule: Gen[(String, String)] = for {
    src <- source
    n <- Gen.choose(0, 3)
    weights <- Gen.listOfN(n, Gen.choose(0, 30))
    clusters <- Gen.listOfN(n, Gen.oneOf("", "", "east", "west"))
    listsSource <- Gen.oneOf(false, false, true)
  } yield {
    val entries = weights.zip(clusters).zipWithIndex.map { case ((w, c), i) =>
      val cl = if (c.isEmpty) "" else s""", "cluster": "$c""""
      s"""{"destination": "${destinationFor(src, i)}", "weight": $w$cl}"""
    } ++ (if (listsSource && !src.contains("*")) Seq(s"""{"destination": "$src", "weight": 10}""") else Nil)
    if (entries.isEmpty) src -> s""""${destinationFor(src, 9)}""""
    else src -> entries.mkString("[", ", ", "]")
  }

  private val table: Gen[String] = Gen.choose(1, 8).flatMap(Gen.listOfN(_, rule)).map { rules =>
    rules.toMap.map { case (s, d) => s""""$s": $d""" }.mkString("{", ", ", "}")
  }

  private val subject: Gen[String] = Gen.choose(1, 5).flatMap(Gen.listOfN(_, token)).map(_.mkString("."))

  test("explain agrees with apply and applyKeyed on random tables, subject by subject with one random state") {
    val prop =
      Prop.forAll(table, Gen.listOfN(40, subject), Gen.oneOf[String](null, "east", "west"), Gen.choose(0L, 1000L),
        Gen.oneOf(false, true)) { (text, subjects, cluster, seed, keyed) =>
        val t = MappingTable.compile(text)
        val failure = agreeOnSequence(t, subjects, cluster, seed, keyed)
        Prop(failure.isEmpty) :| s"table $text: ${failure.getOrElse("")}"
      }
    val result = Test.check(Test.Parameters.default.withMinSuccessfulTests(500).withInitialSeed(Seed(15L)), prop)
    assert(result.passed, result.status)
  }

  test("a literal rule wins over an earlier wildcard rule; otherwise the first wildcard rule in written order") {
    val t = MappingTable.compile("""{"orders.*": "o.$1", "orders.>": "never.>", "orders.42": "answer"}""")
    val lit = t.explain("orders.42", null, new Workspace)
    assert(lit.ruleNumber == 2 && lit.literal && lit.rule.source == "orders.42" && lit.outcomeName == "mapped")
    assert(new String(lit.result,
      UTF_8) == "answer" && lit.entry == 0 && lit.weight == 100 && lit.destination == "answer")
    val wild = t.explain("orders.7", null, new Workspace)
    assert(wild.ruleNumber == 0 && !wild.literal && new String(wild.result, UTF_8) == "o.7")
    val none = t.explain("billing.7", null, new Workspace)
    assert(
      !none.matched && none.ruleNumber == -1 && none.outcomeName == "no_match" && (none.result eq MappingTable.Unchanged))
    assert(t.explain("orders..x", null, new Workspace) == null) // not a literal subject: apply gives null too
  }

  test("the cluster scope used, destinations by their written position, the remainder and its weight") {
    val t = MappingTable.compile(
      """foo: [{destination: foo.west, weight: 100%, cluster: west}, {destination: foo.any, weight: 0%},
        |      {destination: foo.east, weight: 40%, cluster: east}]""".stripMargin)
    val west = t.explain("foo", "west", new Workspace)
    assert(new String(west.clusterScope,
      UTF_8) == "west" && west.entry == 0 && west.destination == "foo.west" && west.weight == 100)
    // No cluster: the cluster-less entry has weight 0, so the remainder (100%) keeps the subject.
    val plain = t.explain("foo", null, new Workspace)
    assert(plain.clusterScope == null && plain.remainder && plain.weight == 100 && plain.outcomeName == "unchanged")
    assert(plain.destination == null)
    // east: 40% to the third written entry, else its remainder (60%).
    val east = (0 until 2000).map(i => t.explain("foo", "east", new Workspace(i)))
    assert(east.forall(x => new String(x.clusterScope, UTF_8) == "east"))
    val (toEast, rest) = east.partition(_.entry == 2)
    assert(toEast.forall(x => x.weight == 40 && x.destination == "foo.east" && x.outcomeName == "mapped"))
    assert(rest.forall(x => x.remainder && x.weight == 60 && x.outcomeName == "unchanged"))
    assert(toEast.size > 650 && toEast.size < 950, toEast.size)
  }

  test("a listed source makes the remainder a drop, reported as the remainder with its weight") {
    val t = MappingTable.compile("""foo.loss.>: [{destination: foo.loss.>, weight: 0%}]""")
    val x = t.explain("foo.loss.a", null, new Workspace)
    assert(x.outcomeName == "dropped" && x.remainder && x.weight == 100 && x.result == null && x.ruleNumber == 0)
    val half = MappingTable.compile("""a: [{destination: a, weight: 50%}, {destination: b, weight: 20%}]""")
    val seen = (0 until 500).map(i => half.explain("a", null, new Workspace(i)))
    assert(seen.exists(x => x.entry == 0 && x.outcomeName == "unchanged" && x.weight == 50))
    assert(seen.exists(x => x.entry == 1 && x.outcomeName == "mapped" && x.weight == 20))
    assert(seen.exists(x => x.remainder && x.outcomeName == "dropped" && x.weight == 30))
  }
}
