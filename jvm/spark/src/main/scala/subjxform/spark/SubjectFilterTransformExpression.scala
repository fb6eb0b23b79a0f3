package subjxform.spark

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult.DataTypeMismatch
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionDescription}
import org.apache.spark.sql.catalyst.util.ArrayData
import org.apache.spark.sql.types.{ArrayType, DataType, LongType, StringType, StructType}
import org.apache.spark.unsafe.types.UTF8String

import subjxform.config.FilterTransforms
import subjxform.engine.Workspace

/**
 * `subject_filter_transform(subject, transforms)`: the filter-and-rename list of a stream source or
 * mirror on the [[PlanExpression]] shell, around a compiled [[FilterTransforms]]; a list from a column
 * goes through a per-task [[TransformListCache]]. A list with a `{{random(n)}}` destination (or one
 * from a column, which may have one) makes it a [[RandomSubjectFilterTransformExpression]].
 */
abstract class SubjectFilterTransformFunction extends PlanExpression[FilterTransforms] {
  // Not NullIntolerant: a NULL `seed` or `key` (their defaults) does not make the result NULL.
  def transforms: Expression
  def seed: Expression
  def key: Expression

  final override def children: Seq[Expression] = Seq(subject, transforms, seed, key, serverVersion)
  // (Spark's AbstractDataType is private to Spark: the element type is inferred.) The element type is
  // checked below: any struct with STRING fields `src` and `dest`.
  override def inputTypes = Seq(StringType, ArrayType, LongType, LongType, StringType)
  override def dataType: DataType = StringType

  override protected def planArguments: Seq[Expression] = Seq(transforms)
  override protected def constantArguments = Seq(("seed", "BIGINT", seed))
  override protected def seedArgument: Option[Expression] = Some(seed)
  override protected def keyArgument: Option[Expression] = Some(key)
  override protected def requiredArguments: Int = 2
  override protected def classOfPlan: Class[FilterTransforms] = classOf[FilterTransforms]
  override protected def blame(e: IllegalArgumentException): String = "transforms"

  /** The ordinals of `src` and `dest` in the element struct, and its width. */
  @transient private lazy val layout: (Int, Int, Int) = transforms.dataType match {
    case ArrayType(st: StructType, _) => (st.fieldIndex("src"), st.fieldIndex("dest"), st.length)
  }

  override protected def compile(arguments: Seq[AnyRef]): FilterTransforms =
    TransformListCache.compile(TransformListCache.pairs(arguments.head.asInstanceOf[ArrayData], layout), version)

  override def newCache(): ColumnPlans[FilterTransforms] = {
    val (s, d, n) = layout
    new TransformListCache(s, d, n, version, e => Errors.atRuntime(prettyName, blame(e), e.getMessage))
  }

  /** Whether `transforms` is an array of structs with STRING fields `src` and `dest` (others are ignored). */
  protected def transformsWellFormed: Boolean = transforms.dataType match {
    case ArrayType(st: StructType, _) =>
      Seq("src", "dest").forall(n => st.fields.exists(f => f.name == n && f.dataType.isInstanceOf[StringType]))
    case _ => false
  }

