package subjxform.config

import scala.collection.mutable

/**
 * One configuration file being read and the files it includes (see [[ConfSyntax.parseFile]]). `root` is
 * the document; [[fileOf]] names the file a value was written in. Apart from [[ConfReader]] because what
 * comes from outside the text is here, as nats-server finds it: included files (the path joined to the
 * including file's folder as Go's `filepath.Join` does, an absolute one too, read as bytes with Go's
 * error texts) and the environment variables `$NAME` reads. A mappings table given as text has neither.
 */
final class ConfFile private[subjxform] (val name: String, private[subjxform] val env: String => Option[String]) {
  import ConfValue._

  var root: Obj = _
  private val origins = new java.util.IdentityHashMap[ConfValue, String]
  private var depth = 0

  /** An unquoted value holding `{{` is an error (SPEC §4); false only to compare with nats-server. */
  private[config] var refuseUnquotedBraces = true

  /** Where the first unquoted value holding `{{` was, in whichever file, when they are not refused (0: none). */
  private[config] var unquotedBracesLine = 0

  /** Whether an included file is being read (its variables are its own: nats-server's parser scopes). */
  private[subjxform] def inInclude: Boolean = depth > 0

  /** The file `v` was written in (this file's name unless an include brought it). */
  def fileOf(v: ConfValue): String = Option(origins.get(v)).getOrElse(name)

  /** The file at `path` (as nats-server names it), read and parsed: Go's `os.ReadFile` errors, in its words. */
  private[subjxform] def read(path: String): Obj = parse(ConfFile.readBytes(path), path)

  /**
   * Each unquoted value holding `{{`, when they are collected ([[collectUnquotedBraces]]) rather than the
   * first one failing the read: its file's problem, with the fix (the destination in quotes).
   */
  private[subjxform] val unquotedBraces = mutable.ArrayBuffer.empty[ConfigProblem]

  /**
   * Read on past an unquoted value holding `{{`, as if its whole destination were quoted, and collect the
   * error ([[unquotedBraces]]), so that a check shows the file's other problems too (subjxform validate).
   */
  private[subjxform] var collectUnquotedBraces = false

  private[subjxform] def parse(bytes: Array[Byte], path: String): Obj = {
    var text = bytes
    while (true) {
      try return new ConfReader(text, path, this, mutable.Set.empty, ConfFile.goDir(path), refuseUnquotedBraces)
          .document()
      catch {
        case e: UnquotedBracesException if collectUnquotedBraces =>
          // The destination's own column, counted as nats-server's lexer counts one (from the '\n' before it).
          val column = e.start - math.max(text.lastIndexWhere(_ == '\n', e.start - 1), 0)
          val at = ConfValue.Str(GoBytes.decode(text, e.start, e.end), quoted = true, e.line).at(column)
          if (path != name) origins.put(at, path)
          unquotedBraces += ConfigProblem(at, "", "error", e.getMessage)
          text = e.quoted(text) // each pass quotes one more value: the loop ends
      }
    }
    throw new IllegalStateException
  }

  private[subjxform] def parse(text: String, path: String): Obj = parse(GoBytes.encode(text), path)

  /**
   * nats-server's `include`: `path` joined to `dir` (the including file's folder; an absolute path lands under
   * it too, as Go's `filepath.Join` does), read as its own document. nats-server has no limit on nested
   * includes (a file that includes itself exhausts its stack); here the 33rd nested include is an error.
   */
  private[config] def include(path: String, dir: String): Obj = {
    val joined = ConfFile.goJoin(dir, path)
    if (depth >= ConfFile.MaxIncludeDepth) throw new ConfSyntaxException("too many nested includes")
    depth += 1
    val doc =
      try read(joined)
      finally depth -= 1
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
}

private[subjxform] object ConfFile {
  final val MaxIncludeDepth = 32

  /** Go's `os.ReadFile(path)`, its errors as Go writes them (`open PATH: no such file or directory`). */
  def readBytes(path: String): Array[Byte] = {
    def failed(op: String, reason: String) = new ConfSyntaxException(s"$op $path: $reason")
    val file =
      try java.nio.file.Paths.get(path)
      catch { case _: java.nio.file.InvalidPathException => throw failed("open", "invalid argument") } // a NUL
    if (java.nio.file.Files.isDirectory(file)) throw failed("read", "is a directory")
    try java.nio.file.Files.readAllBytes(file)
    catch {
      case _: java.nio.file.NoSuchFileException => throw failed("open", "no such file or directory")
      case _: java.nio.file.AccessDeniedException => throw failed("open", "permission denied")
      case e: java.nio.file.FileSystemException if e.getReason != null =>
        throw failed("open", e.getReason.take(1).toLowerCase + e.getReason.drop(1)) // strerror's words, as Go's
      case e: java.io.IOException => throw failed("open", Option(e.getMessage).getOrElse(e.toString))
    }
  }

  /** Go's `filepath.Join(dir, path)` (on Unix): the two joined by `/`, cleaned; `/etc` + `/x` is `/etc/x`. */
  def goJoin(dir: String, path: String): String =
    if (dir.isEmpty && path.isEmpty) ""
    else goClean(if (dir.isEmpty) path else if (path.isEmpty) dir else s"$dir/$path")

  /** Go's `filepath.Dir(path)`: all but the last element, cleaned (`.` for a bare name). */
  def goDir(path: String): String = goClean(path.substring(0, path.lastIndexOf('/') + 1))

  /** Go's `filepath.Clean` (on Unix): no empty, `.` or resolvable `..` elements; `.` for nothing. */
  def goClean(path: String): String = {
    val rooted = path.startsWith("/")
    val out = mutable.ArrayBuffer.empty[String]
    for (e <- path.split("/") if e.nonEmpty && e != ".") {
      if (e != "..") out += e
      else if (out.nonEmpty && out.last != "..") out.remove(out.length - 1)
      else if (!rooted) out += ".."
    }
    val joined = out.mkString("/")
    if (rooted) "/" + joined else if (joined.isEmpty) "." else joined
  }
}
