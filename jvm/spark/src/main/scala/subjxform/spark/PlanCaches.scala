package subjxform.spark

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.util.ArrayData
import org.apache.spark.unsafe.Platform
import org.apache.spark.unsafe.array.ByteArrayMethods
import org.apache.spark.unsafe.types.UTF8String

import subjxform.config.{FilterTransforms, InvalidStreamConfigException}
import subjxform.engine.ServerVersion

/**
 * Compiled plans for plan arguments that come from columns (see [[PlanExpression]]): one per task
 * (generated-code mutable state or a transient field), so no locking. `b` is NULL for a function whose
 * plan has one argument. Throws the compile error when `failOnError`, else returns null for it.
 */
trait ColumnPlans[P <: AnyRef] {
  def get(a: AnyRef, b: AnyRef, failOnError: Boolean): P

  /** How many compiled plans are kept. */
  def size: Int
}

/**
 * Plans compiled from one or two STRING arguments: a few recently used ones compared directly
 * (rows usually take their transform from a handful of values), then a bounded LRU map. Lookups use
 * the row's strings as they are; only a new entry stores copies (a row's strings may point into a
 * buffer the next row overwrites), so a hit allocates nothing. Failures are cached too, so a `try_`
 * function over many rows with the same invalid transform compiles it once. `compile` signals
 * invalid arguments with an `IllegalArgumentException`, which `onError` turns into the Spark error.
 */
