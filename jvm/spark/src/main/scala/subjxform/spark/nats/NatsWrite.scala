package subjxform.spark.nats

import java.util.concurrent.{CompletableFuture, ExecutionException, TimeoutException, TimeUnit}

import scala.collection.mutable
import scala.util.control.NonFatal

import io.nats.client.{Connection, JetStream, PublishOptions}
import io.nats.client.api.PublishAck
import io.nats.client.impl.{Headers, NatsMessage}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.connector.metric.{CustomMetric, CustomSumMetric, CustomTaskMetric}
import org.apache.spark.sql.connector.write.{
  BatchWrite, DataWriter, DataWriterFactory, LogicalWriteInfo, PhysicalWriteInfo, Write, WriteBuilder,
  WriterCommitMessage
}
import org.apache.spark.sql.connector.write.streaming.{StreamingDataWriterFactory, StreamingWrite}
import org.apache.spark.sql.types._
import org.slf4j.LoggerFactory

/**
 * Where each message comes from in the rows written: `subject` (a string), the payload from `data` or `content`
 * (binary or string), `headers` (a map of string to array of string, or to string) if there is one, and the
 * `Nats-Msg-Id` from the column that the msg_id_column option names. Other columns are left alone, so a read's
 * rows can be written back as they are.
 */
final case class NatsRowLayout(subject: Int, payload: Int, payloadIsString: Boolean, headers: Int,
    headerValuesAreArrays: Boolean, msgId: Int, msgIdType: DataType)

object NatsRowLayout {
  def of(schema: StructType, options: NatsOptions): NatsRowLayout = {
    def index(name: String): Int = schema.fields.indexWhere(_.name.equalsIgnoreCase(name))
    val subject = index("subject")
    if (subject < 0 || schema(subject).dataType != StringType)
      throw new IllegalArgumentException("nats: the rows to publish need a string column `subject`; they have: " +
        schema.fields.map(f => s"${f.name} ${f.dataType.simpleString}").mkString(", "))
    val payloads = Seq("data", "content").map(index).filter(_ >= 0)
    if (payloads.size > 1)
      throw new IllegalArgumentException(
        "nats: the rows to publish have both `data` and `content`: keep one as the payload")
    val payload = payloads.headOption.getOrElse(-1)
    if (payload >= 0 && schema(payload).dataType != BinaryType && schema(payload).dataType != StringType)
      throw new IllegalArgumentException(
        s"nats: the payload column `${schema(payload).name}` must be binary or string, " +
          s"not ${schema(payload).dataType.simpleString}")
    val headers = index("headers")
    val arrays = if (headers < 0) true
    else schema(headers).dataType match {
      case MapType(StringType, ArrayType(StringType, _), _) => true
      case MapType(StringType, StringType, _) => false
      case other => throw new IllegalArgumentException(
          s"nats: the column `headers` must be a map<string, array<string>> or map<string, string>, not ${other.simpleString}")
    }
    val msgId = options.msgIdColumn.map { name =>
      val i = index(name)
      if (i < 0) throw new NatsOptionException("msg_id_column", s"names no column of the rows: '$name'")
      if (schema(i).dataType != StringType && schema(i).dataType != LongType && schema(i).dataType != IntegerType)
        throw new NatsOptionException("msg_id_column",
          s"column '$name' must be a string or a number, not ${schema(i).dataType.simpleString}")
      i
    }.getOrElse(-1)
    NatsRowLayout(subject, payload, payload >= 0 && schema(payload).dataType == StringType, headers, arrays, msgId,
      if (msgId >= 0) schema(msgId).dataType else StringType)
  }
}

final class NatsWriteBuilder(options: NatsOptions, info: LogicalWriteInfo) extends WriteBuilder {
  override def build(): Write = {
    val layout = NatsRowLayout.of(info.schema, options)
    // the server, the credentials and the stream are checked here, on the driver, before any task publishes
    val connection = NatsClient.connect(options.connection)
    try options.stream.foreach(NatsClient.streamInfo(connection, options.connection, _))
    finally connection.close()
    new NatsWrite(options, layout)
  }
}

/** A batch write (df.write) and a streaming one (writeStream): the same tasks, publishing with acknowledgements. */
final class NatsWrite(options: NatsOptions, layout: NatsRowLayout) extends Write with BatchWrite with StreamingWrite {
  private val log = LoggerFactory.getLogger(classOf[NatsWrite])

  override def useCommitCoordinator(): Boolean = true // (BatchWrite's and StreamingWrite's default)
  override def toBatch: BatchWrite = this
  override def toStreaming: StreamingWrite = this

  override def supportedCustomMetrics(): Array[CustomMetric] =
    Array(new PublishedMessagesMetric, new DuplicateMessagesMetric)

  override def createBatchWriterFactory(info: PhysicalWriteInfo): DataWriterFactory =
    new NatsDataWriterFactory(options, layout)
  override def createStreamingWriterFactory(info: PhysicalWriteInfo): StreamingDataWriterFactory =
    new NatsDataWriterFactory(options, layout)

  private def report(messages: Array[WriterCommitMessage], what: String): Unit = {
    val counts = messages.collect { case c: NatsCommitted => c }
    log.info(
      s"nats: $what published ${counts.map(_.published).sum} messages" + options.stream.fold("")(s => s" to stream '$s'") +
        s" (${counts.map(_.duplicates).sum} of them duplicates the stream already had, by Nats-Msg-Id)")
  }

