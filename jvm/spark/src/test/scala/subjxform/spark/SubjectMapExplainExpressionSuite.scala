package subjxform.spark

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, Literal, Nondeterministic}
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.types.{LongType, StringType}
import org.scalatest.funsuite.AnyFunSuite

import subjxform.engine.Golden

class SubjectMapExplainExpressionSuite extends AnyFunSuite with ExpressionChecks {

  private val noCluster = Literal.create(null, StringType)
  private def seed(v: java.lang.Long) = Literal.create(v, LongType)
  private def explain(subject: Expression, mappings: Expression, cluster: Expression = noCluster,
      s: java.lang.Long = null) =
    new SubjectMapExplainExpression(subject, mappings, cluster, seed(s)).formForArguments
  private def map(subject: Expression, mappings: Expression, cluster: Expression = noCluster,
      s: java.lang.Long = null) =
    new SubjectMapExpression(subject, mappings, cluster, seed(s)).formForArguments

  /** The struct's result field (the last). */
  private def resultOf(v: Any): Any = if (v == null) null else v.asInstanceOf[Seq[Any]].last

  test("the struct names the rule, how it matched, the scope, the destination and the outcome, every way") {
    val table = """{"orders.*": "orders.central.$1", "orders.flush": "orders.central.flush"}"""
    assert(evaluate(explain(str("orders.42"), str(table))) ==
      Seq("orders.*", 0, "wildcard", null, "orders.central.$1", 0, 100, false, "mapped", "orders.central.42"))
    assert(evaluate(explain(str("orders.flush"), str(table))) ==
      Seq("orders.flush", 1, "literal", null, "orders.central.flush", 0, 100, false, "mapped", "orders.central.flush"))
    assert(evaluate(explain(str("billing.1"), str(table))) ==
      Seq(null, null, null, null, null, null, null, null, "no_match", "billing.1"))
    assert(evaluate(explain(str("a..b"), str(table))) == null)
    assert(evaluate(explain(Literal.create(null, StringType), str(table))) == null)
    val clusters = "foo: [{destination: foo.west, weight: 100%, cluster: west}, {destination: foo.all, weight: 0%}]"
    assert(evaluate(explain(str("foo"), str(clusters), str("west"))) ==
      Seq("foo", 0, "literal", "west", "foo.west", 0, 100, false, "mapped", "foo.west"))
    assert(evaluate(explain(str("foo"), str(clusters), str("east"))) ==
      Seq("foo", 0, "literal", null, null, null, 100, true, "unchanged", "foo"))
    assert(evaluate(explain(str("foo.loss.a"), str("foo.loss.>: [{destination: foo.loss.>, weight: 0%}]"))) ==
      Seq("foo.loss.>", 0, "wildcard", null, null, null, 100, true, "dropped", null))
  }

  test("its result is subject_map's on every golden case, constant and from a column, with the same seed, both ways") {
    val cases = Golden.mapCases.filter(_.accepted)
    for (c <- cases; s <- Seq[java.lang.Long](null, 3L)) {
      val rows = Seq.fill(20)(row(c.subject))
      val e = explain(column(0), str(c.mappings), s = s)
      val m = map(column(0), str(c.mappings), s = s)
      if (s != null || !m.isInstanceOf[Nondeterministic]) {
        assert(compiled(e, rows).map(resultOf) == compiled(m, rows), c.id)
        val (ie, im) = (initialized(e), initialized(m))
        assert(rows.map(r => resultOf(scalaValue(ie.eval(r)))) == rows.map(r => scalaValue(im.eval(r))), c.id)
      }
    }
    val fromColumn = explain(column(0), column(1), s = 11L)
    val rows = cases.flatMap(c => Seq.fill(5)(row(c.subject, c.mappings)))
    assert(compiled(fromColumn, rows).map(resultOf) == compiled(map(column(0), column(1), s = 11L), rows))
  }

  test("a weighted table gives the Nondeterministic form, like subject_map's; both are compiled code") {
    val canary = "svc: [{destination: svc.v1, weight: 98%}, {destination: svc.v2, weight: 2%}]"
    val weighted = explain(str("svc"), str(canary), s = 1L)
    assert(weighted.isInstanceOf[RandomSubjectMapExplainExpression] && !weighted.deterministic)
    val plain = explain(str("svc"), str("svc: svc.v1"))
    assert(plain.isInstanceOf[SubjectMapExplainExpression] && plain.deterministic)
    assert(!weighted.isInstanceOf[CodegenFallback] && !plain.isInstanceOf[CodegenFallback])
    val rows = Seq.fill(3000)(InternalRow.empty)
    val picks = compiled(weighted, rows).map(_.asInstanceOf[Seq[Any]])
    assert(picks.map(_(5)).toSet == Set(0, 1) && picks.forall(p => p(9) == Seq("svc.v1", "svc.v2")(p(5).asInstanceOf[Int])))
    assert(picks.forall(p => p(6) == Seq(98, 2)(p(5).asInstanceOf[Int])))
  }

  test("an invalid constant table fails analysis naming subject_map_explain and mappings") {
    val e = intercept[org.apache.spark.sql.AnalysisException](
      new SubjectMapExplainExpression(str("a"), str("a: [{destination: b, weight: 101%}]"), noCluster,
        seed(null)).checkInputDataTypes())
    assert(e.getMessage.contains("`subject_map_explain`") && e.getMessage.contains("`mappings`"), e.getMessage)
  }

  test("with a key, the draws are subject_map's keyed draws: the same per key whatever the order, and deterministic") {
    val canary = "svc.*: [{destination: svc.v1.$1, weight: 60%}, {destination: svc.v2.$1, weight: 40%}]"
    def keyedExplain = registered("subject_map_explain", column(0), str(canary), noCluster, seed(5L), column(1))
    def keyedMap = registered("subject_map", column(0), str(canary), noCluster, seed(5L), column(1))
    assert(keyedExplain.deterministic && !keyedExplain.isInstanceOf[Nondeterministic])
    val rows = (0 until 400).map(i => row(s"svc.$i", s"order-$i"))
    val explained = compiled(keyedExplain, rows).map(resultOf)
    assert(explained == compiled(keyedMap, rows))
    assert(explained.toSet.size == 400 && explained.exists(_.toString.startsWith("svc.v2.")))
    // Reversed and on another partition: each key keeps its draw.
    assert(compiled(keyedExplain, rows.reverse, partition = 3).map(resultOf) == explained.reverse)
    val e = initialized(keyedExplain)
    assert(rows.map(r => resultOf(scalaValue(e.eval(r)))) == explained)
  }
}
