package subjxform.spark.nats

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Paths}
import java.time.{Instant, OffsetDateTime, ZonedDateTime}
import java.time.format.DateTimeParseException
import java.util.Locale

import scala.util.control.NonFatal

import subjxform.engine.Subjects

/** Where a read starts or ends: a stream sequence, a time (microseconds since the epoch), or the stream's end. */
sealed trait Bound extends Serializable
object Bound {
  case object Earliest extends Bound
  case object Latest extends Bound
  final case class AtSequence(seq: Long) extends Bound
  final case class AtTime(micros: Long) extends Bound
}

/**
 * How to reach the server and who to be there: what every task needs, read once on the driver. Files (a `.creds`
 * file, an NKey seed file, the TLS CA, certificate and key) are read here, so that executors need none of them.
 */
final case class NatsConnectionSpec(
    servers: Seq[String],
    user: Option[String],
    password: Option[String],
    token: Option[String],
    nkeySeed: Option[String],
    creds: Option[Array[Byte]],
    tlsCa: Option[Array[Byte]],
    tlsCert: Option[Array[Byte]],
    tlsKey: Option[Array[Byte]],
    domain: Option[String],
    connectTimeoutMs: Long) {

  /** The option that holds the credentials in use: what an authorization error names. */
  def credentialOption: String =
    if (creds.isDefined) "creds_file"
    else if (nkeySeed.isDefined) "nkey_seed"
    else if (token.isDefined) "token"
    else if (user.isDefined) "user"
    else "user"

  def tls: Boolean = tlsCa.isDefined || tlsCert.isDefined || servers.exists(_.startsWith("tls://"))

  override def toString: String = s"NatsConnectionSpec(${servers.mkString(",")}, credentials hidden)"
}

/** Every option of the `nats` source and sink, checked: each bad value is an error that names its option. */
final case class NatsOptions(
    connection: NatsConnectionSpec,
    stream: Option[String],
    filterSubjects: Seq[String],
    start: Bound,
    end: Bound,
    partitions: Option[Int],
    maxMessagesPerTrigger: Option[Long],
    maxBytesPerTrigger: Option[Long],
    failOnDataLoss: Boolean,
    readTimeoutMs: Long,
    fetchBatch: Int,
    msgIdColumn: Option[String],
    publishWindow: Int,
    raw: java.util.Map[String, String]) {
  override def toString: String =
    s"NatsOptions(stream ${stream.getOrElse("-")}, filter_subjects ${filterSubjects.mkString(",")}, start $start, end $end, $connection)"

  def requireStream: String =
    stream.getOrElse(throw new NatsOptionException("stream", "is required to read: the name of a JetStream stream"))
}

object NatsOptions {
  val DefaultServers = "nats://127.0.0.1:4222"

  /** The option names users set (Spark passes them in lower case; each is matched ignoring case). */
  val Known: Seq[String] = Seq("servers", "user", "password", "token", "nkey_seed", "nkey_seed_file",
    "creds_file", "tls_ca", "tls_cert", "tls_key", "domain", "connect_timeout", "stream", "filter_subjects",
    "start", "start_sequence", "start_time", "end", "end_sequence", "end_time", "partitions",
    "maxMessagesPerTrigger", "maxBytesPerTrigger", "failOnDataLoss", "read_timeout", "fetch_batch",
    "msg_id_column", "publish_window")

  /** A catalog table's own properties (TableCatalog's reserved ones) and `path`: passed along, never options. */
  private val TableProperties = Set("path", "provider", "location", "comment", "owner", "external",
    "is_managed_location", "collation")

