package subjxform.engine

import java.util.SplittableRandom

/**
 * Scratch space for applying transforms: token boundaries, an output buffer, a random source and the
 * stack of a [[FilterIndex]] search. Compiled transforms are immutable and shared; a workspace belongs
 * to one thread (a Spark task keeps one per expression), so that applying a transform allocates
 * nothing but its result.
 */
final class Workspace(seed: Long) {
  def this() = this(System.nanoTime())

  var tokStart: Array[Int] = new Array[Int](16)
  var tokEnd: Array[Int] = new Array[Int](16)
  var out: Array[Byte] = new Array[Byte](Workspace.InitialOut)
  var outLen: Int = 0
  var random: SplittableRandom = new SplittableRandom(seed)

  // A MappingTable's decision for the subject in hand (see MappingTable.decide): read right after it.
  private[subjxform] var decidedLiteral: Boolean = false
  private[subjxform] var decidedScope: Int = -1
  private[subjxform] var decidedPick: Int = -1

  /** Why the last result was [[Workspace.TooLong]]: its limit, the size asked for and the message. */
  private[subjxform] var tooLong: SubjectTooLongException = null

  // A FilterIndex search's pending branches: (node, tokens consumed) pairs, grown like tokStart.
  private[subjxform] var searchNode: Array[Int] = new Array[Int](32)
  private[subjxform] var searchDepth: Array[Int] = new Array[Int](32)

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

  private[subjxform] def growSearch(): Unit = {
    searchNode = java.util.Arrays.copyOf(searchNode, searchNode.length * 2)
    searchDepth = java.util.Arrays.copyOf(searchDepth, searchDepth.length * 2)
  }

  // Output buffer: written by the transform, then copied once into an exactly sized result.

  /**
   * Room for `extra` more bytes. A built subject may not exceed [[Workspace.MaxSubjectBytes]]: the
   * check comes before the buffer grows, so a small input that asks for an enormous output (a long
   * token sliced into one-character pieces a hundred times) costs at most that much memory.
   */
  @inline def ensure(extra: Int): Unit =
    if (extra > out.length - outLen) grow(extra) // written so that it cannot overflow

  private def grow(extra: Int): Unit = {
    val need = outLen.toLong + extra
    if (need > Workspace.MaxSubjectBytes) {
      out = new Array[Byte](Workspace.InitialOut) // the next rows need not keep a buffer this row grew
      outLen = 0
      throw new SubjectTooLongException(Workspace.MaxSubjectBytes, need)
    }
    out = java.util.Arrays.copyOf(out,
      math.min(math.max(out.length.toLong * 2, need), Workspace.MaxSubjectBytes.toLong).toInt)
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

object Workspace {

  /**
   * The longest subject the engine builds: 8 MiB, nats-server's `MAX_PAYLOAD_MAX_SIZE`, the message size
   * above which it warns that `max_payload` is too high (and may one day refuse it). A subject travels
   * in a message's control line (4 KiB by default, `max_control_line`) and JetStream stores its length
   * in 16 bits (64 KiB), so no server delivers anything close; but a Spark table may hold longer
   * subjects than any server accepts (tests here transform 4 MB ones), so the bound is the largest
   * size a NATS deployment is meant to carry at all, not what a default server accepts. It caps what a
   * destination can ask for (a long token sliced into one-character pieces a hundred times) at a few
   * MiB per task. Only what the engine builds is bounded: input subjects of any length are matched,
   * filtered and returned unchanged as before.
   */
  final val MaxSubjectBytes: Int = 8 << 20

  /**
   * What the engine's per-row entries (SubjectTransform.run, and FilterTransforms.take and MappingTable.map,
   * which pass on its result) return for a result longer than [[MaxSubjectBytes]], with the workspace's
   * `tooLong` saying why: a marker compared by reference, never a subject. `run` catches the
   * [[SubjectTooLongException]] in its own frame, too big to be inlined, and returns this instead,
   * because an exception handler in the caller's row loop (Spark's generated code) cost every row
   * ~30 ns, thrown or not.
   */
  private[subjxform] val TooLong: Array[Byte] = new Array[Byte](0)

  /** `out`, or the exception `ws` recorded when `out` is [[TooLong]]: the public bytes API throws it. */
  def orThrow(out: Array[Byte], ws: Workspace): Array[Byte] = if (out eq TooLong) throw ws.tooLong else out

  /** A result of `size` bytes, or the [[SubjectTooLongException]] of a size over [[MaxSubjectBytes]], before any allocation. */
  def newResult(size: Long): Array[Byte] =
    if (size > MaxSubjectBytes) throw new SubjectTooLongException(MaxSubjectBytes, size)
    else new Array[Byte](size.toInt)

  private final val InitialOut = 256
}

/**
 * A transform would build a subject longer than `limit` bytes ([[Workspace.MaxSubjectBytes]]): `size`
 * is the length it had reached when it was stopped (the whole length when it is known up front), so
 * at least that much was asked for. Nothing that size was allocated.
 */
final class SubjectTooLongException(val limit: Int, val size: Long)
  extends IllegalArgumentException(
    s"the transformed subject would be at least $size bytes long, more than the limit of $limit bytes " +
      "(a destination that repeats or slices a long token)")
