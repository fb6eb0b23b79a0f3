package subjxform.spark

import org.apache.spark.SparkConf
import org.apache.spark.serializer.JavaSerializer
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, Expression, Literal, Nondeterministic}
import org.apache.spark.sql.catalyst.expressions.codegen.GenerateUnsafeProjection
import org.apache.spark.sql.types.{BooleanType, DataType, IntegerType, StringType, StructType}
import org.apache.spark.unsafe.types.UTF8String

/**
 * Evaluates an expression every way Spark can: interpreted, after a serialisation round trip (as a
 * task ships it), and compiled to Java (as whole-stage codegen does), like Spark's own
 * `ExpressionEvalHelper.checkEvaluation`. Each way initializes `Nondeterministic` expressions for
 * partition 0 first, as a task does.
 */
trait ExpressionChecks {

  /** A string input that the optimizer cannot fold: its value comes from the row. */
  def column(ordinal: Int, dataType: DataType = StringType): Expression =
    BoundReference(ordinal, dataType, nullable = true)

  /** The expression Spark's function registry builds for `name(args)`: the form the arguments call for. */
  def registered(name: String, args: Expression*): Expression =
    SubjxformFunctions.all.find(_._1.funcName == name).get._3(args)

  def str(s: String): Literal = Literal.create(s, StringType)
  def bool(b: java.lang.Boolean): Literal = Literal.create(b, BooleanType)

  def row(values: Any*): InternalRow = InternalRow.fromSeq(values.map {
    case s: String => UTF8String.fromString(s)
    case v => v
  })

  private val serializer = new JavaSerializer(new SparkConf()).newInstance()

  /** As a task prepares an expression tree it evaluates interpreted: `Nondeterministic` nodes initialized. */
  def initialized(e: Expression, partition: Int = 0): Expression = {
    e.foreach { case n: Nondeterministic => n.initialize(partition); case _ => }
    e
  }

  def interpreted(e: Expression, input: InternalRow): Any = scalaValue(initialized(e).eval(input))

  def afterRoundTrip(e: Expression, input: InternalRow): Any = {
    val copy = serializer.deserialize[Expression](serializer.serialize(e))
    scalaValue(initialized(copy).eval(input))
  }

  def compiled(e: Expression, input: InternalRow): Any = compiled(e, Seq(input)).head

  /**
   * One generated projection over many rows, initialized for `partition` first as a task does (where
   * per-partition state is set up): also checks per-task state carries across rows.
   */
  def compiled(e: Expression, inputs: Seq[InternalRow], partition: Int = 0): Seq[Any] = {
    val projection = GenerateUnsafeProjection.generate(Seq(e), subexpressionEliminationEnabled = false)
    projection.initialize(partition)
    inputs.map { in =>
      val out = projection(in)
      if (out.isNullAt(0)) null
      else e.dataType match {
        case StringType => out.getUTF8String(0).toString
        case BooleanType => out.getBoolean(0)
        case IntegerType => out.getInt(0)
        case t: StructType => scalaValue(out.getStruct(0, t.size).toSeq(t))
      }
    }
  }

  /** The value the expression gives, which must be the same all three ways. */
  def evaluate(e: Expression, input: InternalRow = InternalRow.empty): Any = {
    val results = Seq(interpreted(e, input), afterRoundTrip(e, input), compiled(e, input))
    assert(results.distinct.size == 1, s"$e on $input: interpreted, round trip, codegen differ: $results")
    results.head
  }

  /** Strings as Scala strings, a struct as the Seq of its values (comparable across the three ways). */
  def scalaValue(v: Any): Any = v match {
    case s: UTF8String => s.toString
    case r: InternalRow => r.toSeq(structOf(r)).map(scalaValue)
    case s: Seq[_] => s.map(scalaValue)
    case other => other
  }

  /** The struct type of an interpreted struct value: subject_map_explain's is the only struct here. */
  private def structOf(r: InternalRow): StructType = {
    assert(r.numFields == SubjectMapExplainFunction.Type.size, r)
    SubjectMapExplainFunction.Type
  }
}
