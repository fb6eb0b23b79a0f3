package subjxform.config

import scala.collection.mutable

/**
 * Reads a document of nats-server's configuration syntax (see [[ConfSyntax]]): its maps and lists, keys,
 * `include` and `$name` references to the maps in scope; the values in them are [[ConfScalars]]'. Apart
 * because it owns the stack of maps and lists being read, kept by hand (no recursion: see
 * [[ConfSyntax.MaxDepth]]). `file`: the configuration file being read (its includes and environment), or
 * null for a text alone, where `include` is an error and `$name` only a variable of the text.
 */
private[config] final class ConfReader(input: String, file: ConfFile = null) extends ConfScalars(input) {
  import ConfReader._
  import ConfScanner._
  import ConfSyntax.{tooDeep, MaxDepth}
  import ConfValue._

  /** Maps being built, innermost last: where `$name` references are looked up. */
  private val scopes = mutable.ArrayBuffer.empty[MapFrame]

  /** The block body at the top: entries until the end of the text, or a `{ ... }` around them. */
  def document(): Obj = {
    var first = true
    while (first) {
      val c = peek
      if (isSpace(c)) next()
      else if (c == '#') skipComment()
      else if (c == '/' && peekAt(1) == '/') { next(); skipComment() }
      else first = false
    }
    if (peek == '{') {
      next()
      val o = containers(new MapFrame(closing = true, line))
      while (peek != EOF) {
        val c = next()
        if (c == '#') skipComment()
        else if (c == '/' && peek == '/') skipComment()
        else if (!isSpace(c)) fail(s"Unexpected '${show(c)}' after the closing '}'.")
      }
      o
    } else containers(new MapFrame(closing = false, line))
  }

  // Maps and lists being read, innermost last: the reader keeps its own stack (no recursion), so a
  // hostile text nested thousands deep meets MaxDepth, never the end of the thread's stack.
  private sealed abstract class Frame
  private final class MapFrame(val closing: Boolean, val startLine: Int) extends Frame {
    val entries = mutable.LinkedHashMap.empty[String, ConfValue]
    val repeated = mutable.ArrayBuffer.empty[String]
    var key: String = _
    val usedVariables = mutable.Set.empty[String]
    def result = {
      val o = Obj(entries.toVector, repeated.toVector, startLine)
      o.usedVariables = usedVariables.toSet
      o
    }
  }
  private final class ArrFrame(val at: Int) extends Frame {
    val items = Vector.newBuilder[ConfValue]
    def result = Arr(items.result(), at)
  }
  private val frames = mutable.ArrayBuffer.empty[Frame]

  private def open(f: Frame): Unit = {
    if (frames.length >= MaxDepth) throw tooDeep(line)
    frames += f
    f match {
      case m: MapFrame => scopes += m
      case _ =>
    }
  }

  /** Closes the innermost frame: its value. */
  private def close(): ConfValue = frames.remove(frames.length - 1) match {
    case m: MapFrame => scopes.remove(scopes.length - 1); m.result
    case a: ArrFrame => a.result
  }

  /** Reads `top`'s entries and everything nested in them; returns the map `top` reads. */
  private def containers(top: MapFrame): Obj = {
    open(top)
    // A value just read (to be stored in the innermost frame), or null when that frame is to be read on.
    var value: ConfValue = null
    while (true) {
      frames.last match {
        case m: MapFrame =>
          if (value != null) {
            if (m.entries.contains(m.key)) m.repeated += m.key
            m.entries(m.key) = value
            value = null
            if (valueEnd(m.closing)) value = close()
          } else value = mapEntry(m)
        case a: ArrFrame =>
          if (value != null) {
            a.items += value
            value = null
            if (arrayGap()) value = close()
          } else value = arrayItem(a)
      }
      if (value != null && frames.isEmpty) return value.asInstanceOf[Obj]
    }
    throw new IllegalStateException
  }

  /**
   * In a map: the next key and its value; or the map's end (its value). Returns a value read, or null
   * when the value opens a list or map (now the innermost frame).
   */
  private def mapEntry(m: MapFrame): ConfValue = {
    while (true) {
      val c = peek
      if (c == EOF) {
        if (m.closing) fail("Unexpected EOF processing map.")
        return close()
      } else if (isSpace(c)) next()
      else if (isKeySeparator(c)) fail(s"Unexpected key separator '${show(c)}'")
      else if (c == ']') fail("Unexpected array end ']' processing map.")
      else if (c == '}') {
        next()
        if (!m.closing) fail("Unexpected '}': the block is already closed.")
        return close()
      } else if (c == '#') skipComment()
      else if (c == '/' && peekAt(1) == '/') { next(); skipComment() }
      else {
        val key = readKey()
        if (key eq IncludeKey) {
          // The included file's entries join this map, as if written here.
          for ((k, v) <- readInclude().entries) { if (m.entries.contains(k)) m.repeated += k; m.entries(k) = v }
          if (valueEnd(m.closing)) return close()
        } else {
          val keyLine = line
          while (isSpace(peek)) next()
          if (isKeySeparator(peek)) next()
          while (isSpace(peek)) next()
          val v = peek
          if (v == ',') fail("Unexpected map value terminator ','.")
          if (v == '}' || v == EOF) fail("key \"" + key + "\" on line " + keyLine + " has no value") // (no \" in s"": Scala 2.12)
          m.key = key
          return readValue()
        }
      }
    }
    throw new IllegalStateException
  }

  /** After a map value: blanks, a comment, then `,` `;` a new line or `}`. Returns whether the map ended. */
  private def valueEnd(closing: Boolean): Boolean = {
    while (true) {
      val c = next()
      if (isBlank(c)) ()
      else if (c == '#') skipComment()
      else if (c == '/') { if (peek == '/') skipComment() else return false } // a lone `/` ends the value
      else if (c == ',' || c == ';' || isNewLine(c)) return false
      else if (c == '}') { if (closing) return true; fail("Unexpected '}': the block is already closed.") }
      else if (c == EOF && !closing) return true
      else fail(s"""Expected a map value terminator "," or a map terminator "}", but got '${show(c)}' instead.""")
    }
    false
  }

  private def readKey(): String = {
    val c = next()
    if (c == '\'' || c == '"') {
      val sb = new java.lang.StringBuilder
      while (peek != c) {
        if (peek == EOF) fail(s"Unexpected EOF processing ${if (c == '"') "double " else ""}quoted map key.")
        sb.appendCodePoint(next())
      }
      next()
      sb.toString
    } else {
      // nats-server drops a lone `/` that starts a key (it was looking for a `//` comment).
      val sb = new java.lang.StringBuilder
      if (c != '/') sb.appendCodePoint(c) else if (peek != EOF) sb.appendCodePoint(next())
      var reading = true
      while (reading) {
        val d = peek
        if (d == EOF) fail("Unexpected EOF processing map key.")
        if (isSpace(d)) {
          if (sb.toString.equalsIgnoreCase("include")) {
            if (file == null)
              fail("include needs the configuration file (subjxform validate FILE): it is read relative to it")
            return IncludeKey
          }
          reading = false
        } else if (isKeySeparator(d)) reading = false
        else sb.appendCodePoint(next())
      }
      sb.toString
    }
  }

  /** A value, or null when it opens a list or a map (pushed as the innermost frame). */
  private def readValue(): ConfValue = {
    while (isBlank(peek)) next()
    val at = line
    peek match {
      case '[' => next(); open(new ArrFrame(at)); null
      case '{' => next(); open(new MapFrame(closing = true, line)); null
      case _ => scalar(at)
    }
  }

  protected def variable(name: String, at: Int): ConfValue = {
    if (name.startsWith("2a$")) return Str("$" + name, quoted = false, at) // a bcrypt hash, not a reference
    val inScope = scopes.reverseIterator.find(_.entries.contains(name))
    if (inScope.nonEmpty) { inScope.get.usedVariables += name; inScope.get.entries(name) }
    else (if (file == null) None else file.fromEnvironment(name, at)).getOrElse {
      val hint =
        if (file != null && file.inInclude) "an included file sees none of the variables of the file that includes it"
        else "a destination that starts with $ must be quoted"
      throw new ConfSyntaxException(s"variable reference for '$name' on line $at can not be found ($hint)")
    }
  }

  /** `include PATH` (PATH quoted or bare, up to the end of the line): the included file's top-level entries. */
  private def readInclude(): Obj = {
    val path = includePath()
    file.include(path, line)
  }

  /** The path after `include`: quoted, or bare up to white space or the end of the line. */
  def includePath(): String = {
    while (isBlank(peek)) next()
    val sb = new java.lang.StringBuilder
    val q = peek
    if (q == '"' || q == '\'') {
      next()
      while (peek != q) {
        if (peek == EOF || isNewLine(peek)) fail("Unexpected EOF in the include path."); sb.appendCodePoint(next())
      }
      next()
    } else while (peek != EOF && !isSpace(peek) && peek != ';' && peek != ',' && peek != '}') sb.appendCodePoint(next())
    if (sb.length == 0) fail("include without a file name")
    sb.toString
  }

  /** In a list: the next item, or the list's end (its value); null when the item opens a list or map. */
  private def arrayItem(a: ArrFrame): ConfValue = {
    while (true) {
      val c = peek
      if (isSpace(c)) next()
      else if (c == '#') skipComment()
      else if (c == '/' && peekAt(1) == '/') { next(); skipComment() }
      else if (c == ',' || c == '/') fail("Unexpected array value terminator ','.")
      else if (c == ']') { next(); return close() }
      else return readValue()
    }
    throw new IllegalStateException
  }

  /** After a list item: blanks, a comment, then `,` or a new line (more items) or `]` (true: the list ended). */
  private def arrayGap(): Boolean = {
    while (true) {
      val d = next()
      if (isBlank(d)) ()
      else if (d == '#') skipComment()
      else if (d == '/') { if (peek == '/') skipComment() else return false }
      else if (d == ',' || isNewLine(d)) return false
      else if (d == ']') return true
      else fail(s"""Expected an array value terminator "," or an array terminator "]", but got '${show(d)}' instead.""")
    }
    false
  }
}

private[config] object ConfReader {

  /** The key nats-server's lexer turns into an include directive; compared by reference. */
  private val IncludeKey = new String("include")
}
