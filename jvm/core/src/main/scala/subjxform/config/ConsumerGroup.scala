package subjxform.config

import java.nio.charset.StandardCharsets.UTF_8

import subjxform.config.ConfValue._
import subjxform.engine.{FilterIndex, GoQuote, JsonWriter, ServerVersion, Subjects, Workspace}

/**
 * A partitioned consumer group of the orbit.go `pcgroups` library (v0.2.2), read from its config (the
 * value of its key in the `elastic-consumer-groups` or `static-consumer-groups` KV bucket), checked as the
 * library and nats-server check it, and compiled once: which partition a message is in and which member
 * gets it. Immutable and thread-safe.
 *
 *  - An elastic group sources its stream through one transform per partitioning filter,
 *    `{{Partition(N,<wildcards>)}}.<filter>` (`{{Partition(N)}}.>` when there is none): the partition is
 *    what nats-server's sourcing gives, computed by the engine's [[FilterTransforms]] (`version`'s line).
 *  - A static group's stream holds subjects already partitioned: the partition is the first token, when
 *    a member's consumer filter `<p>.<filter>` (or `<p>.>`) could take the subject.
 *
 * The member of a partition is the library's `GeneratePartitionFilters`: the members de-duplicated,
 * sorted (by bytes, as Go sorts strings), cut to N; blocks of N / members partitions in order, the
 * remainder round robin; or the `member_mappings`.
 */
