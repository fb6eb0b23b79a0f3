package subjxform.spark.nats

import java.time.Duration

import scala.util.control.NonFatal

import io.nats.client.{
  Connection, ConsumeOptions, ConsumerContext, IterableConsumer, JetStreamApiException, JetStreamStatusCheckedException,
  Message
}
import io.nats.client.api.{AckPolicy, ConsumerConfiguration, DeliverPolicy}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.catalyst.util.{ArrayBasedMapData, GenericArrayData}
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReader, PartitionReaderFactory}
import org.apache.spark.unsafe.types.UTF8String
import org.slf4j.LoggerFactory

/**
 * One task's share of a read: the stream sequences [first, last], through the filter subjects (none: all),
 * giving the columns of NatsSchema at `columns`.
 */
final case class NatsRange(
    connection: NatsConnectionSpec,
    stream: String,
    filterSubjects: Seq[String],
    first: Long,
    last: Long,
    columns: Array[Int],
    failOnDataLoss: Boolean,
    readTimeoutMs: Long,
    fetchBatch: Int) extends InputPartition

object NatsRangeReaderFactory extends PartitionReaderFactory {
  override def createReader(partition: InputPartition): PartitionReader[InternalRow] =
    new NatsRangeReader(partition.asInstanceOf[NatsRange])
}

/**
 * Reads a range with an ephemeral consumer of its own: no ack (AckPolicy none), in memory, one replica, starting
 * at the range's first sequence, deleted when the range is read (and by the server after a short inactivity if
 * the task dies first): nothing is left on the server. It stops at the range's last sequence, or when the server
 * says no message is pending after the one just read (the range's end may hold no message of the filter).
 *
 * When no message comes for a while though some are pending (the server restarted and lost the consumer, a
 * connection was cut), a new consumer starts after the last sequence read: nothing read twice, nothing skipped;
 * after `read_timeout` without a message the task fails, saying so.
 */
final class NatsRangeReader(range: NatsRange) extends PartitionReader[InternalRow] {
  import NatsRangeReader._

  private val log = LoggerFactory.getLogger(classOf[NatsRangeReader])
  private val wanted = range.columns.map(NatsSchema.schema.fields(_).name)
  private val wantsContent = wanted.contains(NatsSchema.Content)
  private val wantsHeaders = wanted.contains(NatsSchema.Headers)
  private val streamName = UTF8String.fromString(range.stream)
  private val domain = range.connection.domain.map(UTF8String.fromString).orNull

  private var connection: Connection = _
  private var context: ConsumerContext = _
  private var consumer: IterableConsumer = _
  private var nextSeq = range.first // the first sequence not read yet
  private var finished = range.last < range.first
  private var row: InternalRow = _

  // The driver reached the server when it planned this range: a server that does not answer now is restarting,
  // and is waited for (read_timeout).
  private def open(): Unit = {
    if (connection == null) connection = NatsClient.connect(range.connection, range.readTimeoutMs)
    val jso = NatsClient.jetStreamOptions(range.connection)
    val streamContext = NatsClient.patiently(range.readTimeoutMs) {
      try connection.getStreamContext(range.stream, jso)
      catch {
        case e: JetStreamApiException => throw new NatsException(s"stream '${range.stream}': ${e.getMessage}", e)
        case e: java.io.IOException => throw NatsClient.noJetStream(range.connection, e)
      }
    }
    // Messages that were in the range when the query was planned and are gone now: reported, never skipped quietly.
    val first = NatsClient.patiently(range.readTimeoutMs) {
      try streamContext.getStreamInfo.getStreamState.getFirstSequence
      catch { case e: java.io.IOException => throw NatsClient.noJetStream(range.connection, e) }
    }
    if (first > nextSeq && range.failOnDataLoss && nextSeq <= range.last)
      throw new NatsException(s"messages $nextSeq to ${math.min(first - 1, range.last)} of stream '${range.stream}' " +
        s"were removed (purged, expired or over the stream's limits) while this query read them; set " +
        s"failOnDataLoss to false to skip what is gone")
    val builder = ConsumerConfiguration.builder()
      .deliverPolicy(DeliverPolicy.ByStartSequence)
      .startSequence(nextSeq)
      .ackPolicy(AckPolicy.None)
      .memStorage(true)
      .numReplicas(1)
      .inactiveThreshold(Duration.ofSeconds(InactiveSeconds))
      .headersOnly(!wantsContent && !wantsHeaders)
    if (range.filterSubjects.nonEmpty) builder.filterSubjects(JavaCollections.toJava(range.filterSubjects))
    context = NatsClient.patiently(range.readTimeoutMs) {
      try streamContext.createOrUpdateConsumer(builder.build())
      catch { case e: java.io.IOException => throw NatsClient.noJetStream(range.connection, e) }
    }
    if (context.getCachedConsumerInfo.getNumPending == 0) finished = true
    else consumer = context.iterate(ConsumeOptions.builder().batchSize(range.fetchBatch).build())
  }

