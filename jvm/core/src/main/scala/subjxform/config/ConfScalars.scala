package subjxform.config

/**
 * What nats-server's parser makes of a scalar item's text: Go's `strconv.ParseInt` (and the size suffixes),
 * `strconv.ParseFloat` and `time.Parse` with their errors, in its words. Apart from [[ConfReader]] because
 * these are Go's library rules, not the config syntax: most of the values the lexer accepts and the parser
 * refuses (`৫`, `2024-02-30T00:00:00Z`, a float past the range) are refused here.
 */
private[config] object ConfScalars {

  /** An integer whose size suffix nats-server does not know (`1kbb`): it sets no value at all. */
  final val NoValue: java.lang.Long = null

  /**
   * The integer item `text` (digits, maybe a `-`, maybe a size suffix): its value, or [[NoValue]].
   * Like nats-server, it counts the leading digits in runes and cuts the text there in bytes, so that a
   * digit of another script (`৫`) is never a number; a product past 64 bits wraps as Go's does.
   */
  def integer(text: Array[Byte]): java.lang.Long = {
    var runes = 0
    var i = 0
    var reading = true
    while (reading && i < text.length) {
      val r = ConfLexer.decodeRune(text, i)
      val c = r & 0xffffff
      if (ConfLexer.isDigit(c) || c == '-') { runes += 1; i += r >>> 24 }
      else reading = false
    }
    val digits = math.min(runes, text.length)
    val n = parseInt(text, digits) match {
      case Right(v) => v
      case Left(true) => throw new ConfSyntaxException(s"integer '${GoBytes.decode(text)}' is out of the range")
      case Left(false) => throw new ConfSyntaxException(s"expected integer, but got '${GoBytes.decode(text)}'")
    }
    val suffix = new String(text, digits, text.length - digits, java.nio.charset.StandardCharsets.ISO_8859_1)
    Scales.get(suffix.trim.toLowerCase(java.util.Locale.ROOT)) match {
      case Some(scale) => n * scale
      case None => NoValue
    }
  }

  private val Scales: Map[String, Long] = {
    val powers = Seq("k", "m", "g", "t", "p", "e").zipWithIndex
    Map("" -> 1L) ++ powers.flatMap { case (p, i) =>
      val decimal = Seq.fill(i + 1)(1000L).product
      val binary = Seq.fill(i + 1)(1024L).product
      Seq(p -> decimal, s"${p}b" -> binary, s"${p}i" -> binary, s"${p}ib" -> binary)
    }
  }

  /** Go's `strconv.ParseInt(text[0, until), 10, 64)`: the value, or Left(whether the error is the range's). */
  private def parseInt(text: Array[Byte], until: Int): Either[Boolean, Long] = {
    if (until == 0) return Left(false)
    val negative = text(0) == '-'
    val from = if (text(0) == '-' || text(0) == '+') 1 else 0
    if (from == until) return Left(false)
    // strconv.ParseUint: stops at the first byte that is no digit, or the first that overflows 64 bits.
    val cutoff = java.lang.Long.divideUnsigned(-1L, 10) + 1
    var n = 0L
    var i = from
    while (i < until) {
      val d = text(i) - '0'
      if (d < 0 || d > 9) return Left(false)
      if (java.lang.Long.compareUnsigned(n, cutoff) >= 0) return Left(true)
      val n1 = n * 10 + d
      if (java.lang.Long.compareUnsigned(n1, n * 10) < 0) return Left(true)
      n = n1
      i += 1
    }
    val limit = Long.MinValue // 1 << 63, unsigned
    if (!negative && java.lang.Long.compareUnsigned(n, limit) >= 0) Left(true)
    else if (negative && java.lang.Long.compareUnsigned(n, limit) > 0) Left(true)
    else Right(if (negative) -n else n)
  }

  /** Go's `strconv.ParseFloat(text, 64)` of a float item (`-?digits.digits`, the digits of any script). */
  def float(text: Array[Byte]): Double = {
    val s = GoBytes.decode(text)
    if (!text.forall(b => b >= 0)) throw new ConfSyntaxException(s"expected float, but got '$s'")
    val d = java.lang.Double.parseDouble(s) // correctly rounded, as Go's; an underflow is 0 in both
    if (d.isInfinite) throw new ConfSyntaxException(s"float '$s' is out of the range")
    d
  }

  /**
   * Go's `time.Parse("2006-01-02T15:04:05Z", text)` of a date item: ASCII digits, and a date and time
   * that exist (no February 30th, no hour 24). The text as written (which is how Go prints it back).
   */
  def dateTime(text: Array[Byte]): String = {
    val s = GoBytes.decode(text)
    def fail() = throw new ConfSyntaxException(s"expected Zulu formatted DateTime, but got '$s'")
    if (text.length != 20 || !text.forall(b => b >= 0)) fail()
    def num(from: Int, until: Int): Int = {
      var n = 0
      for (i <- from until until) { val d = s.charAt(i) - '0'; if (d < 0 || d > 9) fail(); n = n * 10 + d }
      n
    }
    val (year, month, day) = (num(0, 4), num(5, 7), num(8, 10))
    val (hour, minute, second) = (num(11, 13), num(14, 16), num(17, 19))
    val leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    val days = month match {
      case 2 => if (leap) 29 else 28
      case 4 | 6 | 9 | 11 => 30
      case _ => 31
    }
    if (month < 1 || month > 12 || day < 1 || day > days || hour > 23 || minute > 59 || second > 59) fail()
    s
  }
}
