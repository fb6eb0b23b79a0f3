package subjxform.config

import java.nio.charset.StandardCharsets.UTF_8

import subjxform.engine.{
  FilterIndex, GoQuote, InvalidTransformException, OverlapIndex, ServerVersion, Subjects, SubjectTooLongException,
  SubjectTransform, Workspace
}

/**
 * The ordered (src, dest) list of a stream source or mirror (`subject_transforms`), compiled once.
 * The sources are filters: a message is taken when its subject matches one of them (consumer
 * interest matching, as the source's consumer filters it); it is then renamed by the first
 * transform with a non-empty destination whose source matches, exactly like nats-server's
 * `processInboundSourceMsg`, and kept unchanged when there is none. An empty list takes everything.
 * A renamed subject with an empty token is kept, as the stream stores it (`sp..f`). Immutable and
 * thread-safe.
 */
final class FilterTransforms private (
    val pairs: IndexedSeq[(String, String)],
    filters: FilterIndex, // every entry's source, as interest (consumer) filters
    renames: FilterIndex, // the sources of the entries with a destination, with nats-server's source quirk
    transforms: Array[SubjectTransform]) // a `renames` filter's transform
  extends Serializable {

  /** Whether a `{{random(n)}}` destination makes results differ between calls. */
  val isRandom: Boolean = transforms.exists(_.isRandom)

  /**
   * The stored subject's UTF-8 bytes for the subject in `in[off, off+len)`, or null when the message is
   * not taken (not a literal subject, or no filter matches). A renamed subject may have an empty token
   * (a stream stores it so). A `{{random(n)}}` draws from the workspace's random source.
   *
   * @throws SubjectTooLongException when the renamed subject would be longer than [[Workspace.MaxSubjectBytes]]
   */
  def apply(in: Array[Byte], off: Int, len: Int, ws: Workspace): Array[Byte] =
    Workspace.orThrow(take(in, off, len, ws, keyed = false, 0L, 0L), ws)

  /** [[apply]] with `{{random(n)}}` a pure function of (seed, key, entry): see [[SubjectTransform.applyKeyed]]. */
  def applyKeyed(in: Array[Byte], off: Int, len: Int, seed: Long, key: Long, ws: Workspace): Array[Byte] =
    Workspace.orThrow(take(in, off, len, ws, keyed = true, seed, key), ws)

  /** [[apply]] / [[applyKeyed]] as a per-row entry: a result too long is [[Workspace.TooLong]] (see [[SubjectTransform.run]]). */
  private[subjxform] def take(
      in: Array[Byte], off: Int, len: Int, ws: Workspace, keyed: Boolean, seed: Long, key: Long): Array[Byte] = {
    val ntok = ws.tokenize(in, off, len)
    if (ntok == 0) return null
    if (pairs.nonEmpty && filters.firstMatch(in, ws, ntok) < 0) return null
    // The first entry with a destination whose source matches (nats-server's `Match`, with its source
    // quirk) renames; an entry without one never does.
    val rename = renames.firstMatch(in, ws, ntok)
    if (rename >= 0) transforms(rename).run(in, off, len, ws, keyed, seed, key)
    else java.util.Arrays.copyOfRange(in, off, off + len)
  }

  /** Convenience for tests and tools (allocates). */
  def apply(subject: String): String = {
    val b = subject.getBytes(UTF_8)
    val r = apply(b, 0, b.length, new Workspace)
    if (r == null) null else new String(r, UTF_8)
  }

  override def toString: String =
    pairs.take(10).map { case (s, d) => s"${GoQuote(s)} -> ${GoQuote(d)}" }
      .mkString("FilterTransforms(", ", ", if (pairs.length > 10) s", ... ${pairs.length} entries)" else ")")
}

object FilterTransforms {

  /** Which overlap between filters nats-server rejects. */
  sealed abstract class Overlap(val description: String, val errCode: Int, val collides: (String, String) => Boolean)

  /** One source: no filter may be a subset of another (`subjectIsSubsetMatch`). */
  case object SourceRule extends Overlap("source filters can not overlap", 10147, Subjects.isSubsetMatch)

  /** A mirror: no two filters may match a common subject (`SubjectsCollide`). */
  case object MirrorRule extends Overlap("mirror subject filters can not overlap", 10152, Subjects.collide)

  /**
   * Compiles and checks the list as nats-server's stream config check does for a source (or a mirror):
   * each source a valid subject (or empty, meaning `>`), each destination valid for its source, no
   * overlapping sources. `field` names the list in errors, e.g. `sources[1].subject_transforms`.
   *
   * @throws InvalidStreamConfigException naming the entry, with nats-server's API error
   */
  def compile(pairs: Seq[(String, String)], overlap: Overlap = SourceRule,
      field: String = "subject_transforms", version: ServerVersion = ServerVersion.Newest): FilterTransforms =
    compileOrCheck(pairs, overlap, field, version, build = true)

  /**
   * [[compile]]'s checks alone, those nats-server's stream config check (`checkStreamCfg`) makes. The same
   * as [[compile]] from 2.11 on; 2.10 builds the transforms only when it adds the stream, after every other
   * check of the config, so a transform it cannot build (10049) is its last error ([[StreamConfig.plan]]), and
   * it checks a source's destination tokens as mapping destinations here (10146), never when it builds them.
   *
   * @throws InvalidStreamConfigException naming the entry, with nats-server's API error
   */
  def check(pairs: Seq[(String, String)], overlap: Overlap, field: String, version: ServerVersion): Unit =
    compileOrCheck(pairs, overlap, field, version, build = false)

