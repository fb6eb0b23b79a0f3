package subjxform.spark

import org.apache.spark.sql.{AnalysisException, SparkSession}
import org.apache.spark.sql.{functions => F}
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

/**
 * The `account` argument as a SQL user meets it: `{{account-hash()}}` resolved to the hash of the account a transform
 * or table is installed for, as a live nats-server 2.15.3 (built from its Go module) resolved it for accounts A and B
 * (`orders.NUmM6cRx.x` in A, `orders.b2oh2L6w.y` in B: tests/test_account_functions_nats_server.py, AccountFunctionsSuite);
 * refused, saying so, with no account; unknown to 2.15.1 whatever the account.
 */
class AccountArgumentSuite extends AnyFunSuite with BeforeAndAfterAll {

  lazy val spark: SparkSession = SparkSession.builder()
    .master("local[2]")
    .appName("subjxform-account")
    .config("spark.sql.codegen.fallback", "false")
    .getOrCreate()

  override def afterAll(): Unit = spark.stop()

  private def one(sql: String): Any = spark.sql(sql).collect().head.get(0)
  private def refused(sql: String): AnalysisException = intercept[AnalysisException](spark.sql(sql).collect())

  private val hashed = "'orders.x', 'orders.*', 'orders.{{account-hash()}}.$1'"
  private val table = "'orders.* \"orders.{{account-hash()}}.$1\"'"

  test("named: each function that compiles destinations resolves it for the account given") {
    assert(one(s"SELECT subject_transform($hashed, server_version => '2.15.3', account => 'A')") == "orders.NUmM6cRx.x")
    assert(one(s"SELECT try_subject_transform($hashed, server_version => '2.14.10', account => 'B')") ==
      "orders.b2oh2L6w.x")
    assert(one(s"SELECT subject_map('orders.y', $table, server_version => '2.15.3', account => 'B')") ==
      "orders.b2oh2L6w.y")
    assert(one(s"SELECT subject_map_explain('orders.y', $table, server_version => '2.15.3', account => 'A').result") ==
      "orders.NUmM6cRx.y")
    // the source too: a rule that matches only the account's own hash
    val own = "'\"in.{{account-hash()}}.*\": \"got.$1\"'"
    assert(one(s"SELECT subject_map('in.NUmM6cRx.q', $own, server_version => '2.15.3', account => 'A')") == "got.q")
    assert(one(s"SELECT subject_map('in.NUmM6cRx.q', $own, server_version => '2.15.3', account => 'B')") ==
      "in.NUmM6cRx.q")
  }

  test("positional: after server_version, whose NULL is the default") {
    assert(one(s"SELECT subject_transform($hashed, false, NULL, NULL, '2.15.3', 'A')") == "orders.NUmM6cRx.x")
    assert(one(s"SELECT subject_map('orders.y', $table, NULL, NULL, NULL, '2.15.3', 'B')") == "orders.b2oh2L6w.y")
    spark.conf.set(ServerVersionArgument.Conf, "2.15.3")
    try assert(one(s"SELECT subject_transform($hashed, false, NULL, NULL, NULL, 'B')") == "orders.b2oh2L6w.x")
    finally spark.conf.unset(ServerVersionArgument.Conf)
  }

  test("a destination from a column is compiled per row for the account") {
    val df = spark.sql(
      "SELECT * FROM VALUES ('orders.x', 'orders.{{account-hash()}}.$1'), ('orders.y', 'o.$1') AS t(subject, dest)")
    val got = df.selectExpr("subject_transform(subject, 'orders.*', dest, server_version => '2.15.3', account => 'A')")
      .collect().map(_.getString(0)).toSeq
    assert(got == Seq("orders.NUmM6cRx.x", "o.y"))
  }

  test("a destination that draws and uses them is the form that draws, as rand() is") {
    val df = spark.sql("SELECT subject_transform('a.x', 'a.*', 'b.{{random(3)}}.{{account-hash()}}.$1', " +
      "server_version => '2.15.3', account => 'A') AS r")
    assert(df.queryExecution.analyzed.expressions.forall(!_.deterministic))
    assert(df.collect().head.getString(0).matches("b\\.[0-2]\\.NUmM6cRx\\.x"))
  }

  test("without an account it is refused saying one is needed; try_ gives NULL; before 2.15.3 it is unknown") {
    val e = refused(s"SELECT subject_transform($hashed, server_version => '2.15.3')")
    assert(SparkCompat.condition(e) == "INVALID_PARAMETER_VALUE.PATTERN")
    assert(e.getMessage.contains("no account was given") && e.getMessage.contains("account => 'NAME'"), e.getMessage)
    assert(refused(s"SELECT subject_map('orders.y', $table, server_version => '2.15.3')").getMessage.contains(
        "no account was given"))
    assert(one(s"SELECT try_subject_transform($hashed, server_version => '2.15.3')") == null)
    for (v <- Seq("2.15", "2.15.2", "2.14.9"))
      assert(refused(s"SELECT subject_transform($hashed, server_version => '$v', account => 'A')").getMessage.contains(
          "unknown function in {{account-hash()}}"), v)
    // the import's function has no import here, as in an account's mappings
    assert(refused("SELECT subject_transform('o.x', 'o.*', 'o.{{account-hash-import()}}.$1', server_version => " +
        "'2.15.3', account => 'A')").getMessage.contains("function is not available in this context"))
  }

  test("a constant STRING naming an account: a column or '' is an analysis error") {
    val column = intercept[AnalysisException](
      spark.sql("SELECT 'orders.x' AS s").selectExpr(
        "subject_transform(s, 'orders.*', 'o.$1', server_version => '2.15.3', account => s)").collect())
    assert(SparkCompat.condition(column) == "DATATYPE_MISMATCH.NON_FOLDABLE_INPUT", column.getMessage)
    val empty = refused(s"SELECT subject_map('orders.y', $table, server_version => '2.15.3', account => '')")
    assert(SparkCompat.condition(empty) == "INVALID_PARAMETER_VALUE.PATTERN")
    assert(empty.getMessage.contains("`account`") && empty.getMessage.contains("not ''"), empty.getMessage)
  }

  test("the column's name shows the account when one is given, and not otherwise") {
    val named = spark.sql(s"SELECT subject_transform($hashed, server_version => '2.15.3', account => 'A')").columns
    assert(named.head.endsWith("2.15.3, A)"), named.head)
    assert(spark.sql("SELECT subject_transform('a.x', 'a.*', 'b.$1')").columns.head ==
      "subject_transform(a.x, a.*, b.$1)")
  }

  test("the Scala API's overloads take it") {
    import functions._
    val df = spark.sql("SELECT 'orders.x' AS subject")
    val got = df.select(
      subject_transform(F.col("subject"), "orders.*", "orders.{{account-hash()}}.$1", false, "2.15.3", "A"),
      try_subject_transform(F.col("subject"), F.lit("orders.*"), F.lit("o.{{account-hash()}}.$1"), null, "A"),
      subject_map(F.col("subject"), F.lit("orders.* \"orders.{{account-hash()}}.$1\""), F.lit(null), "2.15.3", "B"),
      subject_map(F.col("subject"), "orders.* \"orders.{{account-hash()}}.$1\"", F.lit(null), 7L, F.col("subject"),
        "2.15.3", "B")).head()
    // the default line (2.15: its release 2.15.1) knows no account functions: try_ gives NULL
    assert(got.toSeq == Seq("orders.NUmM6cRx.x", null, "orders.b2oh2L6w.x", "orders.b2oh2L6w.x"))
  }
}
