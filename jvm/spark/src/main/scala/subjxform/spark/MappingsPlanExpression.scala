package subjxform.spark

import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult.TypeCheckSuccess
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionDescription, ImplicitCastInputTypes, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.types.{DataType, StringType}
import org.apache.spark.unsafe.types.UTF8String

import subjxform.core.{InvalidMappingsException, MappingTable}

@ExpressionDescription(
  usage = """
    _FUNC_(mappings) - The mapping table as `subject_map` and `subject_map_explain` apply it, as JSON: its
      rules in written order, each with `rule_index`, `rule`, `matched_as` ('literal' or 'wildcard'),
      `destinations` as written (`index`, `destination`, `weight` in percent, `cluster`) and `scopes`
      (per cluster scope, NULL for the cluster-less destinations: the `remainder` weight left over and
      whether it drops the message, `remainder_drops`). An invalid table is an error.
  """,
  arguments = """
    Arguments:
      * mappings - the rules, as for `subject_map`.
  """,
  examples = """
    Examples:
      > SELECT _FUNC_('svc: [{destination: svc.v2, weight: 5%}]');
       [{"rule_index":0,"rule":"svc","matched_as":"literal","destinations":[{"index":0,"destination":"svc.v2","weight":5,"cluster":null}],"scopes":[{"cluster":null,"remainder":95,"remainder_drops":false}]}]
  """,
  since = "0.1.0",
  group = "string_funcs")
case class MappingsPlanExpression(mappings: Expression)
  extends UnaryExpression with ImplicitCastInputTypes with SparkCompat.NullIntolerant {
  override def child: Expression = mappings
  override def inputTypes = Seq(StringType)
  override def dataType: DataType = StringType
  override def prettyName: String = "mappings_plan"

  override def checkInputDataTypes(): TypeCheckResult = {
    val types = super.checkInputDataTypes()
    if (types.isFailure) return types
    // A constant table is checked before any data is read.
    if (mappings.foldable) {
      Option(mappings.eval()).foreach { m =>
        try MappingTable.compile(m.toString)
        catch { case e: InvalidMappingsException => throw Errors.atAnalysis(prettyName, "mappings", e.getMessage) }
      }
    }
    TypeCheckSuccess
  }

  override protected def nullSafeEval(m: Any): Any = MappingsPlanExpression.plan(m.asInstanceOf[UTF8String])

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val obj = MappingsPlanExpression.getClass.getName.stripSuffix("$")
    defineCodeGen(ctx, ev, m => s"$obj.plan($m)")
  }

  override protected def withNewChildInternal(newChild: Expression): MappingsPlanExpression = copy(mappings = newChild)
}

object MappingsPlanExpression {
  /** Per row (generated code calls it): an invalid table fails the task, naming it. */
  def plan(mappings: UTF8String): UTF8String =
    try UTF8String.fromString(MappingTable.compile(mappings.toString).planJson)
    catch { case e: InvalidMappingsException => throw Errors.atRuntime("mappings_plan", "mappings", e.getMessage) }
}
