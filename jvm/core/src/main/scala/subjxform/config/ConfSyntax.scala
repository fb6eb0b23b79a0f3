package subjxform.config

import scala.collection.mutable

import subjxform.engine.GoQuote

/**
 * A value of nats-server's configuration language, as its parser leaves it. Strings remember whether
 * they were quoted: nats-server cuts an unquoted `{{...}}` at its first `}`, and we refuse that.
 */
sealed trait ConfValue { def line: Int }

object ConfValue {
  final case class Str(value: String, quoted: Boolean, line: Int) extends ConfValue
  final case class Integer(value: Long, line: Int) extends ConfValue
  final case class Decimal(value: Double, line: Int) extends ConfValue
  final case class Bool(value: Boolean, line: Int) extends ConfValue
  final case class DateTime(value: String, line: Int) extends ConfValue
  final case class Null(line: Int) extends ConfValue // JSON's null only
  final case class Arr(items: Vector[ConfValue], line: Int) extends ConfValue
  /** Keys in written order; a repeated key replaces the earlier value, as in nats-server's Go map. */
  final case class Obj(entries: Vector[(String, ConfValue)], repeatedKeys: Vector[String], line: Int) extends ConfValue {
    def get(key: String): Option[ConfValue] = entries.collectFirst { case (k, v) if k == key => v }
    /** Keys of entries that a `$name` reference used: variables, which nats-server skips where it reads
     * the block's entries as settings (its token's IsUsedVariable). Not part of the value's equality. */
    var usedVariables: Set[String] = Set.empty
  }

  /**
   * Go's `%v` of the value nats-server would hold, for messages that quote it; lists and maps nested
   * more than [[GoTextDepth]] deep are shown as `...` (a message need not repeat a hostile text).
   */
  def goText(v: ConfValue): String = goText(v, 0)

  final val GoTextDepth = 8

  private def goText(v: ConfValue, depth: Int): String = v match {
    case Str(s, _, _) => s
    case Integer(n, _) => n.toString
    case Decimal(d, _) =>
      if (d == math.rint(d) && math.abs(d) < 1e21) java.math.BigDecimal.valueOf(d).toBigInteger.toString
      else d.toString.replace("E", "e+").replace("e+-", "e-")
    case Bool(b, _) => b.toString
    case DateTime(s, _) => s
    case Null(_) => "<nil>"
    case _ if depth >= GoTextDepth => "..."
    case Arr(items, _) => items.map(goText(_, depth + 1)).mkString("[", " ", "]")
    case Obj(entries, _, _) => entries.sortBy(_._1).map { case (k, x) => s"$k:${goText(x, depth + 1)}" }.mkString("map[", " ", "]")
  }
}

/** A text that neither nats-server's configuration parser nor a JSON parser accepts. */
final class ConfSyntaxException(message: String) extends IllegalArgumentException(message)

/**
 * Reads the body of a nats-server `mappings { ... }` block (or the block with its braces, or JSON)
 * into [[ConfValue]]s, accepting what nats-server 2.15's configuration lexer accepts and reading it
 * the same way: keys quoted or bare; `=`, `:` or white space before a value; values ended by a new
 * line, `,` or `;`; `#` and `//` comments; bare strings; numbers with size suffixes (`1k`); a number
 * followed by other characters (`98%`) is a bare string. Tests compare this reader with the
 * nats-server binary. Compile time only: nothing here runs per row.
 */
object ConfSyntax {
  import ConfValue._

  /**
   * How deep lists and maps may nest, in either syntax, the document's own map included: 10,000, the
   * limit of Go's `encoding/json`, where nats-server stops too. It reads stream configs (every JSON
   * request) with it, and its config-file parser, which has no limit of its own (its stacks are slices),
   * hands the result to it: `nats-server -t` accepts `foo: [[...]]` 9,999 lists deep and rejects 10,000
   * ("json: error calling MarshalJSON ...: exceeded max depth"). Ours says so naming the line. No
   * mappings table or stream config comes near (they nest 3 or 4 deep). Both readers keep their own
   * stack, so the depth is bounded by this, not by the thread's stack.
   */
  final val MaxDepth = 10000

  private def tooDeep(line: Int): ConfSyntaxException =
    new ConfSyntaxException(s"Parse error on line $line: 'lists and maps nested more than $MaxDepth deep'")

