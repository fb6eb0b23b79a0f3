package subjxform.config

/**
 * One configuration file being read and the files it includes (see [[ConfSyntax.parseFile]]). `root` is
 * the document; [[fileOf]] names the file a value was written in. Apart from [[ConfReader]] because what
 * comes from outside the text is here: included files and the environment variables `$NAME` reads (a
 * mappings table given as text has neither).
 */
final class ConfFile private[subjxform] (val name: String, private[subjxform] val env: String => Option[String]) {
  import ConfValue._

  var root: Obj = _
  private val origins = new java.util.IdentityHashMap[ConfValue, String]
  private val envInProgress = scala.collection.mutable.HashSet.empty[String]
  private var depth = 0

  /** Whether an included file is being read (its variables are its own: nats-server's parser scopes). */
  private[subjxform] def inInclude: Boolean = depth > 0

  /** The file `v` was written in (this file's name unless an include brought it). */
  def fileOf(v: ConfValue): String = Option(origins.get(v)).getOrElse(name)

  private[subjxform] def read(path: String): Obj = {
    val text =
      try new String(java.nio.file.Files.readAllBytes(java.nio.file.Paths.get(path)),
          java.nio.charset.StandardCharsets.UTF_8)
      catch {
        case _: java.nio.file.NoSuchFileException =>
          throw new ConfSyntaxException(s"open $path: no such file or directory")
        case e: java.io.IOException =>
          throw new ConfSyntaxException(s"open $path: ${Option(e.getMessage).getOrElse(e.toString)}")
      }
    parse(text, path)
  }

  private[subjxform] def parse(text: String, path: String): Obj = {
    val saved = currentDir
    currentDir = Option(java.nio.file.Paths.get(path).getParent).map(_.toString).getOrElse("")
    try ConfSyntax.parseDocument(text, this)
    finally currentDir = saved
  }

  private var currentDir = ""

  /** nats-server's `include`: the path joined to the including file's folder, read as its own document. */
  private[subjxform] def include(path: String, at: Int): Obj = {
    val joined = if (currentDir.isEmpty || java.nio.file.Paths.get(path).isAbsolute) path
    else java.nio.file.Paths.get(currentDir, path).toString
    depth += 1
    if (depth > 32) throw new ConfSyntaxException(s"error parsing include file '$path', too many nested includes")
    val doc =
      try read(joined)
      catch {
        case e: ConfSyntaxException =>
          throw new ConfSyntaxException(s"error parsing include file '$path', ${e.getMessage}")
      } finally depth -= 1
    mark(doc, joined)
    doc
  }

  /** Every value of an included document not yet marked (a nested include marked its own) is `file`'s. */
  private def mark(v: ConfValue, file: String): Unit = if (!origins.containsKey(v)) {
    origins.put(v, file)
    v match {
      case o: Obj => o.entries.foreach { case (_, x) => mark(x, file) }
      case a: Arr => a.items.foreach(mark(_, file))
      case _ =>
    }
  }

  /** A `$NAME` that nats-server looks up in the environment once the config's own scopes lack it. */
  private[config] def fromEnvironment(name: String, at: Int): Option[ConfValue] =
    env(name).map { raw =>
      if (!envInProgress.add(name)) throw new ConfSyntaxException(s"variable reference cycle for '$name'")
      // Read as nats-server reads it: the text as the value of a key.
      try new ConfReader("pk=" + raw, this).document().get("pk").map(relined(_, at)).orNull
      finally envInProgress.remove(name)
    }

  /** A value read from the environment, placed on the line of the reference to it. */
  private def relined(v: ConfValue, at: Int): ConfValue = v match {
    case x: Str => x.copy(line = at)
    case x: Integer => x.copy(line = at)
    case x: Decimal => x.copy(line = at)
    case x: Bool => x.copy(line = at)
    case x: DateTime => x.copy(line = at)
    case other => other
  }
}
