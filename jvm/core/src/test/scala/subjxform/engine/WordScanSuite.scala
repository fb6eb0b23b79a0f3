package subjxform.engine

import java.nio.charset.StandardCharsets.UTF_8

import org.scalatest.funsuite.AnyFunSuite

/**
 * The tokenizer and the character functions scan eight bytes at a time; here they are checked
 * against a byte-at-a-time reference on random subjects, where separators fall at every position of
 * a word, next to bytes such as '/' (one above '.', the classic false hit of word scans), and next
 * to multi-byte characters.
 */
class WordScanSuite extends AnyFunSuite {
  private val rnd = new scala.util.Random(20261122L)
  private val alphabet = Array("a", "b", "Z", "0", "-", "/", "-", ".", ".", "*", ">", "é", "€", "𝄞", "\u007f")

  private def randomSubject(): String =
    Iterator.fill(rnd.nextInt(70))(alphabet(rnd.nextInt(alphabet.length))).mkString

  /** Token boundaries as the reference sees them, or None when not a literal subject. */
  private def reference(b: Array[Byte], off: Int): Option[Seq[(Int, Int)]] = {
    if (b.length == off) return None
    val out = Seq.newBuilder[(Int, Int)]
    var start = off
    for (i <- off to b.length) {
      if (i == b.length || b(i) == '.') {
        val tl = i - start
        if (tl == 0 || (tl == 1 && (b(start) == '*' || b(start) == '>'))) return None
        out += ((start, i))
        start = i + 1
      }
    }
    Some(out.result())
  }

  test("tokenize finds the same tokens as a byte-at-a-time scan, at any offset") {
    val ws = new Workspace(1L)
    for (_ <- 1 to 20000) {
      val pad = rnd.nextInt(9)
      val b = Array.fill[Byte](pad)('x') ++ randomSubject().getBytes(UTF_8)
      val n = ws.tokenize(b, pad, b.length - pad)
      reference(b, pad) match {
        case None => assert(n == 0, new String(b, UTF_8))
        case Some(toks) =>
          assert(n == toks.length, new String(b, UTF_8))
          assert((0 until n).map(i => (ws.tokStart(i), ws.tokEnd(i))) == toks, new String(b, UTF_8))
      }
    }
  }

  test("left/right/slice count characters, on ASCII and non-ASCII tokens alike") {
    val tokenAlphabet = Array("a", "b", "7", "-", "é", "€", "𝄞")
    for (_ <- 1 to 3000) {
      val token = Iterator.fill(1 + rnd.nextInt(30))(tokenAlphabet(rnd.nextInt(tokenAlphabet.length))).mkString
      val cps = token.codePoints().toArray.map(cp => new String(Character.toChars(cp)))
      val k = rnd.nextInt(cps.length + 2)
      val n = cps.length
      val whole = k <= 0 || k >= n
      def chunks(first: Int): Seq[String] =
        (Seq(cps.take(first)) ++ cps.drop(first).grouped(k)).map(_.mkString)
      val expected = Map(
        s"{{left(1,$k)}}" -> (if (whole) token else cps.take(k).mkString),
        s"{{right(1,$k)}}" -> (if (whole) token else cps.drop(n - k).mkString),
        s"{{splitfromleft(1,$k)}}" -> (if (whole) token else cps.take(k).mkString + "." + cps.drop(k).mkString),
        s"{{slicefromleft(1,$k)}}" -> (if (whole) token else chunks(k).mkString(".")),
        s"{{slicefromright(1,$k)}}" -> (if (whole) token else chunks(if (n % k == 0) k else n % k).mkString(".")))
      for ((dest, want) <- expected)
        assert(SubjectTransform.compile("t.*", "x." + dest)("t." + token) == "x." + want, s"$dest on $token")
    }
  }
}
