package subjxform.spark.nats

import org.apache.spark.sql.types._

/**
 * The columns a read gives: the names and types of nats-io/nats-spark-connector, whose users know them, plus
 * `domain`. JetStream stores no reply subject, so `replyTo` is always NULL (the connector's was the ack subject
 * of its durable consumer; nothing here is acknowledged).
 */
object NatsSchema {
  val Subject = "subject"
  val ReplyTo = "replyTo"
  val Content = "content"
  val Headers = "headers"
  val Stream = "stream"
  val StreamSeq = "streamSeq"
  val Timestamp = "timestamp"
  val Domain = "domain"

  val HeadersType: MapType = MapType(StringType, ArrayType(StringType, containsNull = false), valueContainsNull = false)

  val schema: StructType = StructType(Seq(
      StructField(Subject, StringType, nullable = false),
      StructField(ReplyTo, StringType, nullable = true),
      StructField(Content, BinaryType, nullable = false),
      StructField(Headers, HeadersType, nullable = true),
      StructField(Stream, StringType, nullable = false),
      StructField(StreamSeq, LongType, nullable = false),
      StructField(Timestamp, TimestampType, nullable = false),
      StructField(Domain, StringType, nullable = true)))
}
