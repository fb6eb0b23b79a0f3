package subjxform.spark.nats

import java.util.Optional
import java.util.concurrent.atomic.AtomicLong

import com.fasterxml.jackson.databind.ObjectMapper
import org.apache.spark.sql.connector.read.{InputPartition, PartitionReaderFactory}
import org.apache.spark.sql.connector.read.streaming.{
  MicroBatchStream, Offset, ReadLimit, ReadMaxRows, ReportsSourceMetrics, SupportsAdmissionControl,
  SupportsTriggerAvailableNow
}

/** A streaming read's position: every message of `stream` up to sequence `seq` (inclusive) is read. */
final case class NatsOffset(stream: String, seq: Long) extends Offset {
  override def json(): String = {
    val fields = new java.util.LinkedHashMap[String, Any]()
    fields.put("stream", stream)
    fields.put("seq", seq)
    NatsOffset.mapper.writeValueAsString(fields)
  }
}

object NatsOffset {
  private[nats] val mapper = new ObjectMapper()

  def fromJson(json: String, expectedStream: String): NatsOffset = {
    val node = mapper.readTree(json)
    val stream = Option(node.get("stream")).map(_.asText).getOrElse("")
    if (stream != expectedStream)
      throw new NatsOptionException("stream",
        s"the checkpoint holds offsets of stream '$stream', not of '$expectedStream': " +
          "a checkpoint location belongs to one query over one stream")
    NatsOffset(stream, node.get("seq").asLong)
  }
}

/**
 * A streaming read: offsets are stream sequences, a micro-batch reads the sequences after its start offset up to
 * its end offset, cut into partitions as a batch read is. Nothing is acknowledged and nothing is stored on the
 * server: where a query is lies in its checkpoint, so a restarted query reads on from there, and a micro-batch
 * Spark runs again reads again the same sequences (exactly once into a sink that commits with the checkpoint).
 *
 * maxMessagesPerTrigger caps the sequences of a micro-batch (each sequence is at most one row); maxBytesPerTrigger
 * caps its stored bytes, estimated from the stream's average message size (a soft limit, as Delta's). Messages
 * that are gone before they were read (purged, expired) fail the query, or with failOnDataLoss false are counted
 * in the progress's metrics (`lostMessages`) and logged.
 */
final class NatsMicroBatchStream(options: NatsOptions, columns: Array[Int])
  extends MicroBatchStream with SupportsAdmissionControl with SupportsTriggerAvailableNow with ReportsSourceMetrics {

  private val plan = new NatsStreamPlan(options)
  private val stream = plan.stream
  private val lost = new AtomicLong(0)
  @volatile private var availableNowEnd: Option[Long] = None
  @volatile private var lastSeen: Long = 0

  override def initialOffset(): Offset = {
    val now = plan.state()
    NatsOffset(stream, plan.startSequence(options.start, now) - 1)
  }

  override def deserializeOffset(json: String): Offset = NatsOffset.fromJson(json, stream)

  override def getDefaultReadLimit: ReadLimit =
    options.maxMessagesPerTrigger.fold(ReadLimit.allAvailable())(n => ReadLimit.maxRows(n))

  override def prepareForTriggerAvailableNow(): Unit = availableNowEnd = Some(plan.state().last)

  override def latestOffset(): Offset = throw new UnsupportedOperationException("latestOffset(start, limit) is used")

  override def latestOffset(start: Offset, limit: ReadLimit): Offset = {
    val from = start.asInstanceOf[NatsOffset].seq
    val now = plan.state()
    lastSeen = now.last
    var end = now.last
    options.end match {
      case Bound.Latest => ()
      case bound => end = math.min(end, plan.endSequence(bound, now))
    }
    availableNowEnd.foreach(e => end = math.min(end, e))
    limit match {
      case rows: ReadMaxRows => end = math.min(end, from + rows.maxRows)
      case _ => ()
    }
    options.maxBytesPerTrigger.foreach(bytes => end = math.min(end, from + math.max(1, bytes / now.averageBytes)))
    NatsOffset(stream, math.max(end, from))
  }

  override def planInputPartitions(start: Offset, end: Offset): Array[InputPartition] = {
    val from = start.asInstanceOf[NatsOffset].seq + 1
    val to = end.asInstanceOf[NatsOffset].seq
    if (to < from) return Array.empty
    val now = plan.state()
    lost.addAndGet(plan.checkLoss(from, now, "failOnDataLoss"))
    NatsScan.ranges(options, plan, columns, math.max(from, now.first), to)
  }

  override def createReaderFactory(): PartitionReaderFactory = NatsRangeReaderFactory

  override def commit(end: Offset): Unit = () // nothing on the server to acknowledge

  override def metrics(latestConsumedOffset: Optional[Offset]): java.util.Map[String, String] = {
    val consumed = if (latestConsumedOffset.isPresent) latestConsumedOffset.get.asInstanceOf[NatsOffset].seq else 0L
    val m = new java.util.HashMap[String, String]()
    m.put("lostMessages", lost.get.toString)
    m.put("messagesBehindLatest", math.max(0L, lastSeen - consumed).toString)
    m
  }

  override def stop(): Unit = plan.close()

  override def toString: String = s"NatsMicroBatchStream[$stream]"
}
