package subjxform.core

import java.util.SplittableRandom

/**
 * Scratch space for applying transforms: token boundaries, an output buffer and a random source.
 * Compiled transforms are immutable and shared; a workspace belongs to one thread (a Spark task keeps
 * one per expression), so that applying a transform allocates nothing but its result.
 */
final class Workspace(seed: Long) {
  def this() = this(System.nanoTime())

  var tokStart: Array[Int] = new Array[Int](16)
  var tokEnd: Array[Int] = new Array[Int](16)
  var out: Array[Byte] = new Array[Byte](256)
  var outLen: Int = 0
  var random: SplittableRandom = new SplittableRandom(seed)

  /**
   * Records the token boundaries of `in[off, off+len)`. Returns the number of tokens, or 0 when the
   * bytes are not a literal subject (an empty token, or a lone `*` or `>` token). Separators are
   * found eight bytes at a time, so the cost is one word per 8 bytes plus a few steps per token.
   */
  def tokenize(in: Array[Byte], off: Int, len: Int): Int = {
    if (len == 0) return 0
    val end = off + len
    var n = 0
    var start = off
    var i = off
    while (i + 8 <= end) {
      var dots = Swar.dots(Swar.word(in, i))
      while (dots != 0) {
        val p = i + (java.lang.Long.numberOfTrailingZeros(dots) >>> 3)
        if (!record(in, start, p, n)) return 0
        n += 1
        start = p + 1
        dots &= dots - 1
      }
      i += 8
    }
    while (i < end) {
      if (in(i) == '.') {
        if (!record(in, start, i, n)) return 0
        n += 1
        start = i + 1
      }
      i += 1
    }
    if (!record(in, start, end, n)) return 0
    n + 1
  }

  /** Stores token `n` = `in[start, end)`; false when it cannot be in a literal subject. */
  @inline private def record(in: Array[Byte], start: Int, end: Int, n: Int): Boolean = {
    val tl = end - start
    if (tl == 0 || (tl == 1 && (in(start) == '*' || in(start) == '>'))) return false
    if (n == tokStart.length) growTokens()
    tokStart(n) = start
    tokEnd(n) = end
    true
  }

  private def growTokens(): Unit = {
    tokStart = java.util.Arrays.copyOf(tokStart, tokStart.length * 2)
    tokEnd = java.util.Arrays.copyOf(tokEnd, tokEnd.length * 2)
  }

  // Output buffer: written by the transform, then copied once into an exactly sized result.

  @inline def ensure(extra: Int): Unit =
    if (outLen + extra > out.length) {
      out = java.util.Arrays.copyOf(out, math.max(out.length * 2, outLen + extra))
    }

  @inline def put(b: Byte): Unit = { ensure(1); out(outLen) = b; outLen += 1 }

  @inline def put(src: Array[Byte], from: Int, until: Int): Unit = {
    val n = until - from
    ensure(n)
    System.arraycopy(src, from, out, outLen, n)
    outLen += n
  }

  /** Writes a non-negative number in decimal. */
  def putDecimal(v: Long): Unit = {
    var digits = 1
    var p = 10L
    while (digits < 19 && v >= p) { digits += 1; p *= 10 }
    ensure(digits)
    var x = v
    var i = outLen + digits - 1
    while (i >= outLen) { out(i) = ('0' + (x % 10)).toByte; x /= 10; i -= 1 }
    outLen += digits
  }

  def result(): Array[Byte] = java.util.Arrays.copyOf(out, outLen)
}