  /** JSON first (it has escapes like `\u00e9` nats-server's lexer lacks); otherwise nats-server syntax. */
  def parseMappings(text: String): Obj =
    Json.parse(text) match {
      case Some(o: Obj) => unwrapMappingsKey(o)
      case Some(other) => throw new ConfSyntaxException(s"the mappings must be a JSON object, not ${ConfValue.goText(other)}")
      case None => unwrapMappingsKey(new Reader(text).document())
    }

  /**
   * A whole document as it is written, nothing unwrapped: JSON (a stream config, a mappings table) or
   * a nats-server configuration file (its top-level keys, `accounts`, ...). `include` is not followed.
   */
  def parseDocument(text: String): Obj = parseDocument(text, null)

  private[subjxform] def parseDocument(text: String, file: ConfFile): Obj =
    Json.parse(text) match {
      case Some(o: Obj) => o
      case Some(other) => throw new ConfSyntaxException(s"expected a JSON object, not ${ConfValue.goText(other)}")
      case None => new Reader(text, file).document()
    }

  /**
   * A configuration file as nats-server reads it (`conf.ParseFile`): JSON, or its configuration syntax
   * where `include PATH` reads PATH relative to the including file (as its own document: it sees none
   * of the including file's variables) and `$NAME` is a variable of the config in scope, else the
   * environment variable NAME (`env`), read as a config value. [[ConfFile.fileOf]] tells which file a
   * value was written in, for messages that give a file and a line.
   *
   * @param name the file's name in messages (as given: nats-server's messages use the path as given)
   */
  def parseFile(name: String, env: String => Option[String]): ConfFile = {
    val file = new ConfFile(name, env)
    file.root = file.read(name)
    file
  }

  /** [[parseFile]] for a text already read (stdin, a SQL argument): `include` is relative to `name`'s folder. */
  def parseText(text: String, name: String, env: String => Option[String]): ConfFile = {
    val file = new ConfFile(name, env)
    file.root = file.parse(text, name)
    file
  }

  /** `mappings { ... }` / `mappings = {...}` pasted whole is the block itself. */
  private def unwrapMappingsKey(o: Obj): Obj = o.entries match {
    case Vector((k, inner: Obj)) if k.equalsIgnoreCase("mappings") => inner
    case _ => o
  }

  private final val EOF = -1

  /** Go's `unicode.IsSpace`. */
  private def isSpace(c: Int): Boolean =
    c == ' ' || (c >= '\t' && c <= '\r') || c == 0x85 || c == 0xa0 || (c > 0xff && Character.isSpaceChar(c))
  private def isBlank(c: Int): Boolean = c == ' ' || c == '\t'
  private def isNewLine(c: Int): Boolean = c == '\n' || c == '\r'
  private def isDigit(c: Int): Boolean = c != EOF && Character.isDigit(c)
  private def isKeySeparator(c: Int): Boolean = c == '=' || c == ':'
  private def isSizeSuffix(c: Int): Boolean = "kKmMgGtTpPeE".indexOf(c) >= 0 && c != EOF

