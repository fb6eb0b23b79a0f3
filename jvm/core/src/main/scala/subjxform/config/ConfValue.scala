package subjxform.config

/**
 * A value of nats-server's configuration language, as its parser leaves it: a string holds a Go string's
 * bytes ([[GoBytes]]) and remembers whether it was quoted; `line` is the line nats-server's token gives it
 * (its key's line in a map, its own in a list), which messages name, and `column` that token's position on
 * it, which `nats-server -t` prints after the line (`FILE:LINE:COL: ...`).
 */
sealed trait ConfValue {
  def line: Int

  /**
   * The position nats-server's token gives the value (its key's in a map, its own in a list), as its lexer
   * counts it: bytes from the '\n' before the line's start (so from 1), but from 0 on the first line, and
   * after an escaped string the length of its value rather than of its text (see [[ConfLexer]]). 0 for a
   * value no config text gave (JSON of encoding/json, built ones). Set once by the reader ([[at]]); not part
   * of the value's equality, as two values read alike are the same value wherever they were written.
   */
  def column: Int = col
  private var col = 0

  /** This value, at `column` of its line: the reader's, as it makes it. */
  private[config] def at(column: Int): this.type = { col = column; this }
}

object ConfValue {
  final case class Str(value: String, quoted: Boolean, line: Int) extends ConfValue
  final case class Integer(value: Long, line: Int) extends ConfValue
  final case class Decimal(value: Double, line: Int) extends ConfValue
  final case class Bool(value: Boolean, line: Int) extends ConfValue
  final case class DateTime(value: String, line: Int) extends ConfValue
  final case class Null(line: Int) extends ConfValue // JSON's null only
  final case class Arr(items: Vector[ConfValue], line: Int) extends ConfValue

  /** Keys in written order; a repeated key replaces the earlier value, as in nats-server's Go map. */
  final case class Obj(
      entries: Vector[(String, ConfValue)], repeatedKeys: Vector[String], line: Int) extends ConfValue {
    def get(key: String): Option[ConfValue] = entries.collectFirst { case (k, v) if k == key => v }

    /**
     * Keys of entries that a `$name` reference used: variables, which nats-server skips where it reads
     * the block's entries as settings (its token's IsUsedVariable). Not part of the value's equality.
     */
    var usedVariables: Set[String] = Set.empty
  }

  /** Go's `%T` of the value nats-server would hold. */
  def goType(v: ConfValue): String = v match {
    case _: Str => "string"
    case _: Integer => "int64"
    case _: Decimal => "float64"
    case _: Bool => "bool"
    case _: DateTime => "time.Time"
    case _: Null => "<nil>"
    case _: Arr => "[]interface {}"
    case _: Obj => "map[string]interface {}"
  }

  /**
   * Go's `%v` of the value nats-server would hold, for messages that quote it; lists and maps nested
   * more than [[GoTextDepth]] deep are shown as `...` (a message need not repeat a hostile text).
   */
  def goText(v: ConfValue): String = goText(v, 0)

  final val GoTextDepth = 8

  /**
   * `v` written in nats-server's configuration syntax, so that [[ConfSyntax]] reads back the same values,
   * types included (a mappings block handed to Python and read again by `subject_map`). Where the
   * syntax allows it the text is JSON too. A float is written with digits only (`1e10` would read as a
   * string); a byte that is no UTF-8 is written `\xHH`; JSON's null, which the syntax lacks, as `null`
   * (a string there). Python's `configs.conf_text` writes a dict the same way.
   */
  def confText(v: ConfValue): String = {
    val b = new java.lang.StringBuilder
    writeConf(v, b)
    b.toString
  }

  private def writeConf(v: ConfValue, b: java.lang.StringBuilder): Unit = v match {
    case Str(s, _, _) => quoteConf(s, b)
    case Integer(n, _) => b.append(n)
    case Decimal(d, _) =>
      if (d.isNaN || d.isInfinite) quoteConf(d.toString, b)
      else if (d == 0) b.append(if (1 / d < 0) "-0.0" else "0.0")
      else {
        val plain = java.math.BigDecimal.valueOf(d).toPlainString
        b.append(plain).append(if (plain.contains('.')) "" else ".0")
      }
    case Bool(x, _) => b.append(x)
    case DateTime(s, _) => b.append(s)
    case Null(_) => b.append("null")
    case Arr(items, _) =>
      b.append('[')
      items.zipWithIndex.foreach { case (x, i) => if (i > 0) b.append(", "); writeConf(x, b) }
      b.append(']')
    case Obj(entries, _, _) =>
      b.append('{')
      entries.zipWithIndex.foreach { case ((k, x), i) =>
        if (i > 0) b.append(", ")
        b.append(confKey(k)).append(": ")
        writeConf(x, b)
      }
      b.append('}')
  }

  /** A key as the syntax can hold it: in double quotes (which have no escapes), else single, else bare. */
  private def confKey(k: String): String =
    if (!k.contains('"') && !k.contains('\u0000')) "\"" + k + "\""
    else if (!k.contains('\'') && !k.contains('\u0000')) "'" + k + "'"
    else if (k.nonEmpty && k.forall(c => c > ' ' && c != '=' && c != ':' && !ConfLexer.isSpace(c)) &&
      k.head != '"' && k.head != '\'' && k.head != '{' && k.head != '#' && k.head != '/')
      k
    else throw new ConfSyntaxException(s"the key ${subjxform.engine.GoQuote(k)} cannot be written in nats-server's " +
      "configuration syntax (it holds both quotes and white space or a NUL)")

  /** A string in double quotes with the escapes the syntax has (`\xHH` for a byte that is no UTF-8). */
  private def quoteConf(s: String, b: java.lang.StringBuilder): Unit = {
    b.append('"')
    var i = 0
    while (i < s.length) {
      val c = s.charAt(i)
      c match {
        case '"' => b.append("\\\"")
        case '\\' => b.append("\\\\")
        case '\n' => b.append("\\n")
        case '\r' => b.append("\\r")
        case '\t' => b.append("\\t")
        case _ if c < 0x20 || (c >= 0xdc80 && c <= 0xdcff) => b.append(f"\\x${c & 0xff}%02x")
        case _
            if Character.isSurrogate(c) && !(Character.isHighSurrogate(c) && i + 1 < s.length &&
              Character.isLowSurrogate(s.charAt(i + 1))) =>
          GoBytes.encode(c.toString).foreach(x => b.append(f"\\x${x & 0xff}%02x")) // a lone one: its three bytes
        case _ => b.append(c)
      }
      i += 1
    }
    b.append('"')
  }

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
    case Obj(entries, _, _) =>
      entries.sortBy(_._1).map { case (k, x) => s"$k:${goText(x, depth + 1)}" }.mkString("map[", " ", "]")
  }
}

/** A text that neither nats-server's configuration parser nor a JSON parser accepts. */
class ConfSyntaxException(message: String) extends IllegalArgumentException(message)

/**
 * An unquoted value holding `{{` (SPEC §4: nats-server would cut it at its first `}`), on `line`: the whole
 * destination is the text's bytes `[start, end)`, which [[quoted]] puts in quotes (nothing else moves, so the
 * other lines keep their numbers).
 */
final class UnquotedBracesException(message: String, val line: Int, val start: Int, val end: Int)
  extends ConfSyntaxException(message) {
  def quoted(text: Array[Byte]): Array[Byte] = {
    val out = new java.io.ByteArrayOutputStream(text.length + 2)
    out.write(text, 0, start)
    out.write('"')
    out.write(text, start, end - start)
    out.write('"')
    out.write(text, end, text.length - end)
    out.toByteArray
  }
}
