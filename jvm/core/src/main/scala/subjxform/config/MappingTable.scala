package subjxform.config

import java.nio.charset.StandardCharsets.UTF_8

import scala.collection.mutable

import subjxform.config.ConfValue._
import subjxform.engine.{
  AccountFunctions, DestinationSyntax, FilterIndex, GoQuote, Interner, InvalidTransformException, JsonWriter, KeyedDraw,
  OverlapIndex, ServerVersion, Subjects, SubjectTooLongException, SubjectTransform, Workspace
}

/**
 * A Core NATS account mapping table (the content of a nats-server `mappings { }` block), compiled once
 * and applied to many subjects. Immutable and thread-safe: the random draw and all scratch state live
 * in the caller's [[Workspace]].
 *
 * One rule applies, never recursively: a literal rule equal to the subject, otherwise the first
 * matching wildcard rule in written order (nats-server's own order is that of a Go map: unspecified).
 * Literal rules are found by hashing the subject, wildcard rules through a [[FilterIndex]] (a token
 * trie), so a table of 100,000 rules costs a subject about what a table of four does. The rule's
 * destinations are those of the caller's cluster when it has any, else the cluster-less ones; one is
 * drawn by weight exactly as nats-server draws it (an integer in [0, 100) against the running total),
 * the remainder keeping the subject unless the source is itself a destination.
 */
