package subjxform.spark

import scala.reflect.ClassTag

import org.apache.spark.sql.{SparkSession, SparkSessionExtensions, SparkSessionExtensionsProvider}
import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.analysis.{FunctionRegistry, FunctionRegistryBase}
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionInfo}

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
    describe[SubjectMapExplainExpression]("subject_map_explain"),
    describe[MappingsPlanExpression]("mappings_plan"),
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
      case e: DeterministicForm[_] => e.formForArguments
      case other => other
    })
  }

  /** Adds the functions to a running (classic) session, exactly as the extension injects them. */
  def register(spark: SparkSession): Unit = {
    val extensions = new SparkSessionExtensions
    new SubjxformExtensions().apply(extensions)
    // Spark's own registration of injected functions names them as the line wants (Spark 4.2 keeps
    // builtins as system.builtin.<name>); it is internal to Spark (private[sql]), hence reflection.
    classOf[SparkSessionExtensions].getMethod("registerFunctions", classOf[FunctionRegistry])
      .invoke(extensions, SparkCompat.functionRegistry(spark))
  }
}

class SubjxformExtensions extends SparkSessionExtensionsProvider {
  override def apply(extensions: SparkSessionExtensions): Unit =
    SubjxformFunctions.all.foreach(extensions.injectFunction)
}
