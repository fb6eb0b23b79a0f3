package subjxform.spark

import org.apache.spark.{SparkException, SparkThrowable}
import org.apache.spark.sql.AnalysisException
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult.DataTypeMismatch
import org.apache.spark.sql.catalyst.expressions.Expression

/**
 * Spark errors for invalid function arguments, under Spark's own condition
 * `INVALID_PARAMETER_VALUE.PATTERN`: "The value of parameter(s) `dest` in `subject_transform` is
 * invalid: <nats-server's reason, naming the token>".
 */
object Errors {
  private final val Condition = "INVALID_PARAMETER_VALUE.PATTERN"

  private def parameters(function: String, parameter: String, reason: String): Map[String, String] =
    Map("parameter" -> parameter.split(",").map(p => s"`${p.trim}`").mkString(", "),
      "functionName" -> s"`$function`",
      "value" -> reason.stripSuffix("."))

  /** A constant argument is invalid: the query fails while it is analysed, before any data is read. */
  def atAnalysis(function: String, parameter: String, reason: String): AnalysisException =
    new AnalysisException(Condition, parameters(function, parameter, reason))

  /** An argument that must be a constant (`strict`, `seed`) is not: Spark's own type-check failure. */
  def notConstant(parameter: String, sqlType: String, argument: Expression): DataTypeMismatch =
    DataTypeMismatch("NON_FOLDABLE_INPUT",
      Map("inputName" -> s"`$parameter`", "inputType" -> s""""$sqlType"""", "inputExpr" -> s""""${argument.sql}""""))

  /** An argument taken from a column is invalid in some row. */
  def atRuntime(function: String, parameter: String, reason: String): InvalidArgumentValueException = {
    val params = parameters(function, parameter, reason)
    // Spark's wording of the condition, through the one public constructor that formats it.
    val message = new SparkException(Condition, params, null).getMessage
    val javaParams = new java.util.HashMap[String, String]()
    params.foreach { case (k, v) => javaParams.put(k, v) }
    new InvalidArgumentValueException(Condition, javaParams, message)
  }
}

/**
 * A function argument from a column is invalid in some row. A `java.lang.IllegalArgumentException`
 * and a `SparkThrowable` (condition and parameters, as Spark's own errors): PySpark turns the first
 * into `pyspark.errors.IllegalArgumentException`, classic and Connect alike, where it would hand a
 * plain `SparkException` over as a raw `Py4JJavaError`. Spark's `SparkRuntimeException` is
 * `private[spark]`, its constructors not an API a library can rely on across Spark releases.
 */
final class InvalidArgumentValueException(
    condition: String,
    messageParameters: java.util.Map[String, String],
    message: String)
  extends IllegalArgumentException(message) with SparkThrowable {

  // Spark 4 asks for the condition, Spark 3.5 for the error class: the same string.
  def getCondition: String = condition

  override def getErrorClass: String = condition

  override def getMessageParameters: java.util.Map[String, String] = messageParameters
}

/**
 * An expression whose `checkInputDataTypes` throws [[Errors.atAnalysis]] for an invalid constant (a
 * type-check result could only carry Spark's DATATYPE_MISMATCH condition, not nats-server's reason under
 * INVALID_PARAMETER_VALUE). Spark 3.5 prints a failed plan into its AnalysisException's message, asking
 * every expression whether it is resolved: there the expression answers "no" rather than throw its error a
 * second time, from inside getMessage. Analysis still fails with the error: CheckAnalysis checks the types.
 */
trait FailsAnalysisInTypeCheck extends Expression {
  override lazy val resolved: Boolean =
    childrenResolved && (try checkInputDataTypes().isSuccess
    catch { case _: AnalysisException => false })

  /**
   * How the plan printed with an analysis error names this expression (a Spark Connect client shows that plan
   * before the message): an argument whose text is long (a mapping table, a whole config: megabytes) is
   * shortened, as in the column's name, so that the error does not repeat the whole config.
   */
  override def toString: String =
    s"$prettyName(${children.map(c => FailsAnalysisInTypeCheck.shortened(c.toString)).mkString(", ")})"
}

object FailsAnalysisInTypeCheck {

  /** How long an argument's text may be in a column's name or a printed plan before it is shortened. */
  final val MaxArgumentText = 100

  def shortened(text: String): String =
    if (text.length <= MaxArgumentText) text else s"${text.take(MaxArgumentText - 30)}... (${text.length} characters)"
}