final class PlanCache[P <: AnyRef](
    compile: (String, String) => P,
    onError: IllegalArgumentException => Exception,
    capacity: Int = PlanCache.DefaultCapacity) extends ColumnPlans[P] {
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

  def get(a: AnyRef, b: AnyRef, failOnError: Boolean): P =
    get(a.asInstanceOf[UTF8String], b.asInstanceOf[UTF8String], failOnError)

  def get(a: UTF8String, b: UTF8String, failOnError: Boolean): P =
    if (b == null) get(a.getBaseObject, a.getBaseOffset, a.numBytes, null, 0L, PlanCache.NoSecond, failOnError)
    else get(a.getBaseObject, a.getBaseOffset, a.numBytes, b.getBaseObject, b.getBaseOffset, b.numBytes, failOnError)

  /**
   * [[get]] for strings given by their bytes (`base`, `offset` as in a `UTF8String`, length; `bLength`
   * [[PlanCache.NoSecond]]: no second argument). What generated code calls: a row's `UTF8String`s are
   * then only read, never passed on, so the JIT can leave them unallocated. That matters on Spark 4,
   * whose `UTF8String` constructor writes four volatile fields: each one that escapes costs a few
   * memory fences, about 25 ns a string, more than the rest of a lookup.
   */
  def get(
      aBase: AnyRef, aOffset: Long, aLength: Int, bBase: AnyRef, bOffset: Long, bLength: Int, failOnError: Boolean): P = {
    val slot = PlanCache.fingerprint(aBase, aOffset, aLength, bBase, bOffset, bLength) & (PlanCache.Slots - 1)
    var e = slots(slot)
    if (e == null || !(PlanCache.same(e.a, aBase, aOffset, aLength) && PlanCache.same(e.b, bBase, bOffset, bLength))) {
      e = fromRecent(UTF8String.fromAddress(aBase, aOffset, aLength),
        if (bLength == PlanCache.NoSecond) null else UTF8String.fromAddress(bBase, bOffset, bLength))
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

  /** The length that stands for "no second argument" in [[PlanCache.get]]. */
  final val NoSecond = -1

  /** Whether `key` (a cached copy, or null for no argument) holds the bytes of `base`/`offset`/`length`. */
  private def same(key: UTF8String, base: AnyRef, offset: Long, length: Int): Boolean =
    if (key == null) length == NoSecond
    else
      key.numBytes == length && ByteArrayMethods.arrayEquals(key.getBaseObject, key.getBaseOffset, base, offset, length)

  /** Cheap and allocation-free: the length, first 8 bytes and last byte of each string. */
  private[spark] def fingerprint(a: UTF8String, b: UTF8String): Int =
    if (b == null) fingerprint(a.getBaseObject, a.getBaseOffset, a.numBytes, null, 0L, NoSecond)
    else fingerprint(a.getBaseObject, a.getBaseOffset, a.numBytes, b.getBaseObject, b.getBaseOffset, b.numBytes)

  private[spark] def fingerprint(
      aBase: AnyRef, aOffset: Long, aLength: Int, bBase: AnyRef, bOffset: Long, bLength: Int): Int = {
    val h = fingerprintOf(aBase, aOffset, aLength) * 0x9e3779b1 + fingerprintOf(bBase, bOffset, bLength)
    h ^ (h >>> 16)
  }

  private def fingerprintOf(base: AnyRef, offset: Long, length: Int): Int =
    if (length <= 0) 0
    else {
      val last = Platform.getByte(base, offset + length - 1)
      val prefix = if (length >= 8) Platform.getLong(base, offset) else shortPrefix(base, offset, length)
      (length * 31 + (prefix ^ (prefix >>> 32)).toInt) * 31 + last
    }

  // Byte by byte: an 8-byte read could run past the end of a short string's array.
  private def shortPrefix(base: AnyRef, offset: Long, length: Int): Long = {
    var p = 0L
    var i = 0
    while (i < length) { p = (p << 8) | (Platform.getByte(base, offset + i) & 0xffL); i += 1 }
    p
  }

  /**
   * The cache of `function`'s plans, whose compile errors become the function's runtime error
   * (see [[Errors.atRuntime]]) blaming the parameter that `blame` names.
   */
  def of[P <: AnyRef](function: String, blame: IllegalArgumentException => String)(
      compile: (String, String) => P): PlanCache[P] =
    new PlanCache[P](compile, e => Errors.atRuntime(function, blame(e), e.getMessage))
}

/**
 * Compiled lists for a `transforms` argument (ARRAY<STRUCT<src, dest>>) that comes from a column: the
 * last one used (rows usually repeat it), compared element by element without building anything,
 * then a bounded LRU map keyed by the list's strings. Failures are cached too.
 */
final class TransformListCache(
    srcOrdinal: Int,
    destOrdinal: Int,
    numFields: Int,
    version: ServerVersion,
    onError: InvalidStreamConfigException => Exception,
    capacity: Int = PlanCache.DefaultCapacity) extends ColumnPlans[FilterTransforms] {
  private final class Entry(val plan: FilterTransforms, val error: Exception)

  // The last list: null src and dest stand for a NULL element, "" for a NULL field.
  private var lastSrc: Array[UTF8String] = _
  private var lastDest: Array[UTF8String] = _
  private var last: Entry = _

  private val lru = new java.util.LinkedHashMap[IndexedSeq[(String, String)], Entry](64, 0.75f, true) {
    override def removeEldestEntry(e: java.util.Map.Entry[IndexedSeq[(String, String)], Entry]): Boolean =
      this.size() > capacity
  }

  def size: Int = lru.size()

  private def field(row: InternalRow, ordinal: Int): UTF8String =
    if (row.isNullAt(ordinal)) UTF8String.EMPTY_UTF8 else row.getUTF8String(ordinal)

  private def sameAsLast(a: ArrayData): Boolean = {
    if (last == null || a.numElements() != lastSrc.length) return false
    var i = 0
    while (i < lastSrc.length) {
      if (a.isNullAt(i)) { if (lastSrc(i) != null) return false }
      else {
        val row = a.getStruct(i, numFields)
        if (lastSrc(i) == null || field(row, srcOrdinal) != lastSrc(i) || field(row, destOrdinal) != lastDest(i))
          return false
      }
      i += 1
    }
    true
  }

  def get(a: AnyRef, b: AnyRef, failOnError: Boolean): FilterTransforms = get(a.asInstanceOf[ArrayData], failOnError)

  def get(a: ArrayData, failOnError: Boolean): FilterTransforms = {
    if (!sameAsLast(a)) {
      val key = TransformListCache.pairs(a, (srcOrdinal, destOrdinal, numFields))
      var found = lru.get(key)
      if (found == null) {
        found =
          try new Entry(TransformListCache.compile(key, version), null)
          catch { case e: InvalidStreamConfigException => new Entry(null, onError(e)) }
        lru.put(key, found)
      }
      lastSrc = key.map(p => if (p == null) null else UTF8String.fromString(p._1)).toArray
      lastDest = key.map(p => if (p == null) null else UTF8String.fromString(p._2)).toArray
      last = found
    }
    if (last.error != null && failOnError) throw last.error
    last.plan
  }
}

object TransformListCache {

  /** The (src, dest) pairs of a list; a NULL element is a null pair, a NULL field an absent one (""). */
  def pairs(a: ArrayData, layout: (Int, Int, Int)): IndexedSeq[(String, String)] = {
    val (s, d, n) = layout
    (0 until a.numElements()).map { i =>
      if (a.isNullAt(i)) null
      else {
        val row = a.getStruct(i, n)
        def get(o: Int) = if (row.isNullAt(o)) "" else row.getUTF8String(o).toString
        (get(s), get(d))
      }
    }
  }

  /** Compiles with nats-server's rules for one source (the stricter mirror rule is the stream API's). */
  def compile(pairs: IndexedSeq[(String, String)], version: ServerVersion): FilterTransforms = {
    val missing = pairs.indexOf(null)
    if (missing >= 0) throw new InvalidStreamConfigException(s"transforms[$missing]", "is NULL", 0)
    FilterTransforms.compile(pairs, FilterTransforms.SourceRule, "transforms", version)
  }
}
