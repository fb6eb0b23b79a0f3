package subjxform.engine

import java.nio.ByteBuffer
import java.nio.charset.{CharacterCodingException, CodingErrorAction, StandardCharsets}

import org.scalacheck.Gen

/**
 * Arbitrary and adversarial inputs for property tests: subjects as raw bytes (invalid UTF-8 included),
 * sources and destinations built from the pieces that matter to the parser (dots, wildcards, braces,
 * function names, white space, control characters, `$`) mixed with arbitrary Unicode.
 */
object TransformGen {

  private val oddChars: Gen[String] = Gen.oneOf(
    ".", "*", ">", "$", "{", "}", "{{", "}}", "<<", ">>", "(", ")", ",", " ", "\t", "\n", "\u0000", "\u0001",
    "\u007f", "é", "日", "🙂", "\uFFFD", "-", "_", "a", "b", "1", "0", "\"", "\\", "%")

  private val junk: Gen[String] = Gen.frequency(
    3 -> Gen.listOfN(3, oddChars).map(_.mkString),
    1 -> Gen.asciiPrintableStr.map(_.take(12)),
    1 -> Gen.stringOf(Gen.oneOf(Gen.alphaNumChar, Gen.choose('\u0000', '\uD7FF'))).map(_.take(8)))

  private val names = Seq("wildcard", "Wildcard", "partition", "Partition", "split", "Split", "splitfromleft",
    "SplitFromLeft", "splitfromright", "SplitFromRight", "slicefromleft", "SliceFromLeft", "slicefromright",
    "SliceFromRight", "left", "Left", "right", "Right", "random", "Random", "WILDCARD", "nosuch", "")

  private val arg: Gen[String] = Gen.frequency(
    6 -> Gen.choose(-2, 5).map(_.toString),
    1 -> Gen.oneOf("2147483647", "2147483648", "-2147483649", "99999999999999999999", "", " 1", "01", "+1", "x", "-"),
    1 -> junk)

  val function: Gen[String] = for {
    name <- Gen.oneOf(names)
    args <- Gen.choose(0, 4).flatMap(Gen.listOfN(_, arg))
    open <- Gen.oneOf("{{", "{{ ", "<<", "{")
    close <- Gen.oneOf("}}", " }}", ">>", "}", "}}junk}}")
  } yield s"$open$name(${args.mkString(",")})$close"

  val token: Gen[String] = Gen.frequency(
    4 -> Gen.oneOf("a", "b", "foo", "*", ">", "*x", "$1", "$2", "$0", "$"),
    3 -> function,
    2 -> junk,
    1 -> Gen.const(""))

  private def joined(max: Int): Gen[String] = Gen.choose(1, max).flatMap(Gen.listOfN(_, token)).map(_.mkString("."))

  val source: Gen[String] = Gen.frequency(
    6 -> Gen.choose(1, 5).flatMap(Gen.listOfN(_,
        Gen.frequency(4 -> Gen.const("*"), 3 -> Gen.oneOf("a", "b", "*x"),
          1 -> token))).flatMap(ts => Gen.oneOf(ts, ts :+ ">")).map(_.mkString(".")),
    1 -> joined(4),
    1 -> Gen.const(""))

  val destination: Gen[String] = Gen.frequency(8 -> joined(5), 1 -> Gen.const(""), 1 -> junk)

  /** Subject bytes: tokens (as text, so that they can match) or arbitrary bytes (invalid UTF-8 too). */
  val subject: Gen[Array[Byte]] = Gen.frequency(
    6 -> Gen.choose(1, 6).flatMap(Gen.listOfN(_,
        Gen.frequency(5 -> Gen.oneOf("a", "b", "foo", "x-y-z", "--", "-a-",
            "日本語", "é-é", "🙂🙂", "*", ">", "*x"), 2 -> junk))).map(_.mkString(".").getBytes(StandardCharsets.UTF_8)),
    2 -> Gen.choose(0, 40).flatMap(Gen.listOfN(_,
        Gen.frequency(3 -> Gen.oneOf(".a-*>".getBytes(StandardCharsets.UTF_8).toSeq),
          2 -> Gen.choose(Byte.MinValue, Byte.MaxValue)))).map(_.toArray))

  def isValidUtf8(b: Array[Byte]): Boolean =
    try {
      StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b))
      true
    } catch { case _: CharacterCodingException => false }

  def hasEmptyToken(b: Array[Byte]): Boolean =
    b.isEmpty || b.head == '.' || b.last == '.' || b.indices.drop(1).exists(i => b(i) == '.' && b(i - 1) == '.')
}
