package subjxform.spark

import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult.TypeCheckSuccess
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionDescription, ImplicitCastInputTypes, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.types.{DataType, StringType}
import org.apache.spark.unsafe.types.UTF8String

import subjxform.core.{InvalidStreamConfigException, StreamConfig, StreamConfigJson}

@ExpressionDescription(
  usage = """
    _FUNC_(config) - Checks a JetStream stream config (JSON, as `nats stream info --json` prints it or
      the stream create request) the way nats-server does for the fields that decide what the stream
      stores and republishes, and returns that plan as JSON: `subjects` (direct publishes kept),
      `subject_transform` (ingress), `origins` (each source or the mirror: the stream `name`, its
      `subject_transforms` filter list, and `inactive`: why nothing is taken from it, or NULL) and
      `republish`, with nats-server's defaults applied. An
      invalid config is an error naming the field, in nats-server's words.
  """,
  arguments = """
    Arguments:
      * config - a stream config as a JSON string.
  """,
  examples = """
    Examples:
      > SELECT _FUNC_('{"name": "ORDERS"}');
       {"subjects":["ORDERS"],"subject_transform":null,"origins":[],"republish":null}
      > SELECT _FUNC_('{"name": "B", "sources": [{"name": "A", "filter_subject": "a.>"}]}');
       {"subjects":[],"subject_transform":null,"origins":[{"name":"A","field":"sources[0]","subject_transforms":[{"src":"a.>","dest":""}],"inactive":null}],"republish":null}
  """,
  since = "0.1.0",
  group = "string_funcs")
case class StreamConfigPlanExpression(config: Expression)
  extends UnaryExpression with ImplicitCastInputTypes with SparkCompat.NullIntolerant with FailsAnalysisInTypeCheck {
  override def child: Expression = config
  override def inputTypes = Seq(StringType)
  override def dataType: DataType = StringType
  override def prettyName: String = "stream_config_plan"

  override def checkInputDataTypes(): TypeCheckResult = {
    val types = super.checkInputDataTypes()
    if (types.isFailure) return types
    // A constant config is checked before any data is read.
    if (config.foldable) {
      Option(config.eval()).foreach { c =>
        try StreamConfigPlanExpression.planOf(c.toString)
        catch { case e: InvalidStreamConfigException => throw Errors.atAnalysis(prettyName, "config", e.getMessage) }
      }
    }
    TypeCheckSuccess
  }

  override protected def nullSafeEval(c: Any): Any = StreamConfigPlanExpression.plan(c.asInstanceOf[UTF8String])

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val obj = StreamConfigPlanExpression.getClass.getName.stripSuffix("$")
    defineCodeGen(ctx, ev, c => s"$obj.plan($c)")
  }

  override protected def withNewChildInternal(newChild: Expression): StreamConfigPlanExpression = copy(config = newChild)
}

object StreamConfigPlanExpression {
  def planOf(json: String): String = StreamConfig.plan(StreamConfigJson.parse(json)).toJson

  /** Per row (generated code calls it): an invalid config fails the task, naming the field. */
  def plan(config: UTF8String): UTF8String =
    try UTF8String.fromString(planOf(config.toString))
    catch { case e: InvalidStreamConfigException => throw Errors.atRuntime("stream_config_plan", "config", e.getMessage) }
}
