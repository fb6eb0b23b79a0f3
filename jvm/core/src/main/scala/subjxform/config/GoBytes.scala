package subjxform.config

/**
 * A Go string's bytes held in a Java String. nats-server's config values are Go strings, which are bytes:
 * `"\xc3\x91"` is the two bytes of `Ñ`, and `"\xff"` one byte that is no UTF-8 at all. Valid UTF-8 is read
 * as its characters; every byte of an invalid sequence becomes the lone surrogate U+DC80 + (byte - 0x80),
 * as Python's `surrogateescape` does, so the bytes come back unchanged ([[encode]]) and the two readers
 * (this one and python/src/subjxform/portable/_confsyntax.py) hold the same text.
 */
object GoBytes {

  /** The bytes a text stands for: UTF-8, with the escaped bytes back as they were. */
  def encode(s: String): Array[Byte] = {
    var i = 0
    while (i < s.length && !Character.isSurrogate(s.charAt(i))) i += 1
    if (i == s.length) return s.getBytes(java.nio.charset.StandardCharsets.UTF_8)
    val out = new java.io.ByteArrayOutputStream(s.length + 8)
    i = 0
    while (i < s.length) {
      val c = s.codePointAt(i)
      i += Character.charCount(c)
      if (c >= 0xdc80 && c <= 0xdcff) out.write(c - 0xdc00)
      else if (c < 0x80) out.write(c)
      else if (c < 0x800) { out.write(0xc0 | c >> 6); out.write(0x80 | c & 0x3f) }
      else if (c < 0x10000) { // a lone surrogate other than an escaped byte is written as its three bytes
        out.write(0xe0 | c >> 12); out.write(0x80 | c >> 6 & 0x3f); out.write(0x80 | c & 0x3f)
      } else {
        out.write(0xf0 | c >> 18); out.write(0x80 | c >> 12 & 0x3f); out.write(0x80 | c >> 6 & 0x3f)
        out.write(0x80 | c & 0x3f)
      }
    }
    out.toByteArray
  }

  /** The text of `b[from, until)`: its characters, and an escaped byte for every byte Go reads as U+FFFD. */
  def decode(b: Array[Byte], from: Int, until: Int): String = {
    var i = from
    while (i < until && b(i) >= 0) i += 1
    if (i == until) return new String(b, from, until - from, java.nio.charset.StandardCharsets.ISO_8859_1)
    val sb = new java.lang.StringBuilder(until - from)
    i = from
    while (i < until) {
      val r = ConfLexer.decodeRune(b, i, until)
      val c = r & 0xffffff
      val width = r >>> 24
      if (c == 0xfffd && width == 1) sb.append((0xdc00 + (b(i) & 0xff)).toChar) else sb.appendCodePoint(c)
      i += width
    }
    sb.toString
  }

  def decode(b: Array[Byte]): String = decode(b, 0, b.length)

  /**
   * Go's `strings.ToLower`, with which nats-server compares field names: rune by rune, the simple mapping
   * (`İ` is `i` and the Kelvin sign `k`; Java's `toLowerCase` would make `İ` two characters, and
   * `equalsIgnoreCase` takes `ſ` for `s`, which Go does not).
   */
  def lower(s: String): String = {
    val b = new java.lang.StringBuilder(s.length)
    s.codePoints.forEach(c => b.appendCodePoint(Character.toLowerCase(c)))
    b.toString
  }
}
