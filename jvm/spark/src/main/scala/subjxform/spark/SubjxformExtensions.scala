package subjxform.spark

import scala.reflect.ClassTag

import org.apache.spark.sql.{SparkSessionExtensions, SparkSessionExtensionsProvider}
import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.analysis.FunctionRegistryBase
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionInfo}
import org.apache.spark.sql.classic.SparkSession

/**
 * The SQL functions subjxform adds. Spark finds [[SubjxformExtensions]] by itself when the jar is on
 * the classpath (a `SparkSessionExtensionsProvider` service entry), and also through
 * `spark.sql.extensions=subjxform.spark.SubjxformExtensions`; [[register]] adds them to a session
 * that is already running.
 */
object SubjxformFunctions {
  type Description = (FunctionIdentifier, ExpressionInfo, Seq[Expression] => Expression)

  val all: Seq[Description] = Seq(
    describe[SubjectTransformExpression]("subject_transform"),
    describe[TrySubjectTransformExpression]("try_subject_transform"),
    describe[SubjectMatchesExpression]("subject_matches"),
    describe[SubjectMapExpression]("subject_map"),
    describe[SubjectFilterTransformExpression]("subject_filter_transform"),
    describe[TrySubjectFilterTransformExpression]("try_subject_filter_transform"),
    describe[StreamConfigPlanExpression]("stream_config_plan"),
    describe[AccountsPlanExpression]("accounts_plan"))

  private def describe[T <: Expression: ClassTag](name: String): Description = {
    // Usage, arguments, examples and `since` come from the class's @ExpressionDescription.
    val (info, builder) = FunctionRegistryBase.build[T](name, since = None)
    // Spark calls a builder once the arguments are resolved, so constant ones can be read here; one
    // not (yet) known to be constant gets the form that may draw at random, the safe side.
    (FunctionIdentifier(name), info, args => builder(args) match {
      case e: MayDrawAtRandom => e.formForArguments
      case other => other
    })
  }

  /** Adds the functions to a running session, under the builtin names that injection gives them. */
  def register(spark: SparkSession): Unit = all.foreach { case (id, info, builder) =>
    // Spark 4.2 keeps builtin functions as system.builtin.<name> (CatalogManager, private to Spark).
    val builtin = FunctionIdentifier(id.funcName, Some("builtin"), Some("system"))
    spark.sessionState.functionRegistry.registerFunction(builtin, info, builder)
  }
}

class SubjxformExtensions extends SparkSessionExtensionsProvider {
  override def apply(extensions: SparkSessionExtensions): Unit =
    SubjxformFunctions.all.foreach(extensions.injectFunction)
}
