package subjxform.spark

import org.apache.spark.sql.{Column, DataFrame}
import org.apache.spark.sql.functions.{array, call_function, coalesce, col, lit, struct}

import subjxform.core.{StreamConfig, StreamConfigJson, StreamPlan, TransformConfig}

/**
 * What a JetStream stream stores and republishes, over a DataFrame of messages: the Scala twin of
 * Python's `subjxform.streams.stream_messages`, built only from the SQL functions.
 *
 * {{{
 *   StreamMessages(messages, configJson, originCol = Some("stream"))
 *   // messages' columns + stored_subject + republished_subject (NULL where republish does not match)
 * }}}
 */
object StreamMessages {
  final val StoredSubject = "stored_subject"
  final val RepublishedSubject = "republished_subject"

  /**
   * @param messages   the messages; `subjectCol` holds each one's subject
   * @param config     the stream config as JSON (create request or `nats stream info --json`)
   * @param originCol  a column naming the stream each message comes from (for `sources` / `mirror`),
   *                   NULL for a message published to the stream directly; None: all are direct
   * @throws subjxform.core.InvalidStreamConfigException when nats-server would reject the config
   */
  def apply(messages: DataFrame, config: String, subjectCol: String = "subject",
      originCol: Option[String] = None): DataFrame =
    fromPlan(messages, StreamConfig.plan(StreamConfigJson.parse(config)), subjectCol, originCol)

  def fromPlan(messages: DataFrame, plan: StreamPlan, subjectCol: String = "subject",
      originCol: Option[String] = None): DataFrame = {
    val subject = col(subjectCol)
    val direct: Option[DataFrame] = plan.subjects.map(s => call_function("subject_matches", subject, lit(s)))
      .reduceOption(_ || _)
      .map { interested =>
        val isDirect = originCol.map(col(_).isNull).getOrElse(lit(true))
        messages.where(isDirect && interested).withColumn(StoredSubject, subject)
      }
    // Without an origin column nothing comes from another stream.
    val sourced: Seq[DataFrame] = originCol.toSeq.flatMap { origin =>
      plan.origins.filter(_.inactive.isEmpty).map { o =>
        // An empty list takes everything: the same as one `>` filter that keeps the subject.
        val pairs = if (o.transforms.isEmpty) Seq(TransformConfig(">", "")) else o.transforms
        val list = array(pairs.map(t => struct(lit(t.src).as("src"), lit(t.dest).as("dest"))): _*)
        messages.where(col(origin) === lit(o.name))
          .withColumn(StoredSubject, call_function("subject_filter_transform", subject, list))
          .where(col(StoredSubject).isNotNull)
      }
    }
    val parts = direct.toSeq ++ sourced
    val taken = parts.reduceOption(_ unionByName _).getOrElse(messages.limit(0).withColumn(StoredSubject, subject))
    val stored = plan.ingress.fold(taken)(t =>
      taken.withColumn(StoredSubject, coalesce(transform(col(StoredSubject), t), col(StoredSubject))))
    stored.withColumn(RepublishedSubject,
      plan.republish.fold(lit(null).cast("string"))(t => transform(col(StoredSubject), t)))
  }

  private def transform(subject: Column, t: TransformConfig): Column =
    call_function("subject_transform", subject, lit(t.src), lit(t.dest))
}
