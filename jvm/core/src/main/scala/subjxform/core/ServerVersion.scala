package subjxform.core

/**
 * A nats-server release line, and what its real binary does differently from the others when it compiles
 * a subject transform. Every difference is a field here, measured with that line's binary (the patch
 * release in `measured`; tests/server_lines_golden.py and tests/golden/servers/<line>/ show how), so the
 * parsers read one capability table instead of testing version numbers. A version only decides how a
 * transform is compiled: a compiled transform carries no version and its hot path checks none.
 */
final class ServerVersion private (
    /** The release line, e.g. "2.10". */
    val line: String,
    /** The patch release whose binary was measured, e.g. "2.10.26". */
    val measured: String,
    /** Mapping functions the line knows (its `ValidateMapping` list); any other is "unknown function". */
    val functions: Set[String],
    /**
     * Functions its token parser reads, in the parser's order of trial (a token is read as the first whose
     * unanchored pattern it holds). 2.10-2.14 already parse `left`/`right` but their list above refuses them.
     */
    val parsedFunctions: Seq[String],
    /** `{{partition(n)}}` with no wildcard index (hash of the whole subject) exists; before, too few arguments. */
    val partitionOfWholeSubject: Boolean,
    /** A source without a `*` refuses every function token, even `$N` and `partition` ("out of range"). */
    val functionsNeedASourceWildcard: Boolean,
    /** partition/random counts above 2^31-1 are refused; before, any 64-bit count is taken (low 32 bits). */
    val countsBoundTo32Bits: Boolean,
    /** split/slice/left/right character counts above 32 bits are refused; before, low 32 bits are kept. */
    val characterCountsBoundTo32Bits: Boolean,
    /** `{{partition(0,…)}}` maps to `0`; before, the server panics (divide by zero): the message is lost. */
    val partitionByZeroIsZero: Boolean,
    /** The error for an empty or misplaced destination token and for white space in a literal one. */
    val invalidDestinationError: String,
    /** An error about an empty token still ends in " in " (later lines drop it). */
    val emptyTokenErrorSaysIn: Boolean,
    /**
     * A stream's ingress, source and mirror transforms are checked as mapping destinations are, and their
     * errors read "<kind> transform: <reason>". 2.10 checks them only as transforms (white space and any
     * function its parser reads pass) with other error texts, all code 10049 but a source destination's
     * token check (10146). A republish transform is checked only as a transform on every line.
     */
    val streamTransformsCheckedAsMappings: Boolean) extends Serializable {

  /** The next line: this one with what its binary was measured to do differently. */
  private def next(line: String, measured: String)(
      functions: Set[String] = functions,
      parsedFunctions: Seq[String] = parsedFunctions,
      partitionOfWholeSubject: Boolean = partitionOfWholeSubject,
      functionsNeedASourceWildcard: Boolean = functionsNeedASourceWildcard,
      countsBoundTo32Bits: Boolean = countsBoundTo32Bits,
      characterCountsBoundTo32Bits: Boolean = characterCountsBoundTo32Bits,
      partitionByZeroIsZero: Boolean = partitionByZeroIsZero,
      invalidDestinationError: String = invalidDestinationError,
      emptyTokenErrorSaysIn: Boolean = emptyTokenErrorSaysIn,
      streamTransformsCheckedAsMappings: Boolean = streamTransformsCheckedAsMappings): ServerVersion =
    new ServerVersion(line, measured, functions, parsedFunctions, partitionOfWholeSubject, functionsNeedASourceWildcard,
      countsBoundTo32Bits, characterCountsBoundTo32Bits, partitionByZeroIsZero, invalidDestinationError,
      emptyTokenErrorSaysIn, streamTransformsCheckedAsMappings)

  override def toString: String = line
  override def equals(o: Any): Boolean = o match { case v: ServerVersion => v.line == line; case _ => false }
  override def hashCode: Int = line.hashCode
  private def readResolve(): AnyRef = ServerVersion.parse(line)
}

object ServerVersion {
  private val Functions210 =
    Set("wildcard", "partition", "splitfromleft", "splitfromright", "slicefromleft", "slicefromright", "split")

  private val ParserOrder = Seq("wildcard", "partition", "splitfromleft", "splitfromright", "slicefromleft",
    "slicefromright", "right", "left", "split", "random")

  // The table: 2.10 in full, then what each later line's binary was measured to do differently
  // (tests/golden/servers/<line>/, ServerVersionSuite; the fields' comments say what each one means).
  val V2_10: ServerVersion = new ServerVersion("2.10", "2.10.26",
    functions = Set("wildcard", "partition", "splitfromleft", "splitfromright", "slicefromleft", "slicefromright", "split"),
    // its parser's order of trial; it already reads left/right, which its list above does not know
    parsedFunctions = Seq("wildcard", "partition", "splitfromleft", "splitfromright", "slicefromleft", "slicefromright",
      "right", "left", "split"),
    partitionOfWholeSubject = false,
    functionsNeedASourceWildcard = true,
    countsBoundTo32Bits = false,
    characterCountsBoundTo32Bits = false,
    partitionByZeroIsZero = false,
    invalidDestinationError = "invalid mapping destination: invalid subject",
    emptyTokenErrorSaysIn = true,
    streamTransformsCheckedAsMappings = false)

  val V2_11: ServerVersion = V2_10.next("2.11", "2.11.11")(
    characterCountsBoundTo32Bits = true,
    invalidDestinationError = "invalid mapping destination: invalid transform",
    streamTransformsCheckedAsMappings = true)

  val V2_12: ServerVersion = V2_11.next("2.12", "2.12.8")(
    functions = V2_11.functions + "random",
    parsedFunctions = V2_11.parsedFunctions :+ "random",
    partitionOfWholeSubject = true,
    functionsNeedASourceWildcard = false,
    countsBoundTo32Bits = true,
    partitionByZeroIsZero = true,
    emptyTokenErrorSaysIn = false)

  // 2.14.6 was measured to do exactly what 2.12.8 does.
  val V2_14: ServerVersion = V2_12.next("2.14", "2.14.6")()

  val V2_15: ServerVersion = V2_14.next("2.15", "2.15.1")(functions = V2_14.functions + "left" + "right")

  /** Every supported line, oldest first. */
  val all: Seq[ServerVersion] = Seq(V2_10, V2_11, V2_12, V2_14, V2_15)

  /** The newest line: the behaviour SPEC.md describes, and every compile entry point's default. */
  val Newest: ServerVersion = V2_15

  /** "2.10, 2.11, 2.12, 2.14, 2.15" */
  def supported: String = all.map(_.line).mkString(", ")

  private val Spelling = """v?(\d+)\.(\d+)(?:\.(\d+))?""".r

  /**
   * The line of "2.10", "2.10.26" or "v2.10.26" (surrounding spaces ignored).
   *
   * @throws IllegalArgumentException naming the supported lines, for any other text or an unsupported line
   */
  def parse(text: String): ServerVersion = {
    def unsupported(why: String) = new IllegalArgumentException(
      s"unsupported nats-server version ${GoQuote(String.valueOf(text))}$why: supported lines are $supported " +
        s"(a line like '2.10' or a release like '2.10.26'; the default is ${Newest.line})")
    if (text == null) throw unsupported("")
    text.trim match {
      case Spelling(major, minor, _) =>
        val l = s"${BigInt(major)}.${BigInt(minor)}"
        all.find(_.line == l).getOrElse(throw unsupported(""))
      case _ => throw unsupported(" (not a version)")
    }
  }
}