final class MappingTable private (
    val rules: Array[MappingTable.Rule],
    literalSlots: Array[Int], // open addressing on the hash of a literal rule's subject: rule numbers; -1 = empty
    literalBytes: Array[Array[Byte]], // per rule: its subject's bytes when it is a literal rule, else null
    wildcardIndex: FilterIndex, // the other rules, in written order
    wildcardRules: Array[Int], // a wildcardIndex filter's rule number
    digest: MappingTable.Digest) // of the text it was compiled from: see MappingTable.compile
  extends Serializable {

  import MappingTable._

  /** Whether two applications to the same subject can differ (a weighted draw or `{{random(n)}}`). */
  val isRandom: Boolean = rules.exists(r => (r.default +: r.clusterChoices).exists(_.isRandom))

  /**
   * Maps the subject in `in[off, off+len)` for a server in the cluster `cluster[cOff, cOff+cLen)`
   * (`cluster == null`: no cluster). Returns the new subject's UTF-8 bytes; [[MappingTable.Unchanged]]
   * when no rule matches; null when the subject is not a literal subject, when the draw drops the
   * message (artificial loss), or when the mapped subject has an empty token.
   *
   * Draws (weights, `{{random(n)}}`) come from the workspace's random source: a workspace seeded with s
   * repeats them for the same subjects in the same order (Spark: `seed + partition index`, like
   * `rand(seed)`: the same rows in the same partitioning).
   *
   * @throws SubjectTooLongException when the mapped subject would be longer than [[Workspace.MaxSubjectBytes]]
   */
  def apply(in: Array[Byte], off: Int, len: Int, cluster: Array[Byte], cOff: Int, cLen: Int, ws: Workspace): Array[Byte] =
    Workspace.orThrow(map(in, off, len, cluster, cOff, cLen, ws, keyed = false, 0L, 0L), ws)

  /**
   * [[apply]] with every draw a pure function of (`seed`, `key`, rule) ([[KeyedDraw]]): the weighted
   * choice of a rule is salted by its source subject, a `{{random(n)}}` token by its rule, destination
   * and position. The same key gets the same subject whatever the order, partitioning or batching of the
   * rows and whatever else the workspace drew; a rule's draws do not change when other rules are added
   * or removed. Allocates nothing but the result. `key` is the caller's 64-bit digest of the message
   * (e.g. xxhash64 of an id column).
   */
  def applyKeyed(in: Array[Byte], off: Int, len: Int, cluster: Array[Byte], cOff: Int, cLen: Int, seed: Long, key: Long,
      ws: Workspace): Array[Byte] =
    Workspace.orThrow(map(in, off, len, cluster, cOff, cLen, ws, keyed = true, seed, key), ws)

  /**
   * The decision for one subject, the one that [[apply]], [[applyKeyed]] and [[explain]] all act on:
   * which rule (its number; [[NotASubject]] or [[NoMatch]] when none), and in `ws` whether it was found
   * as a literal rule, which of its cluster scopes applied and which destination was drawn.
   */
  private def decide(in: Array[Byte], off: Int, len: Int, cluster: Array[Byte], cOff: Int, cLen: Int, ws: Workspace,
      keyed: Boolean, seed: Long, key: Long): Int = {
    val ntok = ws.tokenize(in, off, len)
    if (ntok == 0) return NotASubject
    var r = literalRule(in, off, len)
    ws.decidedLiteral = r >= 0
    if (r < 0) {
      val found = wildcardIndex.firstMatch(in, ws, ntok)
      if (found < 0) return NoMatch
      r = wildcardRules(found)
    }
    val rule = rules(r)
    val scope = if (cluster == null || rule.clusterNames.length == 0) -1 else rule.clusterIndex(cluster, cOff, cLen)
    val choice = rule.choice(scope)
    ws.decidedScope = scope
    ws.decidedPick = if (keyed) choice.pickKeyed(seed, key, rule.salt) else choice.pick(ws)
    r
  }

  /** [[apply]] / [[applyKeyed]] as a per-row entry: a result too long is [[Workspace.TooLong]] (see [[SubjectTransform.run]]). */
  private[subjxform] def map(in: Array[Byte], off: Int, len: Int, cluster: Array[Byte], cOff: Int, cLen: Int,
      ws: Workspace,
      keyed: Boolean, seed: Long, key: Long): Array[Byte] = {
    val r = decide(in, off, len, cluster, cOff, cLen, ws, keyed, seed, key)
    if (r < 0) { if (r == NoMatch) Unchanged else null }
    else build(r, in, off, len, ws, keyed, seed, key)
  }

  /** The subject that rule `r` gives after [[decide]] (null when the draw dropped it). */
  private def build(r: Int, in: Array[Byte], off: Int, len: Int, ws: Workspace, keyed: Boolean, seed: Long, key: Long)
      : Array[Byte] = {
    val picked = ws.decidedPick
    if (picked < 0) null
    else rules(r).choice(ws.decidedScope).transforms(picked).run(in, off, len, ws, keyed, seed, key)
  }

  /**
   * What [[apply]] (`keyed` false) or [[applyKeyed]] (`keyed` true, with `seed` and `key`) does to the
   * subject, and why: the same decision, taken by the same code, so the explanation's result is always
   * the one they return for the same arguments and the same state of `ws`'s random source (and it
   * advances that source as they do). Null when the subject is not a literal subject.
   *
   * @throws SubjectTooLongException when the mapped subject would be longer than [[Workspace.MaxSubjectBytes]]
   */
  def explain(in: Array[Byte], off: Int, len: Int, cluster: Array[Byte], cOff: Int, cLen: Int, ws: Workspace,
      keyed: Boolean, seed: Long, key: Long): MappingExplanation = {
    val r = decide(in, off, len, cluster, cOff, cLen, ws, keyed, seed, key)
    if (r == NotASubject) null
    else if (r == NoMatch) MappingExplanation.noMatch
    else {
      val result = Workspace.orThrow(build(r, in, off, len, ws, keyed, seed, key), ws)
      val rule = rules(r)
      val scope = ws.decidedScope
      val choice = rule.choice(scope)
      val picked = ws.decidedPick
      val entry = if (picked < 0) -1 else choice.entries(picked)
      val outcome =
        if (result == null && picked >= 0 && choice.transforms(picked).crashesServer) MappingExplanation.Crash
        else if (result == null) MappingExplanation.Dropped
        else if (sameBytes(result, in, off, len)) MappingExplanation.Unchanged
        else MappingExplanation.Mapped
      new MappingExplanation(outcome, r, rule, ws.decidedLiteral, if (scope < 0) null else rule.clusterNames(scope),
        entry, if (entry < 0) null else choice.destinationBytes(picked),
        if (entry < 0) choice.remainderWeight else choice.weight(picked), result)
    }
  }

  /** Convenience for tests and tools (allocates): the mapped subject, or null as [[apply]] says. */
  def apply(subject: String, cluster: String = null, ws: Workspace = new Workspace): String = {
    val b = subject.getBytes(UTF_8)
    val c = if (cluster == null) null else cluster.getBytes(UTF_8)
    val r = apply(b, 0, b.length, c, 0, if (c == null) 0 else c.length, ws)
    if (r eq Unchanged) subject else if (r == null) null else new String(r, UTF_8)
  }

  /**
   * The table as [[explain]] sees it, as JSON for callers outside the JVM (reports list every rule and
   * destination, including those no message took): an array of rules in written order, each
   * `{"rule_index", "rule", "matched_as", "destinations": [{"index", "destination", "weight", "cluster"}]
   * (as written; weight in percent), "scopes": [{"cluster", "remainder", "remainder_drops"}]}`: per cluster
   * scope (null: the cluster-less destinations) the weight left over and whether it drops the message.
   */
  def planJson: String = {
    def q(s: String): String = if (s == null) "null" else JsonWriter.quote(s)
    rules.indices.map { r =>
      val rule = rules(r)
      val scopes = (-1 until rule.clusterNames.length).map(i =>
        (if (i < 0) null else new String(rule.clusterNames(i), UTF_8), rule.choice(i)))
      val written = for {
        (cluster, choice) <- scopes
        i <- choice.transforms.indices if choice.entries(i) >= 0
      } yield (choice.entries(i), choice.transforms(i).destination, choice.weight(i), cluster)
      val destinations = written.sortBy(_._1).map { case (i, d, w, c) =>
        s"""{"index":$i,"destination":${q(d)},"weight":$w,"cluster":${q(c)}}"""
      }
      val remainders = scopes.map { case (c, choice) =>
        s"""{"cluster":${q(c)},"remainder":${choice.remainderWeight},"remainder_drops":${choice.remainderWeight > 0 && !choice.entries.contains(-1)}}"""
      }
      s"""{"rule_index":$r,"rule":${q(rule.source)},"matched_as":"${if (literalBytes(r) != null) "literal"
        else "wildcard"}",""" +
        s""""destinations":${destinations.mkString("[", ",", "]")},"scopes":${remainders.mkString("[", ",", "]")}}"""
    }.mkString("[", ",", "]")
  }

  /** Convenience for tests and tools: [[explain]] of a string subject, unkeyed. */
  def explain(subject: String, cluster: String, ws: Workspace): MappingExplanation = {
    val b = subject.getBytes(UTF_8)
    val c = if (cluster == null) null else cluster.getBytes(UTF_8)
    explain(b, 0, b.length, c, 0, if (c == null) 0 else c.length, ws, keyed = false, 0L, 0L)
  }

  /** The number of the literal rule equal to the subject, or -1. */
  private def literalRule(in: Array[Byte], off: Int, len: Int): Int = {
    if (literalSlots.length == 0) return -1
    val mask = literalSlots.length - 1
    var slot = hash(in, off, len) & mask
    while (true) {
      val r = literalSlots(slot)
      if (r < 0) return -1
      if (sameBytes(literalBytes(r), in, off, len)) return r
      slot = (slot + 1) & mask
    }
    -1
  }

  // A copy deserialized (a Spark task's) is the one already in this JVM when there is one.
  private def readResolve(): AnyRef = MappingTable.share(digest, this)

  override def toString: String =
    if (rules.length <= 10) s"MappingTable(${rules.map(r => GoQuote(r.source)).mkString(", ")})"
    else s"MappingTable(${rules.take(10).map(r => GoQuote(r.source)).mkString(", ")}, ... ${rules.length} rules)"
}

object MappingTable {

  /** What [[MappingTable.apply]] returns when no rule matches: the caller keeps its subject as it is. */
  val Unchanged: Array[Byte] = new Array[Byte](0)

