package subjxform.engine

import java.nio.charset.StandardCharsets.UTF_8

import subjxform.engine.DestinationSyntax._

/**
 * A subject transform compiled once from its source filter and destination, then applied to many
 * subjects. Immutable and thread-safe: per-call scratch state lives in the caller's [[Workspace]].
 *
 * The destination is kept as nats-server keeps it, one entry per destination token in parallel
 * arrays (operation, source token position, integer argument, bytes argument), and applied in one
 * pass over the subject's UTF-8 bytes.
 */
final class SubjectTransform private (
    val source: String,
    val destination: String,
    val strict: Boolean,
    private val filter: SubjectFilter,
    private val ops: Array[Int],
    private val tokenArg: Array[Int], // source token position the operation reads
    private val intArg: Array[Int], // partition count, character count, random ceiling
    private val bytesArg: Array[Array[Byte]], // literal token, split separator
    private val hashTokens: Array[Array[Int]], // partition keys' source token positions; null = the whole subject
    keepsEmptyTokens: Boolean = false) // a stream stores such a result; Core NATS drops it
  extends Serializable {

  import SubjectTransform._

  /** Whether the result can differ between two calls on the same subject (`{{random(n)}}`). */
  val isRandom: Boolean = ops.contains(Op.Random)

  // Only `split` can leave a token empty; nats-server builds such a subject, then Core NATS drops it
  // while a stream stores it as it is (see [[keepingEmptyTokens]]).
  private val dropsEmptyTokens = ops.contains(Op.Split) && !keepsEmptyTokens

  // Only literals and whole tokens (`$N`, `>`): the result's size is known before it is built, so it
  // is written straight into the result array, without the workspace buffer and its final copy.
  private val sizeKnownUpFront = ops.forall(op => op == Op.Literal || op == Op.Wildcard || op == Op.Fwc)

  // Keyed draws (KeyedDraw): the n-th destination token's salt is mix(drawSalt + n).
  private val drawSalt: Long = KeyedDraw.salt(source) * 31 + KeyedDraw.salt(destination)

  /**
   * Transforms the subject in `in[off, off+len)`. Returns the new subject's UTF-8 bytes (a new array,
   * the only allocation), or null when the subject is not a literal subject, does not match the
   * source, or the result has an empty token. `{{random(n)}}` draws from the workspace's random
   * source: a seeded workspace repeats its draws for the same subjects in the same order.
   *
   * @throws SubjectTooLongException when the result would be longer than [[Workspace.MaxSubjectBytes]]
   */
  def apply(in: Array[Byte], off: Int, len: Int, ws: Workspace): Array[Byte] =
    Workspace.orThrow(run(in, off, len, ws, keyed = false, 0L, 0L), ws)

  /**
   * [[apply]] with `{{random(n)}}` drawn as a pure function of (seed, key, source, destination, token
   * position) ([[KeyedDraw]]), not from the workspace's random source: the same key always gets the
   * same subject, whatever else the workspace was used for. Allocates nothing but the result.
   */
  def applyKeyed(in: Array[Byte], off: Int, len: Int, seed: Long, key: Long, ws: Workspace): Array[Byte] =
    Workspace.orThrow(run(in, off, len, ws, keyed = true, seed, key), ws)

  /**
   * [[apply]] (`keyed` false) or [[applyKeyed]] as the per-row entry of the Spark layer and of tables and
   * lists: a result longer than [[Workspace.MaxSubjectBytes]] is [[Workspace.TooLong]] (`ws.tooLong` says
   * why), not an exception, so that no caller's row loop needs a handler.
   *
   * One method from tokenizing to the result: split in two (tokenize once for a table's rule and its
   * transform), it cost subject_transform 12-20 ns a row in Spark's generated code (see the history). Its
   * handler stays in this frame: the method is far above the JIT's inlining size (tests/test_jit_budget.py).
   */
  private[subjxform] def run(
      in: Array[Byte], off: Int, len: Int, ws: Workspace, keyed: Boolean, seed: Long, key: Long): Array[Byte] =
    try {
      val ntok = ws.tokenize(in, off, len)
      if (ntok == 0 || !filter.matchesTokens(in, ws, ntok)) return null
      if (ops.isEmpty) return java.util.Arrays.copyOfRange(in, off, off + len)
      if (sizeKnownUpFront) return tokensOnly(in, off + len, ws)
      ws.outLen = 0
      var i = 0
      while (i < ops.length) {
        if (i > 0) ws.put(Subjects.Sep)
        val op = ops(i)
        if (op == Op.Literal) {
          val b = bytesArg(i)
          ws.put(b, 0, b.length)
        } else if (op == Op.Fwc) {
          ws.put(in, ws.tokStart(filter.length - 1), off + len)
        } else if (op == Op.Partition) {
          partition(in, off, len, ws, intArg(i), hashTokens(i))
        } else if (op == Op.Random) {
          val n = math.abs(intArg(i).toLong)
          ws.putDecimal(
            if (n == 0) 0
            else if (keyed) KeyedDraw.below(n, seed, key, KeyedDraw.mix(drawSalt + i))
            else ws.random.nextLong(n))
        } else {
          val t = tokenArg(i)
          val s = ws.tokStart(t)
          val e = ws.tokEnd(t)
          (op: @annotation.switch) match {
            case Op.Wildcard => ws.put(in, s, e)
            case Op.Split => split(in, s, e, bytesArg(i), ws)
            case Op.Crash => return null
            case _ => byCharacters(op, in, s, e, intArg(i), ws)
          }
        }
        i += 1
      }
      if (dropsEmptyTokens && hasEmptyToken(ws.out, ws.outLen)) return null
      ws.result()
    } catch {
      case e: SubjectTooLongException => ws.tooLong = e; Workspace.TooLong
    }

  /**
   * [[apply]] for a destination of literals, `$N` and `>` only, on a matched subject ending at `end`.
   * The commonest path of all: it must stay small enough for the JIT to inline it into [[run]]
   * (HotSpot's FreqInlineSize, 325 bytes of bytecode; tests/test_jit_budget.py), so its size and bound
   * check are methods of their own. At 338 bytes the JIT stopped inlining it (-XX:+PrintInlining: "hot
   * method too big").
   */
  private def tokensOnly(in: Array[Byte], end: Int, ws: Workspace): Array[Byte] = {
    val fwcStart = if (filter.endsWithFwc) ws.tokStart(filter.length - 1) else end
    val out = Workspace.newResult(tokensOnlySize(end, fwcStart, ws))
    var at = 0
    var i = 0
    while (i < ops.length) {
      if (i > 0) { out(at) = Subjects.Sep; at += 1 }
      val op = ops(i)
      if (op == Op.Literal) {
        val b = bytesArg(i)
        System.arraycopy(b, 0, out, at, b.length)
        at += b.length
      } else {
        val s = if (op == Op.Fwc) fwcStart else ws.tokStart(tokenArg(i))
        val e = if (op == Op.Fwc) end else ws.tokEnd(tokenArg(i))
        System.arraycopy(in, s, out, at, e - s)
        at += e - s
      }
      i += 1
    }
    out
  }

  /** The length of [[tokensOnly]]'s result: a long, since `$1` repeated on a long token overflows an int. */
  private def tokensOnlySize(end: Int, fwcStart: Int, ws: Workspace): Long = {
    var size = ops.length - 1L // the separators
    var i = 0
    while (i < ops.length) {
      val op = ops(i)
      size +=
        (if (op == Op.Literal) bytesArg(i).length
         else if (op == Op.Fwc) end - fwcStart
         else ws.tokEnd(tokenArg(i)) - ws.tokStart(tokenArg(i)))
      i += 1
    }
    size
  }

  /**
   * Convenience for tests and tools (allocates): the new subject, or null as [[apply]] says. A result that is not
   * UTF-8 (a count that ends inside a character) decodes with U+FFFD here: the byte form gives its bytes.
   */
  def apply(subject: String): String = {
    val b = subject.getBytes(UTF_8)
    val r = apply(b, 0, b.length, new Workspace)
    if (r == null) null else new String(r, UTF_8)
  }

  /** Whether a subject matches the source filter (the check `apply` makes before transforming). */
  def matches(in: Array[Byte], off: Int, len: Int, ws: Workspace): Boolean = filter.matches(in, off, len, ws)

  private def withSource(src: String): SubjectTransform =
    new SubjectTransform(src, destination, strict, filter, ops, tokenArg, intArg, bytesArg, hashTokens, keepsEmptyTokens)

  /**
   * The same transform as a JetStream stream applies it (source, mirror, ingress): a result with an
   * empty token (`v.{{split(1,-)}}` on `u.--` gives `v.`) is returned, not null, because a stream
   * stores the message under that subject (observed on nats-server 2.15.1); only Core NATS drops it.
   */
  def keepingEmptyTokens: SubjectTransform =
    new SubjectTransform(source, destination, strict, filter, ops, tokenArg, intArg, bytesArg, hashTokens, true)

  /**
   * The destination tokens this transform builds otherwise than `other` (the same source and destination
   * compiled for another server line): empty when both deliver the same subject for every subject.
   */
  def tokensBuiltOtherwiseThan(other: SubjectTransform): Seq[String] = {
    val dtoks = if (destination.isEmpty) Array.empty[String] else Subjects.tokens(destination)
    if (other.ops.length != ops.length || other.filter.length != filter.length) return dtoks.toSeq
    def same(i: Int) =
      ops(i) == other.ops(i) && tokenArg(i) == other.tokenArg(i) && intArg(i) == other.intArg(i) &&
        java.util.Arrays.equals(bytesArg(i), other.bytesArg(i)) && java.util.Arrays.equals(hashTokens(i),
          other.hashTokens(i))
    ops.indices.filterNot(same).map(i => if (i < dtoks.length) dtoks(i) else destination)
  }

  /**
   * Whether a literal destination token has white space (a transform-only check, as a republish's, lets it
   * pass): every subject this transform builds is then not a valid subject.
   */
  def buildsWhiteSpace: Boolean =
    ops.indices.exists(i => ops(i) == Op.Literal && bytesArg(i).exists(b => Subjects.isNatsSpace(b.toChar)))

  /**
   * Whether the server's process exits on the first message this destination maps (2.10/2.11:
   * `{{partition(0,…)}}`, an integer divide by zero): not one message lost, the whole server down.
   */
  def crashesServer: Boolean = ops.contains(Op.Crash)

  /** The destination tokens the server crashes in ([[crashesServer]]), as written. */
  def crashTokens: Seq[String] = {
    val dtoks = Subjects.tokens(destination)
    ops.indices.filter(ops(_) == Op.Crash).map(dtoks(_))
  }

  override def toString: String = s"SubjectTransform(${GoQuote(source)} -> ${GoQuote(destination)})"
}

