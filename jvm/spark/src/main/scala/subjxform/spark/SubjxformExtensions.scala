package subjxform.spark

import scala.reflect.ClassTag

import org.apache.spark.sql.{AnalysisException, SparkSession, SparkSessionExtensions, SparkSessionExtensionsProvider}
import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.analysis.{FunctionRegistry, FunctionRegistryBase}
import org.apache.spark.sql.catalyst.expressions.{
  ExpectsInputTypes, Expression, ExpressionInfo, Literal, MapEntries, NamedArgumentExpression, SortArray, XxHash64
}
import org.apache.spark.sql.catalyst.plans.logical.{FunctionSignature, InputParameter}
import org.apache.spark.sql.types.{ArrayType, DataType, MapType, NullType, StringType, StructType}

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
  // After it in the functions that compile mapping destinations: the account they are installed for (NULL: none).
  private val account = optional("account", nullString)
  private val transformParameters =
    Seq(required("subject"), required("src"), required("dest"), optional("strict", Literal.FalseLiteral)) ++ draws ++
      Seq(serverVersion, account)
  private val mapParameters =
    Seq(required("subject"), required("mappings"), optional("cluster", nullString)) ++ draws ++
      Seq(serverVersion, account)
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

  // Why each expression class keeps a ladder of auxiliary constructors (one per count of trailing optional
  // arguments) rather than this builder filling in the defaults of `parameters`: Spark's builder
  // (FunctionRegistryBase.build) picks the constructor of the call's argument count, and for any other count
  // raises WRONG_NUM_ARGS listing the counts the constructors take, in each line's own words and error class.
  // Filling in defaults here would mean raising that error ourselves, through an API that differs between
  // Spark 3.5 and 4. Named arguments are filled in from `parameters` (SparkCompat.rearrange), then take the
  // full constructor.
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
          else positional.updated(keyAt, drawKey(name, positional(keyAt)))
        // Spark calls a builder once the arguments are resolved, so constant ones can be read here; one
        // not (yet) known to be constant gets the form that may draw at random, the safe side.
        builder(hashed) match {
          case e: DeterministicForm[_] => checkStringArguments(name, parameters, e).formForArguments
          case other => checkStringArguments(name, parameters, other)
        }
      })
  }

  /**
   * `e` when each argument it takes as a STRING is one (or a NULL); else the analysis error naming the function,
   * the parameter and the type. Spark would cast a BIGINT or BINARY subject to its text, and the answer would be
   * silently wrong (a `content` column mistaken for the subject maps "unchanged"). Checked here, in the builder,
   * where the arguments still have the types they were written with: by `checkInputDataTypes` the analyzer has
   * cast them already.
   */
  private def checkStringArguments[E <: Expression](name: String, parameters: Seq[InputParameter], e: E): E = {
    e match {
      case typed: ExpectsInputTypes =>
        for (((argument, expected), parameter) <- typed.children.zip(typed.inputTypes).zip(parameters)
          if expected == StringType && !argument.dataType.isInstanceOf[StringType] && argument.dataType != NullType)
          throw new AnalysisException("UNEXPECTED_INPUT_TYPE",
            Map(
              "paramIndex" -> s"`${parameter.name}`", "functionName" -> s"`$name`", "requiredType" -> "\"STRING\"",
              "inputSql" -> s""""${argument.sql}"""", "inputType" -> s""""${argument.dataType.sql}""""))
      case _ =>
    }
    e
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

  /**
   * The draw key's hash. A MAP is hashed by its entries sorted by key: Spark hashes a map's entries in the order
   * they happen to be stored in (and refuses to unless a legacy conf allows it), so two equal maps could draw
   * apart. A map inside an array or a struct has no such order to restore: an analysis error says what to pass.
   */
  private def drawKey(function: String, key: Expression): Expression =
    if (key.foldable && key.eval() == null) PlanExpression.NoKey
    else key.dataType match {
      case MapType(k, v, _) if !holdsMap(k) && !holdsMap(v) =>
        XxHash64(Seq(SortArray(MapEntries(key), Literal.TrueLiteral)), 42L) // (Spark's seed)
      case t if holdsMap(t) =>
        throw Errors.atAnalysis(function, "key",
          s"a draw key of type ${t.sql} holds a map inside, whose entries have no order to hash them by: pass what " +
            "identifies the message (e.g. key => headers['Nats-Msg-Id'] or a message id), or a MAP itself " +
            "(hashed by its entries in key order)")
      case _ => XxHash64(Seq(key), 42L)
    }

  private def holdsMap(t: DataType): Boolean = t match {
    case _: MapType => true
    case ArrayType(e, _) => holdsMap(e)
    case StructType(fields) => fields.exists(f => holdsMap(f.dataType))
    case _ => false
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
