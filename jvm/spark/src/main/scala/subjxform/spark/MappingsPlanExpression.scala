package subjxform.spark

import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionDescription}

import subjxform.config.{InvalidMappingsException, MappingTable}

@ExpressionDescription(
  usage = """
    _FUNC_(mappings[, server_version]) - The mapping table as `subject_map` and `subject_map_explain` apply it, as JSON: its
      rules in written order, each with `rule_index`, `rule`, `matched_as` ('literal' or 'wildcard'),
      `destinations` as written (`index`, `destination`, `weight` in percent, `cluster`) and `scopes`
      (per cluster scope, NULL for the cluster-less destinations: the `remainder` weight left over and
      whether it drops the message, `remainder_drops`). An invalid table is an error.
  """,
  arguments = """
    Arguments:
      * mappings - the rules, as for `subject_map`.
      * server_version - the nats-server line, as for `subject_map`.
  """,
  examples = """
    Examples:
      > SELECT _FUNC_('svc: [{destination: svc.v2, weight: 5%}]');
       [{"rule_index":0,"rule":"svc","matched_as":"literal","destinations":[{"index":0,"destination":"svc.v2","weight":5,"cluster":null}],"scopes":[{"cluster":null,"remainder":95,"remainder_drops":false}]}]
  """,
  since = "0.1.0",
  group = "string_funcs")
case class MappingsPlanExpression(mappings: Expression, serverVersion: Expression) extends ConfigPlanExpression {
  def this(mappings: Expression) = this(mappings, ServerVersionArgument.newest)

  override def child: Expression = mappings
  override def prettyName: String = "mappings_plan"
  override protected def argumentName: String = "mappings"
  override protected def planOf(text: String): String = MappingTable.compile(text, version).planJson
  override protected def refuses(e: IllegalArgumentException): Boolean = e.isInstanceOf[InvalidMappingsException]
  override protected def withNewChildrenInternal(newLeft: Expression, newRight: Expression): MappingsPlanExpression =
    copy(mappings = newLeft, serverVersion = newRight)
}
