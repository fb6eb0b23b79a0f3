package subjxform.spark

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionDescription}
import org.apache.spark.sql.types.{DataType, IntegerType, StringType}
import org.apache.spark.unsafe.types.UTF8String

import subjxform.config.{ConsumerGroup, InvalidConsumerGroupException}
import subjxform.engine.Workspace

/**
 * `consumer_group_partition` / `consumer_group_member`: a message's partition and member in a
 * partitioned consumer group (orbit.go pcgroups), on the [[PlanExpression]] shell around a compiled
 * [[ConsumerGroup]]; a config from a column goes through the shell's per-task cache.
 */
abstract class ConsumerGroupFunction extends PlanExpression[ConsumerGroup] with DeterministicForm[ConsumerGroup] {
  def config: Expression

  final override def children: Seq[Expression] = Seq(subject, config, serverVersion)
  override def inputTypes = Seq(StringType, StringType, StringType)
  override protected def requiredArguments: Int = 2
  override protected def planArguments: Seq[Expression] = Seq(config)
  override protected def failOnError: Boolean = true
  override protected def classOfPlan: Class[ConsumerGroup] = classOf[ConsumerGroup]
  override protected def compile(arguments: Seq[AnyRef]): ConsumerGroup =
    ConsumerGroup.parse(arguments.head.toString, None, version)
  override protected def blame(e: IllegalArgumentException): String = "config"
  override def newCache(): ColumnPlans[ConsumerGroup] = planCache((c, _) => ConsumerGroup.parse(c, None, version))
}

@ExpressionDescription(
  usage = """
    _FUNC_(subject, config[, server_version]) - The partition of the message on `subject` in a partitioned consumer group
      (the orbit.go `pcgroups` library): for an elastic group, the partition nats-server's sourcing
      transform `{{Partition(N,...)}}.<filter>` gives it (the first partitioning filter that matches);
      for a static group, the partition number that is the subject's first token. NULL when the group
      does not take the message (no partitioning filter matches, or no member consumer filter could),
      when `subject` is not a literal subject, or an argument is NULL. An invalid config is an error
      with the library's reason (or nats-server's, for what the group would create).
  """,
  arguments = """
    Arguments:
      * subject - a literal NATS subject (of the group's stream).
      * config - the group's config, the JSON value of its key in the `elastic-consumer-groups` or
          `static-consumer-groups` KV bucket. An elastic config has `partitioning_filters` (null when
          there is none), a static one `filters` ([] when there is none).
      * server_version - the nats-server line, as for `subject_transform`.
  """,
  examples = """
    Examples:
      > SELECT _FUNC_('orders.eu.c43', '{"max_members": 4, "partitioning_filters": [{"filter": "orders.*.*", "partitioning_wildcards": [2]}], "members": ["m1", "m2"]}');
       3
      > SELECT _FUNC_('3.orders.c42', '{"max_members": 4, "filters": [], "members": ["m1", "m2"]}');
       3
      > SELECT _FUNC_('payments.x', '{"max_members": 4, "partitioning_filters": [{"filter": "orders.*.*", "partitioning_wildcards": [2]}], "members": ["m1", "m2"]}');
       NULL
  """,
  since = "0.1.0",
  group = "string_funcs")
case class ConsumerGroupPartitionExpression(subject: Expression, config: Expression, serverVersion: Expression)
  extends ConsumerGroupFunction {
  def this(subject: Expression, config: Expression) = this(subject, config, ServerVersionArgument.newest)

  override def dataType: DataType = IntegerType
  override def prettyName: String = "consumer_group_partition"

  override protected def applyPlan(
      g: ConsumerGroup, ws: Workspace, subject: UTF8String, input: InternalRow, key: Long): Any = {
    val p = PerRow.groupPartition(g, ws, subject)
    if (p < 0) null else p
  }

  override protected def applyPlanCode(g: String, ws: String, subject: String, key: String, rowValues: Seq[String],
      shell: String): String = s"${PerRow.name}.groupPartition($g, $ws, $subject)"

  // No message's partition is negative: -1 stands for NULL (no Integer boxed per row).
  override protected def resultIsNullCode(value: String): String = s"$value < 0"

  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): ConsumerGroupPartitionExpression =
    copy(subject = c(0), config = c(1), serverVersion = c(2))
}

