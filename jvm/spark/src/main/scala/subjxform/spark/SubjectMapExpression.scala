package subjxform.spark

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionDescription, Literal}
import org.apache.spark.sql.types.{DataType, LongType, StringType}
import org.apache.spark.unsafe.types.UTF8String

import subjxform.core.{MappingTable, Workspace}

/**
 * `subject_map(subject, mappings [, cluster [, seed]])`: Core NATS account mappings on the
 * [[PlanExpression]] shell, around a compiled [[MappingTable]]. This class is the deterministic form;
 * the registry turns it into [[RandomSubjectMapExpression]] when the table draws at random.
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
  extends SubjectMapFunction with DeterministicForm[MappingTable] {

  def this(subject: Expression, mappings: Expression) =
    this(subject, mappings, Literal.create(null, StringType), Literal.create(null, LongType))

  def this(subject: Expression, mappings: Expression, cluster: Expression) =
    this(subject, mappings, cluster, Literal.create(null, LongType))

  override protected def randomForm: Option[Expression] = Some(RandomSubjectMapExpression(subject, mappings, cluster, seed))

  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): SubjectMapExpression =
    copy(subject = c(0), mappings = c(1), cluster = c(2), seed = c(3))
}

/**
 * `subject_map` over a table that draws at random (weights, `{{random(n)}}`) or comes from a column:
 * a Spark `Nondeterministic` expression, so the analyzer treats it as it treats `rand()` (e.g. pulls
 * it out of a GROUP BY), and its workspace is seeded per partition like `rand(seed)`'s.
 */
case class RandomSubjectMapExpression(subject: Expression, mappings: Expression, cluster: Expression, seed: Expression)
  extends SubjectMapFunction with RandomForm[MappingTable] {

  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): RandomSubjectMapExpression =
    copy(subject = c(0), mappings = c(1), cluster = c(2), seed = c(3))
}

/**
 * What both forms share (a table with weights draws a destination per row: see [[DeterministicForm]]
 * for why that takes two classes).
 */
abstract class SubjectMapFunction extends PlanExpression[MappingTable] {
  def mappings: Expression
  def cluster: Expression
  def seed: Expression

  override def prettyName: String = "subject_map"
  final override def children: Seq[Expression] = Seq(subject, mappings, cluster, seed)
  // (Spark's AbstractDataType is private to Spark: the element type is inferred.)
  override def inputTypes = Seq(StringType, StringType, StringType, LongType)
  override def dataType: DataType = StringType

  override protected def planArguments: Seq[Expression] = Seq(mappings)
  override protected def rowArguments: Seq[Expression] = Seq(cluster)
  override protected def constantArguments = Seq(("seed", "BIGINT", seed))
  override protected def failOnError: Boolean = true
  override protected def classOfPlan: Class[MappingTable] = classOf[MappingTable]
  override protected def compile(arguments: Seq[AnyRef]): MappingTable = MappingTable.compile(arguments.head.toString)
  override protected def blame(e: IllegalArgumentException): String = "mappings"
  override def newCache(): ColumnPlans[MappingTable] = planCache((m, _) => MappingTable.compile(m))
  override protected def constantDrawsAtRandom(table: MappingTable): Boolean = table.isRandom

  private def seedValue: Option[Long] = Option(seed.eval()).map(_.asInstanceOf[Long])

  /** A partition's workspace: seeded with `seed + partitionIndex` when a seed is given, as `rand(seed)`. */
  override def newWorkspace(partitionIndex: Int): Workspace = seedValue match {
    case Some(s) => new Workspace(s + partitionIndex)
    case None => new Workspace
  }

  override protected def applyPlan(table: MappingTable, ws: Workspace, subject: UTF8String, input: InternalRow): Any =
    PerRow.map(table, ws, subject, cluster.eval(input).asInstanceOf[UTF8String])

  override protected def applyPlanCode(table: String, ws: String, subject: String, rowValues: Seq[String]): String =
    s"${PerRow.name}.map($table, $ws, $subject, ${rowValues.head})"

  // The two- and three-argument forms print as they were written.
  override def sql: String = {
    val nullCluster = cluster.foldable && cluster.eval() == null
    if (seed.foldable && seedValue.isEmpty) {
      if (nullCluster) s"$prettyName(${subject.sql}, ${mappings.sql})"
      else s"$prettyName(${subject.sql}, ${mappings.sql}, ${cluster.sql})"
    } else super.sql
  }
}