  /** A `$NAME` that nats-server looks up in the environment once the config's own scopes lack it. */
  private def fromEnvironment(file: ConfFile, name: String, at: Int): Option[ConfValue] =
    if (file == null) None
    else file.env(name).map { raw =>
      if (!file.envInProgress.add(name)) throw new ConfSyntaxException(s"variable reference cycle for '$name'")
      // Read as nats-server reads it: the text as the value of a key.
      try new Reader("pk=" + raw, file).document().get("pk").map(relined(_, at)).orNull
      finally file.envInProgress.remove(name)
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

  /** `include PATH` (PATH quoted or bare, up to the end of the line): the included file's top-level entries. */
  private def readInclude(file: ConfFile, reader: Reader): Obj = {
    val path = reader.includePath()
    file.include(path, reader.currentLine)
  }

  /** The key nats-server's lexer turns into an include directive; compared by reference. */
  private val IncludeKey = new String("include")

  private final class Reader(text: String, file: ConfFile = null) {
    private var pos = 0
    private var line = 1
    /** Maps being built, innermost last: where `$name` references are looked up. */
    private val scopes = mutable.ArrayBuffer.empty[MapFrame]

    private def peek: Int = if (pos >= text.length) EOF else text.codePointAt(pos)
    private def peekAt(ahead: Int): Int = {
      var p = pos
      var i = 0
      while (i < ahead && p < text.length) { p += Character.charCount(text.codePointAt(p)); i += 1 }
      if (p >= text.length) EOF else text.codePointAt(p)
    }
    private def next(): Int = {
      val c = peek
      if (c != EOF) { pos += Character.charCount(c); if (c == '\n') line += 1 }
      c
    }

    private def fail(message: String): Nothing = throw new ConfSyntaxException(s"Parse error on line $line: '$message'")
    private def show(c: Int): String = if (c == EOF) "\\x00" else if (c == '\n') "\\n" else new String(Character.toChars(c))

    private def skipComment(): Unit = while (peek != EOF && !isNewLine(peek)) next()

    def currentLine: Int = line

    /** The path after `include`: quoted, or bare up to white space or the end of the line. */
    def includePath(): String = {
      while (isBlank(peek)) next()
      val sb = new java.lang.StringBuilder
      val q = peek
      if (q == '"' || q == '\'') {
        next()
        while (peek != q) { if (peek == EOF || isNewLine(peek)) fail("Unexpected EOF in the include path."); sb.appendCodePoint(next()) }
        next()
      } else while (peek != EOF && !isSpace(peek) && peek != ';' && peek != ',' && peek != '}') sb.appendCodePoint(next())
      if (sb.length == 0) fail("include without a file name")
      sb.toString
    }

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
            for ((k, v) <- readInclude(file, this).entries) { if (m.entries.contains(k)) m.repeated += k; m.entries(k) = v }
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
              if (file == null) fail("include needs the configuration file (subjxform validate FILE): it is read relative to it")
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
        case '\'' =>
          next()
          val sb = new java.lang.StringBuilder
          while (peek != '\'') { if (peek == EOF) fail("Unexpected EOF."); sb.appendCodePoint(next()) }
          next()
          Str(sb.toString, quoted = true, at)
        case '"' =>
          next()
          val sb = new java.lang.StringBuilder
          while (peek != '"') {
            if (peek == EOF) fail("Unexpected EOF.")
            val c = next()
            if (c == '\\') escape(sb) else sb.appendCodePoint(c)
          }
          next()
          Str(sb.toString, quoted = true, at)
        case '-' =>
          next()
          if (!isDigit(peek)) fail(if (peek == '.') "Floats must start with a digit, not '.'." else s"Expected a digit but got '${show(peek)}'.")
          negativeNumber(at)
        case '(' => fail("(...) blocks are not supported in mappings given to subject_map; use a quoted string")
        case '.' => next(); fail("Floats must start with a digit")
        case c if isNewLine(c) => fail("Expected value but found new line")
        case c if isDigit(c) => numberOrString(at)
        case _ => bareString(new java.lang.StringBuilder, pos, at)
      }
    }

    private def escape(sb: java.lang.StringBuilder): Unit = next() match {
      case 't' => sb.append('\t')
      case 'n' => sb.append('\n')
      case 'r' => sb.append('\r')
      case '"' => sb.append('"')
      case '\\' => sb.append('\\')
      case 'x' =>
        val a = next()
        val b = next()
        if (isNewLine(a) || isNewLine(b)) fail("Expected two hexadecimal digits after '\\x', but hit end of line")
        val hex = s"${show(a)}${show(b)}"
        if (!hex.forall(ch => Character.digit(ch, 16) >= 0) || hex.length != 2)
          fail(s"Expected two hexadecimal digits after '\\x', but got '$hex'")
        // nats-server adds the byte itself to the string: only ASCII survives as text.
        sb.append(java.lang.Integer.parseInt(hex, 16).toChar)
      case c =>
        fail(s"Invalid escape character '${show(c)}'. Only the following escape characters are allowed: " +
          "\\xXX, \\t, \\n, \\r, \\\", \\\\.")
    }

    /**
     * A bare string: up to a new line, blank, `,` `;` `]` `}` or a `'` (which it swallows); `\` escapes
     * work. `true`/`false`/`on`/`off`/`yes`/`no` are booleans and `$name` a variable reference.
     */
    private def bareString(sb: java.lang.StringBuilder, start: Int, at: Int): ConfValue = {
      var escaped = false
      var tailStart = start
      while (true) {
        val c = peek
        if (c == EOF || isNewLine(c) || isBlank(c) || c == ';' || c == ',' || c == ']' || c == '}') {
          val s = sb.toString
          if (escaped) return Str(s, quoted = false, at)
          val tail = text.substring(tailStart, pos)
          if (Set("true", "on", "yes").contains(tail.toLowerCase)) return Bool(true, at)
          if (Set("false", "off", "no").contains(tail.toLowerCase)) return Bool(false, at)
          if (tail.startsWith("$")) return variable(tail.substring(1), at)
          if (s.contains("{{")) unquotedFunction(s, at)
          return Str(s, quoted = false, at)
        }
        next()
        if (c == '\'') {
          val s = sb.toString
          if (s.contains("{{")) unquotedFunction(s, at)
          return Str(s, quoted = false, at)
        }
        if (c == '\\') { escape(sb); escaped = true; tailStart = pos }
        else sb.appendCodePoint(c)
      }
      throw new IllegalStateException
    }