  private def compileOrCheck(pairs: Seq[(String, String)], overlap: Overlap, field: String, version: ServerVersion,
      build: Boolean): FilterTransforms = {
    val ps = pairs.toIndexedSeq
    val kind = if (overlap == MirrorRule) "mirror" else "source"
    val (sourceErr, destErr) = if (overlap == MirrorRule) (10151, 10154) else (10145, 10146)
    def entry(i: Int) = s"$field[$i]"
    val transforms = new Array[SubjectTransform](ps.length)
    // The first entry each one overlaps, found through an index of all of them (a mirror's entries are
    // compared before the later ones are validated, so the index takes any text; a NULL src has none).
    val tokens = ps.map(p => if (p == null || p._1 == null) null else Subjects.tokens(p._1))
    val index = new OverlapIndex
    for (i <- ps.indices if tokens(i) != null) index.add(tokens(i), i)
    def checkOverlap(i: Int): Unit = if (tokens(i) != null) {
      var j = Int.MaxValue
      index.candidates(tokens(i)) { c =>
        if (c != i && c < j && tokens(c) != null && overlap.collides(ps(i)._1, ps(c)._1)) j = c
      }
      if (j != Int.MaxValue) {
        val (a, b) = (math.min(i, j), math.max(i, j))
        throw new InvalidStreamConfigException(s"${entry(a)}, ${entry(b)}",
          s"${overlap.description} (${GoQuote(ps(a)._1)} and ${GoQuote(ps(b)._1)})", overlap.errCode)
      }
    }
    val asMappings = version.streamTransformsCheckedAsMappings
    if (!asMappings && overlap == SourceRule && !build) {
      // 2.10's stream config check takes every source destination's tokens first, with one error for all of them.
      // Only the config check: the list is then built (and a mirror's or an ingress transform, never so checked,
      // too) as a transform alone, which takes white space in a literal token and left/right, and stores them.
      for (((_, dest), i) <- ps.zipWithIndex
        if dest != null && SubjectTransform.mappingTokenError(dest, version).isDefined)
        throw new InvalidStreamConfigException(entry(i), "source transform destination is invalid", destErr)
    }
    def compileEntry(src: String, dest: String, i: Int): SubjectTransform =
      if (asMappings) {
        try SubjectTransform.compile(orFwc(src), dest, false, version).keepingEmptyTokens
        catch {
          case e: InvalidTransformException =>
            throw new InvalidStreamConfigException(entry(i), s"$kind transform: ${e.reason}", destErr)
        }
      } else {
        // 2.10 builds the transforms when it adds the stream, after every other check (JSStreamCreateErrF).
        try SubjectTransform.compileTransformOnly(src, dest, version).keepingEmptyTokens
        catch {
          case e: InvalidTransformException =>
            throw new InvalidStreamConfigException(entry(i),
              s"subject transform from '$src' to '$dest' for the $kind: ${e.reason}", 10049)
        }
      }
    for (((src, dest), i) <- ps.zipWithIndex) {
      if (src == null || dest == null) {
        throw new InvalidStreamConfigException(entry(i), s"$kind transform: src and dest must be strings", 0)
      }
      if (asMappings) {
        if (src.nonEmpty && !Subjects.isValidSubject(src)) {
          throw new InvalidStreamConfigException(entry(i), s"$kind transform source: invalid subject $src", sourceErr)
        }
        if (dest.nonEmpty) transforms(i) = compileEntry(src, dest, i)
      } else if (!Subjects.isValidSubject(src)) {
        // 2.10 takes no empty source (`>` from 2.11 on) and names no culprit.
        throw new InvalidStreamConfigException(entry(i), s"$kind subject filter is invalid", sourceErr)
      }
      // nats-server checks a mirror's overlaps entry by entry, a source's after all its entries (2.10: entry by
      // entry too).
      if (overlap == MirrorRule || !asMappings) checkOverlap(i)
    }
    if (overlap == SourceRule && asMappings) ps.indices.foreach(checkOverlap)
    if (!asMappings && build)
      for (((src, dest), i) <- ps.zipWithIndex if dest.nonEmpty) transforms(i) = compileEntry(src, dest, i)
    if (!build) return null // check: nothing built
    val renaming = ps.indices.filter(transforms(_) != null)
    new FilterTransforms(ps, FilterIndex(ps.map(p => orFwc(p._1)), sourceQuirk = false),
      FilterIndex(renaming.map(i => orFwc(ps(i)._1)), sourceQuirk = true), renaming.map(transforms(_)).toArray)
  }

  /** No source means `>`, as nats-server reads it when it builds a transform (an error is the one of `>`). */
  private[config] def orFwc(src: String): String = if (src.isEmpty) ">" else src

  /** A list from alternating src, dest strings (tests, tools). */
  def of(srcDest: String*): FilterTransforms = compile(srcDest.grouped(2).map(p => (p(0), p(1))).toSeq)
}

/**
 * A stream configuration nats-server would reject. `field` is the JSON path of the culprit (e.g.
 * `sources[0].subject_transforms[1]`), `description` nats-server's API error text and `errCode` its
 * JetStream error code (0 when the error is about the JSON's shape, before nats-server's checks).
 */
final class InvalidStreamConfigException(val field: String, val description: String, val errCode: Int)
  extends IllegalArgumentException(
    s"$field: $description" + (if (errCode > 0) s" (nats-server error $errCode)" else ""))
