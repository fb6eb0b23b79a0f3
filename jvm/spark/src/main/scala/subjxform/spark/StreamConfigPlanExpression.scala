package subjxform.spark

import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionDescription}

import subjxform.config.{InvalidStreamConfigException, StreamConfig, StreamConfigJson}
import subjxform.engine.ServerVersion

@ExpressionDescription(
  usage = """
    _FUNC_(config[, server_version]) - Checks a JetStream stream config (JSON, as `nats stream info --json` prints it or
      the stream create request) the way nats-server does for the fields that decide what the stream
      stores and republishes, and returns that plan as JSON: `subjects` (direct publishes kept),
      `subject_transform` (ingress), `origins` (each source or the mirror: the stream `name`, its
      `subject_transforms` filter list, and `inactive`: why nothing is taken from it, or NULL) and
      `republish`, with nats-server's defaults applied, and `applied_as` when there are transforms (for each
      transformed field, the version whose functions build its subjects as the server builds them; NULL
      where no subject it builds is valid). An
      invalid config is an error naming the field, in nats-server's words.
  """,
  arguments = """
    Arguments:
      * config - a stream config as a JSON string.
      * server_version - the nats-server line whose checks apply, as for `subject_transform`.
  """,
  examples = """
    Examples:
      > SELECT _FUNC_('{"name": "ORDERS"}');
       {"subjects":["ORDERS"],"subject_transform":null,"origins":[],"republish":null}
      > SELECT _FUNC_('{"name": "B", "sources": [{"name": "A", "filter_subject": "a.>"}]}');
       {"subjects":[],"subject_transform":null,"origins":[{"name":"A","field":"sources[0]","subject_transforms":[{"src":"a.>","dest":""}],"inactive":null}],"republish":null,"applied_as":{"sources[0]":"2.15"}}
  """,
  since = "0.1.0",
  group = "string_funcs")
case class StreamConfigPlanExpression(config: Expression, serverVersion: Expression) extends ConfigPlanExpression {
  def this(config: Expression) = this(config, ServerVersionArgument.newest)

  override def child: Expression = config
  override def prettyName: String = "stream_config_plan"
  override protected def argumentName: String = "config"
  override protected def planOf(text: String): String = StreamConfigPlanExpression.planOf(text, version)
  override protected def refuses(e: IllegalArgumentException): Boolean = e.isInstanceOf[InvalidStreamConfigException]
  override protected def withNewChildrenInternal(
      newLeft: Expression, newRight: Expression): StreamConfigPlanExpression =
    copy(config = newLeft, serverVersion = newRight)
}

object StreamConfigPlanExpression {
  def planOf(json: String, version: ServerVersion): String =
    StreamConfig.plan(StreamConfigJson.parse(json), version).toJson
}
