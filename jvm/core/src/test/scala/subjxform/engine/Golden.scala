package subjxform.engine

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path, Paths}

/** The golden cases produced by a real nats-server (tests/golden), shared by every test module. */
object Golden {
  val root: Path = Paths.get(sys.props.getOrElse("subjxform.root", ".")).toAbsolutePath.normalize

  private def lines(name: String): Seq[ujson.Value] = {
    val path = root.resolve("tests").resolve("golden").resolve(name.replace('/', java.io.File.separatorChar))
    new String(Files.readAllBytes(path), UTF_8).split("\n").toSeq.filter(_.trim.nonEmpty).map(ujson.read(_))
  }

  final case class TransformCase(
      id: String,
      src: String,
      dest: String,
      subject: Option[String],
      accepted: Boolean,
      error: Option[String],
      expected: Option[Option[Vector[Byte]]], // the delivered subject's bytes; None: the case pins no result; Some(None): NULL
      randomPattern: Option[String]) {

    /** Whether `actual` (a subject's bytes, null for NULL) is the result the case pins (random: fits `expected_pattern`). */
    def agrees(actual: Array[Byte]): Boolean = randomPattern match {
      case Some(p) => actual != null && Golden.fitsRandomPattern(p, new String(actual, UTF_8))
      case None => expected.forall(e => e.map(_.toArray).orNull sameAs actual)
    }

    /** [[agrees]] for the hex of a result's bytes (Spark's `hex` of a STRING), null for NULL. */
    def agreesHex(hex: String): Boolean = agrees(if (hex == null) null else Golden.unhex(hex))

    /** The expected subject as text, for messages (bytes that are not UTF-8 as U+FFFD). */
    def expectedText: String = expected.fold("(not pinned)")(_.fold("NULL")(b => new String(b.toArray, UTF_8)))
  }

  private implicit class SameBytes(a: Array[Byte]) {
    def sameAs(b: Array[Byte]): Boolean = if (a == null || b == null) a == b else java.util.Arrays.equals(a, b)
  }

  def unhex(hex: String): Array[Byte] = hex.grouped(2).map(Integer.parseInt(_, 16).toByte).toArray

  /** The transform of `subject` as bytes (the engine's own entry; `SubjectTransform.apply(String)` decodes). */
  def run(tr: SubjectTransform, subject: String): Array[Byte] = {
    val b = subject.getBytes(UTF_8)
    tr(b, 0, b.length, new Workspace)
  }

  private def str(v: ujson.Value, key: String): Option[String] =
    v.obj.get(key).flatMap(x => if (x.isNull) None else Some(x.str))

  lazy val transformCases: Seq[TransformCase] = readTransformCases("transform_cases.jsonl")

  /**
   * The golden cases as the real binary of one server line gave them (tests/golden/servers/<line>/, made
   * by tests/server_lines_golden.py from the inputs of tests/golden): "2.10", ..., "2.15".
   */
  def transformCasesOf(line: String): Seq[TransformCase] = readTransformCases(s"servers/$line/transforms.jsonl")

  /** [[mapCases]] as the real binary of one server line gave them. */
  def mapCasesOf(line: String): Seq[MapCase] = readMapCases(s"servers/$line/mappings.jsonl")

  /**
   * What the real binary of one release on the package index gave (tests/golden/releases/<release>.jsonl, made
   * by tests/server_releases_golden.py): the header, the records of the cases it answered otherwise than its
   * line's golden files, and its probes.
   */
  final case class ReleaseGolden(release: String, line: String, sizes: Map[String, Int], records: Seq[ujson.Value]) {

    /** Its answers to the cases of one of its line's files ("transforms", "mappings", "streams"). */
    def cases(file: String): Seq[ujson.Value] = {
      val ownRecords = records.filter(_.obj.get("file").exists(_.str == file)).map(r => idOf(r) -> r).toMap
      val lineCases = lineFiles.computeIfAbsent(s"servers/$line/$file.jsonl", name => lines(name))
      require(lineCases.size == sizes(file),
        s"$release was measured against ${sizes(file)} $file cases of $line, " +
          s"not ${lineCases.size}: run tests/server_releases_golden.py")
      val merged = lineCases.map(c => ownRecords.getOrElse(idOf(c), c))
      require(merged.count(c => ownRecords.contains(idOf(c))) == ownRecords.size, s"$release: a record of no $file case")
      merged
    }

    def probe(name: String): ujson.Value = records.find(_.obj.get("probe").exists(_.str == name)).get
  }

