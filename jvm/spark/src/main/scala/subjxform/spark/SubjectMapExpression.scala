package subjxform.spark

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult.TypeCheckSuccess
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionDescription, ImplicitCastInputTypes, Literal}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.catalyst.expressions.codegen.Block._
import org.apache.spark.sql.types.{DataType, LongType, StringType}
import org.apache.spark.unsafe.types.UTF8String

import subjxform.core.{InvalidMappingsException, MappingTable, Workspace}

/**
 * `subject_map(subject, mappings [, cluster [, seed]])`: Core NATS account mappings, a thin Catalyst
 * shell around a compiled [[MappingTable]]. A constant table is compiled once (an invalid one fails
 * analysis); tables from a column are kept in a per-task [[PlanCache]]. This class is the deterministic
 * form; the registry turns it into [[RandomSubjectMapExpression]] when the table draws at random.
 */
@ExpressionDescription(
  usage = """
    _FUNC_(subject, mappings[, cluster[, seed]]) - Applies a Core NATS account mapping table (the
      content of a nats-server `mappings { }` block, as JSON or in nats-server's config syntax) to
      `subject`, as nats-server 2.15 does: a literal rule equal to the subject, else the first
      matching wildcard rule; no match leaves the subject unchanged. Weighted destinations are drawn
      at random (the remainder keeps the subject, or drops it, giving NULL, when the source itself is
      listed). NULL when `subject` or `mappings` is NULL or `subject` is not a literal subject. An
      invalid table is an error (at analysis time when it is a constant).
  """,
  arguments = """
    Arguments:
      * subject - a literal NATS subject.
      * mappings - the rules: `{"orders.*": "orders.central.{{wildcard(1)}}"}` or
          `orders.* "orders.central.{{wildcard(1)}}"`; a rule's value is a destination or a list of
          `{destination, weight, cluster}` entries, weights like `98%`, `98` or "98%".
      * cluster - the cluster of the server the message entered (default NULL: none); a rule's
          destinations for that cluster apply, else its cluster-less ones.
      * seed - a constant BIGINT (default NULL: unseeded) that makes the weighted draws reproducible.
  """,
  examples = """
    Examples:
      > SELECT _FUNC_('orders.42', '{"orders.flush": "orders.central.flush", "orders.*": "orders.central.{{wildcard(1)}}"}');
       orders.central.42
      > SELECT _FUNC_('orders.flush', 'orders.flush orders.central.flush; orders.* "orders.c.{{wildcard(1)}}"');
       orders.central.flush
      > SELECT _FUNC_('billing.7', '{"orders.*": "orders.central.$1"}');
       billing.7
      > SELECT _FUNC_('foo', 'foo: [{destination: foo.west, weight: 100%, cluster: west}]', 'west');
       foo.west
      > SELECT _FUNC_('foo', 'foo: [{destination: foo.west, weight: 100%, cluster: west}]', 'east');
       foo
      > SELECT _FUNC_('foo.loss.a', 'foo.loss.>: [{destination: foo.loss.>, weight: 0%}]');
       NULL
  """,
  since = "0.1.0",
  group = "string_funcs")
case class SubjectMapExpression(subject: Expression, mappings: Expression, cluster: Expression, seed: Expression)
  extends SubjectMapBase with MayDrawAtRandom {

  def this(subject: Expression, mappings: Expression) =
    this(subject, mappings, Literal.create(null, StringType), Literal.create(null, LongType))

  def this(subject: Expression, mappings: Expression, cluster: Expression) =
    this(subject, mappings, cluster, Literal.create(null, LongType))

  override protected def mayDrawAtRandom: Boolean = !constantOnceAnalysed(mappings) || constantIsRandom

  override protected def randomForm: Expression = RandomSubjectMapExpression(subject, mappings, cluster, seed)

  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): SubjectMapExpression =
    copy(subject = c(0), mappings = c(1), cluster = c(2), seed = c(3))
}

/**
 * `subject_map` over a table that draws at random (weights, `{{random(n)}}`) or comes from a column:
 * a Spark `Nondeterministic` expression, so the analyzer treats it as it treats `rand()` (e.g. pulls
 * it out of a GROUP BY), and its workspace is seeded per partition like `rand(seed)`'s.
 */
case class RandomSubjectMapExpression(subject: Expression, mappings: Expression, cluster: Expression, seed: Expression)
  extends SubjectMapBase with WorkspacePerPartition {

  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): RandomSubjectMapExpression =
    copy(subject = c(0), mappings = c(1), cluster = c(2), seed = c(3))
}

/**
 * What both forms share (a table with weights draws a destination per row: see [[UsesWorkspace]] for
 * why that takes two classes).
 */
