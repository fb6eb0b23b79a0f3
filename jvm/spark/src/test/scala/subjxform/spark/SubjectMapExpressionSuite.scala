package subjxform.spark

import org.apache.spark.sql.AnalysisException
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, Literal, Nondeterministic}
import org.apache.spark.sql.types.{LongType, StringType}
import org.scalatest.funsuite.AnyFunSuite

import subjxform.engine.Golden

class SubjectMapExpressionSuite extends AnyFunSuite with ExpressionChecks {

  private val noCluster = Literal.create(null, StringType)
  private val noSeed = Literal.create(null, LongType)
  private def long(v: Long) = Literal.create(v, LongType)
  private def map(subject: String, mappings: String, cluster: String = null) =
    new SubjectMapExpression(str(subject), str(mappings), Literal.create(cluster, StringType), noSeed)

  /** As the registry builds it: the weighted form when the table draws at random or is a column. */
  private def registered(e: SubjectMapExpression): Expression = e.formForArguments

  private val canary = "myservice.requests: [{destination: myservice.requests.v1, weight: 98%}, " +
    "{destination: myservice.requests.v2, weight: 2%}]"

  test("constant tables give the same result interpreted, after a round trip and compiled") {
    val table = """{"orders.flush": "orders.central.flush", "orders.*": "orders.central.{{wildcard(1)}}"}"""
    assert(evaluate(map("orders.42", table)) == "orders.central.42")
    assert(evaluate(map("orders.flush", table)) == "orders.central.flush")
    assert(evaluate(map("billing.1", table)) == "billing.1")
    assert(evaluate(map("a..b", table)) == null)
    val clusters = "foo: [{destination: foo.west, weight: 100%, cluster: west}, {destination: foo.all, weight: 100%}]"
    assert(evaluate(map("foo", clusters, "west")) == "foo.west")
    assert(evaluate(map("foo", clusters, "east")) == "foo.all")
    assert(evaluate(map("foo", clusters)) == "foo.all")
  }

  test("NULL subject or table gives NULL; NULL cluster means no cluster") {
    assert(evaluate(new SubjectMapExpression(Literal.create(null, StringType), str("a: b"), noCluster, noSeed)) == null)
    assert(evaluate(new SubjectMapExpression(str("a"), Literal.create(null, StringType), noCluster, noSeed)) == null)
    val fromColumns = registered(new SubjectMapExpression(column(0), column(1), column(2), noSeed))
    assert(fromColumns.isInstanceOf[RandomSubjectMapExpression])
    assert(evaluate(fromColumns, row("a", null, "w")) == null)
    assert(evaluate(fromColumns, row("a", "a: b", null)) == "b")
    assert(evaluate(fromColumns, row("a", "a: [{destination: w, weight: 100, cluster: w}]", "w")) == "w")
  }

  test("every golden case, constant table and from a column, through one generated projection") {
    for (c <- Golden.mapCases.filter(c => c.accepted && c.expected.isDefined)) {
      assert(evaluate(new SubjectMapExpression(column(0), str(c.mappings), noCluster, noSeed), row(c.subject)) ==
          c.expected.get.orNull, c.id)
    }
    val cases = Golden.mapCases.filter(c => c.accepted && c.expected.isDefined)
    val e = registered(new SubjectMapExpression(column(0), column(1), noCluster, noSeed))
    val results = compiled(e, cases.map(c => row(c.subject, c.mappings)))
    assert(cases.zip(results).forall { case (c, r) => r == c.expected.get.orNull })
  }

  test("an invalid constant table fails analysis with the rule, the destination and nats-server's reason") {
    for (c <- Golden.mapCases.filterNot(_.accepted).groupBy(_.mappings).values.map(_.head)) {
      val e = intercept[AnalysisException](map(c.subject, c.mappings).checkInputDataTypes())
      assert(SparkCompat.condition(e) == "INVALID_PARAMETER_VALUE.PATTERN")
      assert(e.getMessage.contains("`subject_map`") && e.getMessage.contains("`mappings`"))
      assert(e.getMessage.contains(c.error.get.stripSuffix(".")), s"${c.id}: ${e.getMessage}")
      assert(e.getMessage.contains("rule \""), e.getMessage)
    }
  }

  test("an invalid table from a column is a runtime error naming it") {
    val e = registered(new SubjectMapExpression(column(0), column(1), noCluster, noSeed))
    val input = row("a", "a: [{destination: b, weight: 101%}]")
    for (run <- Seq[() => Any](() => initialized(e).eval(input), () => compiled(e, Seq(input)))) {
      val err = intercept[InvalidArgumentValueException](run())
      assert(err.getMessage.contains("rule \"a\", destination \"b\": Invalid weight 101 for mapping destination"))
    }
  }

  test("weighted tables are nondeterministic (Spark's Nondeterministic), others deterministic; a column table may be weighted") {
    def form(e: SubjectMapExpression) = { val r = registered(e); (r.deterministic, r.isInstanceOf[Nondeterministic]) }
    assert(form(map("x", canary)) == (false, true))
    assert(form(map("x", "a: b")) == (true, false))
    assert(form(map("x", "a: [{destination: b, weight: 100%}]")) == (true, false))
    assert(form(map("x", """{"a.*": "b.{{random(3)}}"}""")) == (false, true))
    assert(form(new SubjectMapExpression(column(0), column(1), noCluster, noSeed)) == (false, true))
    // Unseeded draws differ between the ways of evaluating by design: each must still be a destination.
    val weighted = registered(map("myservice.requests", canary))
    val destinations = Set[Any]("myservice.requests.v1", "myservice.requests.v2")
    assert(destinations.contains(initialized(weighted).eval(InternalRow.empty).toString))
    assert(destinations.contains(compiled(weighted, Seq(InternalRow.empty)).head))
  }

  test("a seed makes the draws reproducible per partition, the same interpreted and compiled") {
    def seeded(seed: Long) =
      registered(new SubjectMapExpression(str("myservice.requests"), str(canary), noCluster, long(seed)))
    val rows = Seq.fill(3000)(InternalRow.empty)
    val viaCodegen = compiled(seeded(7), rows)
    val e = initialized(seeded(7))
    val viaInterpreter = rows.map(e.eval(_).toString)
    assert(viaCodegen == viaInterpreter)
    assert(viaCodegen == compiled(seeded(7), rows))
    assert(viaCodegen != compiled(seeded(7), rows, partition = 1))
    assert(viaCodegen != compiled(seeded(8), rows))
    assert(viaCodegen.toSet == Set("myservice.requests.v1", "myservice.requests.v2"))
  }

  test("SQL text of the short forms, and a non-constant seed is refused") {
    assert(new SubjectMapExpression(column(0), str("a: b")).sql.startsWith("subject_map("))
    assert(!new SubjectMapExpression(column(0), str("a: b")).sql.contains("NULL"))
    assert(new SubjectMapExpression(str("a"), str("a: b"), noCluster,
        column(1, LongType)).checkInputDataTypes().isFailure)
  }
}
