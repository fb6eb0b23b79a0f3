/**
 * The Spark lines subjxform is built for. One source tree: the engine (jvm/core) is Spark-free and
 * built the same way for every line; the Catalyst layer (jvm/spark) adds the version folder of its
 * Spark major (`scala-spark-3`, `scala-spark-4`), where the few API differences live (SparkCompat).
 *
 * A build is for one line, chosen with `-Dspark.version=3.5` (or a full version such as 3.5.7, to
 * compile against that release) and, for Spark 3.5, `-Dscala.binary=2.13` (default 2.12).
 */
final case class SparkLine(spark: String, scala: String, jarsFromWheel: Boolean = false) {

  /** "3.5", "4.0", ... */
  val minor: String = spark.split('.').take(2).mkString(".")
  val major: String = spark.takeWhile(_ != '.')
  val scalaBinary: String = scala.split('.').take(2).mkString(".")

  /** The Java the jar's classes target: Spark 3.5 still runs on Java 8, Spark 4 needs Java 17. */
  val javaRelease: String = if (major == "3") "8" else "17"

  /**
   * The Catalyst layer's version folders, beside src/main/scala: the Spark major's, and for Spark 4 the
   * release's own where the API changed within 4 (4.0, or 4.1 and later).
   */
  val shimFolders: Seq[String] =
    if (major == "3") Seq("scala-spark-3")
    else Seq("scala-spark-4", if (minor == "4.0") "scala-spark-4.0" else "scala-spark-4.1")

  /** The Maven artifact, as Iceberg and Sedona name theirs: subjxform-spark-3.5_2.12. */
  val artifactName: String = s"subjxform-spark-$minor"
  val id: String = s"spark-${minor}_$scalaBinary"

  /** The jar's name inside the Python package (the one `jar_path()` picks for this line). */
  val jarName: String = s"subjxform-spark-${minor}_$scalaBinary.jar"
}

object SparkLines {

  /** The one list of lines (its header says what each column means), read from the build's root. */
  val File: java.io.File = new java.io.File(sys.props("user.dir"), "python/src/subjxform/data/spark-lines.tsv")

  private val rows: Seq[Array[String]] = {
    val source = scala.io.Source.fromFile(File, "UTF-8")
    try source.getLines().filterNot(l => l.startsWith("#") || l.trim.isEmpty).map(_.split('\t')).toVector
    finally source.close()
  }

  // Compiled against the newest release of each line that the build can fetch; the Scala version is
  // the one that Spark release is built with (its pom's scala.version). A release that is not in the
  // Maven repository this project reaches (compile_jars "pyspark") is compiled against the jars of its
  // pyspark source package (scripts/spark-jars.sh puts them in .tools/spark-jars/<release>).
  val all: Seq[SparkLine] = rows.map(r => SparkLine(r(1), r(2), jarsFromWheel = r(6) == "pyspark"))

  val default: SparkLine = all(rows.indexWhere(_(8) == "default"))

  /**
   * The Scala release the Spark-free engine (jvm/core) is compiled with for a Scala binary version: the
   * oldest of the lines that share it. Scala 2.12 and 2.13 are backward binary compatible, so these classes
   * run on every such line's Scala library, and every line of that binary shares one compiled engine
   * (jvm/core/target/scala-<binary>) instead of compiling it again.
   */
  def coreScala(scalaBinary: String): String =
    all.filter(_.scalaBinary == scalaBinary).map(_.scala).minBy { v =>
      val Array(major, minor, patch) = v.split('.').map(_.toInt)
      (major, minor, patch)
    }

  /** The line of `-Dspark.version` (minor or full version) and `-Dscala.binary`. */
  def select(sparkVersion: Option[String], scalaBinary: Option[String]): SparkLine = sparkVersion match {
    case None => default
    case Some(v) =>
      val minor = v.split('.').take(2).mkString(".")
      val candidates = all.filter(l => l.minor == minor && scalaBinary.forall(_ == l.scalaBinary))
      val line = candidates.headOption.getOrElse(sys.error(
          s"No Spark line $v${scalaBinary.fold("")(s => s" with Scala $s")}; lines: " +
            all.map(l => s"${l.minor} (Scala ${l.scalaBinary})").mkString(", ")))
      if (v.count(_ == '.') == 2) line.copy(spark = v) else line
  }
}
