package subjxform.spark

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult.TypeCheckSuccess
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionDescription, ImplicitCastInputTypes, Literal}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.catalyst.expressions.codegen.Block._
import org.apache.spark.sql.types.{BooleanType, DataType, StringType}
import org.apache.spark.unsafe.types.UTF8String

import subjxform.core.{InvalidTransformException, SubjectTransform, Workspace}

/**
 * `subject_transform(subject, src, dest [, strict])`: a thin Catalyst shell around a compiled
 * [[SubjectTransform]]. Constant `src`/`dest` are compiled once (an invalid pair fails analysis);
 * from columns, compiled transforms are kept in a per-task [[PlanCache]]. A `{{random(n)}}` destination
 * (or one from a column, which may be one) makes it a [[RandomSubjectTransformExpression]].
 */
abstract class SubjectTransformBase extends UsesWorkspace with ImplicitCastInputTypes {
  def subject: Expression
  def src: Expression
  def dest: Expression
  def strict: Expression

  /** Whether an invalid transform is an error (`subject_transform`) or a NULL (`try_subject_transform`). */
  protected def failOnError: Boolean

  final override def children: Seq[Expression] = Seq(subject, src, dest, strict)
  // (Spark's AbstractDataType is private to Spark: the element type is inferred.)
  override def inputTypes = Seq(StringType, StringType, StringType, BooleanType)
  override def dataType: DataType = StringType
  override def nullable: Boolean = true
  override def nullIntolerant: Boolean = true
  // A workspace and a cache of compiled transforms live in each instance: never share one.
  override def stateful: Boolean = true

  protected def constantTransform: Boolean = src.foldable && dest.foldable

  private def strictValue: Option[Boolean] = Option(strict.eval()).map(_.asInstanceOf[Boolean])

  /** The transform of constant arguments; None when one of them is NULL (every result is NULL). */
  @transient private lazy val constant: Option[Either[InvalidTransformException, SubjectTransform]] =
    for {
      s <- Option(src.eval())
      d <- Option(dest.eval())
      strictMode <- strictValue
    } yield
      try Right(SubjectTransform.compile(s.toString, d.toString, strictMode))
      catch { case e: InvalidTransformException => Left(e) }

  /** Which argument to blame: nats-server's reason says whether the source or the destination is bad. */
  private def culprit(e: IllegalArgumentException): String = e match {
    case t: InvalidTransformException if t.sourceInvalid => "src"
    case t: InvalidTransformException if t.reason != "invalid subject" => "dest"
    case _ => "src, dest"
  }

  private[spark] def newCache(): PlanCache[SubjectTransform] = {
    val strictMode = strictValue.getOrElse(false)
    PlanCache.of(prettyName, culprit)((s, d) => SubjectTransform.compile(s, d, strictMode))
  }

  // `{{random(n)}}` draws from the workspace's source; this function takes no seed.
  override def newWorkspace(partitionIndex: Int): Workspace = new Workspace

  override def checkInputDataTypes(): TypeCheckResult = {
    val types = super.checkInputDataTypes()
    if (types.isFailure) return types
    if (!strict.foldable) return Errors.notConstant("strict", "BOOLEAN", strict)
    if (failOnError && constantTransform) {
      constant.foreach(_.left.foreach(e => throw Errors.atAnalysis(prettyName, culprit(e), e.getMessage)))
    }
    TypeCheckSuccess
  }

  @transient private lazy val cache = newCache()

  private def constantOrNull: SubjectTransform = constant match {
    case Some(Right(tr)) => tr
    case Some(Left(e)) if failOnError => throw Errors.atRuntime(prettyName, culprit(e), e.getMessage)
    case _ => null
  }

