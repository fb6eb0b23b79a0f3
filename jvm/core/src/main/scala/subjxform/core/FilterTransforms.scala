package subjxform.core

import java.nio.charset.StandardCharsets.UTF_8

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
    filters: Array[SubjectFilter],
    transforms: Array[SubjectTransform]) // null where the destination is empty: no renaming
  extends Serializable {

  /** Whether a `{{random(n)}}` destination makes results differ between calls. */
  val isRandom: Boolean = transforms.exists(t => t != null && t.isRandom)

  /**
   * The stored subject's UTF-8 bytes for the subject in `in[off, off+len)`, or null when the message is
   * not taken (not a literal subject, or no filter matches). A renamed subject may have an empty token.
   */
  def apply(in: Array[Byte], off: Int, len: Int, ws: Workspace): Array[Byte] = {
    val ntok = ws.tokenize(in, off, len)
    if (ntok == 0) return null
    if (filters.nonEmpty) {
      var taken = false
      var i = 0
      while (!taken && i < filters.length) { taken = filters(i).matchesTokens(in, ws, ntok); i += 1 }
      if (!taken) return null
    }
    var i = 0
    while (i < transforms.length) {
      val tr = transforms(i)
      // A transform's own match is nats-server's `Match` (with its source quirk), checked per transform;
      // it tokenizes the subject again (see SubjectTransform.apply for why).
      if (tr != null && tr.matches(in, off, len, ws)) return tr.apply(in, off, len, ws)
      i += 1
    }
    java.util.Arrays.copyOfRange(in, off, off + len)
  }

  /** Convenience for tests and tools (allocates). */
  def apply(subject: String): String = {
    val b = subject.getBytes(UTF_8)
    val r = apply(b, 0, b.length, new Workspace)
    if (r == null) null else new String(r, UTF_8)
  }

  override def toString: String =
    pairs.map { case (s, d) => s"${GoQuote(s)} -> ${GoQuote(d)}" }.mkString("FilterTransforms(", ", ", ")")
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
      field: String = "subject_transforms"): FilterTransforms = {
    val ps = pairs.toIndexedSeq
    val kind = if (overlap == MirrorRule) "mirror" else "source"
    val (sourceErr, destErr) = if (overlap == MirrorRule) (10151, 10154) else (10145, 10146)
    def entry(i: Int) = s"$field[$i]"
    val transforms = new Array[SubjectTransform](ps.length)
    def checkOverlap(i: Int): Unit =
      for (j <- ps.indices if i != j && overlap.collides(ps(i)._1, ps(j)._1)) {
        val (a, b) = (math.min(i, j), math.max(i, j))
        throw new InvalidStreamConfigException(s"${entry(a)}, ${entry(b)}",
          s"${overlap.description} (${GoQuote(ps(a)._1)} and ${GoQuote(ps(b)._1)})", overlap.errCode)
      }
    for (((src, dest), i) <- ps.zipWithIndex) {
      if (src == null || dest == null) {
        throw new InvalidStreamConfigException(entry(i), s"$kind transform: src and dest must be strings", 0)
      }
      if (src.nonEmpty && !Subjects.isValidSubject(src)) {
        throw new InvalidStreamConfigException(entry(i), s"$kind transform source: invalid subject $src", sourceErr)
      }
      if (dest.nonEmpty) {
        transforms(i) =
          try SubjectTransform.compile(src, dest).keepingEmptyTokens
          catch {
            case e: InvalidTransformException =>
              throw new InvalidStreamConfigException(entry(i), s"$kind transform: ${e.reason}", destErr)
          }
      }
      // nats-server checks a mirror's overlaps entry by entry, a source's after all its entries.
      if (overlap == MirrorRule) checkOverlap(i)
    }
    if (overlap == SourceRule) ps.indices.foreach(checkOverlap)
    // No source means `>`, as nats-server reads it when it builds the transform.
    val filters = ps.map(p => SubjectFilter.compile(if (p._1.isEmpty) ">" else p._1)).toArray
    new FilterTransforms(ps, filters, transforms)
  }

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