  /**
   * The destinations one rule offers one cluster: transforms and their running weight totals.
   * `fixed` short-cuts the draw when its outcome is certain: an index, or [[Drop]] when every weight is 0.
   */
  final case class Choice(transforms: Array[SubjectTransform], runningTotals: Array[Int], fixed: Int,
      entries: Array[Int]) {
    def isRandom: Boolean = fixed == Draw || transforms.exists(_.isRandom)

    /** The destinations' UTF-8 bytes as written, made when an explanation first needs them. */
    lazy val destinationBytes: Array[Array[Byte]] = transforms.map(_.destination.getBytes(UTF_8))

    /** The weight of transform `i`. */
    def weight(i: Int): Int = runningTotals(i) - (if (i == 0) 0 else runningTotals(i - 1))

    /** What the written entries leave: the share that keeps the subject, or drops it when the source is listed. */
    val remainderWeight: Int = 100 - (0 until transforms.length).filter(entries(_) >= 0).map(weight).sum

    /** The index of the chosen transform, or -1 when the message is dropped. */
    def pick(ws: Workspace): Int =
      if (fixed >= 0) fixed
      else if (fixed == Drop) -1
      else byWeight(ws.random.nextInt(100))

    /** [[pick]] with the draw a pure function of (seed, key, the rule's salt). */
    def pickKeyed(seed: Long, key: Long, salt: Long): Int =
      if (fixed >= 0) fixed
      else if (fixed == Drop) -1
      else byWeight(KeyedDraw.below(100, seed, key, salt).toInt)

    private def byWeight(w: Int): Int = {
      var i = 0
      while (i < runningTotals.length) { if (w < runningTotals(i)) return i; i += 1 }
      -1
    }
  }

  private final val Draw = -1
  private final val Drop = -2

  // What decide returns when there is no rule to apply.
  private final val NotASubject = -2
  private final val NoMatch = -1

  final case class Rule(
      source: String,
      default: Choice,
      clusterNames: Array[Array[Byte]],
      clusterChoices: Array[Choice]) {

    /** What names this rule's weighted choice in keyed draws ([[KeyedDraw]]): its source subject. */
    val salt: Long = KeyedDraw.salt(source)

    /** The index of the cluster's scope in [[clusterNames]], or -1: the cluster-less destinations apply. */
    def clusterIndex(cluster: Array[Byte], off: Int, len: Int): Int = {
      var i = 0
      while (i < clusterNames.length) {
        if (sameBytes(clusterNames(i), cluster, off, len)) return i
        i += 1
      }
      -1
    }

    /** The source's UTF-8 bytes, made when an explanation first needs them (tables that are only applied never do). */
    lazy val sourceBytes: Array[Byte] = source.getBytes(UTF_8)

    /** The destinations of a scope ([[clusterIndex]]). */
    def choice(scope: Int): Choice = if (scope < 0) default else clusterChoices(scope)
  }

  private def hash(in: Array[Byte], off: Int, len: Int): Int = {
    var h = 0x811c9dc5
    var i = off
    while (i < off + len) { h = (h ^ (in(i) & 0xff)) * 0x01000193; i += 1 }
    h ^ (h >>> 16)
  }

  private def sameBytes(a: Array[Byte], in: Array[Byte], off: Int, len: Int): Boolean = {
    if (a.length != len) return false
    var i = 0
    while (i < len) { if (a(i) != in(off + i)) return false; i += 1 }
    true
  }

  // ---------------------------------------------------------------------------------------------
  // Compilation and validation

  /**
   * Compiles a mapping table given as JSON or as the body of a nats-server `mappings` block.
   *
   * @throws InvalidMappingsException listing every error (nats-server's message, with its rule and
   *   destination) when nats-server would reject the block or the text cannot be read
   */
  def compile(text: String): MappingTable = compile(text, ServerVersion.Newest)

  /** [[compile]] as the given nats-server line accepts and applies the block. */
  def compile(text: String, version: ServerVersion): MappingTable = compile(text, version, null)

  /**
   * [[compile]] of the mappings of the account named `account` (null: none given), whose account functions (2.14.10
   * and 2.15.3 on) resolve to the hash of its name, as its server resolves them when it loads the block.
   */
  def compile(text: String, version: ServerVersion, account: String): MappingTable = {
    // The same text compiles to another table on another release: its row of the table (releases of one line
    // differ too: 2.11.0 takes a character count 2.11.11 refuses) is part of what is shared; and for another account
    // where the release resolves account functions.
    val named = if (account != null && version.accountFunctions) s"account ${GoQuote(account)}\n" else ""
    val digest =
      if (version == ServerVersion.Newest && named.isEmpty) Digest.of(text)
      else Digest.of(s"nats-server ${version.since}\n$named$text")
    val known = shared(digest)
    if (known != null) return known
    val interner = new Interner
    val (rules, loaded) = analyse(text, interner, overlaps = false, version, contextOf(account))
    if (loaded.refused) throw new InvalidMappingsException(loaded.problems.filter(_.isError))
    share(digest, build(rules, interner, digest))
  }

  /**
   * The SHA-256 of a table's text: what [[compile]] recognises a table by. Spark makes several copies
   * of an expression while it plans a query (each compiling its constant table) and deserializes one
   * per task; compiled tables are immutable, so all of them can be the one compiled first, and a big
   * table costs one footprint per JVM instead of one per copy.
   */
  private[subjxform] final class Digest(val bytes: Array[Byte]) extends Serializable {
    override def hashCode: Int = java.util.Arrays.hashCode(bytes)
    override def equals(o: Any): Boolean = o match {
      case d: Digest => java.util.Arrays.equals(bytes, d.bytes)
      case _ => false
    }
  }

  private[subjxform] object Digest {
    def of(text: String): Digest =
      new Digest(java.security.MessageDigest.getInstance("SHA-256").digest(text.getBytes(UTF_8)))
  }

  /** The tables compiled lately, softly held (the collector may take them back under memory pressure). */
  private val recentTables =
    new java.util.LinkedHashMap[Digest, java.lang.ref.SoftReference[MappingTable]](16, 0.75f, true) {
      override def removeEldestEntry(e: java.util.Map.Entry[Digest, java.lang.ref.SoftReference[MappingTable]]): Boolean =
        size() > 16
    }

  private def shared(digest: Digest): MappingTable = recentTables.synchronized {
    val ref = recentTables.get(digest)
    if (ref == null) null else ref.get
  }

