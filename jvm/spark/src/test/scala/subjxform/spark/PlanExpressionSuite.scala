package subjxform.spark

import org.apache.spark.sql.AnalysisException
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, Literal}
import org.apache.spark.sql.catalyst.util.GenericArrayData
import org.apache.spark.sql.types.{ArrayType, StringType, StructField, StructType}
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

/** What the [[PlanExpression]] shell does the same way for every function built on it. */
class PlanExpressionSuite extends AnyFunSuite with ExpressionChecks {

  private val listType = ArrayType(StructType(Seq(StructField("src", StringType), StructField("dest", StringType))))
  private def list(src: String, dest: String): Literal =
    Literal.create(new GenericArrayData(Array[Any](InternalRow(UTF8String.fromString(src), UTF8String.fromString(dest)))),
      listType)

  /** Each function with an invalid constant plan, and the parameter and reason its error must name. */
  private val invalidConstants: Seq[(Expression, String, String)] = Seq(
    (new SubjectTransformExpression(column(0), str("a.*"), str("b.{{wildcard(2)}}"), Literal.FalseLiteral), "`dest`",
      "wildcard index out of range in {{wildcard(2)}}"),
    (SubjectMatchesExpression(column(0), str("a.>.b")), "`filter`", "Subject \"a.>.b\" is not a valid subject"),
    (new SubjectMapExpression(column(0), str("""{"a.*": "b.{{wildcard(2)}}"}""")), "`mappings`",
      "wildcard index out of range in {{wildcard(2)}}"),
    (new SubjectFilterTransformExpression(column(0), list("a.*", "b.{{nope(1)}}")), "`transforms`",
      "unknown function in {{nope(1)}}"))

  test("an invalid constant plan fails analysis naming the function, the parameter and the reason") {
    for ((e, parameter, reason) <- invalidConstants) {
      val err = intercept[AnalysisException](e.checkInputDataTypes())
      assert(err.getMessage.contains(s"`${e.prettyName}`") && err.getMessage.contains(parameter), err.getMessage)
      assert(err.getMessage.contains(reason), err.getMessage)
    }
  }

  test("built without analysis, an invalid constant plan is the runtime error in every evaluation mode") {
    // (Before the shell, subject_matches raised an analysis error from its generated code.)
    for ((e, parameter, reason) <- invalidConstants) {
      for ((mode, run) <- Seq[(String, () => Any)]("interpreted" -> (() => interpreted(e, row("a.x"))),
          "codegen" -> (() => compiled(e, row("a.x"))))) {
        val err = intercept[Exception](run())
        assert(err.isInstanceOf[InvalidArgumentValueException], s"${e.prettyName} $mode: $err")
        assert(err.getMessage.contains(parameter) && err.getMessage.contains(reason), err.getMessage)
      }
    }
  }

  test("a NULL subject or plan argument is NULL for every function, constant or from a column") {
    val nullString = Literal.create(null, StringType)
    val nulls = Seq(
      new SubjectTransformExpression(column(0), nullString, str("b"), Literal.FalseLiteral),
      SubjectMatchesExpression(column(0), nullString),
      new SubjectMapExpression(column(0), nullString),
      new SubjectFilterTransformExpression(column(0), Literal.create(null, listType)),
      new SubjectTransformExpression(column(0), column(1), column(1), Literal.FalseLiteral),
      SubjectMatchesExpression(column(0), column(1)),
      new SubjectMapExpression(column(0), column(1)))
    for (e <- nulls) {
      assert(evaluate(e, row("a.x", null)) == null, e)
      assert(evaluate(e, row(null, "a.x")) == null, e)
    }
  }
}
