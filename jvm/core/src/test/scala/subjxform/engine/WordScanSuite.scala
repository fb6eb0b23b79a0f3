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

  test("left/right/slice count bytes as nats-server does, on ASCII and non-ASCII tokens alike, cutting characters") {
    val tokenAlphabet = Array("a", "b", "7", "-", "é", "€", "𝄞")
    val ws = new Workspace
    var cutInside = 0
    for (_ <- 1 to 3000) {
      val token = Iterator.fill(1 + rnd.nextInt(30))(tokenAlphabet(rnd.nextInt(tokenAlphabet.length))).mkString
      val b = token.getBytes(UTF_8) // nats-server's Go slices the token string by byte
      val n = b.length
      val k = rnd.nextInt(n + 2)
      val whole = k <= 0 || k >= n
      def join(pieces: Seq[Array[Byte]]) = pieces.reduce(_ ++ Array('.'.toByte) ++ _)
      def chunks(first: Int) = Seq(b.take(first)) ++ b.drop(first).grouped(k)
      val expected = Map(
        s"{{left(1,$k)}}" -> (if (whole) b else b.take(k)),
        s"{{right(1,$k)}}" -> (if (whole) b else b.drop(n - k)),
        s"{{splitfromleft(1,$k)}}" -> (if (whole) b else join(Seq(b.take(k), b.drop(k)))),
        s"{{splitfromright(1,$k)}}" -> (if (whole) b else join(Seq(b.take(n - k), b.drop(n - k)))),
        s"{{slicefromleft(1,$k)}}" -> (if (whole) b else join(chunks(k))),
        s"{{slicefromright(1,$k)}}" -> (if (whole) b else join(chunks(if (n % k == 0) k else n % k))))
      if (!whole && (b(k) & 0xc0) == 0x80) cutInside += 1
      val subject = ("t." + token).getBytes(UTF_8)
      for ((dest, want) <- expected) {
        val got = SubjectTransform.compile("t.*", "x." + dest)(subject, 0, subject.length, ws)
        assert(java.util.Arrays.equals(got, "x.".getBytes(UTF_8) ++ want), s"$dest on $token")
      }
    }
    assert(cutInside > 100) // the cuts fell inside characters too
  }

  test(
    "split on an empty separator cuts as Go's strings.Split does: each well-formed UTF-8 sequence, each other byte") {
    def hex(s: String) = s.grouped(2).map(Integer.parseInt(_, 16).toByte).toArray
    val tr = SubjectTransform.compile("t.*", "x.{{split(1,)}}")
    val ws = new Workspace
    // (token, its pieces): a truncated sequence, a surrogate, a code point above U+10FFFF, an overlong form and a
    // lone continuation byte are each cut byte by byte; é, € and 𝄞 stay whole.
    for ((token, pieces) <- Seq(
        "e69741" -> Seq("e6", "97", "41"),
        "eda080" -> Seq("ed", "a0", "80"),
        "f4908080" -> Seq("f4", "90", "80", "80"),
        "c0af80" -> Seq("c0", "af", "80"),
        "c3a9e282acf09d849e" -> Seq("c3a9", "e282ac", "f09d849e"),
        "e0a080f48fbfbf" -> Seq("e0a080", "f48fbfbf"))) {
      val subject = hex("742e" + token)
      val got = tr(subject, 0, subject.length, ws)
      assert(java.util.Arrays.equals(got, hex(("78" +: pieces).mkString("2e"))), token)
    }
  }
}
