package subjxform.config

import subjxform.config.ConfValue._

/**
 * Reads a JetStream stream config from the JSON nats uses: the stream create request, or the output of
 * `nats stream info --json` (whose `config` object is taken). Field names are nats-server's; unknown
 * fields are ignored and `null` is an absent field, as Go's JSON decoding does. A field of the wrong
 * shape is an error naming it. Spark-free (the CLI's `validate` uses it): the text is read by
 * [[ConfSyntax]], whose JSON reader is strict RFC 8259 (a stream config in nats config syntax reads too).
 */
object StreamConfigJson {

  private def fail(field: String, description: String): Nothing =
    throw new InvalidStreamConfigException(field, description, 0)

  private final val InvalidJson = 10025 // JSInvalidJSONErr: the request does not decode into nats-server's StreamConfig

  def parse(json: String): StreamConfig = {
    val root =
      try ConfSyntax.parseJson(json)
      catch { case e: ConfSyntaxException => fail("config", s"not valid JSON: ${e.getMessage}") }
    fromConf(root)
  }

  /** The stream config in a document already read (`config` of `nats stream info --json` when present). */
  def fromConf(root: Obj): StreamConfig = {
    val cfg = (root.get("config"), root.get("name")) match {
      case (Some(inner: Obj), None) => inner
      case _ => root
    }
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

  private def present(n: Obj, key: String): Option[ConfValue] =
    n.get(key).filter {
      case Null(_) => false
      case _ => true
    }

  private def string(n: Obj, key: String, field: String): String = present(n, key) match {
    case None => ""
    case Some(Str(s, _, _)) => s
    case Some(_) => fail(field, "must be a string")
  }

  private def boolean(n: Obj, key: String, field: String): Boolean = present(n, key) match {
    case None => false
    case Some(Bool(b, _)) => b
    case Some(_) => fail(field, "must be true or false")
  }

  private def int(n: Obj, key: String, field: String): Int = present(n, key) match {
    case None => 0
    case Some(Integer(v, _)) if v.isValidInt => v.toInt
    case Some(_) => fail(field, "must be an integer")
  }

  private def array(n: Obj, key: String, field: String): Seq[ConfValue] = present(n, key) match {
    case None => Nil
    case Some(Arr(items, _)) => items
    case Some(_) => fail(field, "must be a list")
  }

  private def strings(n: Obj, key: String, field: String): Seq[String] =
    array(n, key, field).zipWithIndex.map {
      case (Str(s, _, _), _) => s
      case (_, i) => fail(s"$field[$i]", "must be a string")
    }

  private def obj(n: Obj, key: String, field: String): Option[Obj] = present(n, key) match {
    case None => None
    case Some(o: Obj) => Some(o)
    case Some(_) => fail(field, "must be an object")
  }

  private def transform(v: ConfValue, field: String): TransformConfig = v match {
    case n: Obj => TransformConfig(string(n, "src", s"$field.src"), string(n, "dest", s"$field.dest"))
    case _ => fail(field, "must be an object {\"src\": ..., \"dest\": ...}")
  }

  private def source(v: ConfValue, field: String): SourceConfig = v match {
    case n: Obj =>
      SourceConfig(
        name = string(n, "name", s"$field.name"),
        filterSubject = string(n, "filter_subject", s"$field.filter_subject"),
        subjectTransforms = array(n, "subject_transforms", s"$field.subject_transforms").zipWithIndex.map {
          case (t, i) => transform(t, s"$field.subject_transforms[$i]")
        },
        externalApi = obj(n, "external", s"$field.external").map(e => string(e, "api", s"$field.external.api")),
        consumerName = obj(n, "consumer", s"$field.consumer").map(c => string(c, "name", s"$field.consumer.name")))
    case _ => fail(field, "must be an object")
  }

  private def republish(cfg: Obj): Option[TransformConfig] = present(cfg, "republish") match {
    case None => None
    case Some(_: Arr) =>
      // The nats docs page writes its example this way; nats-server's RePublish is one object, and Go's
      // JSON decoding rejects the request before any check (its words, its code).
      throw new InvalidStreamConfigException("republish",
        "invalid JSON: json: cannot unmarshal array into Go struct " +
          "field StreamConfigRequest.republish of type server.RePublish (it must be one object {\"src\", \"dest\"})",
        InvalidJson)
    case Some(v) => Some(transform(v, "republish"))
  }
}