object SubjectTransform {

  /**
   * What a server of `version` does on a message that `crashing`'s destination maps, in the words every
   * path uses (validate, the upgrade check, `mapping`, explain, the docs): its process exits.
   */
  def crashWords(crashing: SubjectTransform, version: ServerVersion): String =
    s"nats-server $version's process exits on the first message this destination maps " +
      s"(${crashing.crashTokens.mkString(", ")}: panic: runtime error: integer divide by zero): the whole server " +
      "goes down, with every account's traffic, not only this message"

  /**
   * Compiles `src` -> `dest` with exactly the acceptance of an entry in a nats-server `mappings` block
   * of the given server line (`strict`: of an import, where only `$N`/`{{wildcard(N)}}` may be used and
   * every `*` must be). An empty `src` means `>`; an empty `dest` means "no transformation".
   *
   * @throws InvalidTransformException with that line's reason when the transform is invalid
   */
  def compile(src: String, dest: String, strict: Boolean, version: ServerVersion): SubjectTransform =
    compile(src, dest, strict, version, null: Interner)

  /**
   * [[compile]] of a transform installed for an account (an account's mapping, an import's or export's subject), its
   * account functions (2.14.10 and 2.15.3 on) resolved first to the hashes of the accounts `context` names, as the
   * server resolves them when it loads the subject ([[AccountFunctions.expand]]).
   */
  def compileForAccount(src: String, dest: String, strict: Boolean, version: ServerVersion,
      context: AccountFunctions.Context): SubjectTransform = {
    def expanded(subject: String) =
      try AccountFunctions.expand(subject, context, version)
      catch { case e: SyntaxError => throw new InvalidTransformException(src, dest, e.reason) }
    compile(expanded(src), expanded(dest), strict, version, null: Interner)
  }

