package subjxform.spark

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionDescription}
import org.apache.spark.sql.types.{BooleanType, DataType, StringType}
import org.apache.spark.unsafe.types.UTF8String

import subjxform.engine.{SubjectFilter, Workspace}

@ExpressionDescription(
  usage = """
    _FUNC_(subject, filter) - Whether NATS subscription interest on `filter` receives `subject`:
      `*` matches one token, a trailing `>` one or more. False when `subject` is not a literal subject;
      NULL when an argument is NULL. An invalid filter is an error.
  """,
  arguments = """
    Arguments:
      * subject - a literal NATS subject.
      * filter - a subject filter, e.g. 'orders.*.>'.
  """,
  examples = """
    Examples:
      > SELECT _FUNC_('orders.eu.42', 'orders.*.>');
       true
      > SELECT _FUNC_('orders.eu', 'orders.*.>');
       false
  """,
  since = "0.1.0",
  group = "string_funcs")
case class SubjectMatchesExpression(subject: Expression, filter: Expression)
  extends PlanExpression[SubjectFilter] with DeterministicForm[SubjectFilter] with SparkCompat.NullIntolerant {

  override def children: Seq[Expression] = Seq(subject, filter)
  // (Spark's AbstractDataType is private to Spark: the element type is inferred.)
  override def inputTypes = Seq(StringType, StringType)
  override def dataType: DataType = BooleanType
  override def prettyName: String = "subject_matches"
  // Matching a subject against a filter is the same on every server line: no `server_version` argument.
  override def serverVersion: Expression = ServerVersionArgument.newest

  override protected def planArguments: Seq[Expression] = Seq(filter)
  override protected def failOnError: Boolean = true
  override protected def classOfPlan: Class[SubjectFilter] = classOf[SubjectFilter]
  override protected def compile(arguments: Seq[AnyRef]): SubjectFilter = SubjectFilter.compile(arguments.head.toString)
  override protected def blame(e: IllegalArgumentException): String = "filter"
  override def newCache(): ColumnPlans[SubjectFilter] = planCache((f, _) => SubjectFilter.compile(f))

  override protected def applyPlan(
      f: SubjectFilter, ws: Workspace, subject: UTF8String, input: InternalRow, key: Long): Any =
    PerRow.matches(f, ws, subject)

  override protected def applyPlanCode(f: String, ws: String, subject: String, key: String, rowValues: Seq[String],
      shell: String): String =
    s"${PerRow.name}.matches($f, $ws, $subject)"

  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): SubjectMatchesExpression =
    copy(subject = c(0), filter = c(1))
}
