package subjxform.spark

import org.apache.spark.sql.catalyst.expressions.Literal
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import subjxform.engine.SubjectTransform

/** Transforms from columns: 100k distinct ones stay correct and the per-task cache stays bounded. */
class PlanCacheSuite extends AnyFunSuite with ExpressionChecks {

  test("100k distinct transforms from columns: right results, at most DefaultCapacity plans kept") {
    val e = new SubjectTransformExpression(column(0), column(1), column(2), Literal.FalseLiteral)
    val cache = e.newCache()
    val rows = (0 until 100000).map(i => row(s"orders.eu.$i", "orders.*.*", s"d$i.$$2.{{wildcard(1)}}"))
    val compiled = this.compiled(e, rows)
    rows.indices.foreach { i =>
      assert(compiled(i) == s"d$i.$i.eu")
      val tr = cache.get(UTF8String.fromString("orders.*.*"), UTF8String.fromString(s"d$i.$$2.{{wildcard(1)}}"), true)
      assert(tr.destination == s"d$i.$$2.{{wildcard(1)}}")
      assert(cache.size <= PlanCache.DefaultCapacity)
    }
    assert(cache.size == PlanCache.DefaultCapacity)
  }

  test("the cache keeps copies of its keys: a reused row buffer does not change a cached plan") {
    val cache = new PlanCache[SubjectTransform]((s, d) => SubjectTransform.compile(s, d), e => e)
    val buffer = "a.*---x.$1".getBytes("UTF-8")
    val src = UTF8String.fromBytes(buffer, 0, 3)
    val dest = UTF8String.fromBytes(buffer, 6, 4)
    val first = cache.get(src, dest, true)
    System.arraycopy("b.*---y.$1".getBytes("UTF-8"), 0, buffer, 0, buffer.length) // the row buffer is reused
    val second = cache.get(UTF8String.fromBytes(buffer, 0, 3), UTF8String.fromBytes(buffer, 6, 4), true)
    assert(first.source == "a.*" && second.source == "b.*" && second.destination == "y.$1")
  }

  test("rows cycling through transforms, with and without the same fingerprint, each get their own plan") {
    val e = new SubjectTransformExpression(column(0), column(1), column(2), Literal.FalseLiteral)
    // Same length, first 8 bytes and last byte: one fingerprint, so they share a first-tier slot.
    val alike = (1 to 5).map(k => s"prefixed.$k.$$1")
    val fingerprints = alike.map(d => PlanCache.fingerprint(UTF8String.fromString("a.*"), UTF8String.fromString(d)))
    assert(fingerprints.distinct.size == 1)
    val unlike = Seq("$1", "x.{{wildcard(1)}}", "{{wildcard(1)}}.y.z")
    val dests = alike ++ unlike
    val rows = (0 until 400).map(i => row(s"a.v$i", "a.*", dests(i % dests.size)))
    val expected = (0 until 400).map(i => SubjectTransform.compile("a.*", dests(i % dests.size))(s"a.v$i"))
    assert(compiled(e, rows) == expected)
    assert(expected.toSet.size == 400)
  }
}