  override protected def evalWith(workspace: Workspace, input: InternalRow): Any = {
    val s = subject.eval(input).asInstanceOf[UTF8String]
    if (s == null) return null
    val tr =
      if (constantTransform) constantOrNull
      else {
        val a = src.eval(input).asInstanceOf[UTF8String]
        val b = dest.eval(input).asInstanceOf[UTF8String]
        if (a == null || b == null || strictValue.isEmpty) return null
        cache.get(a, b, failOnError)
      }
    if (tr == null) null else PerRow.transform(tr, workspace, s)
  }

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val perRow = PerRow.getClass.getName.stripSuffix("$")
    val trClass = classOf[SubjectTransform].getName
    val subj = subject.genCode(ctx)
    lazy val self = ctx.addReferenceObj("subjectTransformExpr", this, classOf[SubjectTransformBase].getName)
    lazy val ws = workspaceFor(ctx, self)
    def transformWith(tr: String) =
      s"""
         |${ev.value} = $perRow.transform($tr, $ws, ${subj.value});
         |${ev.isNull} = ${ev.value} == null;
         |""".stripMargin

    val alwaysNull = if (constantTransform) constantOrNull == null else strictValue.isEmpty
    if (alwaysNull) {
      ev.copy(code = code"boolean ${ev.isNull} = true; UTF8String ${ev.value} = null;")
    } else if (constantTransform) {
      val tr = ctx.addReferenceObj("subjectTransform", constantOrNull, trClass)
      ev.copy(code = code"""
        |${subj.code}
        |boolean ${ev.isNull} = true;
        |UTF8String ${ev.value} = null;
        |if (!${subj.isNull}) {
        |  ${transformWith(tr)}
        |}""".stripMargin)
    } else {
      val cacheClass = classOf[PlanCache[_]].getName
      val cache = ctx.addMutableState(cacheClass, "subjectTransformCache", v => s"$v = $self.newCache();")
      val a = src.genCode(ctx)
      val b = dest.genCode(ctx)
      val tr = ctx.freshName("transform")
      ev.copy(code = code"""
        |${subj.code}
        |boolean ${ev.isNull} = true;
        |UTF8String ${ev.value} = null;
        |if (!${subj.isNull}) {
        |  ${a.code}
        |  ${b.code}
        |  if (!${a.isNull} && !${b.isNull}) {
        |    $trClass $tr = ($trClass) $cache.get(${a.value}, ${b.value}, $failOnError);
        |    if ($tr != null) {
        |      ${transformWith(tr)}
        |    }
        |  }
        |}""".stripMargin)
    }
  }

  // The three-argument form prints as it was written.
  override def sql: String =
    if (strict == Literal.FalseLiteral) s"$prettyName(${subject.sql}, ${src.sql}, ${dest.sql})" else super.sql
}

/**
 * The forms the registry builds (`subject_transform`, `try_subject_transform`), deterministic when the
 * transform is a constant one that does not draw at random.
 */
abstract class DeterministicSubjectTransform extends SubjectTransformBase with MayDrawAtRandom {
  // `{{random(n)}}`: Spark must not assume two evaluations agree. A column transform might be one.
  override protected def mayDrawAtRandom: Boolean =
    !(constantOnceAnalysed(src) && constantOnceAnalysed(dest)) || constantIsRandom

  override protected def randomForm: Expression = RandomSubjectTransformExpression(subject, src, dest, strict, failOnError)

  /**
   * Read before implicit casts (the builder runs first), so `strict` may not be a BOOLEAN yet: whether
   * the destination draws at random does not depend on it, and an invalid transform is reported by
   * `checkInputDataTypes` whichever form it is.
   */
  private def constantIsRandom: Boolean = (Option(src.eval()), Option(dest.eval())) match {
    case (Some(s), Some(d)) =>
      try SubjectTransform.compile(s.toString, d.toString).isRandom
      catch { case _: InvalidTransformException => false }
    case _ => false
  }
}

/**
 * `subject_transform` / `try_subject_transform` whose destination draws at random (`{{random(n)}}`)
 * or comes from a column (so may): a Spark `Nondeterministic` expression, treated as `rand()` is.
 */
case class RandomSubjectTransformExpression(
    subject: Expression, src: Expression, dest: Expression, strict: Expression, failOnError: Boolean)
  extends SubjectTransformBase with WorkspacePerPartition {

  override def prettyName: String = if (failOnError) "subject_transform" else "try_subject_transform"

  // Printed as the function it was written as: the flag is in the name.
  override protected def stringArgs: Iterator[Any] = children.iterator

  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): RandomSubjectTransformExpression =
    copy(subject = c(0), src = c(1), dest = c(2), strict = c(3))
}