  /** [[compile]] for the newest server line. */
  def compile(src: String, dest: String, strict: Boolean): SubjectTransform =
    compile(src, dest, strict, ServerVersion.Newest, null: Interner)

  /** [[compile]] of a mapping (not strict) for the newest server line. */
  def compile(src: String, dest: String): SubjectTransform =
    compile(src, dest, false, ServerVersion.Newest, null: Interner)

  /**
   * nats-server's `NewSubjectTransform` alone, without the mapping checks that come before it in a
   * `mappings` block: white space in a literal token passes, and so does any function the line's parser
   * reads (2.10-2.14 parse `left`/`right`). The source is checked only for empty tokens and a `>` before its
   * last token: white space in it passes too (it then matches no valid subject). What a stream's republish is
   * checked with on every line, and 2.10's stream transforms (a source's or mirror's entries have their source
   * checked as a subject filter before).
   */
  private[subjxform] def compileTransformOnly(src: String, dest: String, version: ServerVersion): SubjectTransform =
    compile(src, dest, false, version, null, mappingChecks = false)

  /** The error of the mapping checks (`ValidateMapping`'s token checks) on `dest`, if any. */
  private[subjxform] def mappingTokenError(dest: String, version: ServerVersion): Option[String] =
    if (dest.isEmpty) None else checkDestinationTokens(Subjects.tokens(dest), version)

