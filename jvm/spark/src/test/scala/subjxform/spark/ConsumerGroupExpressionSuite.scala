package subjxform.spark

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files

import org.apache.spark.sql.AnalysisException
import org.scalatest.funsuite.AnyFunSuite

import subjxform.engine.Golden

/** consumer_group_partition / consumer_group_member against tests/golden/pcgroups, every evaluation mode. */
class ConsumerGroupExpressionSuite extends AnyFunSuite with ExpressionChecks {

  private lazy val assignment: Seq[ujson.Value] = {
    val path = Golden.root.resolve("tests/golden/pcgroups/assignment.jsonl")
    new String(Files.readAllBytes(path), UTF_8).split("\n").toSeq.filter(_.trim.nonEmpty).map(ujson.read(_))
  }

  private def expected(s: ujson.Value, key: String): Any = s(key) match {
    case ujson.Null => null
    case ujson.Num(n) => n.toInt
    case v => v.str
  }

  test("golden cases with a constant config: interpreted, round trip and codegen agree with the library") {
    // (a generated class per config and function: the special cases after the first 60, the (N, members) grid, sampled;
    // the next test runs every case through one projection)
    for ((c, i) <- assignment.zipWithIndex if i >= 60 || i % 7 == 0) {
      val config = str(ujson.write(c("config")))
      val partition = registered("consumer_group_partition", column(0), config)
      val member = registered("consumer_group_member", column(0), config)
      val subjects = c("subjects").arr.toSeq
      val rows = subjects.map(s => row(s("subject").str))
      assert(compiled(partition, rows) == subjects.map(expected(_, "partition")), c("config"))
      assert(compiled(member, rows) == subjects.map(expected(_, "member")), c("config"))
      for ((s, r) <- subjects.zip(rows).take(1)) {
        assert(evaluate(partition, r) == expected(s, "partition"))
        assert(evaluate(member, r) == expected(s, "member"))
      }
    }
  }

  test("every golden case, configs from a column alternating row by row through one projection; NULL subject or config is NULL") {
    val cases = assignment
    val rows = cases.flatMap(c => c("subjects").arr.map(s => (row(s("subject").str, ujson.write(c("config"))), s))) ++
      Seq((row(null, ujson.write(cases.head("config"))), null), (row("orders.eu.c1", null), null))
    for ((name, key) <- Seq("consumer_group_partition" -> "partition", "consumer_group_member" -> "member")) {
      val e = registered(name, column(0), column(1))
      val want = rows.map { case (_, s) => if (s == null) null else expected(s, key) }
      assert(compiled(e, rows.map(_._1)) == want)
      assert(rows.map(r => interpreted(e, r._1)) == want)
    }
  }

  test("an invalid constant config fails analysis with the library's reason; from a column, the row fails") {
    val bad = str("""{"max_members": 2, "partitioning_filters": [{"filter": "foo.*", "partitioning_wildcards": [2]}]}""")
    val e = intercept[AnalysisException](registered("consumer_group_member", column(0), bad).checkInputDataTypes())
    assert(e.getMessage.contains("`consumer_group_member`"))
    assert(e.getMessage.contains(
        "partitioning wildcard indexes must be between 1 and the number of * wildcards in the filter"))
    val fromColumn = registered("consumer_group_partition", column(0), column(1))
    val thrown = intercept[Exception](compiled(fromColumn, row("foo.a", """{"max_members": 0, "filters": []}""")))
    assert(thrown.getMessage.contains("the max number of members must be >= 1"), thrown.getMessage)
  }

  test("server_version compiles the sourcing transform for that line: 2.10 refuses {{Partition(n)}} without *") {
    val whole = str("""{"max_members": 3, "partitioning_filters": [{"filter": "orders.>"}], "members": ["a"]}""")
    assert(evaluate(registered("consumer_group_member", str("orders.x"), whole, str("2.15"))) == "a")
    val e = intercept[AnalysisException](registered("consumer_group_member", str("orders.x"), whole,
        str("2.10")).checkInputDataTypes())
    assert(e.getMessage.contains("nats-server refuses the group's sourcing stream"), e.getMessage)
  }

  test("consumer_group_plan: the members' partitions and consumer filters as the library lists them") {
    val plan = ujson.read(evaluate(registered("consumer_group_plan",
          str("""{"max_members": 7, "partitioning_filters": [{"filter": "foo.*.*.>", "partitioning_wildcards": [1, 2]}], "members": ["m3", "m1", "m2"]}"""))).toString)
    assert(plan("transforms")(0)("dest").str == "{{Partition(7,1,2)}}.foo.{{Wildcard(1)}}.{{Wildcard(2)}}.>")
    assert(plan("members").arr.map(m => m("member").str -> m("filter_subjects").arr.map(_.str).toSeq).toSeq == Seq(
      "m1" -> Seq("0.foo.*.*.>", "1.foo.*.*.>", "6.foo.*.*.>"), "m2" -> Seq("2.foo.*.*.>", "3.foo.*.*.>"),
      "m3" -> Seq("4.foo.*.*.>", "5.foo.*.*.>")))
  }
}
