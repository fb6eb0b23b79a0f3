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

  private def line(line: String, measured: String, functions: Set[String], modern: Boolean, bounds32: Boolean,
                   invalidDestinationError: String): ServerVersion =
    new ServerVersion(line, measured, functions,
      parsedFunctions = ParserOrder.filter(f => f != "random" || functions("random")),
      partitionOfWholeSubject = modern,
      functionsNeedASourceWildcard = !modern,
      countsBoundTo32Bits = modern,
      characterCountsBoundTo32Bits = bounds32,
      partitionByZeroIsZero = modern,
      invalidDestinationError = invalidDestinationError,
      emptyTokenErrorSaysIn = !modern,
      streamTransformsCheckedAsMappings = bounds32)

  private final val InvalidSubject = "invalid mapping destination: invalid subject"
  private final val InvalidTransform = "invalid mapping destination: invalid transform"

  // The table: what each line's binary was measured to do (see the fields' comments).
  val V2_10: ServerVersion = line("2.10", "2.10.26", Functions210, modern = false, bounds32 = false, InvalidSubject)
  val V2_11: ServerVersion = line("2.11", "2.11.11", Functions210, modern = false, bounds32 = true, InvalidTransform)
  val V2_12: ServerVersion = line("2.12", "2.12.8", Functions210 + "random", modern = true, bounds32 = true, InvalidTransform)
  val V2_14: ServerVersion = line("2.14", "2.14.6", Functions210 + "random", modern = true, bounds32 = true, InvalidTransform)
  val V2_15: ServerVersion =
    line("2.15", "2.15.1", Functions210 + "random" + "left" + "right", modern = true, bounds32 = true, InvalidTransform)

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
