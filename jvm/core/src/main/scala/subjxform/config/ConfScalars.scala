package subjxform.config

import subjxform.engine.GoQuote

/**
 * The scalars of nats-server's configuration syntax: quoted and bare strings, escapes, booleans, numbers
 * with size suffixes, dates. Apart because most of the lexer's corners are here, and none depend on the
 * nesting; [[ConfReader]] reads the maps and lists around them and resolves a bare `$name`.
 */
private[config] abstract class ConfScalars(input: String) extends ConfScanner(input) {
  import ConfScanner._
  import ConfValue._

  /** A `$name` reference: the reader of maps and lists knows the maps in scope (and the file's environment). */
  protected def variable(name: String, at: Int): ConfValue

  /** The value that starts here, which is no list or map. */
  protected final def scalar(at: Int): ConfValue = peek match {
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
      if (!isDigit(peek)) fail(
        if (peek == '.') "Floats must start with a digit, not '.'." else s"Expected a digit but got '${show(peek)}'.")
      negativeNumber(at)
    case '(' => fail("(...) blocks are not supported in mappings given to subject_map; use a quoted string")
    case '.' => next(); fail("Floats must start with a digit")
    case c if isNewLine(c) => fail("Expected value but found new line")
    case c if isDigit(c) => numberOrString(at)
    case _ => bareString(new java.lang.StringBuilder, pos, at)
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
    val n =
      try digits.toLong
      catch {
        case _: NumberFormatException =>
          if (digits.length > 1 && digits.drop(1).forall(Character.isDigit))
            throw new ConfSyntaxException(s"integer '$s' is out of the range")
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
}