  /** The table already known for this digest, else `table`, now known. */
  private def share(digest: Digest, table: MappingTable): MappingTable = recentTables.synchronized {
    val known = shared(digest)
    if (known != null) known
    else { recentTables.put(digest, new java.lang.ref.SoftReference(table)); table }
  }

  /**
   * Every problem of the table, rule by rule: errors (a server refuses it: the file, or the account of a JWT),
   * crashes (the server loads it and its process exits on the first message a destination maps), warnings
   * (among them, for a JWT's table, each rule the server loads the account without).
   */
  def validate(text: String): Seq[MappingProblem] = validate(text, ServerVersion.Newest)

  /** [[validate]] as the given nats-server line checks the block. */
  def validate(text: String, version: ServerVersion): Seq[MappingProblem] =
    analyse(text, new Interner, overlaps = true, version, AccountFunctions.NoAccount)._2.problems

  /** [[validate]] for a block already read, e.g. one of the `mappings` blocks of a server config file. */
  def validate(block: Obj): Seq[MappingProblem] = validate(block, ServerVersion.Newest)

  /** [[validate]] of a block already read, as the given nats-server line checks it. */
  def validate(block: Obj, version: ServerVersion): Seq[MappingProblem] =
    load(block, version, MappingSource.of(block)).problems

  /**
   * What a server of `version` loads of `block`, read from `source` (see [[MappingSource]]): the rules it
   * applies and every problem. The one model of loading: compile (apply and explain), validate, the accounts
   * and the upgrade check all take it from here.
   */
  def load(block: Obj, version: ServerVersion, source: MappingSource): MappingLoad = load(block, version, source, null)

  /** [[load]] of the mappings of the account named `account` (null: none given): its account functions resolved. */
  def load(block: Obj, version: ServerVersion, source: MappingSource, account: String): MappingLoad =
    analyseBlock(block, new Interner, overlaps = true, version, source, contextOf(account))._2

  /** Where an account's mappings are installed: `{{account-hash()}}` is its hash, the other account functions none. */
  private def contextOf(account: String): AccountFunctions.Context =
    if (account == null) AccountFunctions.NoAccount else AccountFunctions.Context(account)

  /** [[validate]] as a JSON array of `{rule, destination, severity, message}`, for callers outside the JVM. */
  def validateJson(text: String): String = validateJson(text, ServerVersion.Newest)

  /** [[validateJson]] as the given nats-server line checks the block. */
  def validateJson(text: String, version: ServerVersion): String =
    validate(text, version).map { p =>
      Seq("rule" -> p.rule, "destination" -> p.destination, "severity" -> p.severity, "message" -> p.message)
        .map { case (k, v) => s"${JsonWriter.quote(k)}:${if (v == null) "null" else JsonWriter.quote(v)}" }.mkString(
          "{", ",", "}")
    }.mkString("[", ",", "]")

  /** One destination entry as nats-server's `parseAccountMapDest` reads it. */
  private final case class Entry(subject: String, weight: Int, cluster: String)

  /** A rule that passed every check, with its destinations still in written order. */
  private final case class Checked(source: String, entries: Seq[(Entry, SubjectTransform)])

  /**
   * The rules a server loads of the text (its source told by its shape: [[MappingSource.of]]) and what it
   * says of them; overlap warnings only when `overlaps` (validation).
   */
  private def analyse(text: String, interner: Interner, overlaps: Boolean, version: ServerVersion,
      context: AccountFunctions.Context): (Seq[Checked], MappingLoad) = {
    val doc =
      try ConfSyntax.parseMappings(text)
      catch {
        case e: ConfSyntaxException =>
          return (Nil,
            MappingLoad(MappingSource.ConfigFile, Nil, Nil,
              Seq(MappingProblem(null, null, "error", e.getMessage))))
      }
    analyseBlock(doc, interner, overlaps, version, MappingSource.of(doc), context)
  }

  /**
   * A block as a server of `version` loads it from `source`. A config file's block is all or nothing: any
   * error and the server refuses the file. An account JWT's is checked as nats-io/jwt checks the claims
   * first (a failure: the server refuses the account), then added rule by rule as nats-server's
   * `updateAccountClaimsWithRefresh` adds them (`AddWeightedMappings`): a rule that fails is left out, its
   * error ignored (logged from 2.14.10 and 2.15.1 on), the others applied. Either way a destination on which
   * the release's process exits is a crash, not an error: the server loads it.
   */
  private def analyseBlock(doc: Obj, interner: Interner, overlaps: Boolean, version: ServerVersion,
      source: MappingSource, context: AccountFunctions.Context): (Seq[Checked], MappingLoad) = {
    if (source == MappingSource.AccountJwt) {
      val refusal = jwtClaimErrors(doc)
      if (refusal.nonEmpty) return (Nil, MappingLoad(source, Nil, Nil, refusal))
    }
    val (checked, problems) = checkRules(doc, interner, version, source, context)
    val (kept, leftOut, said) =
      if (source == MappingSource.ConfigFile) (checked, Nil, problems)
      else {
        val failed = problems.filter(_.isError).groupBy(_.rule).map { case (r, ps) => r -> ps.head.message }
        val words = s"nats-server $version loads the account without this rule"
        (checked.filterNot(c => failed.contains(c.source)),
          doc.entries.map(_._1).distinct.filter(failed.contains).map(r => r -> failed(r)),
          problems.map(p =>
            if (p.isError) p.copy(severity = "warning", message = s"${p.message}: $words").placed(p.place, p.inBlock)
            else p))
      }
    val crashes = for (c <- kept; (_, t) <- c.entries if t.crashesServer)
      yield MappingProblem(c.source, t.destination, "crash", SubjectTransform.crashWords(t, version))
    val overlapping =
      if (!overlaps) Nil
      else if (source == MappingSource.ConfigFile)
        overlapWarnings(doc.entries.map(_._1).filter(Subjects.isValidSubject))
      else overlapWarnings(kept.map(_.source))
    (kept, MappingLoad(source, kept.map(_.source), leftOut, said ++ crashes ++ overlapping))
  }

