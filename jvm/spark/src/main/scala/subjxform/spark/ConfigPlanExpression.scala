package subjxform.spark

import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult.TypeCheckSuccess
import org.apache.spark.sql.catalyst.expressions.{ImplicitCastInputTypes, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.types.{DataType, StringType}
import org.apache.spark.unsafe.types.UTF8String

/**
 * A function of one config text (a mapping table, a stream config) that returns the config's plan as
 * JSON, checked as nats-server checks it: a constant config before any data is read, one from a
 * column per row. Subclasses say how a text is planned and which exception means "nats-server refuses
 * it" (the error then names the function and the argument, in nats-server's words).
 */
abstract class ConfigPlanExpression extends UnaryExpression with ImplicitCastInputTypes with SparkCompat.NullIntolerant
    with FailsAnalysisInTypeCheck {
  /** The argument's name in errors (`mappings`, `config`). */
  protected def argumentName: String
  /** The plan as JSON; throws `IllegalArgumentException` for a config nats-server refuses. */
  protected def planOf(text: String): String
  /** Whether `e` (from [[planOf]]) is a refusal, reported as this function's argument error. */
  protected def refuses(e: IllegalArgumentException): Boolean

  final override def inputTypes = Seq(StringType)
  final override def dataType: DataType = StringType

  override def checkInputDataTypes(): TypeCheckResult = {
    val types = super.checkInputDataTypes()
    if (types.isFailure) return types
    // A constant config is checked before any data is read.
    if (child.foldable) {
      Option(child.eval()).foreach { c =>
        try planOf(c.toString)
        catch { case e: IllegalArgumentException if refuses(e) => throw Errors.atAnalysis(prettyName, argumentName, e.getMessage) }
      }
    }
    TypeCheckSuccess
  }

  /** Per row (generated code calls it too): a refused config fails the task, naming it. */
  final def plan(text: UTF8String): UTF8String =
    try UTF8String.fromString(planOf(text.toString))
    catch { case e: IllegalArgumentException if refuses(e) => throw Errors.atRuntime(prettyName, argumentName, e.getMessage) }

  final override protected def nullSafeEval(c: Any): Any = plan(c.asInstanceOf[UTF8String])

  final override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val self = ctx.addReferenceObj("configPlan", this, classOf[ConfigPlanExpression].getName)
    defineCodeGen(ctx, ev, c => s"$self.plan($c)")
  }
}
