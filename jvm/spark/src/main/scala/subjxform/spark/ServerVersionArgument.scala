package subjxform.spark

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, LeafExpression, Literal}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types.{DataType, StringType}
import org.apache.spark.unsafe.types.UTF8String

import subjxform.engine.ServerVersion

/**
 * The `server_version` argument of every function that compiles something (a transform, a mapping table,
 * a stream or accounts config): the nats-server line whose binary the plan follows. A constant STRING;
 * it decides only how the plan is compiled, never what runs per row (a compiled plan carries no version).
 *
 * The registry fills it in when a call leaves it out ([[ServerVersionArgument.sessionDefault]]), so the
 * session conf in force when the query is analysed decides, as it does for Spark's own conf-driven
 * functions; a NULL `server_version` is the same default.
 */
trait ServerVersionArgument extends Expression {
  def serverVersion: Expression

  /** The line the plan is compiled for; only valid once [[checkServerVersion]] passed. */
  @transient protected final lazy val version: ServerVersion =
    Option(serverVersion.eval()).fold(ServerVersion.Newest)(v => ServerVersion.parse(v.toString))

  /**
   * Spark's NON_FOLDABLE_INPUT when the argument is not a constant, else None; an unsupported version is
   * the analysis error INVALID_PARAMETER_VALUE on `server_version`, naming the supported lines.
   */
  protected final def checkServerVersion(): Option[org.apache.spark.sql.catalyst.analysis.TypeCheckResult] =
    if (!serverVersion.foldable) Some(Errors.notConstant("server_version", "STRING", serverVersion))
    else {
      try version
      catch {
        case e: IllegalArgumentException =>
          // A call that gives no version takes the session conf's: the conf is what to fix, so it is named.
          val from =
            if (ServerVersionArgument.isDefault(serverVersion))
              s"; it is the session conf ${ServerVersionArgument.Conf} (set it to a supported line or release, or unset it)"
            else ""
          throw Errors.atAnalysis(prettyName, "server_version", e.getMessage + from)
      }
      None
    }
}

object ServerVersionArgument {

  /** The session conf naming the default line ('2.10', '2.10.26', ...); unset: the newest. */
  final val Conf = "spark.subjxform.serverVersion"

  /**
   * The version of a call that gives none: the session conf at analysis (Spark runs the registry's
   * builders while it analyses a query, with that session's conf active), else the newest line. Left out
   * of the column's name. An invalid conf value fails the query as an invalid argument would.
   */
  def sessionDefault(): Expression = SessionServerVersion(SQLConf.get.getConfString(Conf, ServerVersion.Newest.line))

  /** The default of an expression built directly, not by the registry: the newest line. */
  def newest: Expression = SessionServerVersion(ServerVersion.Newest.line)

  /** Whether `e` is a version the call did not write (so the column's name leaves it out). */
  def isDefault(e: Expression): Boolean = e.isInstanceOf[SessionServerVersion]
}

/**
 * The server version a call took from the session (or, built directly, the newest): a STRING constant
 * that column names leave out, as they leave out other defaults. Equal by value: two calls analysed under
 * the same conf are the same expression.
 */
case class SessionServerVersion(line: String) extends LeafExpression {
  override def dataType: DataType = StringType
  override def nullable: Boolean = false
  override def foldable: Boolean = true
  override def eval(input: InternalRow): Any = UTF8String.fromString(line)
  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = Literal(line).genCode(ctx)
  override def sql: String = Literal(line).sql
}
