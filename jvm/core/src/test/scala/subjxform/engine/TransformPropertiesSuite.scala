package subjxform.engine

import java.nio.charset.StandardCharsets.UTF_8

import org.scalacheck.{Gen, Prop, Test}
import org.scalacheck.rng.Seed
import org.scalatest.funsuite.AnyFunSuite

/**
 * Properties of the engine over arbitrary input (scalacheck). `-Dsubjxform.heavy=true` (or
 * SUBJXFORM_HEAVY=1) runs fifty times more cases; `-Dsubjxform.seed=<long>` repeats a run.
 */
class TransformPropertiesSuite extends AnyFunSuite {
  import TransformGen._

  private val heavy = sys.props.get("subjxform.heavy").contains("true") || sys.env.get("SUBJXFORM_HEAVY").contains("1")
  private val seed = sys.props.get("subjxform.seed").map(_.toLong).getOrElse(System.nanoTime())
  info(s"scalacheck seed $seed (-Dsubjxform.seed=$seed to repeat)")

  private def check(cases: Int)(prop: Prop): Unit = {
    val params = Test.Parameters.default.withMinSuccessfulTests(if (heavy) cases * 50 else cases)
      .withInitialSeed(Seed(seed)).withMaxDiscardRatio(50)
    val result = Test.check(params, prop)
    assert(result.passed, s"seed $seed: ${org.scalacheck.util.Pretty.pretty(result)}")
  }

  /** The transform, or None when it is invalid; any other exception escapes and fails the property. */
  private def compiled(src: String, dest: String, strict: Boolean = false): Option[SubjectTransform] =
    try Some(SubjectTransform.compile(src, dest, strict))
    catch { case _: InvalidTransformException => None }

  test("compiling any src and dest either succeeds or throws the documented InvalidTransformException") {
    check(5000)(Prop.forAll(source, destination, Gen.oneOf(false, true)) { (src, dest, strict) =>
      compiled(src, dest, strict) match {
        case None =>
          // the message is nats-server's, and names both strings
          val e = intercept[InvalidTransformException](SubjectTransform.compile(src, dest, strict))
          e.getMessage.contains(GoQuote(src)) && e.getMessage.contains(GoQuote(dest)) && e.reason.nonEmpty
        case Some(tr) => tr.source == src && tr.destination == dest
      }
    })
  }

  // A count of bytes may end inside a character (SPEC §4): only these functions can make a result that is not UTF-8.
  private val CountsBytes = "(?i)slice\\s*from|split\\s*from|left\\s*\\(|right\\s*\\(".r

  test("applying any transform to any bytes never throws; a result has no empty token and is valid UTF-8 when the " +
    "input is, unless it cuts tokens by counting bytes") {
    val valid = for {
      src <- source
      dest <- destination
      tr <- compiled(src, dest).fold(Gen.fail[SubjectTransform])(Gen.const(_))
    } yield tr
    check(5000)(Prop.forAll(valid, Gen.listOfN(5, subject)) { (tr, subjects) =>
      val ws = new Workspace(1)
      subjects.forall { s =>
        val out = tr(s, 0, s.length, ws)
        val mayCut = CountsBytes.findFirstIn(tr.destination).isDefined
        out == null || (!hasEmptyToken(out) && (!isValidUtf8(s) || isValidUtf8(out) || mayCut) &&
          (tr.isRandom || java.util.Arrays.equals(out, tr(s, 0, s.length, new Workspace(2)))))
      }
    })
  }

  test("a subject inside a larger array gives the same result as alone (offsets are honoured)") {
    val valid =
      Gen.zip(source, destination).map { case (s, d) => compiled(s, d) }.suchThat(_.exists(!_.isRandom)).map(_.get)
    check(2000)(Prop.forAll(valid, subject, Gen.choose(0, 7), Gen.choose(0, 7)) { (tr, s, before, after) =>
      val padded = Array.fill[Byte](before)('.') ++ s ++ Array.fill[Byte](after)('x')
      val alone = tr(s, 0, s.length, new Workspace(1))
      val inside = tr(padded, before, s.length, new Workspace(1))
      java.util.Arrays.equals(alone, inside)
    })
  }

