package subjxform.config

import java.nio.charset.StandardCharsets.UTF_8

/**
 * Go's `time.ParseDuration`, which nats-server reads every duration of a config with (`ping_interval: "2m"`): the
 * nanoseconds, or Go's error in its words (`time: unknown unit " s" in duration "1 s"`), byte for byte as Go reads the
 * string's UTF-8 bytes.
 */
private[config] object GoDuration {
  private val MaxMagnitude = BigInt(1) << 63 // Go's 1<<63, as a uint64

  private val Units: Map[String, BigInt] = Map(
    "ns" -> BigInt(1L), "us" -> BigInt(1000L), "\u00b5s" -> BigInt(1000L), "\u03bcs" -> BigInt(1000L),
    "ms" -> BigInt(1000000L), "s" -> BigInt(1000000000L), "m" -> BigInt(60000000000L), "h" -> BigInt(3600000000000L))

  /** Go's `time.quote`: the bytes in double quotes, `"` and `\` escaped, a control or non-ASCII byte as `\xNN`. */
  def quote(s: String): String = quoteBytes(s.getBytes(UTF_8))

  private def quoteBytes(bytes: Array[Byte]): String = {
    val b = new StringBuilder("\"")
    for (x <- bytes) {
      val c = x & 0xff
      if (c < 0x20 || c >= 0x80) b.append(f"\\x$c%02x")
      else {
        if (c == '"' || c == '\\') b.append('\\')
        b.append(c.toChar)
      }
    }
    b.append('"').toString
  }

  /** Go's `time.Duration.String`: `1s`, `1m30s`, `1.5ms`, `2h0m0s`; `0s`. */
  def format(nanos: Long): String = {
    if (nanos == 0) return "0s"
    val u = BigInt(nanos).abs

    /** `v`'s last `prec` digits as a fraction without trailing zeros (".25", or "" for none), and the rest. */
    def fraction(v: BigInt, prec: Int): (String, BigInt) = {
      val scale = BigInt(10).pow(prec)
      val digits = (v % scale).toString.reverse.padTo(prec, '0').reverse.reverse.dropWhile(_ == '0').reverse
      (if (digits.isEmpty) "" else "." + digits, v / scale)
    }
    val body =
      if (u < BigInt(1000000000L)) {
        val (unit, prec) = if (u < 1000) ("ns", 0) else if (u < 1000000) ("\u00b5s", 3) else ("ms", 6)
        val (f, whole) = fraction(u, prec)
        s"$whole$f$unit"
      } else {
        val (f, seconds) = fraction(u, 9)
        val (minutes, hours) = (seconds / 60, seconds / 3600)
        val s = s"${seconds % 60}${f}s"
        if (minutes == 0) s else if (hours == 0) s"${minutes}m$s" else s"${hours}h${minutes % 60}m$s"
      }
    if (nanos < 0) "-" + body else body
  }

  /** The duration in nanoseconds, or Go's error text. */
  def parse(text: String): Either[String, Long] = {
    val s = text.getBytes(UTF_8)
    def invalid = Left(s"time: invalid duration ${quote(text)}")
    var i = 0
    var neg = false
    if (s.nonEmpty && (s(0) == '-' || s(0) == '+')) { neg = s(0) == '-'; i = 1 }
    if (s.length - i == 1 && s(i) == '0') return Right(0L)
    if (i == s.length) return invalid
    def digit(k: Int) = k < s.length && s(k) >= '0' && s(k) <= '9'
    var d = BigInt(0)
    while (i < s.length) {
      if (!(s(i) == '.' || digit(i))) return invalid
      // [0-9]*, refused past 1<<63 as Go's leadingInt refuses it
      val start = i
      var v = BigInt(0)
      while (digit(i)) {
        if (v > MaxMagnitude / 10) return invalid
        v = v * 10 + (s(i) - '0')
        if (v > MaxMagnitude) return invalid
        i += 1
      }
      val pre = i != start
      // (\.[0-9]*)?, whose precision stops growing where Go's leadingFraction stops it
      var f = BigInt(0)
      var scale = 1.0
      var post = false
      if (i < s.length && s(i) == '.') {
        i += 1
        val fractionStart = i
        var overflow = false
        while (digit(i)) {
          if (!overflow) {
            if (f > (MaxMagnitude - 1) / 10) overflow = true
            else {
              val y = f * 10 + (s(i) - '0')
              if (y > MaxMagnitude) overflow = true
              else { f = y; scale *= 10 }
            }
          }
          i += 1
        }
        post = i != fractionStart
      }
      if (!pre && !post) return invalid
      val unitStart = i
      while (i < s.length && !(s(i) == '.' || digit(i))) i += 1
      if (i == unitStart) return Left(s"time: missing unit in duration ${quote(text)}")
      val unitBytes = java.util.Arrays.copyOfRange(s, unitStart, i)
      val unit = Units.get(new String(unitBytes, UTF_8)).filter(_ =>
        new String(unitBytes, UTF_8).getBytes(UTF_8)
          .sameElements(unitBytes)) match {
        case Some(u) => u
        case None => return Left(s"time: unknown unit ${quoteBytes(unitBytes)} in duration ${quote(text)}")
      }
      if (v > MaxMagnitude / unit) return invalid
      v *= unit
      if (f > 0) {
        // Go adds uint64(float64(f) * (float64(unit) / scale)): the same float arithmetic
        v += BigInt((f.toDouble * (unit.toDouble / scale)).toLong)
        if (v > MaxMagnitude) return invalid
      }
      d += v
      if (d > MaxMagnitude) return invalid
    }
    if (neg) Right((-d).toLong)
    else if (d > MaxMagnitude - 1) invalid
    else Right(d.toLong)
  }
}