  /**
   * [[compile]] sharing equal pieces (filters, literal tokens, operation arrays) with the other
   * transforms compiled through `interner` (when not null): a mapping table's many destinations.
   */
  private[subjxform] def compile(src: String, dest: String, strict: Boolean, version: ServerVersion,
      interner: Interner, mappingChecks: Boolean = true): SubjectTransform = {
    if (version == null)
      throw new IllegalArgumentException(s"no nats-server version: supported lines are ${ServerVersion.supported}")
    if (src.isEmpty) {
      // ADR-36: no source means `>`. A mappings block, where the golden cases come from, rejects an
      // empty key outright, so an invalid transform from "" is reported as nats-server reports that.
      try return compile(">", dest, strict, version, interner, mappingChecks).withSource(src)
      catch {
        case e: InvalidTransformException =>
          throw new InvalidTransformException(src, dest, s"Subject ${GoQuote(src)} is not a valid subject",
            sourceInvalid = true, detail = s"""as ">": ${e.reason}""")
      }
    }
    val source = src
    def fail(reason: String) = throw new InvalidTransformException(src, dest, reason)
    // A mappings block checks the source as a subject (no white space) and names it; NewSubjectTransform alone
    // checks only its tokens (empty ones, `>` before the last) and says only "invalid subject" (2.10's streams).
    if (mappingChecks && !Subjects.isValidSubject(source)) {
      throw new InvalidTransformException(src, dest, s"Subject ${GoQuote(source)} is not a valid subject",
        sourceInvalid = true)
    }
    if (!mappingChecks && !Subjects.isValidTransformSource(source)) {
      throw new InvalidTransformException(src, dest, InvalidSubject, sourceInvalid = true)
    }
    val filter =
      if (!mappingChecks) SubjectFilter.compile(source, sourceQuirk = true, null, transformSource = true)
      else if (interner == null) SubjectFilter.compile(source, sourceQuirk = true)
      else interner.filter(source, sourceQuirk = true)
    if (dest.isEmpty) return new SubjectTransform(src, dest, strict, filter, NoInts, NoInts, NoInts, NoBytes, NoTokens)

    val dtoks = Subjects.tokens(dest)
    if (mappingChecks) checkDestinationTokens(dtoks, version, strict).foreach(fail)
    // The transform's own check of the destination as a subject: no empty token, `>` last only.
    else if (dtoks.exists(_.isEmpty) || dtoks.init.contains(">")) fail(InvalidSubject)

    val stoks = Subjects.tokens(source)
    val hasFwc = stoks.last == ">"
    if (dtoks.contains("*") || hasFwc != (dtoks.last == ">")) fail(InvalidSubject)
    // Position in the source of the N-th `*` (1-based); nats-server reads index 0 or below as position 0.
    val wildcardPositions = stoks.indices.filter(stoks(_) == "*").toArray
    val npwcs = wildcardPositions.length
    def position(index: Long): Int = if (index >= 1) wildcardPositions(index.toInt - 1) else 0

    val n = dtoks.length
    val ops = new Array[Int](n)
    val tokenArg = new Array[Int](n)
    val intArg = new Array[Int](n)
    val bytesArg = new Array[Array[Byte]](n)
    val hashTokens = new Array[Array[Int]](n)
    var placeholders = 0L
    for (i <- 0 until n) {
      val token = dtoks(i)
      val p =
        try parse(token, canonical(token), version)
        catch { case e: SyntaxError => fail(e.reason) }
      if (p.op == Op.Literal) {
        ops(i) = if (token == ">") Op.Fwc else Op.Literal
        bytesArg(i) = token.getBytes(UTF_8)
      } else if (npwcs > 0 || hasFwc) {
        if (strict && p.op != Op.Wildcard) fail(inToken(NotForImport, token))
        if (npwcs == 0 && version.functionsNeedASourceWildcard) fail(inToken(IndexOutOfRange, token))
        ops(i) = if (p.op == Op.Partition && p.int == 0 && !version.partitionByZeroIsZero) Op.Crash else p.op
        intArg(i) = p.int
        if (p.op != Op.Random) {
          placeholders += p.indexes.length
          p.indexes.find(_ > npwcs).foreach(bad => fail(inToken(IndexOutOfRange, s"$token: [$bad]")))
          val positions = p.indexes.map(position)
          if (p.op == Op.Partition) hashTokens(i) = if (positions.isEmpty) null else positions
          else tokenArg(i) = positions(0)
          if (p.op == Op.Split) bytesArg(i) = p.string.getBytes(UTF_8)
        }
      } else {
        // A literal source has no wildcard to read: only whole-subject functions make sense.
        if ((p.op != Op.Partition && p.op != Op.Random) || version.functionsNeedASourceWildcard)
          fail(inToken(IndexOutOfRange, token))
        ops(i) = p.op
        intArg(i) = p.int
        hashTokens(i) = null
      }
    }
    if (strict && (npwcs > 0 || hasFwc) && placeholders < npwcs) fail(inToken(NotUsingAllWildcards, dest))
    if (interner == null) new SubjectTransform(src, dest, strict, filter, ops, tokenArg, intArg, bytesArg, hashTokens)
    else {
      new SubjectTransform(src, dest, strict, filter, interner.ints(ops), interner.ints(tokenArg),
        interner.ints(intArg),
        interner.refs(bytesArg.map(interner.bytes)), interner.refs(hashTokens.map(interner.ints)))
    }
  }

