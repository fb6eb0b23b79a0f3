package subjxform.spark

import org.apache.spark.unsafe.Platform
import org.apache.spark.unsafe.types.UTF8String

import subjxform.core.{FilterTransforms, MappingTable, SubjectFilter, SubjectTransform, Workspace}

/**
 * What generated code calls per row: a few lines each that hand a `UTF8String`'s bytes to the compiled
 * engine without copying them (a string on the heap is a window on a byte array; only an off-heap
 * one is copied, once).
 */
object PerRow {

  /** The bytes `s` is a window on, or a copy of them when `s` is off the heap. */
  private def bytesOf(s: UTF8String): Array[Byte] = s.getBaseObject match {
    case bytes: Array[Byte] => bytes
    case _ => s.getBytes
  }

  /** Where `s` starts in `bytesOf(s)`. */
  private def offsetIn(bytes: Array[Byte], s: UTF8String): Int =
    if (bytes eq s.getBaseObject) (s.getBaseOffset - Platform.BYTE_ARRAY_OFFSET).toInt else 0

  private def result(out: Array[Byte]): UTF8String = if (out == null) null else UTF8String.fromBytes(out)

  def transform(tr: SubjectTransform, ws: Workspace, subject: UTF8String): UTF8String = {
    val bytes = bytesOf(subject)
    result(tr(bytes, offsetIn(bytes, subject), subject.numBytes, ws))
  }

  def filterTransform(ft: FilterTransforms, ws: Workspace, subject: UTF8String): UTF8String = {
    val bytes = bytesOf(subject)
    result(ft(bytes, offsetIn(bytes, subject), subject.numBytes, ws))
  }

  def matches(filter: SubjectFilter, ws: Workspace, subject: UTF8String): Boolean = {
    val bytes = bytesOf(subject)
    filter.matches(bytes, offsetIn(bytes, subject), subject.numBytes, ws)
  }

  /** `cluster` may be NULL (no cluster); a table that leaves the subject unchanged returns it as it is. */
  def map(table: MappingTable, ws: Workspace, subject: UTF8String, cluster: UTF8String): UTF8String = {
    val in = bytesOf(subject)
    val c = if (cluster == null) null else bytesOf(cluster)
    val out = table(in, offsetIn(in, subject), subject.numBytes,
      c, if (c == null) 0 else offsetIn(c, cluster), if (c == null) 0 else cluster.numBytes, ws)
    if (out eq MappingTable.Unchanged) subject else result(out)
  }
}

/**
 * Compiled plans for arguments that come from columns: a few recently used ones compared directly
 * (rows usually take their transform from a handful of values), then a bounded LRU map. Lookups use
 * the row's strings as they are; only a new entry stores copies (a row's strings may point into a
 * buffer the next row overwrites), so a hit allocates nothing. Failures are cached too, so a `try_`
 * function over many rows with the same invalid transform compiles it once. `compile` signals
 * invalid arguments with an `IllegalArgumentException`, which `onError` turns into the Spark error.
 * One per task (generated-code mutable state or a transient field), so no locking.
 */
final class PlanCache[P <: AnyRef](
    compile: (String, String) => P,
    onError: IllegalArgumentException => Exception,
    capacity: Int = PlanCache.DefaultCapacity) {
  private final class Entry(val a: UTF8String, val b: UTF8String, val plan: P, val error: Exception)

  // First tier: a slot per fingerprint (lengths and a few bytes of both strings, no hashing of the
  // whole strings), so rows that cycle through a handful of transforms find theirs with one
  // comparison. Two transforms with the same fingerprint fall through to the second tier.
  private val slots = new Array[Entry](PlanCache.Slots)

  // Second tier: recently used entries, most recent first: a byte comparison or two beats hashing both strings.
  private val recent = new Array[Entry](PlanCache.Recent)

  private val lru = new java.util.LinkedHashMap[(UTF8String, UTF8String), Entry](64, 0.75f, true) {
    override def removeEldestEntry(e: java.util.Map.Entry[(UTF8String, UTF8String), Entry]): Boolean =
      this.size() > capacity
  }

  def size: Int = lru.size()

  /** The plan for these arguments; throws the compile error when `failOnError`, else returns null. */
  def get(a: UTF8String, b: UTF8String, failOnError: Boolean): P = {
    val slot = PlanCache.fingerprint(a, b) & (PlanCache.Slots - 1)
    var e = slots(slot)
    if (e == null || !(a == e.a && b == e.b)) {
      e = fromRecent(a, b)
      slots(slot) = e
    }
    if (e.error != null && failOnError) throw e.error
    e.plan
  }

  private def fromRecent(a: UTF8String, b: UTF8String): Entry = {
    var e: Entry = null
    var i = 0
    while (e == null && i < recent.length && recent(i) != null) {
      val r = recent(i)
      if (a == r.a && b == r.b) e = r
      else i += 1
    }
    if (e == null) {
      e = lru.get((a, b))
      if (e == null) {
        // copy(), not clone(): clone() keeps the caller's array when the string spans all of it
        val ka = a.copy()
        val kb = if (b == null) null else b.copy()
        e =
          try new Entry(ka, kb, compile(ka.toString, if (kb == null) null else kb.toString), null)
          catch { case err: IllegalArgumentException => new Entry(ka, kb, null.asInstanceOf[P], onError(err)) }
        lru.put((ka, kb), e)
      }
      i = recent.length - 1 // a new recent entry: the least recent one makes room
    }
    if (i > 0) { // move to the front
      System.arraycopy(recent, 0, recent, 1, i)
      recent(0) = e
    } else if (recent(0) == null) recent(0) = e
    e
  }
}

object PlanCache {
  final val DefaultCapacity = 1024
  final val Recent = 8
  final val Slots = 64 // a power of two

  /** Cheap and allocation-free: the length, first 8 bytes and last byte of each string. */
  private[spark] def fingerprint(a: UTF8String, b: UTF8String): Int = {
    def of(s: UTF8String): Int =
      if (s == null || s.numBytes == 0) 0
      else {
        val last = Platform.getByte(s.getBaseObject, s.getBaseOffset + s.numBytes - 1)
        val prefix = s.getPrefix
        (s.numBytes * 31 + (prefix ^ (prefix >>> 32)).toInt) * 31 + last
      }
    val h = of(a) * 0x9E3779B1 + of(b)
    h ^ (h >>> 16)
  }

  /**
   * The cache of `function`'s plans, whose compile errors become the function's runtime error
   * (see [[Errors.atRuntime]]) blaming the parameter that `blame` names.
   */
  def of[P <: AnyRef](function: String, blame: IllegalArgumentException => String)(compile: (String, String) => P): PlanCache[P] =
    new PlanCache[P](compile, e => Errors.atRuntime(function, blame(e), e.getMessage))
}