  /**
   * nats-io/jwt's `Mapping.Validate` (v2.8.2, the newest releases'), which nats-server runs on an account
   * JWT before it loads the account: subjects well formed, each weight (a missing or 0 weight counts 100) at
   * most 100, and at most 100 per cluster. With them, what its JSON decoder refuses (an entry that is no
   * object, a weight that is no 0..255 integer, a rule that is no list). Any of them: the account is refused.
   */
  private def jwtClaimErrors(m: Obj): Seq[MappingProblem] = {
    val refused = "nats-server refuses the account (account validation failed)"
    def subjectErrors(v: String): Seq[String] =
      if (v.isEmpty) Seq("subject cannot be empty")
      else Seq(
        if (v.contains(" ")) Some(s"subject ${GoQuote(v)} cannot have spaces") else None,
        if (v.startsWith(".") || v.endsWith(".")) Some(s"subject ${GoQuote(v)} cannot start or end with a `.`")
        else None,
        if (v.contains("..")) Some(s"subject ${GoQuote(v)} cannot contain consecutive `.`") else None).flatten
    m.entries.flatMap { case (rule, v) =>
      def error(dest: String, message: String) = MappingProblem(rule, dest, "error", s"$message: $refused")
      v match {
        case Arr(items, _) =>
          val decoded = items.map {
            case o: Obj =>
              val subject = o.get("subject") match {
                case None | Some(Null(_)) => Right("")
                case Some(Str(x, _, _)) => Right(x)
                case Some(other) => Left(s"a JWT mapping's subject must be a string, got ${ConfValue.goText(other)}")
              }
              val weight = o.get("weight") match {
                case None | Some(Null(_)) => Right(0L)
                case Some(Integer(n, _)) if n >= 0 && n <= 255 => Right(n)
                case Some(other) =>
                  Left(s"JWT mapping weight must be an integer 0..255 (uint8), got ${ConfValue.goText(other)}")
              }
              val cluster = o.get("cluster").collect { case Str(c, _, _) => c }.getOrElse("")
              for (s <- subject; w <- weight) yield (s, if (w == 0) 100L else w, cluster)
            case other => Left(s"a JWT mapping entry must be an object, got ${ConfValue.goText(other)}")
          }
          val undecodable = decoded.collect { case Left(e) => error(null, e) }
          if (undecodable.nonEmpty) undecodable
          else {
            val entries = decoded.collect { case Right(e) => e }
            val subjects = (subjectErrors(rule).map(error(null, _)) ++
              entries.flatMap(e => subjectErrors(e._1).map(error(e._1, _))))
            val each = entries.filter(_._2 > 100).map(e =>
              error(e._1, s"Mapping ${GoQuote(rule)} has a weight ${e._2} that exceeds 100"))
            val totals = entries.groupBy(_._3).toSeq.sortBy(_._1).collect {
              case (cluster, es) if es.map(_._2).sum > 100 =>
                error(null,
                  if (cluster.isEmpty) s"Mapping ${GoQuote(rule)} exceeds 100% among all of it's weighted to mappings"
                  else s"Mapping ${GoQuote(rule)} in cluster ${GoQuote(cluster)} exceeds 100% among all of it's " +
                    "weighted to mappings")
            }
            subjects ++ each ++ totals
          }
        case other => Seq(error(null, s"a JWT mapping must be a list of entries, got ${ConfValue.goText(other)}"))
      }
    }
  }

