package subjxform.spark

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans.logical.{FunctionSignature, NamedParametersSupport}
import org.apache.spark.sql.internal.SQLConf

/**
 * What differs between Spark 4 releases, the side of Spark 4.1 and later (scala-spark-4.0/: 4.0).
 * Since 4.1 named arguments are matched by the session's resolver (case sensitive or not).
 */
private[spark] object Spark4MinorCompat {
  def rearrange(signature: FunctionSignature, args: Seq[Expression], function: String): Seq[Expression] =
    NamedParametersSupport.defaultRearrange(signature, args, function, SQLConf.get.resolver)
}