final class ConsumerGroup private (
    val kind: ConsumerGroup.Kind,
    val maxMembers: Int,
    /** `members` as configured. */
    val members: IndexedSeq[String],
    /** The members that get partitions, in the library's order (empty with mappings). */
    val activeMembers: IndexedSeq[String],
    val memberMappings: IndexedSeq[(String, IndexedSeq[Int])],
    /** The partitioning filters (elastic) or filters (static) as written. */
    val filters: IndexedSeq[String],
    /** An elastic group's sourcing (src, dest) transforms; empty for a static group. */
    val transforms: IndexedSeq[(String, String)],
    sourcing: FilterTransforms, // elastic
    staticTake: FilterIndex, // static: `*.<filter>` for each filter, or null when any `<p>.>` subject is taken
    mappedOwner: Array[String]) // the member of each partition, with mappings
  extends Serializable {

  private val activeMemberBytes = activeMembers.map(_.getBytes(UTF_8)).toArray
  private val mappedOwnerBytes =
    if (mappedOwner == null) null else mappedOwner.map(m => if (m == null) null else m.getBytes(UTF_8))

  /**
   * The partition of the subject in `in[off, off+len)`, or -1 when the group does not take it (not a
   * literal subject, no partitioning filter matches, or, in a static group, no member consumer filter could).
   */
  def partition(in: Array[Byte], off: Int, len: Int, ws: Workspace): Int =
    if (sourcing != null) {
      val out = sourcing.take(in, off, len, ws, keyed = false, 0L, 0L)
      // (a partitioned subject too long to store is not stored: no partition)
      if (out == null || (out eq Workspace.TooLong)) -1 else leadingPartition(out, 0, out.length)
    } else {
      val ntok = ws.tokenize(in, off, len)
      if (ntok == 0) return -1
      val p = leadingPartition(in, off, len)
      if (p < 0 || (staticTake != null && staticTake.firstMatch(in, ws, ntok) < 0)) -1 else p
    }

  /**
   * The canonical decimal (as Go's `%d` writes it) in [0, N) that the subject's first token is, or -1: a
   * consumer filter `<p>.…` takes no other first token.
   */
  private def leadingPartition(in: Array[Byte], off: Int, len: Int): Int = {
    val end = off + len
    var i = off
    var v = 0L
    while (i < end && in(i) != Subjects.Sep) {
      val d = in(i) - '0'
      if (d < 0 || d > 9 || (i > off && in(off) == '0') || v >= maxMembers) return -1
      v = v * 10 + d
      i += 1
    }
    if (i == off || i == end || v >= maxMembers) -1 else v.toInt
  }

  /** The UTF-8 bytes of the member of partition `p` (from [[partition]]), or null when no member has it. */
  def memberBytes(p: Int): Array[Byte] =
    if (p < 0) null
    else if (mappedOwnerBytes != null) mappedOwnerBytes(p)
    else if (activeMemberBytes.isEmpty) null
    else activeMemberBytes(ConsumerGroup.memberIndex(p, maxMembers, activeMemberBytes.length))

  def member(p: Int): String = {
    val b = memberBytes(p)
    if (b == null) null else new String(b, UTF_8)
  }

  /** Convenience for tests and tools (allocates): the partition, or -1. */
  def partition(subject: String): Int = {
    val b = subject.getBytes(UTF_8)
    partition(b, 0, b.length, new Workspace)
  }

  /** Convenience for tests and tools: the member that gets `subject`, or null. */
  def memberOf(subject: String): String = member(partition(subject))

  /** Every member the config names, in the library's order: the active members, then the rest as written. */
  lazy val memberNames: IndexedSeq[String] = (activeMembers ++ members ++ memberMappings.map(_._1)).distinct

  /** The member's consumer filter subjects, exactly as the library's `ElasticGetPartitionFilters` (or the static join) lists them. */
  def partitionFilters(member: String): IndexedSeq[String] = {
    val fs = if (filters.isEmpty) IndexedSeq(">") else filters
    fs.flatMap { f =>
      if (activeMembers.nonEmpty) (0 until maxMembers).filter(p =>
        activeMembers(ConsumerGroup.memberIndex(p, maxMembers, activeMembers.length)) == member).map(p => s"$p.$f")
      else memberMappings.filter(_._1 == member).flatMap(_._2.map(p => s"$p.>"))
    }
  }

  /** The partitions each member gets, in order (members without any left out). */
  def partitionsByMember: IndexedSeq[(String, IndexedSeq[Int])] =
    if (activeMembers.nonEmpty) {
      val by = (0 until maxMembers).groupBy(p => ConsumerGroup.memberIndex(p, maxMembers, activeMembers.length))
      activeMembers.indices.map(i => (activeMembers(i), by.getOrElse(i, IndexedSeq.empty)))
    } else memberMappings.filter(_._2.nonEmpty)

  /**
   * The group as JSON (the `consumer_group_plan` SQL function, the CLI): `kind`, `bucket`, `max_members`,
   * `filters`, the sourcing `transforms` (elastic), and `members`: each member the config names with its
   * `partitions` (none for a member beyond N or not mapped) and its consumer `filter_subjects`.
   */
  def planJson: String = {
    def s(v: String) = JsonWriter.quote(v)
    val partitions = partitionsByMember.toMap
    val ms = memberNames.map { m =>
      s"""{"member":${s(m)},"partitions":${partitions.getOrElse(m, Nil).mkString("[", ",", "]")},""" +
        s""""filter_subjects":${partitionFilters(m).map(s).mkString("[", ",", "]")}}"""
    }
    s"""{"kind":${s(kind.name)},"bucket":${s(kind.bucket)},"max_members":$maxMembers,""" +
      s""""filters":${filters.map(s).mkString("[", ",", "]")},""" +
      s""""transforms":${transforms.map { case (a, b) => s"""{"src":${s(a)},"dest":${s(b)}}""" }.mkString("[", ",", "]")},""" +
      s""""members":${ms.mkString("[", ",", "]")}}"""
  }

  override def toString: String =
    s"ConsumerGroup(${kind.name}, max_members=$maxMembers, ${activeMembers.size + memberMappings.size} members)"
}

object ConsumerGroup {
  // Serializable: a group travels to executors inside an expression, and on Scala 2.12 a case object
  // whose parent is not serializable fails to deserialize there ("no valid constructor").
  sealed abstract class Kind(val name: String, val bucket: String) extends Serializable
  case object Elastic extends Kind("elastic", "elastic-consumer-groups")
  case object Static extends Kind("static", "static-consumer-groups")