  private val NoInts = Array.emptyIntArray
  private val NoBytes = Array.empty[Array[Byte]]
  private val NoTokens = Array.empty[Array[Int]]

  /** The token checks nats-server's `ValidateMapping` makes before it builds a transform, in its order. */
  private def checkDestinationTokens(
      dtoks: Array[String], version: ServerVersion, strict: Boolean = false): Option[String] = {
    val invalid = version.invalidDestinationError
    var afterFwc = false
    for (t <- dtoks) {
      if (t.isEmpty || afterFwc)
        return Some(if (t.isEmpty && version.emptyTokenErrorSaysIn) invalid + " in " else inToken(invalid, t))
      val c = canonical(t)
      if (looksLikeFunction(c)) {
        // an account function left unresolved: the subject was not installed for an account (a stream's)
        if (version.accountFunctions && AccountFunctions.isAccountFunction(c))
          return Some(inToken(AccountFunctions.NotAvailable, t))
        if (!namesKnownFunction(c, version)) {
          // An import's `to` is built without the mapping checks: a function its parser reads fails the strict
          // check there (2.10-2.14: left/right), any other is unknown.
          val parsed = strict && DestinationSyntax.namesParsedFunction(c, version)
          return Some(inToken(if (parsed) NotForImport else UnknownFunction, t))
        }
      } else if (t == ">") afterFwc = true
      else if (t.exists(Subjects.isNatsSpace)) return Some(invalid)
    }
    None
  }

