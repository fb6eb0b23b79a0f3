package subjxform.spark.nats

import java.io.IOException
import java.time.{Duration, Instant, ZoneOffset}

import scala.util.control.NonFatal

import io.nats.client.{Connection, JetStreamApiException}
import io.nats.client.api.{AckPolicy, ConsumerConfiguration, DeliverPolicy}
import org.slf4j.LoggerFactory

/** A stream as the driver sees it when it plans a read: its first and last sequence, messages and bytes. */
final case class StreamState(first: Long, last: Long, messages: Long, bytes: Long) {

  /** The average stored size of a message, for maxBytesPerTrigger (1 for an empty stream). */
  def averageBytes: Long = if (messages <= 0) 1 else math.max(1, bytes / messages)
}

/**
 * The driver's side of a read: one connection, the stream's state, the start and end bounds turned into
 * sequences, and the sequence range cut into partitions. Closed when the query (or the batch plan) is done.
 */
private[nats] final class NatsStreamPlan(val options: NatsOptions) extends AutoCloseable {
  private val log = LoggerFactory.getLogger(classOf[NatsStreamPlan])
  val stream: String = options.requireStream
  private val spec = options.connection
  private var opened: Connection = _
  private def connection: Connection = synchronized {
    if (opened == null) opened = NatsClient.connect(spec)
    opened
  }

  /** The stream's state now; once connected, a server that does not answer is asked again for read_timeout. */
  def state(): StreamState = {
    val patience = if (opened != null) options.readTimeoutMs else 0L
    val s = NatsClient.patiently(patience)(NatsClient.streamInfo(connection, spec, stream)).getStreamState
    StreamState(s.getFirstSequence, s.getLastSequence, s.getMsgCount, s.getByteCount)
  }

  /** The first sequence a bound's read starts at (earliest: the stream's first; latest: after its last). */
  def startSequence(bound: Bound, now: StreamState): Long = bound match {
    case Bound.Earliest => math.max(now.first, 1)
    case Bound.Latest => now.last + 1
    case Bound.AtSequence(seq) => seq
    case Bound.AtTime(micros) => firstAtOrAfter(micros, now)
  }

  /** The last sequence a bound's read ends at (inclusive); an end time is exclusive. */
  def endSequence(bound: Bound, now: StreamState): Long = bound match {
    case Bound.Earliest => now.first - 1
    case Bound.Latest => now.last
    case Bound.AtSequence(seq) => seq
    case Bound.AtTime(micros) => firstAtOrAfter(micros, now) - 1
  }

  /**
   * The first sequence stored at or after a time (JetStream's deliver-by-start-time), or the one after the last
   * when none is: asked of an ephemeral consumer that sends headers only and is deleted at once.
   */
  def firstAtOrAfter(micros: Long, now: StreamState): Long = {
    val at = Instant.ofEpochSecond(Math.floorDiv(micros, 1000000L), Math.floorMod(micros, 1000000L) * 1000L)
    val config = ConsumerConfiguration.builder()
      .deliverPolicy(DeliverPolicy.ByStartTime)
      .startTime(at.atZone(ZoneOffset.UTC))
      .ackPolicy(AckPolicy.None)
      .headersOnly(true)
      .memStorage(true)
      .numReplicas(1)
      .inactiveThreshold(Duration.ofSeconds(10))
      .build()
    try {
      val context = connection.getStreamContext(stream, NatsClient.jetStreamOptions(spec)).createOrUpdateConsumer(config)
      try {
        if (context.getCachedConsumerInfo.getNumPending == 0) now.last + 1
        else {
          val message = context.next(Duration.ofMillis(options.readTimeoutMs))
          if (message == null)
            throw new NatsException(s"stream '$stream' sent no message stored after $at within the read_timeout")
          message.metaData().streamSequence()
        }
      } finally {
        try connection.jetStreamManagement(NatsClient.jetStreamOptions(spec)).deleteConsumer(stream,
            context.getConsumerName)
        catch { case NonFatal(_) => () } // an inactive ephemeral consumer goes by itself
      }
    } catch {
      case e: JetStreamApiException =>
        throw new NatsException(s"stream '$stream' refused a read by time: ${e.getMessage}", e)
      case e: IOException => throw NatsClient.noJetStream(spec, e)
    }
  }

  /**
   * Messages below `firstWanted` that are gone: the stream's first sequence is above it. With failOnDataLoss (the
   * default) an error; otherwise a warning, and the read starts at the stream's first sequence. The number lost.
   */
  def checkLoss(firstWanted: Long, now: StreamState, option: String): Long =
    if (now.first <= firstWanted) 0
    else {
      val lost = now.first - firstWanted
      val what = s"messages $firstWanted to ${now.first - 1} of stream '$stream' are gone (purged, expired or " +
        s"removed by the stream's limits) before this query read them: the stream starts at ${now.first} now"
      if (options.failOnDataLoss)
        throw new NatsOptionException(option, s"$what; set failOnDataLoss to false to read on from ${now.first}")
      log.warn(s"nats: $what; $lost sequence(s) skipped (failOnDataLoss is false)")
      lost
    }

  /** The sequence range [first, last] cut into at most `n` ranges of (nearly) the same length. */
  def split(first: Long, last: Long, n: Int): Seq[(Long, Long)] =
    if (last < first) Nil
    else {
      val length = last - first + 1
      val parts = math.max(1L, math.min(n.toLong, length)).toInt
      (0 until parts).map { k =>
        val from = first + length * k / parts
        val to = first + length * (k + 1) / parts - 1
        (from, to)
      }
    }

  override def close(): Unit = synchronized {
    if (opened != null)
      try opened.close()
      catch { case NonFatal(_) => () }
    opened = null
  }
}
