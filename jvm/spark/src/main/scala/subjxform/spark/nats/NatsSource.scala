package subjxform.spark.nats

import java.util

import org.apache.spark.sql.connector.catalog.{SupportsRead, SupportsWrite, Table, TableCapability, TableProvider}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.connector.read.ScanBuilder
import org.apache.spark.sql.connector.write.{LogicalWriteInfo, WriteBuilder}
import org.apache.spark.sql.sources.DataSourceRegister
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

import subjxform.spark.SparkCompat

/**
 * The `nats` data source: `spark.read.format("nats")`, `spark.readStream.format("nats")`, `df.write.format("nats")`,
 * `writeStream.format("nats")` and `CREATE TABLE ... USING nats OPTIONS (...)`: a JetStream stream as a table
 * (NatsSchema's columns). Registered by its short name through a service entry.
 */
final class NatsSource extends TableProvider with DataSourceRegister with SparkCompat.CatalogTableRead {
  override def shortName(): String = "nats"

  override def inferSchema(options: CaseInsensitiveStringMap): StructType = NatsSchema.schema

  override def getTable(schema: StructType, partitioning: Array[Transform], properties: util.Map[String, String]): Table =
    new NatsTable(NatsOptions.parse(properties))
}

final class NatsTable(options: NatsOptions) extends Table with SupportsRead with SupportsWrite {
  override def name(): String = s"nats:${options.stream.getOrElse("")}"

  override def schema(): StructType = NatsSchema.schema

  override def capabilities(): util.Set[TableCapability] = new util.HashSet(JavaCollections.toJava(Seq(
        TableCapability.BATCH_READ,
        TableCapability.MICRO_BATCH_READ,
        TableCapability.BATCH_WRITE,
        TableCapability.STREAMING_WRITE,
        TableCapability.ACCEPT_ANY_SCHEMA)))

  override def newScanBuilder(read: CaseInsensitiveStringMap): ScanBuilder = {
    // a read's own options (spark.read.option) over the table's (CREATE TABLE ... OPTIONS)
    val merged = new util.HashMap[String, String]()
    merged.putAll(options.raw)
    merged.putAll(read.asCaseSensitiveMap())
    new NatsScanBuilder(NatsOptions.parse(merged))
  }

  override def newWriteBuilder(info: LogicalWriteInfo): WriteBuilder = {
    val merged = new util.HashMap[String, String]()
    merged.putAll(options.raw)
    merged.putAll(info.options.asCaseSensitiveMap())
    new NatsWriteBuilder(NatsOptions.parse(merged), info)
  }
}