  /** nats-server's checks of each rule (`parseAccountMapDest`, `AddWeightedMappings`): the rules that pass, every problem. */
  private def checkRules(doc: Obj, interner: Interner, version: ServerVersion, source: MappingSource,
      context: AccountFunctions.Context): (Seq[Checked], Seq[MappingProblem]) = {
    val problems = mutable.ArrayBuffer.empty[MappingProblem]
    def error(rule: String, dest: String, message: String, at: ConfValue = null): Unit =
      problems += MappingProblem(rule, dest, "error", message).placed(at)
    def warning(rule: String, dest: String, message: String): Unit =
      problems += MappingProblem(rule, dest, "warning", message)

    doc.repeatedKeys.distinct.foreach(k =>
      warning(k, null,
        s"rule ${GoQuote(k)} is written more than once: the last one replaces the others (as in nats-server)"))

    def parseEntry(rule: String, v: ConfValue): Option[Entry] = v match {
      case o: Obj if source == MappingSource.AccountJwt => jwtEntry(rule, o)
      case o: Obj =>
        val dest = o.entries.collectFirst {
          case (k, Str(s, _, _)) if isDestinationField(k) => s
        }.orNull
        var subject: Option[String] = None
        var weight: Option[Int] = None
        var cluster = ""
        for ((k, x) <- o.entries) GoBytes.lower(k) match {
          case "dest" | "destination" => x match {
              case Str(s, _, _) => subject = Some(s)
              case other =>
                error(rule, null, s"Expected a string for the mapping destination, got ${ConfValue.goText(other)}")
                return None
            }
          case "weight" =>
            val w = x match {
              case Str(s, _, _) =>
                val digits = s.stripSuffix("%")
                DestinationSyntax.parseGoInt(digits) match {
                  case None =>
                    error(rule, dest, s"Invalid weight ${GoQuote(digits)} for mapping destination", x); return None
                  case Some(n) => n
                }
              case Integer(n, _) => n
              case other =>
                error(rule, dest, s"Unknown entry type for weight of ${ConfValue.goText(other)}", x)
                return None
            }
            if (w > 100 || w < 0) { error(rule, dest, s"Invalid weight $w for mapping destination", x); return None }
            weight = Some(w.toInt)
          case "cluster" => x match {
              case Str(s, _, _) => cluster = s
              case other =>
                error(rule, dest,
                  s"Expected a string for the mapping destination's cluster, got ${ConfValue.goText(other)}")
                return None
            }
          case _ => error(rule, dest, s"Unknown field ${GoQuote(k)} for mapping destination", x); return None
        }
        if (weight.isEmpty) {
          error(rule, dest, s"Missing weight for mapping destination ${GoQuote(subject.getOrElse(""))}")
          return None
        }
        if (subject.isEmpty) warning(rule, "", "an entry without a destination keeps a matching subject unchanged")
        Some(Entry(subject.getOrElse(""), weight.get, cluster))
      case _ =>
        error(rule, null, "Expected an entry for the mapping destination", v)
        None
    }

    /**
     * An account JWT's entry (nats-io/jwt `WeightedMapping`: `subject`, `weight`, `cluster`). Its weight is
     * an integer 0..255 and `GetWeight` reads a missing or 0 weight as 100, which is what nats-server uses.
     */
    def jwtEntry(rule: String, o: Obj): Option[Entry] = {
      val subject = o.get("subject").collect { case Str(s, _, _) => s }
      val weight = o.get("weight") match {
        case None | Some(Null(_)) => Some(0L)
        case Some(Integer(n, _)) if n >= 0 && n <= 255 => Some(n)
        case Some(other) =>
          error(rule, subject.orNull,
            s"JWT mapping weight must be an integer 0..255 (uint8), got ${ConfValue.goText(other)}")
          None
      }
      val cluster = o.get("cluster").collect { case Str(s, _, _) => s }.getOrElse("")
      if (subject.isEmpty) { error(rule, null, "JWT mapping entry without a string \"subject\""); return None }
      weight.flatMap { w =>
        val effective = if (w == 0) 100 else w.toInt
        if (effective > 100) {
          error(rule, subject.get, s"Mapping ${GoQuote(rule)} has a weight $effective that exceeds 100"); None
        } else Some(Entry(subject.get, effective, cluster))
      }
    }

    /** nats-server's `AddWeightedMappings`: the first failing check ends the rule. */
    def addWeighted(written: String, entries: Seq[Entry], prefix: String): Option[Checked] = {
      // the account functions are resolved first, the source's then each destination's (an error ends the rule)
      def expanded(subject: String): Option[String] =
        try Some(AccountFunctions.expand(subject, context, version))
        catch { case e: DestinationSyntax.SyntaxError => error(written, subject, prefix + e.reason); None }
      val rule = expanded(written).getOrElse(return None)
      val seen = mutable.Set.empty[String]
      val totals = mutable.Map.empty[String, Int].withDefaultValue(0)
      val compiled = entries.map { written =>
        val e = written.copy(subject = expanded(written.subject).getOrElse(return None))
        if (!seen.add(e.subject)) {
          error(rule, e.subject, s"${prefix}duplicate entry for ${GoQuote(e.subject)}"); return None
        }
        totals(e.cluster) += e.weight
        if (totals(e.cluster) > 100) {
          error(rule, e.subject, s"${prefix}total weight needs to be <= 100"); return None
        }
        try e -> SubjectTransform.compile(rule, e.subject, strict = false, version, interner)
        catch { case x: InvalidTransformException => error(rule, e.subject, prefix + x.reason); return None }
      }
      Some(Checked(rule, compiled))
    }

    val checked = doc.entries.flatMap { case (rule, v) =>
      if (!Subjects.isValidSubject(rule)) {
        problems += MappingProblem(rule, null, "error", s"Subject ${GoQuote(rule)} is not a valid subject")
          .placed(null, block = true)
        None
      } else v match {
        case Str(dest, _, _) =>
          addWeighted(rule, Seq(Entry(dest, 100, "")),
            s"Error adding mapping for ${GoQuote(rule)} to ${GoQuote(dest)} : ")
        case Arr(items, _) =>
          // As nats-server does: a bad entry is reported and the rule is checked without it.
          addWeighted(rule, items.flatMap(parseEntry(rule, _)), s"Error adding mapping for ${GoQuote(rule)} : ")
        case Null(_) =>
          error(rule, null, "Unknown type <nil> for mapping destination")
          None
        case other =>
          parseEntry(rule, other).flatMap(e => addWeighted(rule, Seq(e), s"Error adding mapping for ${GoQuote(rule)} : "))
      }
    }
    (checked, problems.toSeq)
  }

  /** A JWT-shaped destination (`subject`, no `destination`): a config file's reader would reject `subject`. */
  private[config] def isJwtEntry(o: Obj): Boolean =
    o.get("subject").isDefined && !o.entries.exists { case (k, _) => isDestinationField(k) }

  /** `dest` or `destination` as nats-server compares field names (Go's `strings.ToLower`). */
  private def isDestinationField(k: String): Boolean = { val l = GoBytes.lower(k); l == "dest" || l == "destination" }

  private def isWildcardToken(t: String): Boolean = t.startsWith("*") // `*`, or a token nats-server's matching treats as one
  private def isPureLiteral(toks: Array[String]): Boolean = !toks.exists(t => isWildcardToken(t) || t == ">")
  private def isPureLiteral(source: String): Boolean = isPureLiteral(Subjects.tokens(source))

  /** How many overlapping earlier rules one rule's warnings name one by one; the rest are counted. */
  private[subjxform] final val ListedOverlaps = 10

  /** Overlapping pairs counted before the search stops (with a warning that says so): bounds hostile tables. */
  private[subjxform] final val OverlapBudget = 1000000

  /**
   * Pairs of rules some subject matches both, every rule against every earlier one, found through an
   * [[OverlapIndex]] of the earlier rules. nats-server keeps its rules in a Go map, so which one it
   * applies can change at every start; subject_map applies the literal one, else the first written.
   */
  private[subjxform] def overlapWarnings(sources: Seq[String]): Seq[MappingProblem] = {
    val toks = sources.map(Subjects.tokens).toArray
    val pure = toks.map(isPureLiteral)
    val index = new OverlapIndex
    val out = mutable.ArrayBuffer.empty[MappingProblem]
    var counted = 0L
    val seenFor = Array.fill(toks.length)(-1) // the rule whose walk last found it: candidates repeat
    val found = mutable.ArrayBuffer.empty[Int]
    var j = 0
    while (j < toks.length) {
      found.clear()
      index.candidates(toks(j)) { i =>
        if (seenFor(i) != j) {
          seenFor(i) = j
          if (!(pure(i) && pure(j)) && commonLength(toks(i), toks(j)) >= 0) found += i
        }
      }
      if (found.nonEmpty) {
        val earlier = found.sorted
        val rule = sources(j)
        earlier.iterator.take(ListedOverlaps).foreach { i =>
          val applied = if (pure(j)) rule else sources(i)
          out += MappingProblem(rule, null, "warning",
            s"rule ${GoQuote(rule)} overlaps rule ${GoQuote(sources(i))}: a subject such as " +
              s"${GoQuote(commonSubject(toks(i), toks(j)))} matches both; subject_map applies ${GoQuote(applied)}, " +
              "nats-server either one (its order changes from start to start)")
        }
        val more = earlier.size - ListedOverlaps
        if (more > 0) {
          val applied = if (pure(j)) GoQuote(rule) else "the earlier rule"
          out += MappingProblem(rule, null, "warning",
            s"rule ${GoQuote(rule)} also overlaps $more more earlier rules (the first $ListedOverlaps are listed): " +
              s"for a subject matching it and one of them, subject_map applies $applied, nats-server either one " +
              "(its order changes from start to start)")
        }
        counted += earlier.size
        if (counted >= OverlapBudget && j + 1 < toks.length) {
          out += MappingProblem(null, null, "warning",
            s"overlap check stopped after $counted overlapping pairs (rule ${GoQuote(rule)}, number ${j + 1} of " +
              s"${toks.length}): the later rules were not compared")
          return out.toSeq
        }
      }
      index.add(toks(j), j)
      j += 1
    }
    out.toSeq
  }