  private final val FnvOffset = 0x811c9dc5
  private final val FnvPrime = 0x01000193

  private def fnv1a(h0: Int, in: Array[Byte], from: Int, until: Int): Int = {
    var h = h0
    var i = from
    while (i < until) { h = (h ^ (in(i) & 0xff)) * FnvPrime; i += 1 }
    h
  }

  /** FNV-1a 32 of the keys mod n, both unsigned: nats-server takes the count as uint32. */
  private def partition(in: Array[Byte], off: Int, len: Int, ws: Workspace, n: Int, keys: Array[Int]): Unit = {
    if (n == 0) { ws.putDecimal(0); return }
    var h = FnvOffset
    if (keys == null) h = fnv1a(h, in, off, off + len)
    else {
      var k = 0
      while (k < keys.length) { h = fnv1a(h, in, ws.tokStart(keys(k)), ws.tokEnd(keys(k))); k += 1 }
    }
    ws.putDecimal(Integer.toUnsignedLong(h) % Integer.toUnsignedLong(n))
  }

  // Character counts are bytes of the UTF-8 subject, as nats-server counts them (Go slices its token strings by
  // byte): a cut may fall inside a character, and the result is then those bytes (SPEC §4).

  /** split/slice/left/right on token `in[s, e)`; each leaves the token whole unless 0 < k < its length in bytes. */
  private def byCharacters(op: Int, in: Array[Byte], s: Int, e: Int, k: Int, ws: Workspace): Unit = {
    val n = e - s
    if (k <= 0 || k >= n) { ws.put(in, s, e); return }
    (op: @annotation.switch) match {
      case Op.SplitFromLeft | Op.SplitFromRight =>
        val m = s + (if (op == Op.SplitFromLeft) k else n - k)
        ws.put(in, s, m); ws.put(Subjects.Sep); ws.put(in, m, e)
      case Op.Left => ws.put(in, s, s + k)
      case Op.Right => ws.put(in, e - k, e)
      case Op.SliceFromLeft | Op.SliceFromRight =>
        // From the right, the short remainder comes first; then pieces of k bytes.
        val first = if (op == Op.SliceFromLeft) k else { val r = n % k; if (r == 0) k else r }
        ws.put(in, s, s + first)
        var p = s + first
        while (p < e) {
          val q = math.min(p + k, e)
          ws.put(Subjects.Sep); ws.put(in, p, q)
          p = q
        }
    }
  }

