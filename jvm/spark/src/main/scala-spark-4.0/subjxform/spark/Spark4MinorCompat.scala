package subjxform.spark

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans.logical.{FunctionSignature, NamedParametersSupport}

/** What differs between Spark 4 releases, the Spark 4.0 side (scala-spark-4.1/: 4.1 and later). */
private[spark] object Spark4MinorCompat {
  def rearrange(signature: FunctionSignature, args: Seq[Expression], function: String): Seq[Expression] =
    NamedParametersSupport.defaultRearrange(signature, args, function)
}
