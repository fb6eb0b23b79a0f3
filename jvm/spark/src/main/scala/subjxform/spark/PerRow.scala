package subjxform.spark

import org.apache.spark.unsafe.Platform
import org.apache.spark.unsafe.types.UTF8String

import subjxform.core.{SubjectFilter, SubjectTransform, Workspace}

/**
 * What generated code calls per row: a few lines that hand a `UTF8String`'s bytes to the compiled
 * engine without copying them (a string on the heap is a window on a byte array).
 */
object PerRow {

  def transform(tr: SubjectTransform, ws: Workspace, subject: UTF8String): UTF8String = {
    val base = subject.getBaseObject
    val out = base match {
      case bytes: Array[Byte] =>
        tr(bytes, (subject.getBaseOffset - Platform.BYTE_ARRAY_OFFSET).toInt, subject.numBytes, ws)
      case _ =>
        val bytes = subject.getBytes // off-heap: copy once
        tr(bytes, 0, bytes.length, ws)
    }
    if (out == null) null else UTF8String.fromBytes(out)
  }

  def matches(filter: SubjectFilter, ws: Workspace, subject: UTF8String): Boolean =
    subject.getBaseObject match {
      case bytes: Array[Byte] =>
        filter.matches(bytes, (subject.getBaseOffset - Platform.BYTE_ARRAY_OFFSET).toInt, subject.numBytes, ws)
      case _ =>
        val bytes = subject.getBytes
        filter.matches(bytes, 0, bytes.length, ws)
    }
}

/**
 * Compiled plans for arguments that come from columns: the last one used (rows usually repeat it),
 * then a bounded LRU map keyed by copies of the argument strings. Failures are cached too, so a
 * `try_` function over many rows with the same invalid transform compiles it once. `compile` signals
 * invalid arguments with an `IllegalArgumentException`, which `onError` turns into the Spark error.
 * One per task (generated-code mutable state or a transient field), so no locking.
 */
final class PlanCache[P <: AnyRef](
    compile: (String, String) => P,
    onError: IllegalArgumentException => Exception,
    capacity: Int = PlanCache.DefaultCapacity) {
  private final class Entry(val plan: P, val error: Exception)

  private var lastA: UTF8String = _
  private var lastB: UTF8String = _
  private var last: Entry = _

  private val lru = new java.util.LinkedHashMap[(UTF8String, UTF8String), Entry](64, 0.75f, true) {
    override def removeEldestEntry(e: java.util.Map.Entry[(UTF8String, UTF8String), Entry]): Boolean =
      this.size() > capacity
  }

  def size: Int = lru.size()

  /** The plan for these arguments; throws the compile error when `failOnError`, else returns null. */
  def get(a: UTF8String, b: UTF8String, failOnError: Boolean): P = {
    val e =
      if (last != null && a == lastA && b == lastB) last
      else {
        val key = (a.clone(), if (b == null) null else b.clone())
        var found = lru.get(key)
        if (found == null) {
          found =
            try new Entry(compile(key._1.toString, if (key._2 == null) null else key._2.toString), null)
            catch { case err: IllegalArgumentException => new Entry(null.asInstanceOf[P], onError(err)) }
          lru.put(key, found)
        }
        lastA = key._1
        lastB = key._2
        last = found
        found
      }
    if (e.error != null && failOnError) throw e.error
    e.plan
  }
}

object PlanCache {
  final val DefaultCapacity = 1024
}