abstract class SubjectMapBase extends UsesWorkspace with ImplicitCastInputTypes {
  def subject: Expression
  def mappings: Expression
  def cluster: Expression
  def seed: Expression

  override def prettyName: String = "subject_map"
  final override def children: Seq[Expression] = Seq(subject, mappings, cluster, seed)
  // (Spark's AbstractDataType is private to Spark: the element type is inferred.)
  override def inputTypes = Seq(StringType, StringType, StringType, LongType)
  override def dataType: DataType = StringType
  override def nullable: Boolean = true
  // A workspace (with its random source) and a cache of compiled tables live in each instance.
  override def stateful: Boolean = true

  /** The compiled constant table; None when it is NULL (every result is NULL). */
  @transient protected lazy val constant: Option[Either[InvalidMappingsException, MappingTable]] =
    Option(mappings.eval()).map { m =>
      try Right(MappingTable.compile(m.toString))
      catch { case e: InvalidMappingsException => Left(e) }
    }

  protected def constantIsRandom: Boolean = constant.exists(_.exists(_.isRandom))

  private def seedValue: Option[Long] = Option(seed.eval()).map(_.asInstanceOf[Long])

  override def checkInputDataTypes(): TypeCheckResult = {
    val types = super.checkInputDataTypes()
    if (types.isFailure) return types
    if (!seed.foldable) return Errors.notConstant("seed", "BIGINT", seed)
    if (mappings.foldable) constant.foreach(_.left.foreach(e => throw Errors.atAnalysis(prettyName, "mappings", e.getMessage)))
    TypeCheckSuccess
  }

  private[spark] def newCache(): PlanCache[MappingTable] =
    PlanCache.of(prettyName, _ => "mappings")((m, _) => MappingTable.compile(m))

  /** A partition's workspace: seeded with `seed + partitionIndex` when a seed is given, as `rand(seed)`. */
  override def newWorkspace(partitionIndex: Int): Workspace = seedValue match {
    case Some(s) => new Workspace(s + partitionIndex)
    case None => new Workspace
  }

  @transient private lazy val cache = newCache()

  private def constantTable: MappingTable = constant match {
    case Some(Right(t)) => t
    case Some(Left(e)) => throw Errors.atRuntime(prettyName, "mappings", e.getMessage)
    case None => null
  }

  override protected def evalWith(workspace: Workspace, input: InternalRow): Any = {
    val s = subject.eval(input).asInstanceOf[UTF8String]
    if (s == null) return null
    val table =
      if (mappings.foldable) constantTable
      else {
        val m = mappings.eval(input).asInstanceOf[UTF8String]
        if (m == null) null else cache.get(m, null, failOnError = true)
      }
    if (table == null) null
    else PerRow.map(table, workspace, s, cluster.eval(input).asInstanceOf[UTF8String])
  }

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val perRow = PerRow.getClass.getName.stripSuffix("$")
    val tableClass = classOf[MappingTable].getName
    if (mappings.foldable && constantTable == null) {
      return ev.copy(code = code"boolean ${ev.isNull} = true; UTF8String ${ev.value} = null;")
    }
    val self = ctx.addReferenceObj("subjectMapExpr", this, classOf[SubjectMapBase].getName)
    val ws = workspaceFor(ctx, self)
    val subj = subject.genCode(ctx)
    val clus = cluster.genCode(ctx)
    val table = ctx.freshName("table")
    val lookup =
      if (mappings.foldable) {
        val ref = ctx.addReferenceObj("mappingTable", constantTable, tableClass)
        s"$tableClass $table = $ref;"
      } else {
        val cache = ctx.addMutableState(classOf[PlanCache[_]].getName, "mappingTableCache", v => s"$v = $self.newCache();")
        val m = mappings.genCode(ctx)
        s"""${m.code}
           |$tableClass $table = ${m.isNull} ? null : ($tableClass) $cache.get(${m.value}, null, true);""".stripMargin
      }
    ev.copy(code = code"""
      |${subj.code}
      |boolean ${ev.isNull} = true;
      |UTF8String ${ev.value} = null;
      |if (!${subj.isNull}) {
      |  $lookup
      |  if ($table != null) {
      |    ${clus.code}
      |    ${ev.value} = $perRow.map($table, $ws, ${subj.value}, ${clus.isNull} ? null : ${clus.value});
      |    ${ev.isNull} = ${ev.value} == null;
      |  }
      |}""".stripMargin)
  }

  // The two- and three-argument forms print as they were written.
  override def sql: String = {
    val nullCluster = cluster.foldable && cluster.eval() == null
    if (seed.foldable && seedValue.isEmpty) {
      if (nullCluster) s"$prettyName(${subject.sql}, ${mappings.sql})"
      else s"$prettyName(${subject.sql}, ${mappings.sql}, ${cluster.sql})"
    } else super.sql
  }
}