@ExpressionDescription(
  usage = """
    _FUNC_(subject, src, dest[, strict]) - Applies the NATS subject transform `src` -> `dest` to
      `subject`, exactly as nats-server 2.15 does. Returns NULL when an argument is NULL, when
      `subject` is not a literal subject or does not match `src`, or when the built subject has an
      empty token. An invalid transform is an error (at analysis time when `src` and `dest` are
      constants).
  """,
  arguments = """
    Arguments:
      * subject - a literal NATS subject, e.g. 'orders.eu.42'.
      * src - the source filter: tokens, `*` (one token) and a trailing `>`; '' means '>'.
      * dest - the destination: tokens, `$N`, `{{wildcard(N)}}`, `{{partition(n,N,...)}}`,
          `{{split(N,sep)}}`, `{{splitfromleft(N,k)}}`, `{{splitfromright(N,k)}}`,
          `{{slicefromleft(N,k)}}`, `{{slicefromright(N,k)}}`, `{{left(N,k)}}`, `{{right(N,k)}}`,
          `{{random(n)}}` and a trailing `>`; `<<fn(...)>>` is the same as `{{fn(...)}}`.
          '' means no transformation.
      * strict - a constant BOOLEAN, default false: accept only what an import/export mapping
          accepts (only wildcards, each `*` of `src` used).
  """,
  examples = """
    Examples:
      > SELECT _FUNC_('orders.eu.42', 'orders.*.*', 'shipments.{{wildcard(2)}}.$1');
       shipments.42.eu
      > SELECT _FUNC_('neworders.customerid2', 'neworders.*', 'neworders.{{wildcard(1)}}.{{partition(3,1)}}');
       neworders.customerid2.2
      > SELECT _FUNC_('1234567890', '*', '<<SliceFromLeft(1,3)>>');
       123.456.789.0
      > SELECT _FUNC_('one.two.three', 'one.>', 'uno.>');
       uno.two.three
      > SELECT _FUNC_('billing.eu', 'orders.*', 'x.$1');
       NULL
  """,
  since = "0.1.0",
  group = "string_funcs")
case class SubjectTransformExpression(subject: Expression, src: Expression, dest: Expression, strict: Expression)
  extends DeterministicSubjectTransform {

  def this(subject: Expression, src: Expression, dest: Expression) =
    this(subject, src, dest, Literal.FalseLiteral)

  override protected def failOnError: Boolean = true
  override def prettyName: String = "subject_transform"

  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): SubjectTransformExpression =
    copy(subject = c(0), src = c(1), dest = c(2), strict = c(3))
}

@ExpressionDescription(
  usage = """
    _FUNC_(subject, src, dest[, strict]) - The same as `subject_transform`, but an invalid transform
      gives NULL instead of an error.
  """,
  arguments = """
    Arguments:
      * subject - a literal NATS subject.
      * src - the source filter.
      * dest - the destination (see `subject_transform`).
      * strict - a constant BOOLEAN, default false: import/export rules.
  """,
  examples = """
    Examples:
      > SELECT _FUNC_('a.b', 'a.*', 'x.{{wildcard(2)}}');
       NULL
      > SELECT _FUNC_('a.b', 'a.*', 'x.{{wildcard(1)}}');
       x.b
  """,
  since = "0.1.0",
  group = "string_funcs")
case class TrySubjectTransformExpression(subject: Expression, src: Expression, dest: Expression, strict: Expression)
  extends DeterministicSubjectTransform {

  def this(subject: Expression, src: Expression, dest: Expression) =
    this(subject, src, dest, Literal.FalseLiteral)

  override protected def failOnError: Boolean = false
  override def prettyName: String = "try_subject_transform"

  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): TrySubjectTransformExpression =
    copy(subject = c(0), src = c(1), dest = c(2), strict = c(3))
}
