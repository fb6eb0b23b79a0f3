package subjxform.config

import scala.collection.mutable

/**
 * nats-server's config parser (its `conf` package, v2.15.1, as the server loads a file: `ParseWithChecks`)
 * over the items of [[ConfLexer]]: the document's map, nested maps and lists, `$name` references to the
 * maps in scope (else, for a file, the environment), and `include`. It keeps Go's stacks as they are: a key
 * waits on the key stack until a value takes it, so a key with no value before a `}` (`x {a }`) takes the
 * map being closed, as in nats-server. A value's line is the one nats-server's tokens give: its key's line
 * in a map, its own in a list. No recursion: the stacks are the reader's own, bounded by
 * [[ConfSyntax.MaxDepth]].
 *
 * @param path the file's path as nats-server names it in "config is invalid (PATH:LINE:POS)" ("" for a text)
 * @param file the configuration file being read (its includes and environment), or null for a text alone,
 *             where `include` is an error and `$name` only a variable of the text
 * @param envInProgress the environment variables being read (a cycle is an error), shared with their readers
 * @param dir the folder `include` paths are joined to (Go's `filepath.Dir` of the file's path)
 * @param refuseUnquotedBraces an unquoted value holding `{{` is an error (SPEC §4); false only to compare with
 *                             nats-server, where [[unquotedBracesLine]] then tells where the first one was
 */
private[config] final class ConfReader(input: Array[Byte], path: String, file: ConfFile,
    envInProgress: mutable.Set[String], dir: String, refuseUnquotedBraces: Boolean = true) {
  import ConfReader._
  import ConfValue._

  private val lexer = new ConfLexer(input)
  private val frames = mutable.ArrayBuffer.empty[Frame] // the maps and lists being read, innermost last
  private val keys = mutable.ArrayBuffer.empty[String] // keys waiting for their value, innermost last
  private val keyLines = mutable.ArrayBuffer.empty[Int]
  private val keyColumns = mutable.ArrayBuffer.empty[Int]

  /** The line of the first unquoted value holding `{{` (0: none), when they are not refused. */
  var unquotedBracesLine = 0

  def document(): Obj = {
    val root = new MapFrame
    frames += root
    var previous: Item = null
    while (true) {
      val it = lexer.nextItem()
      if (it.kind == Item.Eof) {
        // A key the text ends after is an error; a `}` read as a key is allowed (JSON-like configs).
        if (previous != null && previous.kind == Item.Key && !(previous.value.length == 1 && previous.value(0) == '}'))
          throw new ConfSyntaxException(s"config is invalid ($path:${it.line}:${it.pos})")
        return root.result(1)
      }
      previous = it
      read(it)
    }
    throw new IllegalStateException
  }

  private def read(it: Item): Unit = it.kind match {
    case Item.Error => throw new ConfSyntaxException(s"Parse error on line ${it.line}: '${GoBytes.decode(it.value)}'")
    case Item.Key => keys += GoBytes.decode(it.value); keyLines += it.line; keyColumns += it.pos
    case Item.MapStart => open(new MapFrame, it.line)
    case Item.ArrayStart => open(new ArrFrame, it.line)
    case Item.MapEnd | Item.ArrayEnd =>
      val closed = frames.remove(frames.length - 1)
      set(closed.result(lineOf(it.line)).at(columnOf(it.pos)))
    case Item.Str =>
      val s = GoBytes.decode(it.value)
      if (!it.quoted && s.contains("{{")) {
        if (refuseUnquotedBraces) throw unquotedFunction(s, it)
        if (unquotedBracesLine == 0) unquotedBracesLine = it.line
        if (file != null && file.unquotedBracesLine == 0) file.unquotedBracesLine = it.line
      }
      set(Str(s, it.quoted, lineOf(it.line)).at(columnOf(it.pos)))
    case Item.Integer =>
      val n = ConfScalars.integer(it.value)
      if (n != ConfScalars.NoValue) set(Integer(n, lineOf(it.line)).at(columnOf(it.pos)))
    case Item.Float => set(Decimal(ConfScalars.float(it.value), lineOf(it.line)).at(columnOf(it.pos)))
    case Item.Bool => set(Bool(Seq("true", "yes", "on").exists(ConfLexer.lowerEquals(it.value, 0, it.value.length, _)),
          lineOf(it.line)).at(columnOf(it.pos)))
    case Item.DateTime => set(DateTime(ConfScalars.dateTime(it.value), lineOf(it.line)).at(columnOf(it.pos)))
    case Item.Variable =>
      set(relined(variable(GoBytes.decode(it.value), it.line), lineOf(it.line)).at(columnOf(it.pos)))
    case Item.Include => include(GoBytes.decode(it.value), it.line)
    case _ => // a comment
  }

  private def open(f: Frame, line: Int): Unit = {
    if (frames.length >= ConfSyntax.MaxDepth) throw ConfSyntax.tooDeep(line)
    frames += f
  }

  /** The line nats-server gives a value read now: its key's in a map, its own in a list. */
  private def lineOf(itemLine: Int): Int = frames.last match {
    case _: MapFrame if keyLines.nonEmpty => keyLines.last
    case _ => itemLine
  }

  /** The column nats-server gives a value read now, as [[lineOf]] its line: its key's in a map, its own in a list. */
  private def columnOf(itemPos: Int): Int = frames.last match {
    case _: MapFrame if keyColumns.nonEmpty => keyColumns.last
    case _ => itemPos
  }

  private def set(v: ConfValue): Unit = frames.last match {
    case a: ArrFrame => a.items += v
    case m: MapFrame =>
      if (keys.isEmpty) throw new ConfSyntaxException("BUG in parser, keys stack empty")
      val key = keys.remove(keys.length - 1)
      keyLines.remove(keyLines.length - 1)
      keyColumns.remove(keyColumns.length - 1)
      m.put(key, v)
  }

  /** `$name`: a bcrypt hash; else the innermost map in scope that has it; else the environment variable. */
  private def variable(name: String, line: Int): ConfValue = {
    if (name.startsWith("2a$")) return Str("$" + name, quoted = false, line)
    var i = frames.length - 1
    while (i >= 0) {
      frames(i) match {
        case m: MapFrame if m.entries.contains(name) => m.usedVariables += name; return m.entries(name)
        case _ =>
      }
      i -= 1
    }
    if (envInProgress.contains(name))
      throw new ConfSyntaxException(s"variable reference for '$name' on line $line could not be parsed: " +
        s"variable reference cycle for '$name'")
    val fromEnv =
      if (file == null) None
      else {
        envInProgress += name
        try file.env(name).map { raw =>
            // nats-server reads the variable's text as the value of a key, with the same cycle check.
            val sub =
              try new ConfReader(GoBytes.encode(s"pk=$raw"), "", file, envInProgress, ".", refuseUnquotedBraces)
                  .document()
              catch {
                case e: ConfSyntaxException =>
                  throw new ConfSyntaxException(
                    s"variable reference for '$name' on line $line could not be parsed: ${e.getMessage}")
              }
            sub.get("pk")
          }.flatten
        finally envInProgress -= name
      }
    fromEnvironment(fromEnv, name, line)
  }

  private def fromEnvironment(v: Option[ConfValue], name: String, line: Int): ConfValue = v.getOrElse {
    val hint =
      if (file == null) "a config read as text sees no environment variables, and a destination that starts " +
        "with $ must be quoted"
      else if (file.inInclude) "an included file sees none of the variables of the file that includes it"
      else "a destination that starts with $ must be quoted"
    throw new ConfSyntaxException(s"variable reference for '$name' on line $line can not be found ($hint)")
  }

  /** `include PATH`: the included file's entries join the map being read, each with its line and file. */
  private def include(rawPath: String, line: Int): Unit = {
    if (file == null)
      throw new ConfSyntaxException(s"error parsing include file '$rawPath', a config read as text includes " +
        "no files: give the config's file (a path, or subjxform validate FILE)")
    val included =
      try file.include(rawPath, dir)
      catch {
        case e: ConfSyntaxException =>
          throw new ConfSyntaxException(s"error parsing include file '$rawPath', ${e.getMessage}")
      }
    val m = frames.last.asInstanceOf[MapFrame] // an include is read where a key is, so in a map
    for ((k, v) <- included.entries) {
      keys += k
      keyLines += v.line
      keyColumns += v.column
      set(v)
      if (included.usedVariables(k)) m.usedVariables += k
    }
  }

  /**
   * nats-server keeps only what comes before the first `}`: say so, with the fix, instead of guessing. The
   * lexer stopped the value at that `}` or at a `,` inside the function's arguments; the whole destination
   * goes on to the first white space (ASCII), or `,` or `;` outside `{{ }}` and parentheses (a `}` closing
   * the map it is in is not its own).
   */
  private def unquotedFunction(cut: String, it: Item): UnquotedBracesException = {
    val start = it.end - it.value.length
    var depth = 0 // braces and parentheses open
    var end = start
    var going = true
    while (going && end < input.length) {
      input(end) match {
        case ' ' | '\t' | '\n' | 0x0b | 0x0c | '\r' => going = false
        case ',' | ';' if depth == 0 => going = false
        case '{' | '(' => depth += 1; end += 1
        case '}' | ')' if depth == 0 => going = false // it closes the map the value is in
        case '}' | ')' => depth -= 1; end += 1
        case _ => end += 1
      }
    }
    val whole = GoBytes.decode(input, start, end)
    new UnquotedBracesException(
      s"unquoted destination on line ${it.line} holds {{...}}: nats-server reads an " +
        s"unquoted value only up to its first '}' (here ${subjxform.engine.GoQuote(cut)}); put the destination in " +
        s"quotes: ${subjxform.engine.GoQuote(whole)}", it.line, start, end)
  }
}

