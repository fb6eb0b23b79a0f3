package subjxform.spark

import scala.reflect.ClassTag

import org.apache.spark.sql.{SparkSession, SparkSessionExtensions, SparkSessionExtensionsProvider}
import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.analysis.{FunctionRegistry, FunctionRegistryBase}
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionInfo, Literal, NamedArgumentExpression, XxHash64}
import org.apache.spark.sql.catalyst.plans.logical.{FunctionSignature, InputParameter}
import org.apache.spark.sql.types.StringType

/**
 * The SQL functions subjxform adds. Spark finds [[SubjxformExtensions]] by itself when the jar is on
 * the classpath (a `SparkSessionExtensionsProvider` service entry), and also through
 * `spark.sql.extensions=subjxform.spark.SubjxformExtensions`; [[register]] adds them to a session
 * that is already running.
 */
object SubjxformFunctions {
  type Description = (FunctionIdentifier, ExpressionInfo, Seq[Expression] => Expression)

  // Each function's parameters, in order, with the defaults of the optional ones: what named arguments
  // (`subject_map(subject, mappings, seed => 42, key => id)`) are matched against.
  private def required(name: String) = InputParameter(name, None)
  private def optional(name: String, default: Expression) = InputParameter(name, Some(default))
  private val nullString = Literal.create(null, StringType)
  private val draws = Seq(optional("seed", PlanExpression.NoSeed), optional("key", PlanExpression.NoKey))
  // Last in every function that compiles something; NULL (or left out): the session's default line.
  private val serverVersion = optional(ServerVersionParameter, nullString)
  private val transformParameters =
    Seq(required("subject"), required("src"), required("dest"), optional("strict", Literal.FalseLiteral)) ++ draws :+
      serverVersion
  private val mapParameters =
    Seq(required("subject"), required("mappings"), optional("cluster", nullString)) ++ draws :+ serverVersion
  private val consumerGroupParameters = Seq(required("subject"), required("config"), serverVersion)
  private val filterTransformParameters = Seq(required("subject"), required("transforms")) ++ draws :+ serverVersion

  val all: Seq[Description] = Seq(
    describe[SubjectTransformExpression]("subject_transform", transformParameters),
    describe[TrySubjectTransformExpression]("try_subject_transform", transformParameters),
    describe[SubjectMatchesExpression]("subject_matches", Seq(required("subject"), required("filter"))),
    describe[SubjectMapExpression]("subject_map", mapParameters),
    describe[SubjectMapExplainExpression]("subject_map_explain", mapParameters),
    describe[MappingsPlanExpression]("mappings_plan", Seq(required("mappings"), serverVersion)),
    describe[SubjectFilterTransformExpression]("subject_filter_transform", filterTransformParameters),
    describe[TrySubjectFilterTransformExpression]("try_subject_filter_transform", filterTransformParameters),
    describe[StreamConfigPlanExpression]("stream_config_plan", Seq(required("config"), serverVersion)),
    describe[AccountsPlanExpression]("accounts_plan",
      Seq(required("config"), optional("file", nullString), serverVersion)),
    describe[ConsumerGroupPartitionExpression]("consumer_group_partition", consumerGroupParameters),
    describe[ConsumerGroupMemberExpression]("consumer_group_member", consumerGroupParameters),
    describe[ConsumerGroupPlanExpression]("consumer_group_plan", Seq(required("config"), serverVersion)))

  final val ServerVersionParameter = "server_version"

  private def describe[T <: Expression: ClassTag](name: String, parameters: Seq[InputParameter]): Description = {
    // Usage, arguments, examples and `since` come from the class's @ExpressionDescription.
    val (info, builder) = FunctionRegistryBase.build[T](name, since = None)
    val signature = FunctionSignature(parameters)
    val keyAt = parameters.indexWhere(_.name == "key")
    (FunctionIdentifier(name), info,
      args => {
        // Named arguments are put in their places, defaults filled in, with Spark's own errors for an
        // unknown, repeated or missing name.
        val positional = withServerVersion(parameters,
          if (args.exists(_.isInstanceOf[NamedArgumentExpression])) SparkCompat.rearrange(signature, args, name)
          else args)
        // A draw key of any type is used as its xxhash64, as Spark's `xxhash64(key)` gives it; a NULL
        // constant is no key.
        val hashed =
          if (keyAt < 0 || positional.length <= keyAt) positional
          else positional.updated(keyAt, drawKey(positional(keyAt)))
        // Spark calls a builder once the arguments are resolved, so constant ones can be read here; one
        // not (yet) known to be constant gets the form that may draw at random, the safe side.
        builder(hashed) match {
          case e: DeterministicForm[_] => e.formForArguments
          case other => other
        }
      })
  }

  /**
   * The arguments with the server version in its place: a call that leaves it out (or gives NULL) gets the
   * session's default, read now, while the query is analysed; left-out optional arguments before it get
   * their defaults. A call with too few or too many arguments is left to the builder's own error.
   */
  private def withServerVersion(parameters: Seq[InputParameter], args: Seq[Expression]): Seq[Expression] = {
    val at = parameters.indexWhere(_.name == ServerVersionParameter)
    if (at < 0 || args.length > parameters.length || args.length < parameters.count(_.default.isEmpty)) args
    else {
      val all = args ++ parameters.drop(args.length).map(_.default.get)
      val v = all(at)
      if (v.foldable && v.eval() == null) all.updated(at, ServerVersionArgument.sessionDefault()) else all
    }
  }

  private def drawKey(key: Expression): Expression =
    if (key.foldable && key.eval() == null) PlanExpression.NoKey else XxHash64(Seq(key), 42L) // (Spark's seed)

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
