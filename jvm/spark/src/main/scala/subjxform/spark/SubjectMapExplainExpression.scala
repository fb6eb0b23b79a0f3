package subjxform.spark

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionDescription, Literal}
import org.apache.spark.sql.types.{BooleanType, DataType, IntegerType, StringType, StructField, StructType}
import org.apache.spark.unsafe.types.UTF8String

import subjxform.config.MappingTable
import subjxform.engine.Workspace

/**
 * `subject_map_explain(subject, mappings [, cluster [, seed [, key]]])`: why `subject_map` gives a subject what it
 * gives. The same arguments, plan, workspace and seeding as `subject_map` ([[SubjectMapFunction]]); per
 * row it asks the table for its decision ([[MappingTable.explain]]), which the table takes by the code
 * `subject_map` runs, so the struct's `result` is `subject_map`'s for the same arguments and seed.
 */
@ExpressionDescription(
  usage = """
    _FUNC_(subject, mappings[, cluster[, seed[, key[, server_version[, account]]]]]) - Explains what `subject_map` with the same arguments
      does to `subject`: a struct of the rule that matched (`rule`, its source as written, and
      `rule_index`, its 0-based position in the table), `matched_as` ('literal' or 'wildcard'), the
      cluster scope whose destinations applied (`cluster`, NULL for the cluster-less ones), the
      destination drawn (`destination` as written, `destination_index`, its 0-based position among the
      rule's entries) or the `remainder`, its `weight` (percent), the `outcome` ('mapped', 'unchanged',
      'dropped', 'no_match', or 'crash': the server line's process exits on the message, as 2.10 and 2.11 do
      on `{{partition(0,...)}}`) and the `result` (what `subject_map` returns: the same draw for the same
      seed). NULL when `subject` or `mappings` is NULL or `subject` is not a literal subject.
  """,
  arguments = """
    Arguments:
      * subject - a literal NATS subject.
      * mappings - the rules, as for `subject_map`.
      * cluster - the cluster of the server the message entered (default NULL: none).
      * seed - a constant BIGINT (default NULL: unseeded), as for `subject_map`.
      * key - a per-row key (default: none), as for `subject_map`: the draws are then a pure function of
          (seed, xxhash64(key), the rule), the same as `subject_map`'s with the same seed and key.
          Arguments can be given by name: `_FUNC_(subject, mappings, seed => 42, key => id)`.
      * server_version - the nats-server line, as for `subject_map`.
      * account - the account whose mappings these are (default NULL: none), as for `subject_map`.
  """,
  examples = """
    Examples:
      > SELECT _FUNC_('orders.42', 'orders.* orders.central.$1').outcome;
       mapped
      > SELECT _FUNC_('orders.42', '{"orders.*": "a.$1", "orders.42": "b"}').rule;
       orders.42
      > SELECT _FUNC_('billing.7', 'orders.* orders.central.$1').outcome;
       no_match
      > SELECT _FUNC_('svc', 'svc: [{destination: svc.v1, weight: 50%}, {destination: svc.v2, weight: 50%}]', seed => 7, key => 'order-1').result;
       svc.v1
  """,
  since = "0.1.0",
  group = "string_funcs")
case class SubjectMapExplainExpression(
    subject: Expression, mappings: Expression, cluster: Expression, seed: Expression, key: Expression,
    serverVersion: Expression, account: Expression)
  extends SubjectMapExplainFunction with DeterministicForm[MappingTable] {

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
    Some(RandomSubjectMapExplainExpression(subject, mappings, cluster, seed, key, serverVersion, account))

  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): SubjectMapExplainExpression =
    copy(subject = c(0), mappings = c(1), cluster = c(2), seed = c(3), key = c(4), serverVersion = c(5),
      account = c(6))
}

/** The `Nondeterministic` form, as [[RandomSubjectMapExpression]] is subject_map's. */
case class RandomSubjectMapExplainExpression(
    subject: Expression, mappings: Expression, cluster: Expression, seed: Expression, key: Expression,
    serverVersion: Expression, account: Expression)
  extends SubjectMapExplainFunction with RandomForm[MappingTable] {

  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): RandomSubjectMapExplainExpression =
    copy(subject = c(0), mappings = c(1), cluster = c(2), seed = c(3), key = c(4), serverVersion = c(5),
      account = c(6))
}

abstract class SubjectMapExplainFunction extends SubjectMapFunction {
  override def prettyName: String = "subject_map_explain"
  override def dataType: DataType = SubjectMapExplainFunction.Type

  override protected def applyPlan(table: MappingTable, ws: Workspace, subject: UTF8String, input: InternalRow,
      key: Long): Any =
    PerRow.explainMap(table, ws, subject, cluster.eval(input).asInstanceOf[UTF8String], keyed, seedForKeys, key, this)

  override protected def applyPlanCode(table: String, ws: String, subject: String, key: String, rowValues: Seq[String],
      shell: String): String =
    s"${PerRow.name}.explainMap($table, $ws, $subject, ${rowValues.head}, $keyed, ${seedForKeys}L, $key, $shell)"
}

object SubjectMapExplainFunction {

  /** The struct's fields, in order (PerRow.explainMap fills them). */
  val Type: StructType = StructType(Seq(
      StructField("rule", StringType),
      StructField("rule_index", IntegerType),
      StructField("matched_as", StringType),
      StructField("cluster", StringType),
      StructField("destination", StringType),
      StructField("destination_index", IntegerType),
      StructField("weight", IntegerType),
      StructField("remainder", BooleanType),
      StructField("outcome", StringType, nullable = false),
      StructField("result", StringType)))
}