  def kindNamed(name: String): Kind = name.trim.toLowerCase(java.util.Locale.ROOT) match {
    case "elastic" => Elastic
    case "static" => Static
    case other =>
      throw new InvalidConsumerGroupException(s"unknown consumer group kind ${GoQuote(other)}: elastic or static")
  }

  /**
   * The member index of partition `p` among `m` sorted members of a group of `n` partitions, as
   * `GeneratePartitionFilters` assigns it: blocks of n / m partitions, then the remainder round robin.
   */
  def memberIndex(p: Int, n: Int, m: Int): Int = {
    val per = n / m
    if (p < m * per) p / per else (p - m * per) % m
  }

  /**
   * The group of a config (JSON). Its kind is the config's own when `kind` is None: an elastic config has
   * `partitioning_filters` (the library always writes it, `null` when empty), a static one `filters`.
   *
   * @throws InvalidConsumerGroupException with the library's reason, or nats-server's for what it refuses
   */
  def parse(json: String, kind: Option[Kind] = None, version: ServerVersion = ServerVersion.Newest): ConsumerGroup = {
    val root =
      try ConfSyntax.parseJson(json)
      catch {
        case e: ConfSyntaxException =>
          throw new InvalidConsumerGroupException(
            s"invalid JSON value for the ${kind.fold("")(_.name + " ")}consumer group's config: ${e.getMessage}")
      }
    val k = kind.getOrElse {
      (has(root, "partitioning_filters"), has(root, "filters")) match {
        case (true, false) => Elastic
        case (false, true) => Static
        case (both, _) => throw new InvalidConsumerGroupException(
            (if (both) "the config has both \"partitioning_filters\" and \"filters\""
             else "the config has neither \"partitioning_filters\" nor \"filters\"") +
              ": say which kind of group it is (an elastic group's config has \"partitioning_filters\", null when there are none; a static group's \"filters\", [] when there are none)")
      }
    }
    val reader = new Reader(k)
    val maxMembersValue = reader.uint(root, "max_members")
    val partitioning = if (k == Elastic) reader.list(root, "partitioning_filters").zipWithIndex.map {
      case (v, i) => reader.partitioningFilter(v, i)
    }
    else IndexedSeq.empty
    val staticFilters = if (k == Static) reader.list(root, "filters").zipWithIndex.map { case (v, i) =>
      reader.string(v, s"filters[$i]")
    }
    else IndexedSeq.empty
    val members = reader.list(root, "members").zipWithIndex.map { case (v, i) => reader.string(v, s"members[$i]") }
    val mappings = reader.list(root, "member_mappings").zipWithIndex.map { case (v, i) => reader.mapping(v, i) }

    val invalid = s"invalid ${k.name} consumer group config: "
    def fail(reason: String): Nothing = throw new InvalidConsumerGroupException(invalid + reason)
    // validateConfig / validateStaticConfig, check by check, in the library's order and words
    if (maxMembersValue < 1) fail("the max number of members must be >= 1")
    for ((filter, wildcards) <- partitioning) {
      if (filter.isEmpty) fail("partitioning filters must have a non-empty filter")
      val tokens = Subjects.tokens(filter)
      val stars = tokens.count(_ == "*")
      if (stars == 0 && tokens.last != ">")
        fail("partitioning filters must have at least one * wildcard or end with > wildcard")
      if (wildcards.length > stars) fail(
        "the number of partitioning wildcards must not be larger than the total number of * wildcards in the filter")
      val seen = scala.collection.mutable.HashSet.empty[Long]
      for (w <- wildcards) {
        if (!seen.add(w)) fail("partitioning wildcard indexes must be unique")
        if (w > stars || w < 1)
          fail("partitioning wildcard indexes must be between 1 and the number of * wildcards in the filter")
      }
    }
    if (members.nonEmpty && mappings.nonEmpty) fail("either members or member mappings must be provided, not both")
    if (mappings.nonEmpty) {
      if (mappings.length > maxMembersValue)
        fail("the number of member mappings must be between 1 and the max number of members")
      val names = scala.collection.mutable.HashSet.empty[String]
      val partitions = scala.collection.mutable.HashSet.empty[Long]
      for ((member, ps) <- mappings) {
        if (!names.add(member)) fail("member names must be unique")
        for (p <- ps) {
          if (!partitions.add(p)) fail("partition numbers must be used only once")
          if (p < 0 || p >= maxMembersValue)
            fail("partition numbers must be between 0 and one less than the max number of members")
        }
      }
      if (partitions.size != maxMembersValue) fail(
        if (k == Elastic) "the number of unique partition numbers must be equal to the max number of members"
        else
          "the number of unique partition numbers specified in the mappings must be equal to the max number of members")
    }
    // The library accepts any max_members; `{{Partition(n)}}` and this port's partition numbers are 32-bit.
    if (maxMembersValue > Int.MaxValue) throw new InvalidConsumerGroupException(
      s"max_members $maxMembersValue: more partitions than {{Partition(n)}} takes (at most ${Int.MaxValue})")
    val n = maxMembersValue.toInt

    val (filters, transforms, sourcing, staticTake) = k match {
      case Elastic =>
        // What CreateElastic sources: one transform per partitioning filter, `>` when there is none.
        val pfs = if (partitioning.isEmpty) IndexedSeq((">", IndexedSeq.empty[Long])) else partitioning
        val trs = pfs.map { case (f, w) => (f, sourcingDestination(f, w, n)) }
        val compiled =
          try FilterTransforms.compile(trs, FilterTransforms.SourceRule, "partitioning_filters", version)
          catch {
            case e: InvalidStreamConfigException =>
              throw new InvalidConsumerGroupException(
                s"nats-server refuses the group's sourcing stream: ${e.getMessage}")
          }
        (partitioning.map(_._1), trs, compiled, null)
      case Static =>
        if (mappings.isEmpty) {
          // The members' consumers filter on `<p>.<filter>`: nats-server's consumer checks apply.
          for ((f, i) <- staticFilters.zipWithIndex) {
            if (!Subjects.isValidSubject(f)) throw new InvalidConsumerGroupException(
              s"nats-server refuses the members' consumers: filters[$i] ${GoQuote(f)}: invalid subject")
            for ((o, j) <- staticFilters.zipWithIndex if i != j && Subjects.isSubsetMatch(f, o))
              throw new InvalidConsumerGroupException(
                s"nats-server refuses the members' consumers: filters[$i] ${GoQuote(f)} " +
                  s"and filters[$j] ${GoQuote(o)}: consumer subject filters cannot overlap (nats-server error 10138)")
          }
        }
        // With mappings (or no filters) a member's consumer filters are `<p>.>`.
        val take = if (mappings.nonEmpty || staticFilters.isEmpty) null
        else FilterIndex(staticFilters.map("*." + _), sourceQuirk = false)
        (staticFilters, IndexedSeq.empty, null, take)
    }

    val active = if (mappings.nonEmpty) IndexedSeq.empty else members.distinct.sortWith(goLess).take(n)
    val owners = if (mappings.isEmpty) null
    else {
      val o = new Array[String](n)
      for ((m, ps) <- mappings; p <- ps) o(p.toInt) = m
      o
    }
    new ConsumerGroup(k, n, members, active, mappings.map { case (m, ps) => (m, ps.map(_.toInt)) }, filters, transforms,
      sourcing, staticTake, owners)
  }