  override def commit(messages: Array[WriterCommitMessage]): Unit = report(messages, "the write")
  // What was published before a task failed stays published: a stream has no transactions (Nats-Msg-Id makes a
  // rerun publish no message twice, within the stream's duplicate window).
  override def abort(messages: Array[WriterCommitMessage]): Unit = ()
  override def commit(epochId: Long, messages: Array[WriterCommitMessage]): Unit =
    report(messages, s"micro-batch $epochId")
  override def abort(epochId: Long, messages: Array[WriterCommitMessage]): Unit = ()
}

final case class NatsCommitted(published: Long, duplicates: Long) extends WriterCommitMessage

final class NatsDataWriterFactory(options: NatsOptions, layout: NatsRowLayout) extends DataWriterFactory
  with StreamingDataWriterFactory {
  override def createWriter(partitionId: Int, taskId: Long): DataWriter[InternalRow] =
    new NatsDataWriter(options, layout)
  override def createWriter(partitionId: Int, taskId: Long, epochId: Long): DataWriter[InternalRow] =
    new NatsDataWriter(options, layout)
}

/**
 * Publishes each row to JetStream, up to `publish_window` acknowledgements outstanding; every acknowledgement is
 * checked, and the first publish the server refuses fails the task with the server's error (nothing is dropped
 * quietly). With the stream option set, each acknowledgement must come from that stream.
 */
final class NatsDataWriter(options: NatsOptions, layout: NatsRowLayout) extends DataWriter[InternalRow] {
  private val connection: Connection = NatsClient.connect(options.connection)
  private val jetStream: JetStream = connection.jetStream(NatsClient.jetStreamOptions(options.connection))
  private val pending = mutable.Queue[(String, CompletableFuture[PublishAck])]()
  private var published = 0L
  private var duplicates = 0L

  override def write(row: InternalRow): Unit = {
    if (row.isNullAt(layout.subject)) throw new NatsException("nats: a row to publish has a NULL subject")
    val subject = row.getUTF8String(layout.subject).toString
    val data =
      if (layout.payload < 0 || row.isNullAt(layout.payload)) Array.emptyByteArray
      else if (layout.payloadIsString) row.getUTF8String(layout.payload).getBytes
      else row.getBinary(layout.payload)
    val builder = NatsMessage.builder().subject(subject).data(data)
    if (layout.headers >= 0 && !row.isNullAt(layout.headers)) {
      val map = row.getMap(layout.headers)
      val headers = new Headers()
      var i = 0
      while (i < map.numElements()) {
        val key = map.keyArray().getUTF8String(i).toString
        if (!map.valueArray().isNullAt(i)) {
          if (layout.headerValuesAreArrays) {
            val values = map.valueArray().getArray(i)
            var j = 0
            while (j < values.numElements()) {
              if (!values.isNullAt(j)) headers.add(key, values.getUTF8String(j).toString)
              j += 1
            }
          } else headers.add(key, map.valueArray().getUTF8String(i).toString)
        }
        i += 1
      }
      if (!headers.isEmpty) builder.headers(headers)
    }
    // (no Nats-Expected-Stream: the server would store that header with every message; the ack says the stream)
    val publishOptions = PublishOptions.builder()
    if (layout.msgId >= 0 && !row.isNullAt(layout.msgId)) publishOptions.messageId(layout.msgIdType match {
      case StringType => row.getUTF8String(layout.msgId).toString
      case LongType => row.getLong(layout.msgId).toString
      case _ => row.getInt(layout.msgId).toString
    })
    val future =
      try jetStream.publishAsync(builder.build(), publishOptions.build())
      catch { case NonFatal(e) => throw failed(subject, e) }
    pending.enqueue(subject -> future)
    while (pending.size >= options.publishWindow) settle()
  }

  /** Waits for the oldest outstanding acknowledgement and checks it. */
  private def settle(): Unit = {
    val (subject, future) = pending.dequeue()
    val ack =
      try future.get(math.max(options.readTimeoutMs, 1000), TimeUnit.MILLISECONDS)
      catch {
        case e: ExecutionException => throw failed(subject, e.getCause)
        case e: TimeoutException =>
          throw new NatsException(s"nats: no acknowledgement for a message to '$subject' within the read_timeout", e)
      }
    if (ack.hasError) throw new NatsException(s"nats: the server refused a message to '$subject': ${ack.getError}")
    options.stream.foreach { expected =>
      if (ack.getStream != expected)
        throw new NatsOptionException("stream",
          s"a message to '$subject' was stored by stream '${ack.getStream}', " +
            s"not '$expected' (sequence ${ack.getSeqno})")
    }
    published += 1
    if (ack.isDuplicate) duplicates += 1
  }

  private def failed(subject: String, e: Throwable): NatsException = {
    val reason = NatsErrors.reason(e)
    val hint = if (reason.contains("503") || reason.toLowerCase.contains("no responders"))
      s" (no stream stores subject '$subject')"
    else ""
    new NatsException(s"nats: publishing to '$subject' failed: $reason$hint", e)
  }

  override def commit(): WriterCommitMessage = {
    while (pending.nonEmpty) settle()
    NatsCommitted(published, duplicates)
  }

  override def abort(): Unit = pending.clear()

  override def currentMetricsValues(): Array[CustomTaskMetric] = Array(
    NatsTaskMetric("publishedMessages", published),
    NatsTaskMetric("duplicateMessages", duplicates))

  override def close(): Unit =
    try connection.close()
    catch { case NonFatal(_) => () }
}

final case class NatsTaskMetric(name: String, value: Long) extends CustomTaskMetric

final class PublishedMessagesMetric extends CustomSumMetric {
  override def name(): String = "publishedMessages"
  override def description(): String = "messages published to NATS"
}

final class DuplicateMessagesMetric extends CustomSumMetric {
  override def name(): String = "duplicateMessages"
  override def description(): String = "messages the stream already had (Nats-Msg-Id)"
}
