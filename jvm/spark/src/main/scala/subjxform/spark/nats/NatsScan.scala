package subjxform.spark.nats

import java.time.Instant

import org.apache.spark.SparkContext
import org.apache.spark.sql.connector.read.{
  Batch, InputPartition, PartitionReaderFactory, Scan, ScanBuilder, SupportsPushDownFilters,
  SupportsPushDownRequiredColumns
}
import org.apache.spark.sql.connector.read.streaming.MicroBatchStream
import org.apache.spark.sql.sources._
import org.apache.spark.sql.types.StructType

import subjxform.engine.Subjects

/**
 * What Spark asks of a read: the columns it needs (a read that needs neither `content` nor `headers` asks the
 * server for headers only) and its filters. Filters on `subject` become the consumers' filter subjects, on
 * `streamSeq` and `timestamp` the range's start and end. Spark still applies every filter to the rows: what is
 * pushed only narrows what is read, so a filter pushed too wide costs time, never a wrong row.
 */
final class NatsScanBuilder(options: NatsOptions) extends ScanBuilder with SupportsPushDownFilters
  with SupportsPushDownRequiredColumns {
  private var required: StructType = NatsSchema.schema
  private var pushed: Array[Filter] = Array.empty
  private var narrowed: NatsOptions = options

  override def pruneColumns(requiredSchema: StructType): Unit = required = requiredSchema

  override def pushFilters(filters: Array[Filter]): Array[Filter] = {
    val conjuncts = filters.flatMap(splitAnd)
    var start = options.start
    var end = options.end
    var subjects: Option[Seq[String]] = None
    val used = conjuncts.filter {
      case EqualTo(NatsSchema.Subject, v: String) => subjects = Some(intersect(subjects, Seq(v))); true
      case In(NatsSchema.Subject, vs) if vs.forall(_.isInstanceOf[String]) =>
        subjects = Some(intersect(subjects, vs.map(_.asInstanceOf[String]).toSeq)); true
      case StringStartsWith(NatsSchema.Subject, prefix)
          if prefix.endsWith(".") && Subjects.isValidSubject(prefix + ">") &&
            !prefix.contains("*") && !prefix.contains(">") && subjects.isEmpty =>
        subjects = Some(Seq(prefix + ">")); true
      case f => seqOrTime(f) match {
          case Some((s, e)) =>
            s.foreach(b => start = later(start, b)); e.foreach(b => end = earlier(end, b)); true
          case None => false
        }
    }
    val filterSubjects = subjects match {
      case None => options.filterSubjects
      case Some(wanted) =>
        val valid = wanted.filter(Subjects.isValidSubject)
        if (options.filterSubjects.isEmpty) valid
        else {
          // only what the filter_subjects option lets through; a pushed filter wider than it leaves the option's
          val inside = valid.filter(w => options.filterSubjects.exists(f => Subjects.isSubsetMatch(w, f)))
          if (inside.size == valid.size) inside else options.filterSubjects
        }
    }
    narrowed = options.copy(start = start, end = end, filterSubjects = filterSubjects)
    if (subjects.exists(_.isEmpty) || (subjects.isDefined && filterSubjects.isEmpty))
      narrowed = narrowed.copy(end = Bound.Earliest)
    pushed = used
    filters
  }

  override def pushedFilters(): Array[Filter] = pushed

  override def build(): Scan = new NatsScan(narrowed, options, required)

  private def splitAnd(f: Filter): Seq[Filter] = f match {
    case And(a, b) => splitAnd(a) ++ splitAnd(b)
    case other => Seq(other)
  }

  private def intersect(so: Option[Seq[String]], next: Seq[String]): Seq[String] =
    so.fold(next.distinct)(s => s.filter(next.contains))

  /** A filter on streamSeq or timestamp as the (start, end) bounds it implies, both inclusive but an end time. */
  private def seqOrTime(f: Filter): Option[(Option[Bound], Option[Bound])] = {
    def micros(v: Any): Option[Long] = v match {
      case t: java.sql.Timestamp => Some(t.getTime / 1000 * 1000000L + t.getNanos / 1000 % 1000000L)
      case i: Instant => Some(i.getEpochSecond * 1000000L + i.getNano / 1000)
      case _ => None
    }
    def seq(v: Any): Option[Long] = v match {
      case n: java.lang.Long => Some(n.longValue)
      case n: java.lang.Integer => Some(n.longValue)
      case _ => None
    }
    import Bound._
    f match {
      case EqualTo(NatsSchema.StreamSeq, v) => seq(v).map(n => (Some(AtSequence(math.max(n, 1))), Some(AtSequence(n))))
      case GreaterThan(NatsSchema.StreamSeq, v) => seq(v).map(n => (Some(AtSequence(math.max(n + 1, 1))), None))
      case GreaterThanOrEqual(NatsSchema.StreamSeq, v) => seq(v).map(n => (Some(AtSequence(math.max(n, 1))), None))
      case LessThan(NatsSchema.StreamSeq, v) => seq(v).map(n => (None, Some(AtSequence(n - 1))))
      case LessThanOrEqual(NatsSchema.StreamSeq, v) => seq(v).map(n => (None, Some(AtSequence(n))))
      case In(NatsSchema.StreamSeq, vs) if vs.nonEmpty && vs.forall(seq(_).isDefined) =>
        val ns = vs.flatMap(seq(_))
        Some((Some(AtSequence(math.max(ns.min, 1))), Some(AtSequence(ns.max))))
      // a time's end is exclusive: the end of `<= t` is the first message after t (t plus a microsecond)
      case EqualTo(NatsSchema.Timestamp, v) => micros(v).map(t => (Some(AtTime(t)), Some(AtTime(t + 1))))
      case GreaterThan(NatsSchema.Timestamp, v) => micros(v).map(t => (Some(AtTime(t)), None))
      case GreaterThanOrEqual(NatsSchema.Timestamp, v) => micros(v).map(t => (Some(AtTime(t)), None))
      case LessThan(NatsSchema.Timestamp, v) => micros(v).map(t => (None, Some(AtTime(t))))
      case LessThanOrEqual(NatsSchema.Timestamp, v) => micros(v).map(t => (None, Some(AtTime(t + 1))))
      case _ => None
    }
  }

  /** The later of two starts: a sequence and a time are both kept as the one given last (each is a superset). */
  private def later(a: Bound, b: Bound): Bound = (a, b) match {
    case (Bound.AtSequence(x), Bound.AtSequence(y)) => Bound.AtSequence(math.max(x, y))
    case (Bound.AtTime(x), Bound.AtTime(y)) => Bound.AtTime(math.max(x, y))
    case (Bound.Earliest, other) => other
    case (Bound.Latest, _) => Bound.Latest
    case (mine, _) => mine
  }

  private def earlier(a: Bound, b: Bound): Bound = (a, b) match {
    case (Bound.AtSequence(x), Bound.AtSequence(y)) => Bound.AtSequence(math.min(x, y))
    case (Bound.AtTime(x), Bound.AtTime(y)) => Bound.AtTime(math.min(x, y))
    case (Bound.Latest, other) => other
    case (Bound.Earliest, _) => Bound.Earliest
    case (mine, _) => mine
  }
}