  test("an empty src is `>`, and <<fn(args)>> is {{fn(args)}}") {
    check(2000)(Prop.forAll(destination, subject) { (dest, s) =>
      val a = compiled("", dest).filterNot(_.isRandom)
      val b = compiled(">", dest).filterNot(_.isRandom)
      // The alias is per token: one that starts with `<<` and ends with `>>` is read with every `<<`/`>>`
      // as `{{`/`}}`. Other tokens are literals, so only whole `{{...}}` tokens are rewritten.
      val angled = dest.split("\\.", -1).map { t =>
        if (t.length > 4 && t.startsWith("{{") && t.endsWith("}}")) t.replace("{{", "<<").replace("}}", ">>") else t
      }.mkString(".")
      val c = if (dest.contains("<<") || dest.contains(">>")) None else compiled("a.*.>", angled).filterNot(_.isRandom)
      val d = compiled("a.*.>", dest).filterNot(_.isRandom)
      val ws = new Workspace(1)
      def run(t: Option[SubjectTransform]) = t.map(tr => Option(tr(s, 0, s.length, ws)).map(new String(_, UTF_8)))
      (a.isDefined == b.isDefined) && run(a) == run(b) && (c.isEmpty || run(c) == run(d))
    })
  }

  test("cost is linear in the subject's length: 0.4 MB and 7 MB subjects") {
    val transforms = Seq(
      ">" -> "x.>", "*.>" -> "{{partition(7)}}.{{wildcard(1)}}.>", "*.>" -> "{{split(1,-)}}.>",
      "*.*.>" -> "{{slicefromleft(1,3)}}.{{right(2,2)}}.>", ">" -> "").map { case (s, d) =>
      SubjectTransform.compile(s, d)
    }
    def subjectOf(tokens: Int): Array[Byte] =
      Iterator.tabulate(tokens)(i => if (i % 2 == 0) "a-b-c-d-ef" else f"t$i%09d").mkString(".").getBytes(UTF_8)
    // Both sizes beyond the inner CPU caches; the big one under Workspace.MaxSubjectBytes. 16x the length
    // costs 16x when linear and 256x when quadratic: a threshold of 64x leaves 4x either side, wider than
    // the noise of a shared machine (a 4x step with a 9x threshold failed under load).
    val small = subjectOf(40000) // 0.44 MB, 40k tokens
    val big = subjectOf(640000) // 7.0 MB
    assert(big.length < Workspace.MaxSubjectBytes - 10000)
    val ws = new Workspace(1)
    // This thread's CPU time, not the wall clock: other processes on the machine do not count.
    val threads = java.lang.management.ManagementFactory.getThreadMXBean
    def cpuNanosPerRun(s: Array[Byte], tr: SubjectTransform): Double = {
      var best = Long.MaxValue
      for (_ <- 1 to 5) { // best of a few: robust to GC
        val t0 = threads.getCurrentThreadCpuTime
        val out = tr(s, 0, s.length, ws)
        assert(out != null && out.length >= s.length / 2)
        best = math.min(best, threads.getCurrentThreadCpuTime - t0)
      }
      best.toDouble
    }
    for (tr <- transforms) {
      // The best of a few rounds: the first ones run before the JIT has compiled the loops; a quadratic
      // cost would show in every round.
      val ratio = (1 to 3).map(_ => cpuNanosPerRun(big, tr) / math.max(1.0, cpuNanosPerRun(small, tr))).min
      info(f"$tr: 16x the length costs ${ratio}%.1fx")
      assert(ratio < 64, s"$tr: 16x the subject cost ${ratio}x the time: not linear") // quadratic would be 256x
    }
  }
}