  /** The library's `getPartitioningTransformDest`. */
  def sourcingDestination(filter: String, wildcards: Seq[Long], maxMembers: Int): String = {
    var star = 0
    val dest = Subjects.tokens(filter).map { t =>
      if (t == "*") { star += 1; s"{{Wildcard($star)}}" }
      else t
    }.mkString(".")
    if (wildcards.isEmpty) s"{{Partition($maxMembers)}}.$dest"
    else s"{{Partition($maxMembers,${wildcards.mkString(",")})}}.$dest"
  }

  /** Go's string order: by UTF-8 bytes, unsigned. */
  private def goLess(a: String, b: String): Boolean = {
    val (x, y) = (a.getBytes(UTF_8), b.getBytes(UTF_8))
    var i = 0
    while (i < x.length && i < y.length && x(i) == y(i)) i += 1
    if (i < x.length && i < y.length) (x(i) & 0xff) < (y(i) & 0xff) else x.length < y.length
  }

  /**
   * A key of the config, as Go's encoding/json finds a struct field: the exact name, else any name
   * equal to it case-insensitively; the last one written wins. A JSON null is an absent key.
   */
  private def field(o: Obj, key: String): Option[ConfValue] =
    written(o, key).filter { case Null(_) => false; case _ => true }

  private def written(o: Obj, key: String): Option[ConfValue] =
    o.get(key).orElse(o.entries.reverseIterator.collectFirst { case (k, v) if k.equalsIgnoreCase(key) => v })

