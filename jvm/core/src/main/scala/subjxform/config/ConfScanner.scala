package subjxform.config

/**
 * The cursor over a text in nats-server's configuration syntax: code points, the line and comments. Apart
 * so that one piece moves the cursor and counts lines, which every message names. [[ConfScalars]] and
 * [[ConfReader]] extend it: their reading stays direct calls on one cursor, nothing allocated per character.
 */
private[config] abstract class ConfScanner(protected final val text: String) {
  import ConfScanner._

  protected var pos = 0
  protected var line = 1

  protected final def peek: Int = if (pos >= text.length) EOF else text.codePointAt(pos)
  protected final def peekAt(ahead: Int): Int = {
    var p = pos
    var i = 0
    while (i < ahead && p < text.length) { p += Character.charCount(text.codePointAt(p)); i += 1 }
    if (p >= text.length) EOF else text.codePointAt(p)
  }
  protected final def next(): Int = {
    val c = peek
    if (c != EOF) { pos += Character.charCount(c); if (c == '\n') line += 1 }
    c
  }

  protected final def fail(message: String): Nothing =
    throw new ConfSyntaxException(s"Parse error on line $line: '$message'")
  protected final def show(c: Int): String =
    if (c == EOF) "\\x00" else if (c == '\n') "\\n" else new String(Character.toChars(c))

  protected final def skipComment(): Unit = while (peek != EOF && !isNewLine(peek)) next()
}

/** The character classes of nats-server's lexer, on code points. */
private[config] object ConfScanner {
  final val EOF = -1

  /** Go's `unicode.IsSpace`. */
  def isSpace(c: Int): Boolean =
    c == ' ' || (c >= '\t' && c <= '\r') || c == 0x85 || c == 0xa0 || (c > 0xff && Character.isSpaceChar(c))
  def isBlank(c: Int): Boolean = c == ' ' || c == '\t'
  def isNewLine(c: Int): Boolean = c == '\n' || c == '\r'
  def isDigit(c: Int): Boolean = c != EOF && Character.isDigit(c)
  def isKeySeparator(c: Int): Boolean = c == '=' || c == ':'
  def isSizeSuffix(c: Int): Boolean = "kKmMgGtTpPeE".indexOf(c) >= 0 && c != EOF
  def isNumberEnd(c: Int): Boolean =
    c == EOF || isNewLine(c) || isBlank(c) || c == '}' || c == ';' || c == ','
}
