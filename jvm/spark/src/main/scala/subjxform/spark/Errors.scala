package subjxform.spark

import org.apache.spark.SparkException
import org.apache.spark.sql.AnalysisException

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

  /** An argument taken from a column is invalid in some row. */
  def atRuntime(function: String, parameter: String, reason: String): SparkException =
    new SparkException(Condition, parameters(function, parameter, reason), null)
}