  /** Whether the config writes the key, even as null (as the library writes an elastic group's `partitioning_filters`). */
  private def has(o: Obj, key: String): Boolean = written(o, key).isDefined

  /** Reads the config's values with Go's JSON decoding rules; a value of the wrong type is the library's JSON error. */
  private final class Reader(kind: Kind) {
    private def fail(path: String, expected: String): Nothing = throw new InvalidConsumerGroupException(
      s"invalid JSON value for the ${kind.name} consumer group's config: $path must be $expected")

    def uint(o: Obj, key: String): Long = field(o, key) match {
      case None => 0L
      case Some(Integer(v, _)) if v >= 0 => v
      case Some(_) => fail(key, "an integer >= 0")
    }

    def int(v: ConfValue, path: String): Long = v match {
      case Null(_) => 0L
      case Integer(i, _) => i
      case _ => fail(path, "an integer")
    }

    def string(v: ConfValue, path: String): String = v match {
      case Null(_) => ""
      case Str(s, _, _) => s
      case _ => fail(path, "a string")
    }

    def list(o: Obj, key: String): IndexedSeq[ConfValue] = list(field(o, key), key)

    def list(v: Option[ConfValue], path: String): IndexedSeq[ConfValue] = v match {
      case None => IndexedSeq.empty
      case Some(Arr(items, _)) => items
      case Some(_) => fail(path, "a list")
    }

    def obj(v: ConfValue, path: String): Obj = v match {
      case o: Obj => o
      case Null(_) => Obj(Vector.empty, Vector.empty, 0)
      case _ => fail(path, "an object")
    }

    def partitioningFilter(v: ConfValue, i: Int): (String, IndexedSeq[Long]) = {
      val path = s"partitioning_filters[$i]"
      val o = obj(v, path)
      (field(o, "filter").fold("")(string(_, s"$path.filter")),
        list(field(o, "partitioning_wildcards"), s"$path.partitioning_wildcards").zipWithIndex.map {
          case (w, j) => int(w, s"$path.partitioning_wildcards[$j]")
        })
    }

    def mapping(v: ConfValue, i: Int): (String, IndexedSeq[Long]) = {
      val path = s"member_mappings[$i]"
      val o = obj(v, path)
      (field(o, "member").fold("")(string(_, s"$path.member")),
        list(field(o, "partitions"), s"$path.partitions").zipWithIndex.map { case (p, j) =>
          int(p, s"$path.partitions[$j]")
        })
    }
  }
}

/** A consumer group config the library (or nats-server, for what the group creates) refuses, with its reason. */
final class InvalidConsumerGroupException(message: String) extends IllegalArgumentException(message)