  /**
   * The length of the UTF-8 sequence at `in(p)` as Go's utf8.DecodeRune reads it: a well-formed sequence (no
   * overlong form, no surrogate, nothing above U+10FFFF) is its bytes; anything else is one byte.
   */
  private def goSequenceLength(in: Array[Byte], p: Int, e: Int): Int = {
    val b0 = in(p) & 0xff
    def cont(i: Int, lo: Int = 0x80, hi: Int = 0xbf) = p + i < e && (in(p + i) & 0xff) >= lo && (in(p + i) & 0xff) <= hi
    if (b0 < 0xc2 || b0 > 0xf4) 1
    else if (b0 < 0xe0) { if (cont(1)) 2 else 1 }
    else if (b0 < 0xf0) {
      val second = if (b0 == 0xe0) cont(1, 0xa0) else if (b0 == 0xed) cont(1, hi = 0x9f) else cont(1)
      if (second && cont(2)) 3 else 1
    } else {
      val second = if (b0 == 0xf0) cont(1, 0x90) else if (b0 == 0xf4) cont(1, hi = 0x8f) else cont(1)
      if (second && cont(2) && cont(3)) 4 else 1
    }
  }

  private def indexOf(in: Array[Byte], from: Int, until: Int, sep: Array[Byte]): Int = {
    val last = until - sep.length
    var i = from
    while (i <= last) {
      var j = 0
      while (j < sep.length && in(i + j) == sep(j)) j += 1
      if (j == sep.length) return i
      i += 1
    }
    -1
  }

  /**
   * nats-server's split: the pieces between separators, empty pieces written as nothing, a `.` before a
   * piece only when that piece is not empty and the first piece was not an empty one followed by it.
   */
  private def split(in: Array[Byte], s: Int, e: Int, sep: Array[Byte], ws: Workspace): Unit = {
    if (sep.isEmpty) {
      // Go's strings.Split on "" cuts after each UTF-8 sequence it decodes, and after each byte it cannot.
      var p = s
      while (p < e) {
        val q = p + goSequenceLength(in, p, e)
        if (p > s) ws.put(Subjects.Sep)
        ws.put(in, p, q)
        p = q
      }
      return
    }
    var first = true
    var ps = s
    var at = indexOf(in, s, e, sep)
    var pe = if (at < 0) e else at
    while (true) {
      if (pe > ps) ws.put(in, ps, pe)
      if (at < 0) return
      val ns = at + sep.length
      at = indexOf(in, ns, e, sep)
      val npe = if (at < 0) e else at
      if (npe > ns && !(first && pe == ps)) ws.put(Subjects.Sep)
      first = false
      ps = ns
      pe = npe
    }
  }

  private def hasEmptyToken(out: Array[Byte], len: Int): Boolean = {
    if (len == 0 || out(0) == Subjects.Sep || out(len - 1) == Subjects.Sep) return true
    var i = 1
    while (i < len) { if (out(i) == Subjects.Sep && out(i - 1) == Subjects.Sep) return true; i += 1 }
    false
  }
}

/**
 * An invalid transform, with nats-server's reason. `natsMessage` is the error nats-server gives for
 * the same entry in a `mappings` block.
 */
final class InvalidTransformException(
    val source: String,
    val destination: String,
    val reason: String,
    val sourceInvalid: Boolean = false,
    detail: String = "")
  extends IllegalArgumentException(
    s"invalid subject transform from ${GoQuote(source)} to ${GoQuote(destination)}: $reason" +
      (if (detail.isEmpty) "" else s" ($detail)")) {

  def natsMessage: String =
    if (sourceInvalid) reason
    else s"Error adding mapping for ${GoQuote(source)} to ${GoQuote(destination)} : $reason"
}