  /** The length of a subject two valid filters both match, or -1 when there is none. */
  private def commonLength(a: Array[String], b: Array[String]): Int = {
    val fa = a.last == ">"
    val fb = b.last == ">"
    val na = if (fa) a.length - 1 else a.length
    val nb = if (fb) b.length - 1 else b.length
    val length =
      if (!fa && !fb) { if (na != nb) return -1; na }
      else if (fa && fb) math.max(na, nb) + 1
      else if (fa) { if (nb < na + 1) return -1; nb }
      else { if (na < nb + 1) return -1; na }
    var i = 0
    while (i < math.min(na, nb)) {
      if (!isWildcardToken(a(i)) && !isWildcardToken(b(i)) && a(i) != b(i)) return -1
      i += 1
    }
    length
  }

  /** A subject both filters match (they overlap: [[commonLength]] >= 0). */
  private def commonSubject(a: Array[String], b: Array[String]): String = {
    val na = if (a.last == ">") a.length - 1 else a.length
    val nb = if (b.last == ">") b.length - 1 else b.length
    (0 until commonLength(a, b)).map { i =>
      val x = if (i < na && !isWildcardToken(a(i))) a(i) else null
      val y = if (i < nb && !isWildcardToken(b(i))) b(i) else null
      if (x != null) x else if (y != null) y else "x"
    }.mkString(".")
  }

  /** nats-server's `transformTokenize`: the source as a destination that gives a subject back unchanged. */
  private def identityDestination(source: String): String = {
    var n = 0
    Subjects.tokens(source).map { t =>
      if (t == "*") { n += 1; "$" + n }
      else t
    }.mkString(".")
  }

  private val NoClusterNames = Array.empty[Array[Byte]]
  private val NoClusterChoices = Array.empty[Choice]

  private def build(checked: Seq[Checked], interner: Interner, digest: Digest): MappingTable = {
    val rules = checked.map { c =>
      val listsSource = c.entries.exists(_._1.subject == c.source)
      val written = c.entries.zipWithIndex
      // `entries`: (entry, transform, its position as written); the remainder's position is -1.
      def choice(entries: Seq[((Entry, SubjectTransform), Int)]): Choice = {
        val total = entries.map(_._1._1.weight).sum
        // nats-server's remainder: the subject unchanged, unless the source is listed (then: loss).
        val all =
          if (total != 100 && !listsSource) {
            entries :+ ((Entry(c.source, 100 - total, "") ->
                SubjectTransform.compile(c.source, identityDestination(c.source), strict = false, ServerVersion.Newest,
                  interner), -1))
          } else entries
        val weights = all.map(_._1._1.weight).toArray
        val running = weights.scanLeft(0)(_ + _).tail
        val certain = weights.indexWhere(_ == 100)
        Choice(all.map(_._1._2).toArray, interner.ints(running),
          if (certain >= 0) certain else if (weights.sum == 0) Drop else Draw, interner.ints(all.map(_._2).toArray))
      }
      val clusters = c.entries.map(_._1.cluster).filter(_.nonEmpty).distinct
      Rule(
        c.source,
        choice(written.filter(_._1._1.cluster.isEmpty)),
        if (clusters.isEmpty) NoClusterNames else clusters.map(_.getBytes(UTF_8)).toArray,
        if (clusters.isEmpty) NoClusterChoices
        else clusters.map(name => choice(written.filter(_._1._1.cluster == name))).toArray)
    }.toArray

    // Literal rules (no lone `*` or `>`) by hash; a rule with a token like `*x` is also a wildcard rule
    // (nats-server's matching takes `*x` as `*`), found by equality first like any literal rule.
    val literalBytes = rules.map { r =>
      if (Subjects.tokens(r.source).exists(t => t == "*" || t == ">")) null else r.source.getBytes(UTF_8)
    }
    val literal = rules.indices.filter(literalBytes(_) != null)
    val slots =
      if (literal.isEmpty) Array.emptyIntArray
      else {
        val size = java.lang.Integer.highestOneBit(literal.size * 2 + 1) << 1
        val s = Array.fill(size)(-1)
        literal.foreach { i =>
          val b = literalBytes(i)
          var slot = hash(b, 0, b.length) & (size - 1)
          while (s(slot) >= 0) slot = (slot + 1) & (size - 1)
          s(slot) = i
        }
        s
      }
    val wildcard = rules.indices.filterNot(i => isPureLiteral(rules(i).source)).toArray
    new MappingTable(rules, slots, literalBytes, FilterIndex(wildcard.map(rules(_).source).toSeq, sourceQuirk = true),
      wildcard, digest)
  }
}

/**
 * Why a [[MappingTable]] gave a subject what it gave ([[MappingTable.explain]]): the rule (its number in
 * the table, in written order, and the rule itself), whether it was found as a literal rule (equal to the
 * subject) or as a wildcard rule, the cluster scope whose destinations applied (null: the cluster-less
 * ones), the destination drawn (its position among the rule's entries as written, -1 for the remainder,
 * which keeps the subject or, when the source is itself listed, drops it), its text as written (null for
 * the remainder) and its weight, the outcome
 * and the result (as [[MappingTable.apply]] returns it: [[MappingTable.Unchanged]] when no rule matched,
 * null when dropped). `ruleNumber` is -1 and `rule` null when no rule matched.
 */