    /** nats-server would keep only what comes before the first `}`: say so instead of guessing. */
    private def unquotedFunction(cut: String, at: Int): Nothing = {
      var p = pos
      while (p < text.length && !isSpace(text.codePointAt(p)) && text.charAt(p) != ',' && text.charAt(p) != ';') p += 1
      var whole = cut + text.substring(pos, p)
      while (whole.endsWith("}") && whole.count(_ == '}') > whole.count(_ == '{')) whole = whole.dropRight(1)
      throw new ConfSyntaxException(
        s"unquoted destination on line $at holds {{...}}: nats-server reads an unquoted value only up to its " +
          s"first '}' (here ${GoQuote(cut)}); put the destination in quotes: ${GoQuote(whole)}")
    }

    private def variable(name: String, at: Int): ConfValue = {
      if (name.startsWith("2a$")) return Str("$" + name, quoted = false, at) // a bcrypt hash, not a reference
      val inScope = scopes.reverseIterator.find(_.entries.contains(name))
      if (inScope.nonEmpty) { inScope.get.usedVariables += name; inScope.get.entries(name) }
      else fromEnvironment(file, name, at).getOrElse {
        val hint =
          if (file != null && file.inInclude) "an included file sees none of the variables of the file that includes it"
          else "a destination that starts with $ must be quoted"
        throw new ConfSyntaxException(s"variable reference for '$name' on line $at can not be found ($hint)")
      }
    }

    private def isNumberEnd(c: Int): Boolean =
      c == EOF || isNewLine(c) || isBlank(c) || c == '}' || c == ';' || c == ','

    /** After a leading digit: an integer, a float, an IP address, a date, or a bare string (`98%`). */
    private def numberOrString(at: Int): ConfValue = {
      val start = pos
      next()
      while (true) {
        val c = peek
        if (c == '-') {
          next()
          if (pos - start != 5) fail("All ISO8601 dates must be in full Zulu form.")
          for (f <- "00-00T00:00:00Z") {
            val d = next()
            if (f == '0' && !isDigit(d)) fail(s"Expected digit in ISO8601 datetime, but found '${show(d)}' instead.")
            if (f != '0' && f != d) fail(s"Expected '$f' in ISO8601 datetime, but found '${show(d)}' instead.")
          }
          return DateTime(text.substring(start, pos), at)
        } else if (isDigit(c)) next()
        else if (c == '.') { next(); return fraction(start, at) }
        else if (isSizeSuffix(c)) { next(); return sizedNumber(start, at) }
        else if (!isNumberEnd(c)) {
          // Not a number after all: the text so far and this character open a bare string.
          next()
          return bareString(new java.lang.StringBuilder(text.substring(start, pos)), start, at)
        } else return integer(text.substring(start, pos))
      }
      throw new IllegalStateException
    }

    private def negativeNumber(at: Int): ConfValue = {
      val start = pos - 1
      while (isDigit(peek)) next()
      if (peek == '.') { next(); fraction(start, at) }
      else if (isSizeSuffix(peek)) { next(); sizedNumber(start, at) }
      else integer(text.substring(start, pos))
    }

    private def fraction(start: Int, at: Int): ConfValue = {
      if (!isDigit(peek)) fail(s"Floats must have a digit after the '.', but got '${show(peek)}' instead.")
      while (isDigit(peek)) next()
      if (peek == '.') {
        // An IP address (127.0.0.1:4222): a string.
        while (isDigit(peek) || peek == '.' || peek == ':' || peek == '-') next()
        return Str(text.substring(start, pos), quoted = false, at)
      }
      val s = text.substring(start, pos)
      try Decimal(s.toDouble, at)
      catch { case _: NumberFormatException => throw new ConfSyntaxException(s"expected float, but got '$s'") }
    }

    private def sizedNumber(start: Int, at: Int): ConfValue = {
      while ("bBiI".indexOf(peek) >= 0 && peek != EOF) next()
      if (isNumberEnd(peek) || isDigit(peek)) integer(text.substring(start, pos))
      else bareString(new java.lang.StringBuilder(text.substring(start, pos)), start, at)
    }

