package subjxform.config

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, ObjectInputStream, ObjectOutputStream}
import java.lang.management.ManagementFactory
import java.nio.charset.StandardCharsets.UTF_8

import org.scalacheck.{Gen, Prop, Test}
import org.scalacheck.rng.Seed
import org.scalatest.funsuite.AnyFunSuite

import subjxform.engine.{FilterIndex, JsonWriter, OverlapIndex, SubjectFilter, Subjects, Workspace}

/**
 * Tables and filter lists of many entries (issue 13, items 7 to 9): the indexes give exactly what a
 * scan in written order gives, every overlap is found, and a compiled table's footprint follows its text.
 */
class BigTableSuite extends AnyFunSuite {

  private val seed = sys.props.get("subjxform.seed").map(_.toLong).getOrElse(System.nanoTime())
  info(s"scalacheck seed $seed (-Dsubjxform.seed=$seed to repeat)")

  private def check(cases: Int)(prop: Prop): Unit = {
    val result = Test.check(Test.Parameters.default.withMinSuccessfulTests(cases).withInitialSeed(Seed(seed)), prop)
    assert(result.passed, s"seed $seed: ${org.scalacheck.util.Pretty.pretty(result)}")
  }

  // Few distinct tokens, so that filters overlap and subjects match several of them.
  private val filterToken =
    Gen.frequency(5 -> Gen.oneOf("a", "b", "c"), 3 -> Gen.const("*"), 1 -> Gen.oneOf("*x", "x*", ">x"))
  private val filter: Gen[String] = for {
    n <- Gen.choose(1, 4)
    toks <- Gen.listOfN(n, filterToken)
    fwc <- Gen.frequency(3 -> false, 1 -> true)
  } yield (if (fwc) toks :+ ">" else toks).mkString(".")
  private val subject: Gen[String] =
    Gen.choose(1, 5).flatMap(Gen.listOfN(_, Gen.oneOf("a", "b", "c", "*x", "x*", "x", ">x"))).map(_.mkString("."))

  /** The first filter, in written order, that the subject matches: one by one, as before the index. */
  private def linearFirst(filters: Seq[String], quirk: Boolean, s: String): Int =
    filters.indexWhere(f => SubjectFilter.compile(f, quirk).matches(s))

  private def indexFirst(index: FilterIndex, s: String, ws: Workspace): Int = {
    val b = s.getBytes(UTF_8)
    val n = ws.tokenize(b, 0, b.length)
    if (n == 0) -1 else index.firstMatch(b, ws, n)
  }

  // --- Item 7: the index is a scan in written order -------------------------------------------------

  test("FilterIndex.firstMatch is the first matching filter in written order (with and without the source quirk)") {
    check(3000)(Prop.forAll(Gen.listOf(filter).map(_.take(40)), Gen.listOfN(20, subject), Gen.oneOf(false, true)) {
      (filters, subjects, quirk) =>
        val index = FilterIndex(filters, quirk)
        val ws = new Workspace(1)
        subjects.forall(s => indexFirst(index, s, ws) == linearFirst(filters, quirk, s))
    })
  }

  test("a mapping table applies the rule a scan in written order applies: a literal rule equal to the subject, else the first match") {
    val rules = Gen.listOf(filter).map(_.distinct.take(30)).suchThat(_.nonEmpty)
    val literals = Gen.listOf(subject).map(_.take(5))
    check(1500)(Prop.forAll(rules, literals, Gen.listOfN(25, subject)) { (wild, lits, subjects) =>
      val sources = (lits ++ wild).distinct
      // Each rule's destination names it.
      val table = MappingTable.compile(sources.zipWithIndex.map { case (s, i) =>
        s"${JsonWriter.quote(s)}: ${JsonWriter.quote(if (s.endsWith(">")) s"r$i.>" else s"r$i")}"
      }.mkString("{", ",", "}"))
      def reference(s: String): Option[Int] = {
        val toks = Subjects.tokens(s)
        val literal = sources.indexWhere(r => r == s && !Subjects.tokens(r).exists(t => t == "*" || t == ">"))
        if (literal >= 0) Some(literal)
        else {
          val i = sources.indexWhere { r =>
            Subjects.tokens(r).exists(t => t.startsWith("*") || t == ">") && SubjectFilter.compile(r,
              sourceQuirk = true).matches(s)
          }
          if (i >= 0) Some(i) else None
        }
      }
      subjects.forall { s =>
        val got = table(s)
        reference(s) match {
          case None => got == s
          case Some(i) => got == s"r$i" || got.startsWith(s"r$i.")
        }
      }
    })
  }

