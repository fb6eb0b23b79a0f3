package subjxform.spark

import org.apache.spark.SparkThrowable
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.analysis.FunctionRegistry
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans.logical.{FunctionSignature, NamedParametersSupport}

/**
 * Where the Spark API differs between lines, the Spark 3.5 side (scala-spark-4/ has the Spark 4 one,
 * with the same names). Internal to subjxform.
 */
object SparkCompat {

  /** An expression whose result is NULL whenever an input is: a marker trait in Spark 3.5. */
  trait NullIntolerant extends Expression with org.apache.spark.sql.catalyst.expressions.NullIntolerant

  def functionRegistry(spark: SparkSession): FunctionRegistry = spark.sessionState.functionRegistry

  /** A Spark error's condition (Spark 3.5 calls it its error class). */
  def condition(e: SparkThrowable): String = e.getErrorClass

  /** Named arguments put in their places (defaults filled in), with Spark's errors for bad names. */
  def rearrange(signature: FunctionSignature, args: Seq[Expression], function: String): Seq[Expression] =
    NamedParametersSupport.defaultRearrange(signature, args, function)
}
