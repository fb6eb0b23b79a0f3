package subjxform.engine

import java.nio.charset.StandardCharsets.UTF_8

/** NATS subject syntax on UTF-8 bytes: the checks nats-server makes, without allocating. */
object Subjects {
  final val Sep: Byte = '.'
  final val Pwc: Byte = '*'
  final val Fwc: Byte = '>'

  /** A literal subject as nats-server's `Match` checks it: no empty token, no lone `*` or `>` token. */
  def isValidLiteral(in: Array[Byte], off: Int, len: Int): Boolean = {
    if (len == 0) return false
    val end = off + len
    var start = off
    var i = off
    while (i <= end) {
      if (i == end || in(i) == Sep) {
        val n = i - start
        if (n == 0) return false
        if (n == 1 && (in(start) == Pwc || in(start) == Fwc)) return false
        start = i + 1
      }
      i += 1
    }
    true
  }

  /** nats-server's `IsValidSubject`: a subject or filter with `>` last at most, and no white space. */
  def isValidSubject(subject: String): Boolean = validTokens(subject, spaceAllowed = false)

  /**
   * nats-server's check of a transform's source alone (`NewSubjectTransform`, without `IsValidSubject`): no empty
   * token, `>` last at most; white space in a token passes (measured, 2.10-2.15: a stream's republish source, and
   * 2.10's ingress transform source). Such a source matches no valid subject.
   */
  def isValidTransformSource(subject: String): Boolean = validTokens(subject, spaceAllowed = true)

  private def validTokens(subject: String, spaceAllowed: Boolean): Boolean = {
    if (subject.isEmpty) return false
    var afterFwc = false
    for (t <- tokens(subject)) {
      if (t.isEmpty || afterFwc) return false
      if (t == ">") afterFwc = true
      else if (!spaceAllowed && t.exists(isNatsSpace)) return false
    }
    true
  }

  /** The white space nats-server rejects in a subject token (Go's `\s` minus nothing, plus nothing). */
  def isNatsSpace(c: Char): Boolean = c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'

  /**
   * nats-server's `subjectIsSubsetMatch(subject, test)`: every subject `subject` matches is also matched
   * by `test` (both may hold wildcards). Used to tell whether two filters of one source overlap.
   */
  def isSubsetMatch(subject: String, test: String): Boolean = {
    val toks = tokens(subject)
    val tts = tokens(test)
    var i = 0
    while (i < tts.length) {
      if (i >= toks.length) return false
      val t2 = tts(i)
      if (t2.isEmpty) return false
      if (t2 == ">") return true
      val t1 = toks(i)
      if (t1.isEmpty || t1 == ">") return false
      if (t1 == "*") { if (t2 != "*") return false }
      else if (t2.charAt(0) != '*' && t1 != t2) return false
      i += 1
    }
    toks.length == tts.length
  }

  /** nats-server's `SubjectsCollide`: some literal subject matches both filters. */
  def collide(a: String, b: String): Boolean = {
    if (a == b) return true
    val ta = tokens(a)
    val tb = tokens(b)
    def isLiteral(ts: Array[String]) = !ts.exists(t => t == "*" || t == ">")
    def hasFwc(ts: Array[String]) = ts.contains(">")
    val (la, lb) = (isLiteral(ta), isLiteral(tb))
    if (la && lb) return false
    if (la) return isSubsetMatch(a, b)
    if (lb) return isSubsetMatch(b, a)
    val (fa, fb) = (hasFwc(ta), hasFwc(tb))
    if (!fa && !fb && ta.length != tb.length) return false
    if (ta.length < tb.length && !fa || tb.length < ta.length && !fb) return false
    // Token by token over the shorter one: any wildcard (or a token starting with one) can match.
    def canMatch(x: String, y: String) =
      x.nonEmpty && y.nonEmpty && ("*>".indexOf(x.charAt(0)) >= 0 || "*>".indexOf(y.charAt(0)) >= 0 || x == y)
    ta.iterator.zip(tb.iterator).forall { case (x, y) => canMatch(x, y) }
  }

  /** Splits on every `.`, keeping empty tokens (Go's `strings.Split`). */
  def tokens(subject: String): Array[String] = subject.split("\\.", -1)
}

/**
 * A compiled subject filter, matched against a literal subject's bytes.
 *
 * `sourceQuirk` reproduces how nats-server matches a transform's source (`isSubsetMatch`): there any
 * token that starts with `*` matches any one token, although only a lone `*` counts as a wildcard
 * for `$N`. Interest matching (`subject_matches`) treats such a token as a literal.
 */
final class SubjectFilter private (
    private val literals: Array[Array[Byte]], // null where the token matches any one token
    val endsWithFwc: Boolean) extends Serializable {

  /** Number of tokens, the trailing `>` included. */
  def length: Int = literals.length

  /** Tokens of the subject are given by their boundaries in `ws` (already tokenized). */
  def matchesTokens(in: Array[Byte], ws: Workspace, ntok: Int): Boolean = {
    val n = literals.length
    if (endsWithFwc) { if (ntok < n) return false }
    else if (ntok != n) return false
    val fixed = if (endsWithFwc) n - 1 else n
    var i = 0
    while (i < fixed) {
      val lit = literals(i)
      if (lit != null) {
        val s = ws.tokStart(i)
        val len = ws.tokEnd(i) - s
        if (len != lit.length) return false
        var j = 0
        while (j < len) {
          if (in(s + j) != lit(j)) return false
          j += 1
        }
      }
      i += 1
    }
    true
  }

  /** Matches a literal subject (false when it is not one). */
  def matches(in: Array[Byte], off: Int, len: Int, ws: Workspace): Boolean = {
    val ntok = ws.tokenize(in, off, len)
    ntok > 0 && matchesTokens(in, ws, ntok)
  }

  def matches(subject: String): Boolean = {
    val b = subject.getBytes(UTF_8)
    matches(b, 0, b.length, new Workspace)
  }
}

object SubjectFilter {

  /** Compiles a valid filter; throws [[InvalidFilterException]] for an invalid one. */
  def compile(filter: String, sourceQuirk: Boolean = false): SubjectFilter = compile(filter, sourceQuirk, null)

  /** [[compile]] sharing equal literal tokens through `interner` (when not null). */
  private[subjxform] def compile(filter: String, sourceQuirk: Boolean, interner: Interner): SubjectFilter =
    compile(filter, sourceQuirk, interner, transformSource = false)

  /**
   * `transformSource`: the filter is a transform's source checked only as nats-server's `NewSubjectTransform`
   * checks it ([[Subjects.isValidTransformSource]]): a token with white space is a literal no subject matches.
   */
  private[subjxform] def compile(filter: String, sourceQuirk: Boolean, interner: Interner,
      transformSource: Boolean): SubjectFilter = {
    val valid = if (transformSource) Subjects.isValidTransformSource(filter) else Subjects.isValidSubject(filter)
    if (!valid) throw new InvalidFilterException(filter)
    val toks = Subjects.tokens(filter)
    val fwc = toks.last == ">"
    val lits = toks.map { t =>
      val any = t == "*" || (sourceQuirk && t.startsWith("*")) || t == ">"
      if (any) null else if (interner == null) t.getBytes(UTF_8) else interner.bytes(t.getBytes(UTF_8))
    }
    new SubjectFilter(if (interner == null) lits else interner.refs(lits), fwc)
  }
}

final class InvalidFilterException(val filter: String)
  extends IllegalArgumentException(s"Subject ${GoQuote(filter)} is not a valid subject")