  test("100,000 wildcard rules: the first written match wins, the last rule is reached, a miss is unchanged") {
    val n = 100000
    val text = (0 until n).map(i => s""""orders.r$i.*": "x.$i.$$1"""").mkString("{", ",",
      """, "*.r77.*": "late.$2", "orders.>": "last.>"}""")
    val t = MappingTable.compile(text)
    assert(t("orders.r99999.a") == "x.99999.a")
    assert(t("orders.r77.a") == "x.77.a") // also matches "*.r77.*", written later
    assert(t("billing.r77.a") == "late.a")
    assert(t("orders.zz.a") == "last.zz.a")
    assert(t("billing.x") == "billing.x")
  }

  test("a rule and a subject of 200,000 tokens: the index walk keeps its own stack") {
    val long = Seq.fill(200000)("t").mkString(".")
    val t = MappingTable.compile(s"""{"$long.*": "matched.$$1", "a": "b"}""")
    assert(t(s"$long.end") == "matched.end")
    assert(FilterTransforms.of(s"$long.>", "")(s"$long.x.y") == s"$long.x.y")
  }

  // --- Item 9: every overlap, found through the index -----------------------------------------------

  test("overlap warnings cover every rule: an overlap at rule 99,999 is reported, in the same words as before") {
    val n = 100000
    val text = (0 until n - 1).map(i => s""""orders.r$i.*": "x.$$1"""").mkString("{", ",", """, "orders.r5.>": "y.>"}""")
    val warnings = MappingTable.validate(text)
    assert(warnings.map(_.message) == Seq(
      "rule \"orders.r5.>\" overlaps rule \"orders.r5.*\": a subject such as \"orders.r5.x\" matches both; " +
        "subject_map applies \"orders.r5.*\", nats-server either one (its order changes from start to start)"))
    assert(warnings.head.rule == "orders.r5.>" && warnings.head.severity == "warning")
  }

  test("a rule overlapping many earlier rules names the first ten and counts the rest") {
    val text = (0 until 25).map(i => s""""a.r$i": "x"""").mkString("{", ",", """, "a.*": "y"}""")
    val w = MappingTable.validate(text)
    assert(w.size == 11)
    assert(w.take(10).map(_.message.split('"')(3)) == (0 until 10).map(i => s"a.r$i")) // "overlaps rule "a.r0""...
    assert(w.take(10).forall(_.message.contains("subject_map applies \"a.r")))
    assert(w(10).message == "rule \"a.*\" also overlaps 15 more earlier rules (the first 10 are listed): for a subject " +
      "matching it and one of them, subject_map applies the earlier rule, nats-server either one (its order " +
      "changes from start to start)")
  }

  // Generic filter text for the overlap rules, misplaced `>` and empty tokens included (a mirror's
  // filters are compared before they are validated).
  private val anyFilter: Gen[String] =
    Gen.choose(1, 4).flatMap(Gen.listOfN(_, Gen.oneOf("a", "b", "*", ">", "*x", ">x", "", "a b"))).map(_.mkString("."))

  /** Whether some subject matches both rules of a mapping table (valid filters; `*x` matches any token). */
  private def haveCommonSubject(a: Array[String], b: Array[String]): Boolean = {
    def wild(t: String) = t.startsWith("*")
    val (fa, fb) = (a.last == ">", b.last == ">")
    val na = if (fa) a.length - 1 else a.length
    val nb = if (fb) b.length - 1 else b.length
    val lengths = if (!fa && !fb) na == nb else if (fa && fb) true else if (fa) nb >= na + 1 else na >= nb + 1
    lengths && (0 until math.min(na, nb)).forall(i => wild(a(i)) || wild(b(i)) || a(i) == b(i))
  }

  test("OverlapIndex.candidates never misses a pair that nats-server's overlap rules or a common subject find") {
    check(3000)(Prop.forAll(Gen.listOfN(30, anyFilter), anyFilter) { (filters, probe) =>
      val index = new OverlapIndex
      filters.zipWithIndex.foreach { case (f, i) => index.add(Subjects.tokens(f), i) }
      val found = scala.collection.mutable.Set.empty[Int]
      index.candidates(Subjects.tokens(probe))(found += _)
      filters.indices.forall { i =>
        val f = filters(i)
        val related =
          Subjects.isSubsetMatch(probe, f) || Subjects.isSubsetMatch(f, probe) || Subjects.collide(probe, f) ||
            (Subjects.isValidSubject(probe) && Subjects.isValidSubject(f) && haveCommonSubject(Subjects.tokens(probe),
              Subjects.tokens(f)))
        !related || found(i)
      }
    })
  }

  test("source filter lists: every pair checked, the first overlapping pair named as before") {
    val n = 30000
    val entries = (0 until n).map(i => (s"src.$i.*", s"dst.$i.$$1")) :+ ("src.29998.x" -> "")
    val e = intercept[InvalidStreamConfigException](FilterTransforms.compile(entries))
    assert(e.field == "subject_transforms[29998], subject_transforms[30000]")
    assert(e.description == "source filters can not overlap (\"src.29998.*\" and \"src.29998.x\")")
    assert(FilterTransforms.compile(entries.dropRight(1)).pairs.length == n)
  }

  test("a mirror's NULL filter is reported as such, not as a crash while comparing filters") {
    val e = intercept[InvalidStreamConfigException](
      FilterTransforms.compile(Seq(("a.*", ""), (null, "")), FilterTransforms.MirrorRule, "mirror.subject_transforms"))
    assert(
      e.field == "mirror.subject_transforms[1]" && e.description == "mirror transform: src and dest must be strings")
  }

  // --- Item 8: footprint ----------------------------------------------------------------------------

  private def usedAfterGc(): Long = {
    val bean = ManagementFactory.getMemoryMXBean
    var best = Long.MaxValue
    for (_ <- 0 until 4) { System.gc(); Thread.sleep(50); best = math.min(best, bean.getHeapMemoryUsage.getUsed) }
    best
  }

  test("a compiled table takes a few times its text's size on the heap (bytes per rule reported)") {
    val n = 20000
    // 20% weighted rules, as the footprint benchmark's tables.
    val text = (0 until n).map { i =>
      if (i % 5 == 0)
        s""""svc.r$i.*": [{"destination": "a.$i.$$1", "weight": 60}, {"destination": "b.$i.$$1", "weight": 40}]"""
      else s""""orders.r$i.*": "orders.central.$i.{{wildcard(1)}}""""
    }.mkString("{\n", ",\n", "\n}")
    val textBytes = text.getBytes(UTF_8).length
    val before = usedAfterGc()
    val table = MappingTable.compile(text)
    val heap = usedAfterGc() - before
    info(
      f"$n rules, $textBytes bytes of text: $heap bytes on the heap, ${heap.toDouble / n}%.0f bytes per rule, ${heap.toDouble / textBytes}%.1fx the text")
    assert(table.rules.length == n)
    assert(heap < 10L * textBytes, s"$heap bytes for $textBytes bytes of text")
  }

  test("one compiled table per text: compiling it again, or deserializing a copy, gives the same table") {
    val text = """{"a.*": "b.$1", "c": [{"destination": "d", "weight": 50}]}"""
    val t = MappingTable.compile(text)
    assert(MappingTable.compile(new String(text.toCharArray)) eq t)
    val bytes = new ByteArrayOutputStream()
    val out = new ObjectOutputStream(bytes)
    out.writeObject(t)
    out.close()
    val copy = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray)).readObject()
    assert(copy eq t)
    assert(!(MappingTable.compile(text + " ") eq t)) // another text, another table
  }
}
