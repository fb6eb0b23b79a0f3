package subjxform.spark

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionDescription, Literal}
import org.apache.spark.sql.types.{DataType, LongType, StringType}
import org.apache.spark.unsafe.types.UTF8String

import subjxform.config.MappingTable
import subjxform.engine.Workspace

/**
 * `subject_map(subject, mappings [, cluster [, seed [, key [, server_version [, account]]]]])`: Core NATS account mappings on the
 * [[PlanExpression]] shell, around a compiled [[MappingTable]]. This class is the deterministic form;
 * the registry turns it into [[RandomSubjectMapExpression]] when the table draws at random.
 */
@ExpressionDescription(
  usage = """
    _FUNC_(subject, mappings[, cluster[, seed[, key[, server_version[, account]]]]]) - Applies a Core NATS account mapping table (the
      content of a nats-server `mappings { }` block, as JSON or in nats-server's config syntax) to
      `subject`, as nats-server (2.15 unless `server_version` says otherwise) does: a literal rule equal to the subject, else the first
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
      * seed - a constant BIGINT (default NULL: unseeded) that makes the weighted draws reproducible
          for the same input in the same partitioning, as `rand(seed)`.
      * key - a per-row key of any type (default: none), e.g. a message id: each draw is then a pure
          function of (seed, xxhash64(key), the rule), so a message gets the same destination
          whatever the partitioning, micro-batching or upstream filtering, and the function is
          deterministic. A MAP (a message's headers) is hashed by its entries in key order; a map
          inside an ARRAY or STRUCT is refused. Arguments can be given by name: `_FUNC_(subject, mappings, seed => 42, key => id)`.
      * server_version - a constant STRING, the nats-server line to follow ('2.10', '2.11', '2.12', '2.14',
          '2.15'; default: the session conf `spark.subjxform.serverVersion`, else '2.15').
      * account - a constant STRING (default NULL: none), the account whose mappings these are, by name (a
          public key in operator mode): nats-server 2.14.10 and 2.15.3 put the hash of its name where a
          rule says `{{account-hash()}}`. Without one such a rule is refused.
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
      > SELECT _FUNC_('svc', 'svc: [{destination: svc.v1, weight: 50%}, {destination: svc.v2, weight: 50%}]', seed => 7, key => 'order-1');
       svc.v1
      > SELECT _FUNC_('orders.x', '{"orders.*": "orders.{{account-hash()}}.$1"}', server_version => '2.15.3', account => 'B');
       orders.b2oh2L6w.x
  """,
  since = "0.1.0",
  group = "string_funcs")
case class SubjectMapExpression(
    subject: Expression, mappings: Expression, cluster: Expression, seed: Expression, key: Expression,
    serverVersion: Expression, account: Expression)
  extends SubjectMapFunction with DeterministicForm[MappingTable] {

  def this(subject: Expression, mappings: Expression) =
    this(subject, mappings, Literal.create(null, StringType), PlanExpression.NoSeed, PlanExpression.NoKey,
      ServerVersionArgument.newest, PlanExpression.NoAccount)

  def this(subject: Expression, mappings: Expression, cluster: Expression) =
    this(subject, mappings, cluster, PlanExpression.NoSeed, PlanExpression.NoKey, ServerVersionArgument.newest,
      PlanExpression.NoAccount)

  def this(subject: Expression, mappings: Expression, cluster: Expression, seed: Expression) =
    this(subject, mappings, cluster, seed, PlanExpression.NoKey, ServerVersionArgument.newest, PlanExpression.NoAccount)

  def this(subject: Expression, mappings: Expression, cluster: Expression, seed: Expression, key: Expression) =
    this(subject, mappings, cluster, seed, key, ServerVersionArgument.newest, PlanExpression.NoAccount)

  def this(subject: Expression, mappings: Expression, cluster: Expression, seed: Expression, key: Expression,
      serverVersion: Expression) =
    this(subject, mappings, cluster, seed, key, serverVersion, PlanExpression.NoAccount)

  override protected def randomForm: Option[Expression] =
    Some(RandomSubjectMapExpression(subject, mappings, cluster, seed, key, serverVersion, account))

  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): SubjectMapExpression =
    copy(subject = c(0), mappings = c(1), cluster = c(2), seed = c(3), key = c(4), serverVersion = c(5),
      account = c(6))
}

/**
 * `subject_map` over a table that draws at random (weights, `{{random(n)}}`) or comes from a column,
 * without a key: a Spark `Nondeterministic` expression, so the analyzer treats it as it treats `rand()`
 * (e.g. pulls it out of a GROUP BY), and its workspace is seeded per partition like `rand(seed)`'s.
 */
case class RandomSubjectMapExpression(
    subject: Expression, mappings: Expression, cluster: Expression, seed: Expression, key: Expression,
    serverVersion: Expression, account: Expression)
  extends SubjectMapFunction with RandomForm[MappingTable] {

  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): RandomSubjectMapExpression =
    copy(subject = c(0), mappings = c(1), cluster = c(2), seed = c(3), key = c(4), serverVersion = c(5),
      account = c(6))
}

/**
 * What both forms share (a table with weights draws a destination per row: see [[DeterministicForm]]
 * for why that takes two classes).
 */
abstract class SubjectMapFunction extends PlanExpression[MappingTable] with AccountArgument[MappingTable] {
  def mappings: Expression
  def cluster: Expression
  def seed: Expression
  def key: Expression

  override def prettyName: String = "subject_map"
  final override def children: Seq[Expression] = Seq(subject, mappings, cluster, seed, key, serverVersion, account)
  // (Spark's AbstractDataType is private to Spark: the element type is inferred.)
  override def inputTypes = Seq(StringType, StringType, StringType, LongType, LongType, StringType, StringType)
  override def dataType: DataType = StringType

  override protected def planArguments: Seq[Expression] = Seq(mappings)
  override protected def rowArguments: Seq[Expression] = Seq(cluster)
  override protected def constantArguments = Seq(("seed", "BIGINT", seed), ("account", "STRING", account))
  override protected def seedArgument: Option[Expression] = Some(seed)
  override protected def keyArgument: Option[Expression] = Some(key)
  override protected def requiredArguments: Int = 2
  override protected def failOnError: Boolean = true
  override protected def classOfPlan: Class[MappingTable] = classOf[MappingTable]
  override protected def compile(arguments: Seq[AnyRef]): MappingTable =
    MappingTable.compile(arguments.head.toString, version, accountName)
  override protected def blame(e: IllegalArgumentException): String = "mappings"
  override def newCache(): ColumnPlans[MappingTable] = {
    val (line, installedFor) = (version, accountName)
    planCache((m, _) => MappingTable.compile(m, line, installedFor))
  }
  override protected def constantsDrawAtRandom: Boolean = constantPlanDraws(_.isRandom)

  override protected def applyPlan(table: MappingTable, ws: Workspace, subject: UTF8String, input: InternalRow,
      key: Long): Any =
    PerRow.map(table, ws, subject, cluster.eval(input).asInstanceOf[UTF8String], keyed, seedForKeys, key, this)

  override protected def applyPlanCode(table: String, ws: String, subject: String, key: String, rowValues: Seq[String],
      shell: String): String =
    s"${PerRow.name}.map($table, $ws, $subject, ${rowValues.head}, $keyed, ${seedForKeys}L, $key, $shell)"
}