final class MappingExplanation(
    val outcome: Int,
    val ruleNumber: Int,
    val rule: MappingTable.Rule,
    val literal: Boolean,
    val clusterScope: Array[Byte],
    val entry: Int,
    val destinationBytes: Array[Byte],
    val weight: Int,
    val result: Array[Byte]) {

  def matched: Boolean = rule != null
  def remainder: Boolean = matched && entry < 0
  def outcomeName: String = MappingExplanation.OutcomeNames(outcome)

  /** The destination drawn, as written; null for the remainder or no match. */
  def destination: String = if (destinationBytes == null) null else new String(destinationBytes, UTF_8)

  override def toString: String =
    if (!matched) "no_match"
    else s"$outcomeName by rule $ruleNumber ${GoQuote(rule.source)} (${if (literal) "literal" else "wildcard"})" +
      Option(clusterScope).map(c => s", cluster ${GoQuote(new String(c, UTF_8))}").getOrElse("") +
      (if (remainder) s", the remainder ($weight%)" else s", destination $entry ${GoQuote(destination)} ($weight%)")
}

object MappingExplanation {
  final val Mapped = 0 // a rule gave another subject
  final val Unchanged = 1 // a rule matched and kept the subject (its remainder, or a destination equal to it)
  final val Dropped = 2 // a rule matched and the message is lost (artificial loss, or an empty token)
  final val NoMatch = 3 // no rule matched: the subject goes on as it is
  // The destination makes the release's server process exit (SubjectTransform.crashWords): this message and
  // every later one, of every account, are not delivered. The result is NULL.
  final val Crash = 4
  val OutcomeNames: Array[String] = Array("mapped", "unchanged", "dropped", "no_match", "crash")

  private[subjxform] val noMatch =
    new MappingExplanation(NoMatch, -1, null, false, null, -1, null, 0, MappingTable.Unchanged)
}

/**
 * One problem of a mapping table. `rule` is the rule's source (null when the text cannot be read),
 * `destination` the entry concerned (null when the problem is the rule's), `severity` "error" (nats-server
 * rejects the block; its own message), "crash" (it accepts the block and its process exits on the first
 * message the destination maps) or "warning".
 */
final case class MappingProblem(rule: String, destination: String, severity: String, message: String) {
  def isError: Boolean = severity == "error"
  def isCrash: Boolean = severity == "crash"

  /**
   * Where in `block` (the table the problem is of, as written) nats-server's error is placed, the line and column
   * `nats-server -t` prints: a field of a destination entry for an error about that field (its `weight`, an
   * unknown field: the token `parseAccountMapDest` gives), an entry of a list for an entry that is no map, the
   * block for a rule whose subject is invalid (parseAccountMappings' token of the block), else the rule's value
   * (its last one, which nats-server keeps). `written`: false for a block that is a whole text (a mappings block's
   * content alone), which has no place of its own, so the rule's is given. Not part of the problem's equality.
   */
  def placeIn(block: ConfValue.Obj, written: Boolean = true): ConfValue = Option(place).getOrElse {
    if (inBlock && written) block
    else Option(rule).flatMap(r => block.entries.reverseIterator.collectFirst { case (k, v) if k == r => v })
      .getOrElse(block)
  }
  private[config] var place: ConfValue = null
  private[config] var inBlock = false

  /** This problem, placed at `v` (null: the rule's value) or, `block`, at the table's own place ([[placeIn]]). */
  private[config] def placed(v: ConfValue, block: Boolean = false): MappingProblem = {
    place = v
    inBlock = block
    this
  }

  override def toString: String = {
    val where = Seq(Option(rule).map(r => s"rule ${GoQuote(r)}"),
      Option(destination).map(d => s"destination ${GoQuote(d)}")).flatten
    (if (where.isEmpty) "" else where.mkString(", ") + ": ") + message
  }
}

/** An invalid mapping table: every error, the first one in the message. */
final class InvalidMappingsException(val problems: Seq[MappingProblem])
  extends IllegalArgumentException(
    s"invalid mappings: ${problems.head}" + (if (problems.size > 1) s" (and ${problems.size - 1} more)" else ""))

/**
 * Where a mappings block comes from, which decides how much of it a server loads ([[MappingTable.load]]).
 */
sealed abstract class MappingSource(val name: String) extends Serializable {
  override def toString: String = name
}

object MappingSource {

  /** A config file's `mappings` block (top-level or an account's): any error and the server does not start. */
  case object ConfigFile extends MappingSource("config file")

  /**
   * An account JWT's `mappings` claim (from a resolver, its preload, or `nsc`): a claim nats-io/jwt refuses
   * refuses the account; otherwise each rule the release refuses is left out and the others applied.
   */
  case object AccountJwt extends MappingSource("account JWT")

  /**
   * The source a table's own shape says: written as an account JWT writes it (every rule a list of
   * `{subject, weight, cluster}` entries, at least one) it is a JWT's, anything else a config file's.
   */
  def of(block: Obj): MappingSource = {
    val entries = block.entries.map(_._2)
    val jwtShaped = entries.forall {
      case Arr(items, _) => items.forall { case o: Obj => MappingTable.isJwtEntry(o); case _ => false }
      case _ => false
    } && entries.exists { case Arr(items, _) => items.nonEmpty; case _ => false }
    if (jwtShaped) AccountJwt else ConfigFile
  }
}

/**
 * What a server of one release loads of a mappings block ([[MappingTable.load]]): the `applied` rules (their
 * sources, in written order), those `leftOut` with the release's reason (an account JWT's rules it refuses:
 * it loads the account without them) and every problem. `refused`: the server refuses the file (a config's
 * block) or the account (a JWT's); nothing of it is applied.
 */
final case class MappingLoad(source: MappingSource, applied: Seq[String], leftOut: Seq[(String, String)],
    problems: Seq[MappingProblem]) {
  def refused: Boolean = problems.exists(_.isError)
  def crashes: Seq[MappingProblem] = problems.filter(_.isCrash)
}