private[config] object ConfReader {
  import ConfValue._

  private sealed abstract class Frame { def result(line: Int): ConfValue }

  private final class MapFrame extends Frame {
    val entries = mutable.LinkedHashMap.empty[String, ConfValue]
    val repeated = mutable.ArrayBuffer.empty[String]
    val usedVariables = mutable.Set.empty[String] // keys whose current value a `$name` used

    def put(key: String, v: ConfValue): Unit = {
      if (entries.contains(key)) repeated += key
      entries(key) = v
      usedVariables -= key // a new value, which no reference has used yet
    }

    def result(line: Int): Obj = {
      val o = Obj(entries.toVector, repeated.toVector, line)
      o.usedVariables = usedVariables.toSet
      o
    }
  }

  private final class ArrFrame extends Frame {
    val items = Vector.newBuilder[ConfValue]
    def result(line: Int): Arr = Arr(items.result(), line)
  }

  /**
   * `v` on another line (a variable's value where it is referenced, as nats-server's token does); its column
   * is the caller's to give ([[ConfValue.at]]), the values inside keep theirs (the tokens of the definition).
   */
  def relined(v: ConfValue, line: Int): ConfValue = v match {
    case x: Str => x.copy(line = line)
    case x: Integer => x.copy(line = line)
    case x: Decimal => x.copy(line = line)
    case x: Bool => x.copy(line = line)
    case x: DateTime => x.copy(line = line)
    case x: Null => x.copy(line = line)
    case x: Arr => x.copy(line = line)
    case x: Obj =>
      val o = x.copy(line = line)
      o.usedVariables = x.usedVariables
      o
  }
}