  override protected def checkArgumentTypes(): TypeCheckResult = {
    val types = super.checkArgumentTypes()
    if (types.isFailure || transformsWellFormed) types
    else DataTypeMismatch("UNEXPECTED_INPUT_TYPE",
      Map("paramIndex" -> "second",
        "requiredType" -> "\"ARRAY<STRUCT<src: STRING, dest: STRING>>\"",
        "inputSql" -> s""""${transforms.sql}"""", "inputType" -> s""""${transforms.dataType.sql}""""))
  }

  override protected def applyPlan(ft: FilterTransforms, ws: Workspace, subject: UTF8String, input: InternalRow,
      key: Long): Any =
    PerRow.filterTransform(ft, ws, subject, keyed, seedForKeys, key, this)

  override protected def applyPlanCode(ft: String, ws: String, subject: String, key: String, rowValues: Seq[String],
      shell: String): String =
    s"${PerRow.name}.filterTransform($ft, $ws, $subject, $keyed, ${seedForKeys}L, $key, $shell)"

  /** The `Nondeterministic` form of these arguments (see [[DeterministicForm]]). */
  override protected def randomForm: Option[Expression] =
    Some(RandomSubjectFilterTransformExpression(subject, transforms, seed, key, serverVersion, failOnError))

  // A list that is not a list of (src, dest) structs is left to `checkInputDataTypes` to report.
  override protected def constantsDrawAtRandom: Boolean = transformsWellFormed && constantPlanDraws(_.isRandom)
}

/**
 * `subject_filter_transform` / `try_subject_filter_transform` over a list that draws at random or comes
 * from a column: a Spark `Nondeterministic` expression, treated as `rand()` is.
 */
case class RandomSubjectFilterTransformExpression(
    subject: Expression, transforms: Expression, seed: Expression, key: Expression, serverVersion: Expression,
    failOnError: Boolean)
  extends SubjectFilterTransformFunction with RandomForm[FilterTransforms] {

  override def prettyName: String = if (failOnError) "subject_filter_transform" else "try_subject_filter_transform"

  // Printed as the function it was written as: the flag is in the name.
  override protected def stringArgs: Iterator[Any] = children.iterator

  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): RandomSubjectFilterTransformExpression =
    copy(subject = c(0), transforms = c(1), seed = c(2), key = c(3), serverVersion = c(4))
}

@ExpressionDescription(
  usage = """
    _FUNC_(subject, transforms[, seed[, key[, server_version]]]) - Applies the `subject_transforms` list of a NATS stream source or
      mirror to `subject`, as nats-server (2.15 unless `server_version` says otherwise) does: the message is taken when `subject` matches one
      of the `src` filters, and renamed by the first entry with a non-empty `dest` whose `src`
      matches (an empty `dest` keeps the subject). Returns NULL when the message is not taken (or
      `subject` is not a literal subject, or an argument is NULL). An empty list takes everything.
      An invalid list (a bad `src` or `dest`, or one `src` inside another, which nats-server rejects
      within one source) is an error, at analysis time when the list is a constant. On 2.10 a list is
      built as 2.10 builds a stream's transforms, as transforms alone: white space in a literal token
      and left/right pass, as 2.10 stores them (its config check of a `sources[]` entry refuses them).
  """,
  arguments = """
    Arguments:
      * subject - a literal NATS subject.
      * transforms - ARRAY<STRUCT<src: STRING, dest: STRING>>, in order; `dest` as in
          `subject_transform` ('' = no transformation); a NULL `src`/`dest` is an absent one ('').
      * seed, key - for `{{random(n)}}` destinations, as in `subject_transform`.
      * server_version - the nats-server line, as in `subject_transform`.
  """,
  examples = """
    Examples:
      > SELECT _FUNC_('foo', array(named_struct('src', 'foo', 'dest', 'foo-transformed'), named_struct('src', 'bar', 'dest', '')));
       foo-transformed
      > SELECT _FUNC_('bar', array(named_struct('src', 'foo', 'dest', 'foo-transformed'), named_struct('src', 'bar', 'dest', '')));
       bar
      > SELECT _FUNC_('baz', array(named_struct('src', 'foo', 'dest', 'foo-transformed'), named_struct('src', 'bar', 'dest', '')));
       NULL
      > SELECT _FUNC_('$KV.A.k1', array(named_struct('src', '$KV.A.>', 'dest', '$KV.B.>')));
       $KV.B.k1
  """,
  since = "0.1.0",
  group = "string_funcs")
case class SubjectFilterTransformExpression(
    subject: Expression, transforms: Expression, seed: Expression, key: Expression, serverVersion: Expression)
  extends SubjectFilterTransformFunction with DeterministicForm[FilterTransforms] {
  def this(subject: Expression, transforms: Expression) =
    this(subject, transforms, PlanExpression.NoSeed, PlanExpression.NoKey, ServerVersionArgument.newest)
  def this(subject: Expression, transforms: Expression, seed: Expression) =
    this(subject, transforms, seed, PlanExpression.NoKey, ServerVersionArgument.newest)
  def this(subject: Expression, transforms: Expression, seed: Expression, key: Expression) =
    this(subject, transforms, seed, key, ServerVersionArgument.newest)
  override protected def failOnError: Boolean = true
  override def prettyName: String = "subject_filter_transform"
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): SubjectFilterTransformExpression =
    copy(subject = c(0), transforms = c(1), seed = c(2), key = c(3), serverVersion = c(4))
}

@ExpressionDescription(
  usage = """
    _FUNC_(subject, transforms[, seed[, key[, server_version]]]) - The same as `subject_filter_transform`, but an invalid list gives
      NULL instead of an error.
  """,
  arguments = """
    Arguments:
      * subject - a literal NATS subject.
      * transforms - ARRAY<STRUCT<src: STRING, dest: STRING>> (see `subject_filter_transform`).
  """,
  examples = """
    Examples:
      > SELECT _FUNC_('a.b', array(named_struct('src', 'a.>', 'dest', ''), named_struct('src', 'a.b', 'dest', 'x')));
       NULL
      > SELECT _FUNC_('a.b', array(named_struct('src', 'a.*', 'dest', 'x.$1')));
       x.b
  """,
  since = "0.1.0",
  group = "string_funcs")
case class TrySubjectFilterTransformExpression(
    subject: Expression, transforms: Expression, seed: Expression, key: Expression, serverVersion: Expression)
  extends SubjectFilterTransformFunction with DeterministicForm[FilterTransforms] {
  def this(subject: Expression, transforms: Expression) =
    this(subject, transforms, PlanExpression.NoSeed, PlanExpression.NoKey, ServerVersionArgument.newest)
  def this(subject: Expression, transforms: Expression, seed: Expression) =
    this(subject, transforms, seed, PlanExpression.NoKey, ServerVersionArgument.newest)
  def this(subject: Expression, transforms: Expression, seed: Expression, key: Expression) =
    this(subject, transforms, seed, key, ServerVersionArgument.newest)
  override protected def failOnError: Boolean = false
  override def prettyName: String = "try_subject_filter_transform"
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): TrySubjectFilterTransformExpression =
    copy(subject = c(0), transforms = c(1), seed = c(2), key = c(3), serverVersion = c(4))
}