  def parse(raw: java.util.Map[String, String]): NatsOptions = {
    // A catalog table's (CREATE TABLE ... OPTIONS) come as `option.<name>` beside the table's own properties
    // (provider, owner, location, ...), which are not ours; Spark adds `path` to a load() or save() with one.
    val options = JavaCollections.toScala(raw).toSeq
      .map { case (k, v) => k.toLowerCase(Locale.ROOT).stripPrefix("option.") -> v }.toMap
    val unknown = options.keySet -- Known.map(_.toLowerCase(Locale.ROOT)) -- TableProperties
    if (unknown.nonEmpty)
      throw new NatsOptionException(unknown.toSeq.sorted.head,
        s"is not an option of the nats source: its options are ${Known.mkString(", ")}")
    def get(name: String): Option[String] = options.get(name.toLowerCase(Locale.ROOT)).map(_.trim).filter(_.nonEmpty)

    def file(name: String): Option[Array[Byte]] = get(name).map { path =>
      try Files.readAllBytes(Paths.get(path))
      catch {
        case NonFatal(e) =>
          throw new NatsOptionException(name, s"cannot read the file '$path': ${NatsErrors.reason(e)}", e)
      }
    }
    def positiveLong(name: String): Option[Long] = get(name).map { v =>
      val n =
        try v.toLong
        catch { case _: NumberFormatException => -1L }
      if (n <= 0) throw new NatsOptionException(name, s"must be a whole number above 0, not '$v'")
      n
    }
    def positiveInt(name: String): Option[Int] = positiveLong(name).map { n =>
      if (n > Int.MaxValue) throw new NatsOptionException(name, s"must be at most ${Int.MaxValue}, not $n")
      n.toInt
    }
    def seconds(name: String, default: Double): Long = get(name) match {
      case None => (default * 1000).toLong
      case Some(v) =>
        val s =
          try v.stripSuffix("s").trim.toDouble
          catch { case _: NumberFormatException => -1.0 }
        if (!(s > 0)) throw new NatsOptionException(name, s"must be a number of seconds above 0, not '$v'")
        (s * 1000).toLong
    }
    def bool(name: String, default: Boolean): Boolean = get(name).map(_.toLowerCase(Locale.ROOT)) match {
      case None => default
      case Some("true") => true
      case Some("false") => false
      case Some(v) => throw new NatsOptionException(name, s"must be true or false, not '$v'")
    }

    val servers = get("servers").getOrElse(DefaultServers).split(",").map(_.trim).filter(_.nonEmpty).toSeq
    servers.foreach { s =>
      val ok =
        try { val u = new java.net.URI(if (s.contains("://")) s else "nats://" + s); u.getHost != null }
        catch { case _: java.net.URISyntaxException => false }
      if (!ok) throw new NatsOptionException("servers", s"'$s' is not a server URL such as nats://host:4222")
    }
    if (get("password").isDefined && get("user").isEmpty)
      throw new NatsOptionException("password", "is set without 'user'")
    if (get("nkey_seed").isDefined && get("nkey_seed_file").isDefined)
      throw new NatsOptionException("nkey_seed", "and 'nkey_seed_file' are both set: set one")
    val seed = get("nkey_seed").orElse(file("nkey_seed_file").map(b => new String(b, UTF_8).trim))
    seed.foreach { s =>
      val option = if (get("nkey_seed").isDefined) "nkey_seed" else "nkey_seed_file"
      if (!s.startsWith("SU") && !s.startsWith("SA") && !s.startsWith("SO") && !s.startsWith("SN"))
        throw new NatsOptionException(option, "is not an NKey seed (a seed starts with 'S', as SU... for a user)")
    }
    val credentials =
      Seq("user" -> get("user"), "token" -> get("token"), "nkey_seed" -> seed, "creds_file" -> get("creds_file"))
        .collect { case (name, Some(_)) => name }
    if (credentials.size > 1)
      throw new NatsOptionException(credentials(1),
        s"and '${credentials.head}' are both set: a connection uses one kind of credentials")
    val (tlsCert, tlsKey) = (file("tls_cert"), file("tls_key"))
    if (tlsCert.isDefined != tlsKey.isDefined)
      throw new NatsOptionException(if (tlsCert.isDefined) "tls_key" else "tls_cert",
        "is missing: a client certificate needs both 'tls_cert' and 'tls_key'")
    val connection = NatsConnectionSpec(
      servers = servers,
      user = get("user"),
      password = get("password"),
      token = get("token"),
      nkeySeed = seed,
      creds = file("creds_file"),
      tlsCa = file("tls_ca"),
      tlsCert = tlsCert,
      tlsKey = tlsKey,
      domain = get("domain"),
      connectTimeoutMs = seconds("connect_timeout", 5))

    val stream = get("stream")
    stream.foreach { s =>
      if (s.exists(c => c == '.' || c == '*' || c == '>' || c == '/' || c == '\\' || Character.isWhitespace(c)))
        throw new NatsOptionException("stream",
          s"'$s' is not a stream name: a name has no '.', '*', '>', '/', '\\' or white space")
    }
    val filters = get("filter_subjects").toSeq.flatMap(_.split(",")).map(_.trim).filter(_.nonEmpty)
    filters.foreach { f =>
      if (!Subjects.isValidSubject(f))
        throw new NatsOptionException("filter_subjects", s"'$f' is not a subject filter")
    }

    def bound(side: String): Bound = {
      val (plain, seqName, timeName) = (side, s"${side}_sequence", s"${side}_time")
      val set = Seq(plain, seqName, timeName).filter(n => get(n).isDefined)
      if (set.size > 1) throw new NatsOptionException(set(1), s"and '${set.head}' are both set: set one")
      if (get(plain).isDefined) get(plain).get.toLowerCase(Locale.ROOT) match {
        case "earliest" => Bound.Earliest
        case "latest" => Bound.Latest
        case v => throw new NatsOptionException(plain,
            s"must be 'earliest' or 'latest', not '$v' (or set '$seqName' or '$timeName')")
      }
      else if (get(seqName).isDefined) Bound.AtSequence(positiveLong(seqName).get)
      else if (get(timeName).isDefined) Bound.AtTime(parseTime(timeName, get(timeName).get))
      else if (side == "start") Bound.Earliest
      else Bound.Latest
    }

    NatsOptions(
      connection = connection,
      stream = stream,
      filterSubjects = filters,
      start = bound("start"),
      end = bound("end"),
      partitions = positiveInt("partitions"),
      maxMessagesPerTrigger = positiveLong("maxMessagesPerTrigger"),
      maxBytesPerTrigger = positiveLong("maxBytesPerTrigger"),
      failOnDataLoss = bool("failOnDataLoss", default = true),
      readTimeoutMs = seconds("read_timeout", 60),
      fetchBatch = positiveInt("fetch_batch").getOrElse(1000),
      msgIdColumn = get("msg_id_column"),
      publishWindow = positiveInt("publish_window").getOrElse(1000),
      raw = java.util.Collections.unmodifiableMap(new java.util.HashMap[String, String](raw)))
  }

  /** An ISO-8601 time with its zone or offset (2026-01-31T12:00:00Z), as microseconds since the epoch. */
  private def parseTime(option: String, text: String): Long = {
    val instant =
      try Instant.parse(text)
      catch {
        case _: DateTimeParseException =>
          try OffsetDateTime.parse(text).toInstant
          catch {
            case _: DateTimeParseException =>
              try ZonedDateTime.parse(text).toInstant
              catch {
                case _: DateTimeParseException => throw new NatsOptionException(option,
                    s"'$text' is not a time with a zone, such as 2026-01-31T12:00:00Z or 2026-01-31T13:00:00+01:00")
              }
          }
      }
    Math.addExact(Math.multiplyExact(instant.getEpochSecond, 1000000L), instant.getNano / 1000L)
  }
}
