package subjxform.spark

import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult.TypeCheckSuccess
import org.apache.spark.sql.catalyst.expressions.{BinaryExpression, Expression, ExpressionDescription, ImplicitCastInputTypes}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.catalyst.expressions.codegen.Block._
import org.apache.spark.sql.types.{BooleanType, DataType, StringType}
import org.apache.spark.unsafe.types.UTF8String

import subjxform.core.{InvalidFilterException, SubjectFilter, Workspace}

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
  extends BinaryExpression with ImplicitCastInputTypes {

  override def left: Expression = subject
  override def right: Expression = filter
  // (Spark's AbstractDataType is private to Spark: the element type is inferred.)
  override def inputTypes = Seq(StringType, StringType)
  override def dataType: DataType = BooleanType
  override def nullable: Boolean = true
  override def nullIntolerant: Boolean = true
  override def stateful: Boolean = true
  override def prettyName: String = "subject_matches"

  /** The compiled constant filter; None when it is NULL. */
  @transient private lazy val constant: Option[Either[InvalidFilterException, SubjectFilter]] =
    Option(filter.eval()).map { f =>
      try Right(SubjectFilter.compile(f.toString))
      catch { case e: InvalidFilterException => Left(e) }
    }

  override def checkInputDataTypes(): TypeCheckResult = {
    val types = super.checkInputDataTypes()
    if (types.isFailure) return types
    if (filter.foldable) constant.foreach(_.left.foreach(e => throw Errors.atAnalysis(prettyName, "filter", e.getMessage)))
    TypeCheckSuccess
  }

  private[spark] def newCache(): PlanCache[SubjectFilter] =
    PlanCache.of(prettyName, _ => "filter")((f, _) => SubjectFilter.compile(f))

  @transient private lazy val workspace = new Workspace
  @transient private lazy val cache = newCache()

  override protected def nullSafeEval(s: Any, f: Any): Any = {
    val compiled =
      if (filter.foldable) constant.get.fold(e => throw Errors.atRuntime(prettyName, "filter", e.getMessage), identity)
      else cache.get(f.asInstanceOf[UTF8String], null, failOnError = true)
    PerRow.matches(compiled, workspace, s.asInstanceOf[UTF8String])
  }

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val perRow = PerRow.getClass.getName.stripSuffix("$")
    val wsClass = classOf[Workspace].getName
    val filterClass = classOf[SubjectFilter].getName
    if (filter.foldable && constant.isEmpty) {
      return ev.copy(code = code"boolean ${ev.isNull} = true; boolean ${ev.value} = false;")
    }
    val ws = ctx.addMutableState(wsClass, "subjectWorkspace", v => s"$v = new $wsClass();")
    // The compiled filter: a reference to the constant one, or a lookup in this task's cache.
    val compiled: String => String =
      if (filter.foldable) {
        val f = constant.get.fold(e => throw Errors.atAnalysis(prettyName, "filter", e.getMessage), identity)
        val ref = ctx.addReferenceObj("subjectFilter", f, filterClass)
        _ => ref
      } else {
        val self = ctx.addReferenceObj("subjectMatchesExpr", this, getClass.getName)
        val cache = ctx.addMutableState(classOf[PlanCache[_]].getName, "subjectFilterCache", v => s"$v = $self.newCache();")
        f => s"(($filterClass) $cache.get($f, null, true))"
      }
    nullSafeCodeGen(ctx, ev, (s, f) => s"${ev.value} = $perRow.matches(${compiled(f)}, $ws, $s);")
  }

  override protected def withNewChildrenInternal(newLeft: Expression, newRight: Expression): SubjectMatchesExpression =
    copy(subject = newLeft, filter = newRight)
}