@ExpressionDescription(
  usage = """
    _FUNC_(subject, config[, server_version]) - The member of a partitioned consumer group (the orbit.go `pcgroups` library)
      that gets the message on `subject`: the member of its partition (`consumer_group_partition`) as
      the library assigns partitions (`GeneratePartitionFilters`: the members de-duplicated, sorted,
      cut to `max_members`, blocks of max_members / members partitions, the remainder round robin; or
      `member_mappings`). NULL when the group does not take the message or no member has its partition.
  """,
  arguments = """
    Arguments:
      * subject - a literal NATS subject (of the group's stream).
      * config - the group's config (JSON), as for `consumer_group_partition`.
      * server_version - the nats-server line, as for `subject_transform`.
  """,
  examples = """
    Examples:
      > SELECT _FUNC_('orders.eu.c43', '{"max_members": 4, "partitioning_filters": [{"filter": "orders.*.*", "partitioning_wildcards": [2]}], "members": ["m1", "m2"]}');
       m2
      > SELECT _FUNC_('3.orders.c42', '{"max_members": 4, "filters": [], "member_mappings": [{"member": "a", "partitions": [0, 3]}, {"member": "b", "partitions": [1, 2]}]}');
       a
  """,
  since = "0.1.0",
  group = "string_funcs")
case class ConsumerGroupMemberExpression(subject: Expression, config: Expression, serverVersion: Expression)
  extends ConsumerGroupFunction {
  def this(subject: Expression, config: Expression) = this(subject, config, ServerVersionArgument.newest)

  override def dataType: DataType = StringType
  override def prettyName: String = "consumer_group_member"

  override protected def applyPlan(
      g: ConsumerGroup, ws: Workspace, subject: UTF8String, input: InternalRow, key: Long): Any =
    PerRow.groupMember(g, ws, subject)

  override protected def applyPlanCode(g: String, ws: String, subject: String, key: String, rowValues: Seq[String],
      shell: String): String = s"${PerRow.name}.groupMember($g, $ws, $subject)"

  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): ConsumerGroupMemberExpression =
    copy(subject = c(0), config = c(1), serverVersion = c(2))
}

@ExpressionDescription(
  usage = """
    _FUNC_(config[, server_version]) - Checks a partitioned consumer group's config (JSON, elastic or static) as the orbit.go
      `pcgroups` library and nats-server do, and returns the group as JSON: `kind`, `bucket`,
      `max_members`, `filters`, the elastic group's sourcing `transforms` ({src, dest}) and `members`,
      each with its `partitions` and its consumer's `filter_subjects`. An invalid config is an error with
      the library's reason.
  """,
  arguments = """
    Arguments:
      * config - the group's config (JSON), as for `consumer_group_partition`.
      * server_version - the nats-server line whose checks apply, as for `subject_transform`.
  """,
  examples = """
    Examples:
      > SELECT _FUNC_('{"max_members": 3, "filters": [], "members": ["b", "a"]}');
       {"kind":"static","bucket":"static-consumer-groups","max_members":3,"filters":[],"transforms":[],"members":[{"member":"a","partitions":[0,2],"filter_subjects":["0.>","2.>"]},{"member":"b","partitions":[1],"filter_subjects":["1.>"]}]}
  """,
  since = "0.1.0",
  group = "string_funcs")
case class ConsumerGroupPlanExpression(config: Expression, serverVersion: Expression) extends ConfigPlanExpression {
  def this(config: Expression) = this(config, ServerVersionArgument.newest)

  override def child: Expression = config
  override def prettyName: String = "consumer_group_plan"
  override protected def argumentName: String = "config"
  override protected def planOf(text: String): String = ConsumerGroup.parse(text, None, version).planJson
  override protected def refuses(e: IllegalArgumentException): Boolean = e.isInstanceOf[InvalidConsumerGroupException]
  override protected def withNewChildrenInternal(newLeft: Expression, newRight: Expression): ConsumerGroupPlanExpression =
    copy(config = newLeft, serverVersion = newRight)
}