/** `options` narrowed by the pushed filters; `declared` as the user set them (what a loss of messages is judged by). */
final class NatsScan(options: NatsOptions, declared: NatsOptions, required: StructType) extends Scan {
  private val columns: Array[Int] = required.fieldNames.map(NatsSchema.schema.fieldIndex)

  override def readSchema(): StructType = required

  override def description(): String =
    s"nats stream ${options.stream.getOrElse("?")}" +
      (if (options.filterSubjects.nonEmpty) s" filter_subjects [${options.filterSubjects.mkString(", ")}]" else "") +
      s" start ${options.start} end ${options.end}"

  override def toBatch: Batch = new NatsBatch(options, declared, columns)

  override def toMicroBatchStream(checkpointLocation: String): MicroBatchStream =
    new NatsMicroBatchStream(options, columns)
}

private[nats] object NatsScan {

  /** Partitions of a read when the `partitions` option is not set: one per core Spark has. */
  def defaultPartitions(options: NatsOptions): Int =
    options.partitions.getOrElse(math.max(1, SparkContext.getOrCreate().defaultParallelism))

  def ranges(
      options: NatsOptions, plan: NatsStreamPlan, columns: Array[Int], first: Long, last: Long): Array[InputPartition] =
    plan.split(first, last, defaultPartitions(options)).map { case (from, to) =>
      NatsRange(options.connection, plan.stream, options.filterSubjects, from, to, columns, options.failOnDataLoss,
        options.readTimeoutMs, options.fetchBatch): InputPartition
    }.toArray
}

/** A batch read: the stream's range between the bounds, as the stream is when the query runs. */
final class NatsBatch(options: NatsOptions, declared: NatsOptions, columns: Array[Int]) extends Batch {
  private lazy val planned: Array[InputPartition] = {
    val plan = new NatsStreamPlan(options)
    try {
      val now = plan.state()
      // a start_sequence below what the stream still holds: reported (a filter on streamSeq only narrows)
      declared.start match {
        case Bound.AtSequence(seq) if seq <= plan.endSequence(declared.end, now) =>
          plan.checkLoss(seq, now, "start_sequence")
        case _ => ()
      }
      val first = math.max(plan.startSequence(options.start, now), now.first)
      val last = math.min(plan.endSequence(options.end, now), now.last)
      if (last < first) Array.empty[InputPartition]
      else NatsScan.ranges(options, plan, columns, first, last)
    } finally plan.close()
  }

  override def planInputPartitions(): Array[InputPartition] = planned

  override def createReaderFactory(): PartitionReaderFactory = NatsRangeReaderFactory
}
