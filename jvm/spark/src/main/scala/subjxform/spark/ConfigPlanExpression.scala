package subjxform.spark

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult.TypeCheckSuccess
import org.apache.spark.sql.catalyst.expressions.{BinaryExpression, Expression, ImplicitCastInputTypes}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.catalyst.expressions.codegen.Block._
import org.apache.spark.sql.types.{DataType, StringType}
import org.apache.spark.unsafe.types.UTF8String

/**
 * A function of one config text (a mapping table, a stream config) that returns the config's plan as
 * JSON, checked as nats-server (of line `server_version`) checks it: a constant config before any data
 * is read, one from a column per row. Subclasses say how a text is planned and which exception means
 * "nats-server refuses it" (the error then names the function and the argument, in nats-server's words).
 */
abstract class ConfigPlanExpression extends BinaryExpression with ImplicitCastInputTypes
  with FailsAnalysisInTypeCheck with ServerVersionArgument {

  /** The config text. */
  def child: Expression
  final override def left: Expression = child
  final override def right: Expression = serverVersion

  /** The argument's name in errors (`mappings`, `config`). */
  protected def argumentName: String

  /** The plan as JSON for line [[version]]; throws `IllegalArgumentException` for a config nats-server refuses. */
  protected def planOf(text: String): String

  /** Whether `e` (from [[planOf]]) is a refusal, reported as this function's argument error. */
  protected def refuses(e: IllegalArgumentException): Boolean

  final override def inputTypes = Seq(StringType, StringType)
  final override def dataType: DataType = StringType

  override def checkInputDataTypes(): TypeCheckResult = {
    val types = super.checkInputDataTypes()
    if (types.isFailure) return types
    checkServerVersion().foreach(failure => return failure)
    // A constant config is checked before any data is read.
    if (child.foldable) {
      Option(child.eval()).foreach { c =>
        try planOf(c.toString)
        catch {
          case e: IllegalArgumentException if refuses(e) =>
            throw Errors.atAnalysis(prettyName, argumentName, e.getMessage)
        }
      }
    }
    TypeCheckSuccess
  }

  /** Per row (generated code calls it too): a refused config fails the task, naming it. */
  final def plan(text: UTF8String): UTF8String =
    try UTF8String.fromString(planOf(text.toString))
    catch {
      case e: IllegalArgumentException if refuses(e) => throw Errors.atRuntime(prettyName, argumentName, e.getMessage)
    }

  // NULL only for a NULL config: the version is a constant, its NULL the default line.
  final override def eval(input: InternalRow): Any = {
    val c = child.eval(input)
    if (c == null) null else plan(c.asInstanceOf[UTF8String])
  }

  final override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val self = ctx.addReferenceObj("configPlan", this, classOf[ConfigPlanExpression].getName)
    val c = child.genCode(ctx)
    ev.copy(code = code"""
      ${c.code}
      boolean ${ev.isNull} = ${c.isNull};
      UTF8String ${ev.value} = null;
      if (!${ev.isNull}) {
        ${ev.value} = $self.plan(${c.value});
      }""")
  }

  /** The SQL as written: the version left out when the call did not give it. */
  override def sql: String =
    if (ServerVersionArgument.isDefault(serverVersion)) s"$prettyName(${child.sql})" else super.sql
}
