package subjxform.spark

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, Literal}
import org.apache.spark.sql.catalyst.expressions.codegen.GenerateUnsafeProjection
import org.apache.spark.unsafe.types.UTF8String
import org.scalacheck.{Gen, Prop, Test}
import org.scalacheck.rng.Seed
import org.scalatest.funsuite.AnyFunSuite

import subjxform.engine.{InvalidTransformException, SubjectTransform, TransformGen}

/**
 * Arbitrary subjects (invalid UTF-8 included) and arbitrary transforms, from columns and as
 * constants: interpreted and generated code give the same bytes, or the same error.
 */
class InterpretedVersusCodegenSuite extends AnyFunSuite with ExpressionChecks {
  import TransformGen._

  private val seed = sys.props.get("subjxform.seed").map(_.toLong).getOrElse(System.nanoTime())
  private val heavy = sys.props.get("subjxform.heavy").contains("true") || sys.env.get("SUBJXFORM_HEAVY").contains("1")
  info(s"scalacheck seed $seed (-Dsubjxform.seed=$seed to repeat)")

  /**
   * Each row's result as bytes (or the error's message), interpreted and through one projection, each
   * initialized for partition 0 as a task does (transforms from columns take the `Nondeterministic` form).
   */
  private def bothWays(e: Expression, rows: Seq[InternalRow]): (Seq[Any], Seq[Any]) = {
    def outcome(f: => UTF8String): Any =
      try Option(f).map(_.getBytes.toSeq).orNull
      catch { case err: Exception => s"error: ${err.getMessage}" }
    val ready = initialized(e)
    val interpreted = rows.map(r => outcome(ready.eval(r).asInstanceOf[UTF8String]))
    val projection = GenerateUnsafeProjection.generate(Seq(e), subexpressionEliminationEnabled = false)
    projection.initialize(0)
    val compiled = rows.map { r =>
      outcome { val out = projection(r); if (out.isNullAt(0)) null else out.getUTF8String(0).clone() }
    }
    (interpreted, compiled)
  }

  /** `{{random(n)}}` differs between two evaluations by design: such transforms are left out. */
  private def isRandom(src: String, dest: String): Boolean =
    try SubjectTransform.compile(src, dest).isRandom
    catch { case _: InvalidTransformException => false }

  private val rows: Gen[Seq[(Array[Byte], String, String)]] =
    Gen.listOfN(8, Gen.zip(subject, source, destination)).map(_.toSeq.filterNot { case (_, s, d) => isRandom(s, d) })
      .suchThat(_.nonEmpty)

  test("interpreted and generated code agree on arbitrary input, transforms from columns or constants") {
    val params = Test.Parameters.default.withMinSuccessfulTests(if (heavy) 20000 else 400).withInitialSeed(Seed(seed))
    val prop = Prop.forAll(rows, Gen.oneOf(false, true)) { (cases, tryVariant) =>
      val input = cases.map { case (s, src, dest) =>
        InternalRow(UTF8String.fromBytes(s), UTF8String.fromString(src), UTF8String.fromString(dest))
      }
      // As the function registry builds it, so in the form the arguments call for.
      def build(src: Expression, dest: Expression): Expression =
        registered(if (tryVariant) "try_subject_transform" else "subject_transform", column(0), src, dest,
          Literal.FalseLiteral)
      val fromColumns = bothWays(build(column(1), column(2)), input)
      val (_, src, dest) = cases.head
      val constant =
        try Some(bothWays(build(str(src), str(dest)), input))
        catch { case _: Exception => None } // an invalid constant: the analysis error, tested elsewhere
      val ok = fromColumns._1 == fromColumns._2 && constant.forall(c => c._1 == c._2)
      if (!ok) println(s"differs: $cases $fromColumns $constant")
      ok
    }
    val result = Test.check(params, prop)
    assert(result.passed, s"seed $seed: ${org.scalacheck.util.Pretty.pretty(result)}")
  }
}
