package subjxform.engine

import java.util.regex.Pattern

/**
 * How nats-server reads one destination token: `$N`, a `{{function(args)}}` (or our `<<function(args)>>`
 * alias), or a literal. The quirks are deliberate: nats-server finds functions with unanchored patterns,
 * splits arguments on `,` plus white space, trims only spaces and parses numbers like Go's `strconv`,
 * and the golden cases pin all of it. Used once per transform at compile time, never per row.
 */
private[subjxform] object DestinationSyntax {
  object Op {
    final val Literal = 0
    final val Wildcard = 1
    final val Partition = 2
    final val SplitFromLeft = 3
    final val SplitFromRight = 4
    final val SliceFromLeft = 5
    final val SliceFromRight = 6
    final val Split = 7
    final val Left = 8
    final val Right = 9
    final val Random = 10
    final val Fwc = 11

    /**
     * `{{partition(0,…)}}` on a line whose server panics on it (integer divide by zero): its process exits on
     * the first message the destination maps ([[SubjectTransform.crashWords]]). The result is NULL.
     */
    final val Crash = 12
  }

  /** A parsed token: an operation, its wildcard index arguments, an integer and a string argument. */
  final case class Parsed(op: Int, indexes: Array[Long], int: Int, string: String)

  private val literal = Parsed(Op.Literal, Array.empty, -1, "")

  // Only the first letter of each word may change case, as in nats-server's patterns (`[wW]ildcard`,
  // `[sS]plit[fF]rom[lL]eft`). Go's `\s` is [\t\n\f\r ] (no \v) and its `.` is anything but \n:
  // spelled out so that Java's regex engine finds exactly what Go's does.
  private def camel(words: String*): Pattern = {
    val body = words.map(w => s"[${w.head.toLower}${w.head.toUpper}]" + Pattern.quote(w.tail)).mkString
    Pattern.compile("\\{\\{[\\t\\n\\f\\r ]*" + body + "[\\t\\n\\f\\r ]*\\((.*)\\)[\\t\\n\\f\\r ]*\\}\\}",
      Pattern.UNIX_LINES)
  }

  private val wildcardFn = camel("wildcard")
  private val partitionFn = camel("partition")
  private val splitFromLeftFn = camel("split", "from", "left")
  private val splitFromRightFn = camel("split", "from", "right")
  private val sliceFromLeftFn = camel("slice", "from", "left")
  private val sliceFromRightFn = camel("slice", "from", "right")
  private val splitFn = camel("split")
  private val leftFn = camel("left")
  private val rightFn = camel("right")
  private val randomFn = camel("random")

  private val patterns: Map[String, Pattern] = Map("wildcard" -> wildcardFn, "partition" -> partitionFn,
    "splitfromleft" -> splitFromLeftFn, "splitfromright" -> splitFromRightFn, "slicefromleft" -> sliceFromLeftFn,
    "slicefromright" -> sliceFromRightFn, "split" -> splitFn, "left" -> leftFn, "right" -> rightFn,
    "random" -> randomFn)

  private val argSeparator = Pattern.compile(",[\\t\\n\\f\\r ]*")

  final val NotEnoughArgs = "invalid mapping destination: not enough arguments passed to the function"
  final val TooManyArgs = "invalid mapping destination: too many arguments passed to the function"
  final val InvalidArg = "invalid mapping destination: function argument is invalid or in the wrong format"
  final val UnknownFunction = "invalid mapping destination: unknown function"
  final val IndexOutOfRange = "invalid mapping destination: wildcard index out of range"
  final val NotForImport =
    "invalid mapping destination: the only mapping function allowed for import transforms is {{Wildcard()}}"
  final val NotUsingAllWildcards = "invalid mapping destination: not using all of the token wildcard(s)"
  final val InvalidSubject = "invalid subject"

  /** nats-server's `mappingDestinationErr` text: the reason, then the token when there is one. */
  def inToken(reason: String, token: String): String = if (token.isEmpty) reason else s"$reason in $token"

  final class SyntaxError(val reason: String) extends Exception(reason, null, false, false)

  /** `<<fn(args)>>` reads as `{{fn(args)}}`, so a destination can live inside a Jinja template. */
  def canonical(token: String): String =
    if (token.length > 4 && token.startsWith("<<") && token.endsWith(">>"))
      token.replace("<<", "{{").replace(">>", "}}")
    else token

  /** A token nats-server treats as a function call: longer than 4 bytes, in `{{ }}`. */
  def looksLikeFunction(canonicalToken: String): Boolean = {
    val t = canonicalToken
    t.length > 4 && t.startsWith("{{") && t.endsWith("}}")
  }

  /** Whether a function pattern `version` knows occurs in the token (nats-server's `ValidateMapping` check). */
  def namesKnownFunction(canonicalToken: String, version: ServerVersion): Boolean =
    version.functions.exists(f => patterns(f).matcher(canonicalToken).find())

  /** Whether a function pattern `version`'s token parser reads occurs in the token (a wider list before 2.15). */
  def namesParsedFunction(canonicalToken: String, version: ServerVersion): Boolean =
    version.parsedFunctions.exists(f => patterns(f).matcher(canonicalToken).find())

  private def args(pattern: Pattern, token: String): Array[String] = {
    val m = pattern.matcher(token)
    if (m.find()) argSeparator.split(m.group(1), -1) else null
  }

  private def trimSpaces(s: String): String = {
    var a = 0
    var b = s.length
    while (a < b && s.charAt(a) == ' ') a += 1
    while (b > a && s.charAt(b - 1) == ' ') b -= 1
    s.substring(a, b)
  }

  /** Go's `strconv.ParseInt(s, 10, 64)`: optional sign, ASCII digits only, no white space. */
  def parseGoInt(s: String): Option[Long] = {
    val digitsFrom = if (s.nonEmpty && (s.charAt(0) == '+' || s.charAt(0) == '-')) 1 else 0
    if (s.length == digitsFrom || !s.substring(digitsFrom).forall(c => c >= '0' && c <= '9')) None
    else scala.util.Try(java.lang.Long.parseLong(s)).toOption
  }

  private def intArg(s: String, token: String): Long =
    parseGoInt(trimSpaces(s)).getOrElse(throw new SyntaxError(inToken(InvalidArg, token)))

  /** A character count: a 32-bit integer, or (lines without that bound) Go's `int32(x)`, the low 32 bits. */
  private def int32Arg(s: String, token: String, version: ServerVersion): Int = {
    val v = intArg(s, token)
    if (version.characterCountsBoundTo32Bits && (v < Int.MinValue || v > Int.MaxValue))
      throw new SyntaxError(inToken(InvalidArg, token))
    v.toInt
  }

  /** Go's `int32(x)` of a count that passed the line's `> MaxInt32` check, if it has one: the low 32 bits. */
  private def countArg(s: String, token: String, version: ServerVersion): Int = {
    val v = intArg(s, token)
    if (version.countsBoundTo32Bits && v > Int.MaxValue) throw new SyntaxError(inToken(InvalidArg, token))
    v.toInt
  }

  private def indexAndInt(op: Int, a: Array[String], token: String, version: ServerVersion): Parsed = {
    if (a.length < 2) throw new SyntaxError(inToken(NotEnoughArgs, token))
    if (a.length > 2) throw new SyntaxError(inToken(TooManyArgs, token))
    val index = intArg(a(0), token)
    Parsed(op, Array(index), int32Arg(a(1), token, version), "")
  }

  /**
   * Parses one destination token as `version`'s `indexPlaceHolders` does; `token` is the text to quote in
   * errors and `t` its canonical (`{{ }}`) form.
   */
  def parse(token: String, t: String, version: ServerVersion): Parsed = {
    if (t.length <= 1) return literal
    if (t.charAt(0) == '$') {
      // Anything after `$` that is not a number leaves the token a literal, as in nats-server.
      return parseGoInt(t.substring(1)) match {
        case Some(i) => Parsed(Op.Wildcard, Array(i), -1, "")
        case None => literal
      }
    }
    if (!looksLikeFunction(t)) return literal
    // resolved where a subject is installed for an account (AccountFunctions.expand); any left are refused
    if (version.accountFunctions && AccountFunctions.isAccountFunction(t))
      throw new SyntaxError(inToken(AccountFunctions.NotAvailable, token))
    val it = version.parsedFunctions.iterator
    while (it.hasNext) {
      val name = it.next()
      val a = args(patterns(name), t)
      if (a != null) return function(name, a, token, version)
    }
    throw new SyntaxError(inToken(UnknownFunction, token))
  }

  private def function(name: String, a: Array[String], token: String, version: ServerVersion): Parsed = name match {
    case "wildcard" =>
      if (a.length == 1 && a(0).isEmpty) throw new SyntaxError(inToken(NotEnoughArgs, token))
      if (a.length > 1) throw new SyntaxError(inToken(TooManyArgs, token))
      Parsed(Op.Wildcard, Array(intArg(a(0), token)), -1, "")
    case "partition" =>
      if (a.length < 2 && !version.partitionOfWholeSubject) throw new SyntaxError(inToken(NotEnoughArgs, token))
      val n = countArg(a(0), token, version)
      Parsed(Op.Partition, a.tail.map(intArg(_, token)), n, "")
    case "splitfromleft" => indexAndInt(Op.SplitFromLeft, a, token, version)
    case "splitfromright" => indexAndInt(Op.SplitFromRight, a, token, version)
    case "slicefromleft" => indexAndInt(Op.SliceFromLeft, a, token, version)
    case "slicefromright" => indexAndInt(Op.SliceFromRight, a, token, version)
    case "right" => indexAndInt(Op.Right, a, token, version)
    case "left" => indexAndInt(Op.Left, a, token, version)
    case "split" =>
      if (a.length < 2) throw new SyntaxError(inToken(NotEnoughArgs, token))
      if (a.length > 2) throw new SyntaxError(inToken(TooManyArgs, token))
      val index = intArg(a(0), token)
      // The separator is taken untrimmed; a space or `.` in it could never match inside a token.
      if (a(1).contains(" ") || a(1).contains(".")) throw new SyntaxError(inToken(InvalidArg, token))
      Parsed(Op.Split, Array(index), -1, a(1))
    case "random" =>
      // nats-server reports any count other than one as "not enough".
      if (a.length != 1) throw new SyntaxError(inToken(NotEnoughArgs, token))
      Parsed(Op.Random, Array.empty, countArg(a(0), token, version), "")
  }
}
