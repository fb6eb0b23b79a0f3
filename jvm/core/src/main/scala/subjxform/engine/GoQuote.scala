package subjxform.engine

/** Go's `%q` (`strconv.Quote`), so that errors read exactly as nats-server writes them. */
object GoQuote {
  def apply(s: String): String = {
    val b = new java.lang.StringBuilder(s.length + 2)
    b.append('"')
    var i = 0
    while (i < s.length) {
      val cp = s.codePointAt(i)
      i += Character.charCount(cp)
      cp match {
        case '"' => b.append("\\\"")
        case '\\' => b.append("\\\\")
        case 0x07 => b.append("\\a")
        case '\b' => b.append("\\b")
        case '\f' => b.append("\\f")
        case '\n' => b.append("\\n")
        case '\r' => b.append("\\r")
        case '\t' => b.append("\\t")
        case 0x0b => b.append("\\v")
        case c if isPrint(c) => b.appendCodePoint(c)
        case c if c < 0x80 => b.append(f"\\x$c%02x")
        case c if c < 0x10000 => b.append(f"\\u$c%04x")
        case c => b.append(f"\\U$c%08x")
      }
    }
    b.append('"').toString
  }

  /** Go's `unicode.IsPrint`: letters, marks, numbers, punctuation, symbols and the ASCII space. */
  private def isPrint(c: Int): Boolean = c == ' ' || {
    Character.getType(c) match {
      case Character.UPPERCASE_LETTER | Character.LOWERCASE_LETTER | Character.TITLECASE_LETTER |
          Character.MODIFIER_LETTER | Character.OTHER_LETTER | Character.NON_SPACING_MARK |
          Character.ENCLOSING_MARK | Character.COMBINING_SPACING_MARK | Character.DECIMAL_DIGIT_NUMBER |
          Character.LETTER_NUMBER | Character.OTHER_NUMBER | Character.CONNECTOR_PUNCTUATION |
          Character.DASH_PUNCTUATION | Character.START_PUNCTUATION | Character.END_PUNCTUATION |
          Character.INITIAL_QUOTE_PUNCTUATION | Character.FINAL_QUOTE_PUNCTUATION |
          Character.OTHER_PUNCTUATION | Character.MATH_SYMBOL | Character.CURRENCY_SYMBOL |
          Character.MODIFIER_SYMBOL | Character.OTHER_SYMBOL => true
      case _ => false
    }
  }
}