  private def closeConsumer(): Unit = {
    if (consumer != null)
      try consumer.close()
      catch { case NonFatal(_) => () }
    if (context != null) {
      try connection.jetStreamManagement(NatsClient.jetStreamOptions(range.connection))
          .deleteConsumer(range.stream, context.getConsumerName)
      catch { case NonFatal(_) => () } // gone with a restarted server, or removed by its inactivity threshold
    }
    consumer = null
    context = null
  }

  override def next(): Boolean = {
    if (finished) return false
    if (context == null) open()
    var waited = 0L
    while (!finished) {
      val message: Message =
        if (consumer == null) null
        else
          try consumer.nextMessage(PollMs)
          catch {
            case e: JetStreamStatusCheckedException =>
              log.info(s"nats: consumer of stream '${range.stream}' at $nextSeq: ${e.getMessage}; starting another")
              null
          }
      if (message == null) {
        if (finished) return false
        waited += PollMs
        if (waited >= range.readTimeoutMs)
          throw new NatsException(s"stream '${range.stream}' sent no message for ${range.readTimeoutMs / 1000} s " +
            s"while sequences $nextSeq to ${range.last} were still to read (raise read_timeout if the server is slow)")
        if (waited % RestartAfterMs == 0) { // the server may have lost the consumer: another one, from nextSeq
          closeConsumer()
          open()
        }
      } else if (message.isJetStream) {
        val meta = message.metaData()
        val seq = meta.streamSequence()
        if (seq > range.last) { finished = true; return false }
        if (seq >= nextSeq) {
          nextSeq = seq + 1
          if (seq == range.last || meta.pendingCount() == 0) finished = true
          row = toRow(message, seq, meta.timestamp())
          return true
        }
      }
    }
    false
  }

  private def toRow(message: Message, seq: Long, time: java.time.ZonedDateTime): InternalRow = {
    val values = new Array[Any](range.columns.length)
    var i = 0
    while (i < values.length) {
      values(i) = range.columns(i) match {
        case 0 => UTF8String.fromString(message.getSubject)
        case 1 => null
        case 2 => val data = message.getData; if (data == null) Array.emptyByteArray else data
        case 3 => headers(message)
        case 4 => streamName
        case 5 => seq
        case 6 => val instant = time.toInstant; instant.getEpochSecond * 1000000L + instant.getNano / 1000
        case 7 => domain
      }
      i += 1
    }
    new GenericInternalRow(values)
  }

  override def get(): InternalRow = row

  override def close(): Unit = {
    closeConsumer()
    if (connection != null)
      try connection.close()
      catch { case NonFatal(_) => () }
    connection = null
  }
}

private object NatsRangeReader {
  val PollMs = 500L
  val RestartAfterMs = 5000L
  val InactiveSeconds = 30L

  def headers(message: Message): ArrayBasedMapData = {
    val h = message.getHeaders
    if (h == null || h.isEmpty) return null
    val entries = JavaCollections.toScala(h.entrySet()).toArray
    val keys = entries.map(e => UTF8String.fromString(e.getKey): Any)
    val values = entries.map(e =>
      new GenericArrayData(JavaCollections.toScala(e.getValue).map(UTF8String.fromString(_): Any).toArray): Any)
    new ArrayBasedMapData(new GenericArrayData(keys), new GenericArrayData(values))
  }
}
