package subjxform.core

import java.util.regex.Pattern

/**
 * How nats-server reads one destination token: `$N`, a `{{function(args)}}` (or our `<<function(args)>>`
 * alias), or a literal. The quirks are deliberate: nats-server finds functions with unanchored patterns,
 * splits arguments on `,` plus white space, trims only spaces and parses numbers like Go's `strconv`,
 * and the golden cases pin all of it. Used once per transform at compile time, never per row.
 */
private[core] object DestinationSyntax {
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

  private val allFunctions = Seq(partitionFn, wildcardFn, splitFromLeftFn, splitFromRightFn, sliceFromLeftFn,
    sliceFromRightFn, splitFn, leftFn, rightFn, randomFn)

  private val argSeparator = Pattern.compile(",[\\t\\n\\f\\r ]*")

  final val NotEnoughArgs = "invalid mapping destination: not enough arguments passed to the function"
  final val TooManyArgs = "invalid mapping destination: too many arguments passed to the function"
  final val InvalidArg = "invalid mapping destination: function argument is invalid or in the wrong format"
  final val UnknownFunction = "invalid mapping destination: unknown function"
  final val IndexOutOfRange = "invalid mapping destination: wildcard index out of range"
  final val InvalidTransform = "invalid mapping destination: invalid transform"
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

  /** Whether any known function pattern occurs in the token (nats-server's `ValidateMapping` check). */
  def namesKnownFunction(canonicalToken: String): Boolean =
    allFunctions.exists(_.matcher(canonicalToken).find())

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

  private def int32Arg(s: String, token: String): Int = {
    val v = intArg(s, token)
    if (v < Int.MinValue || v > Int.MaxValue) throw new SyntaxError(inToken(InvalidArg, token))
    v.toInt
  }

  /** Go's `int32(x)` of a count that passed nats-server's `> MaxInt32` check: keeps the low 32 bits. */
  private def countArg(s: String, token: String): Int = {
    val v = intArg(s, token)
    if (v > Int.MaxValue) throw new SyntaxError(inToken(InvalidArg, token))
    v.toInt
  }

  private def indexAndInt(op: Int, a: Array[String], token: String): Parsed = {
    if (a.length < 2) throw new SyntaxError(inToken(NotEnoughArgs, token))
    if (a.length > 2) throw new SyntaxError(inToken(TooManyArgs, token))
    val index = intArg(a(0), token)
    Parsed(op, Array(index), int32Arg(a(1), token), "")
  }

  /**
   * Parses one destination token as nats-server's `indexPlaceHolders` does; `token` is the text to
   * quote in errors and `t` its canonical (`{{ }}`) form.
   */
  def parse(token: String, t: String): Parsed = {
    if (t.length <= 1) return literal
    if (t.charAt(0) == '$') {
      // Anything after `$` that is not a number leaves the token a literal, as in nats-server.
      return parseGoInt(t.substring(1)) match {
        case Some(i) => Parsed(Op.Wildcard, Array(i), -1, "")
        case None => literal
      }
    }
    if (!looksLikeFunction(t)) return literal

    var a = args(wildcardFn, t)
    if (a != null) {
      if (a.length == 1 && a(0).isEmpty) throw new SyntaxError(inToken(NotEnoughArgs, token))
      if (a.length > 1) throw new SyntaxError(inToken(TooManyArgs, token))
      return Parsed(Op.Wildcard, Array(intArg(a(0), token)), -1, "")
    }
    a = args(partitionFn, t)
    if (a != null) {
      val n = countArg(a(0), token)
      return Parsed(Op.Partition, a.tail.map(intArg(_, token)), n, "")
    }
    a = args(splitFromLeftFn, t)
    if (a != null) return indexAndInt(Op.SplitFromLeft, a, token)
    a = args(splitFromRightFn, t)
    if (a != null) return indexAndInt(Op.SplitFromRight, a, token)
    a = args(sliceFromLeftFn, t)
    if (a != null) return indexAndInt(Op.SliceFromLeft, a, token)
    a = args(sliceFromRightFn, t)
    if (a != null) return indexAndInt(Op.SliceFromRight, a, token)
    a = args(rightFn, t)
    if (a != null) return indexAndInt(Op.Right, a, token)
    a = args(leftFn, t)
    if (a != null) return indexAndInt(Op.Left, a, token)
    a = args(splitFn, t)
    if (a != null) {
      if (a.length < 2) throw new SyntaxError(inToken(NotEnoughArgs, token))
      if (a.length > 2) throw new SyntaxError(inToken(TooManyArgs, token))
      val index = intArg(a(0), token)
      // The separator is taken untrimmed; a space or `.` in it could never match inside a token.
      if (a(1).contains(" ") || a(1).contains(".")) throw new SyntaxError(inToken(InvalidArg, token))
      return Parsed(Op.Split, Array(index), -1, a(1))
    }
    a = args(randomFn, t)
    if (a != null) {
      // nats-server reports any count other than one as "not enough".
      if (a.length != 1) throw new SyntaxError(inToken(NotEnoughArgs, token))
      return Parsed(Op.Random, Array.empty, countArg(a(0), token), "")
    }
    throw new SyntaxError(inToken(UnknownFunction, token))
  }
}
