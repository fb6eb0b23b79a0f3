package subjxform.spark

import org.apache.spark.SparkThrowable
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.{Row, SparkSession, SQLContext}
import org.apache.spark.sql.catalyst.analysis.FunctionRegistry
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans.logical.{FunctionSignature, NamedParametersSupport}
import org.apache.spark.sql.connector.catalog.TableProvider
import org.apache.spark.sql.sources.{BaseRelation, PrunedScan, RelationProvider}
import org.apache.spark.sql.types.StructType

/**
 * Where the Spark API differs between lines, the Spark 3.5 side (scala-spark-4/ has the Spark 4 one,
 * with the same names). Internal to subjxform.
 */
object SparkCompat {

  /** An expression whose result is NULL whenever an input is: a marker trait in Spark 3.5. */
  trait NullIntolerant extends Expression with org.apache.spark.sql.catalyst.expressions.NullIntolerant

  def functionRegistry(spark: SparkSession): FunctionRegistry = spark.sessionState.functionRegistry

  /** A Spark error's condition (Spark 3.5 calls it its error class). */
  def condition(e: SparkThrowable): String = e.getErrorClass

  /** Named arguments put in their places (defaults filled in), with Spark's errors for bad names. */
  def rearrange(signature: FunctionSignature, args: Seq[Expression], function: String): Seq[Expression] =
    NamedParametersSupport.defaultRearrange(signature, args, function)

  /**
   * Spark 3.5 reads a catalog table (CREATE TABLE ... USING nats) through the V1 API: a relation whose scan is the
   * source's own V2 read of the table's options (Spark still applies the query's filters; `spark.read` and
   * Spark 4 use the V2 read directly, filters pushed).
   */
  trait CatalogTableRead extends RelationProvider { self: TableProvider =>
    override def createRelation(context: SQLContext, parameters: Map[String, String]): BaseRelation =
      new BaseRelation with PrunedScan {
        private lazy val read = context.sparkSession.read.format(self.getClass.getName).options(parameters).load()
        override def sqlContext: SQLContext = context
        override def schema: StructType = read.schema
        override def needConversion: Boolean = false
        override def buildScan(requiredColumns: Array[String]): RDD[Row] =
          read.select(requiredColumns.map(read.col): _*).queryExecution.toRdd.asInstanceOf[RDD[Row]]
      }
  }
}
