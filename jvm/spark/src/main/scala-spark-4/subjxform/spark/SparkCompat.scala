package subjxform.spark

import org.apache.spark.SparkThrowable
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.analysis.FunctionRegistry
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans.logical.FunctionSignature

/**
 * Where the Spark API differs between lines, the Spark 4 side (scala-spark-3/ has the Spark 3.5 one,
 * with the same names); what differs within Spark 4 is in scala-spark-4.0/ and scala-spark-4.1/
 * (4.1 and later). Internal to subjxform.
 */
object SparkCompat {

  /** An expression whose result is NULL whenever an input is: a method of Expression since Spark 4.0. */
  trait NullIntolerant extends Expression {
    override def nullIntolerant: Boolean = true
  }

  /** The session's registry; since Spark 4.0 only a classic (not a Connect) session has one. */
  def functionRegistry(spark: SparkSession): FunctionRegistry = spark match {
    case classic: org.apache.spark.sql.classic.SparkSession => classic.sessionState.functionRegistry
    case other => throw new IllegalArgumentException(
        s"register() needs a classic SparkSession, not a ${other.getClass.getName}: start a Spark Connect server with the jar instead")
  }

  def condition(e: SparkThrowable): String = e.getCondition

  /** Named arguments put in their places (defaults filled in), with Spark's errors for bad names. */
  def rearrange(signature: FunctionSignature, args: Seq[Expression], function: String): Seq[Expression] =
    Spark4MinorCompat.rearrange(signature, args, function)

  /** Spark 4 reads a catalog table (CREATE TABLE ... USING nats) through the source's V2 read: nothing to add. */
  trait CatalogTableRead
}