  /** The lines' golden files, read once for the 32 releases that are compared with them. */
  private val lineFiles = new java.util.concurrent.ConcurrentHashMap[String, Seq[ujson.Value]]

  private def idOf(record: ujson.Value): String = record.obj.get("id").getOrElse(record("config")("name")).str

  def releaseGolden(release: String): ReleaseGolden = {
    val all = lines(s"releases/$release.jsonl")
    val head = all.head
    ReleaseGolden(head("release").str, head("line").str, head("cases").obj.map { case (k, v) => k -> v.num.toInt }.toMap,
      all.tail)
  }

  /** [[transformCasesOf]] as the real binary of one release gave them. */
  def transformCasesOfRelease(release: String): Seq[TransformCase] =
    releaseGolden(release).cases("transforms").map(readTransformCase)

  /** [[mapCasesOf]] as the real binary of one release gave them. */
  def mapCasesOfRelease(release: String): Seq[MapCase] = releaseGolden(release).cases("mappings").map(readMapCase)

  /**
   * The deviation the contract once made for split/slice/left/right on non-ASCII subjects (code points); SPEC §4
   * now counts bytes as nats-server does, so such a case expects what the server delivered: `nats_received`, or
   * the bytes of `nats_received_hex` (a cut inside a character). A random one, whose delivery was not kept, pins
   * nothing.
   */
  val CodePoints = "character counts are code points; nats-server counts bytes"

  private def readTransformCases(name: String): Seq[TransformCase] = lines(name).map(readTransformCase)

  private def readTransformCase(v: ujson.Value): TransformCase = {
    val random = v.obj.get("random").exists(_.bool)
    val countedCodePoints = str(v, "deviation").contains(CodePoints)
    def utf8(s: String) = s.getBytes(UTF_8).toVector
    val expected: Option[Option[Vector[Byte]]] =
      if (countedCodePoints) {
        if (random) None
        else Some(str(v, "nats_received_hex").map(unhex(_).toVector).orElse(str(v, "nats_received").map(utf8)))
      } else if (random) {
        // a null pattern means NULL, a pattern is pinned as such (`randomPattern`), none at all pins nothing (a
        // per-line case that counted code points, or delivered several subjects)
        v.obj.get("expected_pattern").filter(_.isNull).map(_ => None)
      } else str(v, "expected_hex").map(h => Some(Some(unhex(h).toVector)))
        .getOrElse(v.obj.get("expected").map(x => if (x.isNull) None else Some(utf8(x.str))))
    TransformCase(
      id = v("id").str,
      src = v("src").str,
      dest = v("dest").str,
      subject = str(v, "subject"),
      accepted = v("accepted").bool,
      error = str(v, "error"),
      expected = expected,
      randomPattern = if (random && !countedCodePoints) str(v, "expected_pattern") else None)
  }

  final case class MapCase(
      id: String,
      mappings: String,
      subject: String,
      accepted: Boolean,
      error: Option[String],
      expected: Option[Option[String]]) // None: the case pins no result; Some(None): NULL

  lazy val mapCases: Seq[MapCase] = readMapCases("map_cases.jsonl")

  private def readMapCases(name: String): Seq[MapCase] = lines(name).map(readMapCase)

  private def readMapCase(v: ujson.Value): MapCase =
    MapCase(
      id = v("id").str,
      mappings = v("mappings").str,
      subject = v("subject").str,
      accepted = v("accepted").bool,
      error = str(v, "error"),
      expected = v.obj.get("expected").map(x => if (x.isNull) None else Some(x.str)))

  private val RandomToken = "<random\\((-?\\d+)\\)>".r

  /** `expected_pattern` with each `<random(n)>` standing for an integer token in [0, abs(n)). */
  def fitsRandomPattern(pattern: String, actual: String): Boolean = {
    val parts = RandomToken.split(pattern)
    val bounds = RandomToken.findAllMatchIn(pattern).map(m => math.abs(m.group(1).toLong)).toSeq
    val regex = parts.map(java.util.regex.Pattern.quote).zipAll(bounds.map(_ => "(\\d+)"), "", "")
      .map { case (a, b) => a + b }.mkString
    val m = java.util.regex.Pattern.compile(regex).matcher(actual)
    m.matches() && bounds.indices.forall { i =>
      val v = BigInt(m.group(i + 1))
      if (bounds(i) == 0) v == 0 else v >= 0 && v < bounds(i)
    }
  }
}
