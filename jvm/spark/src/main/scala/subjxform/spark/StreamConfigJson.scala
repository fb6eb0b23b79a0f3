package subjxform.spark

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.core.JsonProcessingException
import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}

import subjxform.core.{InvalidStreamConfigException, SourceConfig, StreamConfig, TransformConfig}

/**
 * Reads a JetStream stream config from the JSON nats uses: the stream create request, or the output of
 * `nats stream info --json` (whose `config` object is taken). Field names are nats-server's; unknown
 * fields are ignored and `null` is an absent field, as Go's JSON decoding does. A field of the wrong
 * shape is an error naming it. (Jackson ships with Spark.)
 */
object StreamConfigJson {
  private val mapper = new ObjectMapper()

  private def fail(field: String, description: String): Nothing =
    throw new InvalidStreamConfigException(field, description, 0)

  def parse(json: String): StreamConfig = {
    val root =
      try mapper.readTree(json)
      catch { case e: JsonProcessingException => fail("config", s"not valid JSON: ${e.getOriginalMessage}") }
    if (root == null || !root.isObject) fail("config", "must be a JSON object")
    val cfg = if (root.path("config").isObject && !root.has("name")) root.get("config") else root
    StreamConfig(
      name = string(cfg, "name", "name"),
      subjects = strings(cfg, "subjects", "subjects"),
      subjectTransform = obj(cfg, "subject_transform", "subject_transform").map(transform(_, "subject_transform")),
      sources = array(cfg, "sources", "sources").zipWithIndex.map { case (s, i) => source(s, s"sources[$i]") },
      mirror = obj(cfg, "mirror", "mirror").map(source(_, "mirror")),
      republish = republish(cfg),
      noAck = boolean(cfg, "no_ack", "no_ack"),
      replicas = int(cfg, "num_replicas", "num_replicas"))
  }

  private def present(n: JsonNode, key: String): Option[JsonNode] =
    Option(n.get(key)).filterNot(_.isNull)

  private def string(n: JsonNode, key: String, field: String): String = present(n, key) match {
    case None => ""
    case Some(v) if v.isTextual => v.asText
    case Some(_) => fail(field, "must be a string")
  }

  private def boolean(n: JsonNode, key: String, field: String): Boolean = present(n, key) match {
    case None => false
    case Some(v) if v.isBoolean => v.asBoolean
    case Some(_) => fail(field, "must be true or false")
  }

  private def int(n: JsonNode, key: String, field: String): Int = present(n, key) match {
    case None => 0
    case Some(v) if v.isIntegralNumber && v.canConvertToInt => v.asInt
    case Some(_) => fail(field, "must be an integer")
  }

  private def array(n: JsonNode, key: String, field: String): Seq[JsonNode] = present(n, key) match {
    case None => Nil
    case Some(v) if v.isArray => v.elements.asScala.toSeq
    case Some(_) => fail(field, "must be a list")
  }

  private def strings(n: JsonNode, key: String, field: String): Seq[String] =
    array(n, key, field).zipWithIndex.map {
      case (v, _) if v.isTextual => v.asText
      case (_, i) => fail(s"$field[$i]", "must be a string")
    }

  private def obj(n: JsonNode, key: String, field: String): Option[JsonNode] = present(n, key) match {
    case None => None
    case Some(v) if v.isObject => Some(v)
    case Some(_) => fail(field, "must be an object")
  }

  private def transform(n: JsonNode, field: String): TransformConfig = {
    if (!n.isObject) fail(field, "must be an object {\"src\": ..., \"dest\": ...}")
    TransformConfig(string(n, "src", s"$field.src"), string(n, "dest", s"$field.dest"))
  }

  private def source(n: JsonNode, field: String): SourceConfig = {
    if (!n.isObject) fail(field, "must be an object")
    SourceConfig(
      name = string(n, "name", s"$field.name"),
      filterSubject = string(n, "filter_subject", s"$field.filter_subject"),
      subjectTransforms = array(n, "subject_transforms", s"$field.subject_transforms").zipWithIndex.map {
        case (t, i) => transform(t, s"$field.subject_transforms[$i]")
      },
      externalApi = obj(n, "external", s"$field.external").map(e => string(e, "api", s"$field.external.api")),
      consumerName = obj(n, "consumer", s"$field.consumer").map(c => string(c, "name", s"$field.consumer.name")))
  }

  private def republish(cfg: JsonNode): Option[TransformConfig] = present(cfg, "republish") match {
    case None => None
    case Some(v) if v.isArray =>
      // The nats docs page writes its example this way; nats-server's RePublish is one object.
      fail("republish", "must be one object {\"src\": ..., \"dest\": ...}, not a list (nats-server rejects a list)")
    case Some(v) => Some(transform(v, "republish"))
  }
}