    private def integer(s: String): ConfValue = {
      val digits = s.takeWhile(ch => Character.isDigit(ch) || ch == '-')
      val n = try digits.toLong catch {
        case _: NumberFormatException =>
          if (digits.length > 1 && digits.drop(1).forall(Character.isDigit)) throw new ConfSyntaxException(s"integer '$s' is out of the range")
          throw new ConfSyntaxException(s"expected integer, but got '$s'")
      }
      val scale: Long = s.substring(digits.length).trim.toLowerCase match {
        case "" => 1L
        case "k" => 1000L
        case "kb" | "ki" | "kib" => 1024L
        case "m" => 1000L * 1000
        case "mb" | "mi" | "mib" => 1024L * 1024
        case "g" => 1000L * 1000 * 1000
        case "gb" | "gi" | "gib" => 1024L * 1024 * 1024
        case "t" => 1000L * 1000 * 1000 * 1000
        case "tb" | "ti" | "tib" => 1024L * 1024 * 1024 * 1024
        case "p" => 1000L * 1000 * 1000 * 1000 * 1000
        case "pb" | "pi" | "pib" => 1024L * 1024 * 1024 * 1024 * 1024
        case "e" => 1000L * 1000 * 1000 * 1000 * 1000 * 1000
        case "eb" | "ei" | "eib" => 1024L * 1024 * 1024 * 1024 * 1024 * 1024
        case other => throw new ConfSyntaxException(s"unknown size suffix '$other' in '$s'")
      }
      Integer(n * scale, line)
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

  /** Strict JSON (RFC 8259) into the same values; None when the text is not JSON. */
  private object Json {
    def parse(text: String): Option[ConfValue] =
      try {
        val p = new JsonReader(text)
        val v = p.value()
        p.skipWs()
        if (p.atEnd) Some(v) else None
      } catch { case _: JsonError => None }

    private final class JsonError extends Exception(null, null, false, false)

    private final class JsonReader(s: String) {
      private var i = 0
      private var line = 1
      def atEnd: Boolean = i >= s.length
      private def err(): Nothing = throw new JsonError
      def skipWs(): Unit = while (i < s.length && " \t\r\n".indexOf(s.charAt(i)) >= 0) { if (s.charAt(i) == '\n') line += 1; i += 1 }
      private def expect(c: Char): Unit = { if (i >= s.length || s.charAt(i) != c) err(); i += 1 }

      // Objects and arrays being read, innermost last (no recursion: see MaxDepth).
      private sealed abstract class Frame
      private final class ObjFrame(val at: Int) extends Frame {
        val entries = mutable.LinkedHashMap.empty[String, ConfValue]
        val repeated = mutable.ArrayBuffer.empty[String]
        var key: String = _
      }
      private final class ArrFrame(val at: Int) extends Frame { val items = Vector.newBuilder[ConfValue] }
      private val frames = mutable.ArrayBuffer.empty[Frame]

      private def close(): ConfValue = frames.remove(frames.length - 1) match {
        case o: ObjFrame => Obj(o.entries.toVector, o.repeated.toVector, o.at)
        case a: ArrFrame => Arr(a.items.result(), a.at)
      }

      private def key(o: ObjFrame): Unit = { skipWs(); o.key = string(); skipWs(); expect(':') }

      def value(): ConfValue = {
        var v = start()
        while (true) {
          if (v != null && frames.isEmpty) return v
          frames.last match {
            case o: ObjFrame =>
              if (v == null) { // just opened
                skipWs()
                if (!atEnd && s.charAt(i) == '}') { i += 1; v = close() }
                else { key(o); v = start() }
              } else {
                if (o.entries.contains(o.key)) o.repeated += o.key
                o.entries(o.key) = v
                skipWs()
                if (!atEnd && s.charAt(i) == ',') { i += 1; key(o); v = start() }
                else { expect('}'); v = close() }
              }
            case a: ArrFrame =>
              if (v == null) {
                skipWs()
                if (!atEnd && s.charAt(i) == ']') { i += 1; v = close() } else v = start()
              } else {
                a.items += v
                skipWs()
                if (!atEnd && s.charAt(i) == ',') { i += 1; v = start() }
                else { expect(']'); v = close() }
              }
          }
        }
        throw new IllegalStateException
      }

      /** A value, or null when it opens an object or array (pushed as the innermost frame). */
      private def start(): ConfValue = {
        skipWs()
        if (atEnd) err()
        val at = line
        s.charAt(i) match {
          case '{' | '[' =>
            if (frames.length >= MaxDepth) throw tooDeep(line)
            frames += (if (s.charAt(i) == '{') new ObjFrame(at) else new ArrFrame(at))
            i += 1
            null
          case '"' => Str(string(), quoted = true, at)
          case 't' => literal("true"); Bool(true, at)
          case 'f' => literal("false"); Bool(false, at)
          case 'n' => literal("null"); Null(at)
          case _ => number(at)
        }
      }

      private def literal(w: String): Unit = { if (!s.startsWith(w, i)) err(); i += w.length }

      private def number(at: Int): ConfValue = {
        val start = i
        if (i < s.length && s.charAt(i) == '-') i += 1
        def digits(): Int = { val b = i; while (i < s.length && s.charAt(i) >= '0' && s.charAt(i) <= '9') i += 1; i - b }
        if (i < s.length && s.charAt(i) == '0') i += 1 else if (digits() == 0) err()
        var integral = true
        if (i < s.length && s.charAt(i) == '.') { i += 1; if (digits() == 0) err(); integral = false }
        if (i < s.length && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
          i += 1
          if (i < s.length && (s.charAt(i) == '+' || s.charAt(i) == '-')) i += 1
          if (digits() == 0) err()
          integral = false
        }
        val t = s.substring(start, i)
        if (!integral) Decimal(t.toDouble, at)
        else try Integer(t.toLong, at) catch { case _: NumberFormatException => Decimal(t.toDouble, at) }
      }

      private def string(): String = {
        expect('"')
        val sb = new java.lang.StringBuilder
        while (true) {
          if (atEnd) err()
          val c = s.charAt(i)
          i += 1
          c match {
            case '"' => return sb.toString
            case '\\' =>
              if (atEnd) err()
              val e = s.charAt(i)
              i += 1
              e match {
                case '"' => sb.append('"')
                case '\\' => sb.append('\\')
                case '/' => sb.append('/')
                case 'b' => sb.append('\b')
                case 'f' => sb.append('\f')
                case 'n' => sb.append('\n')
                case 'r' => sb.append('\r')
                case 't' => sb.append('\t')
                case 'u' =>
                  if (i + 4 > s.length) err()
                  val h = s.substring(i, i + 4)
                  if (!h.forall(ch => Character.digit(ch, 16) >= 0)) err()
                  sb.append(java.lang.Integer.parseInt(h, 16).toChar)
                  i += 4
                case _ => err()
              }
            case ch if ch < 0x20 => err()
            case ch => sb.append(ch)
          }
        }
        throw new IllegalStateException
      }
    }
  }
}

/**
 * One configuration file being read and the files it includes (see [[ConfSyntax.parseFile]]). `root` is
 * the document; [[fileOf]] names the file a value was written in.
 */
final class ConfFile private[subjxform] (val name: String, private[subjxform] val env: String => Option[String]) {
  import ConfValue._

  var root: Obj = _
  private val origins = new java.util.IdentityHashMap[ConfValue, String]
  private[subjxform] val envInProgress = scala.collection.mutable.HashSet.empty[String]
  private var depth = 0

  /** Whether an included file is being read (its variables are its own: nats-server's parser scopes). */
  private[subjxform] def inInclude: Boolean = depth > 0

  /** The file `v` was written in (this file's name unless an include brought it). */
  def fileOf(v: ConfValue): String = Option(origins.get(v)).getOrElse(name)

  private[subjxform] def read(path: String): Obj = {
    val text =
      try new String(java.nio.file.Files.readAllBytes(java.nio.file.Paths.get(path)), java.nio.charset.StandardCharsets.UTF_8)
      catch {
        case _: java.nio.file.NoSuchFileException => throw new ConfSyntaxException(s"open $path: no such file or directory")
        case e: java.io.IOException => throw new ConfSyntaxException(s"open $path: ${Option(e.getMessage).getOrElse(e.toString)}")
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
    val joined = if (currentDir.isEmpty || java.nio.file.Paths.get(path).isAbsolute) path else java.nio.file.Paths.get(currentDir, path).toString
    depth += 1
    if (depth > 32) throw new ConfSyntaxException(s"error parsing include file '$path', too many nested includes")
    val doc =
      try read(joined)
      catch { case e: ConfSyntaxException => throw new ConfSyntaxException(s"error parsing include file '$path', ${e.getMessage}") }
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
