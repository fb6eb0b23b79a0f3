package subjxform.spark

import org.apache.spark.sql.{AnalysisException, SparkSession}
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

/**
 * The `server_version` argument as a SQL user meets it: named, positional, the session conf's default
 * read at analysis, a constant only, and out of the column's name when it is the default. The expected
 * verdicts are those of the real binaries (tests/golden/servers/<line>/: probe-02 `{{left(…)}}` is an
 * unknown function on 2.14; probe-23 `{{partition(0,…)}}` crashed 2.10 on the message, so nothing is
 * delivered).
 */
class ServerVersionArgumentSuite extends AnyFunSuite with BeforeAndAfterAll {

  lazy val spark: SparkSession = SparkSession.builder()
    .master("local[2]")
    .appName("subjxform-server-version")
    .config("spark.sql.codegen.fallback", "false")
    .getOrCreate()

  override def afterAll(): Unit = spark.stop()

  private val Conf = "spark.subjxform.serverVersion"
  private val left = "subject_transform('a.xyz', 'a.*', 'b.{{left(1,1)}}'"
  private val partitionByZero = "subject_transform('foo.x', 'foo.*', 'bar.{{partition(0,1)}}'"

  private def one(sql: String): Any = spark.sql(sql).collect().head.get(0)

  private def withConf[T](value: String)(body: => T): T = {
    spark.conf.set(Conf, value)
    try body
    finally spark.conf.unset(Conf)
  }

  private def refused(sql: String): AnalysisException = intercept[AnalysisException](spark.sql(sql).collect())

  test("by default the newest line: left() exists and partition(0, …) maps to 0") {
    assert(one(s"SELECT $left)") == "b.x")
    assert(one(s"SELECT $partitionByZero)") == "bar.0")
  }

  test("named: server_version => '2.14' refuses left() with that line's error; '2.10' loses partition(0, …)") {
    val e = refused(s"SELECT $left, server_version => '2.14')")
    assert(SparkCompat.condition(e) == "INVALID_PARAMETER_VALUE.PATTERN")
    assert(e.getMessage.contains("unknown function in {{left(1,1)}}"), e.getMessage)
    assert(one(s"SELECT $partitionByZero, server_version => '2.10')") == null)
    assert(one(s"SELECT $partitionByZero, server_version => '2.12.8')") == "bar.0") // a release names its line
    assert(one(s"SELECT try_subject_transform('a.xyz', 'a.*', 'b.{{left(1,1)}}', server_version => '2.14')") == null)
  }

  test("positional: the last parameter of each function") {
    assert(refused(s"SELECT $left, false, NULL, NULL, '2.14')").getMessage.contains("unknown function"))
    assert(one(s"SELECT $partitionByZero, false, 1, NULL, '2.10')") == null)
    val table = """'{"a.*": "b.{{left(1,1)}}"}'"""
    assert(
      refused(s"SELECT subject_map('a.xyz', $table, NULL, NULL, NULL, '2.14')").getMessage.contains("unknown function"))
    assert(one(s"SELECT subject_map('a.xyz', $table, NULL, NULL, NULL, '2.15')") == "b.x")
    assert(refused(s"SELECT mappings_plan($table, '2.14')").getMessage.contains("unknown function"))
    assert(refused(s"SELECT subject_map_explain('a.xyz', $table, server_version => '2.11')").getMessage.contains(
        "unknown function"))
    val list = "array(named_struct('src', 'a.*', 'dest', 'b.{{left(1,1)}}'))"
    assert(one(s"SELECT subject_filter_transform('a.xyz', $list)") == "b.x")
    assert(refused(s"SELECT subject_filter_transform('a.xyz', $list, NULL, NULL, '2.14')").getMessage.contains("left"))
    assert(one(s"SELECT try_subject_filter_transform('a.xyz', $list, server_version => '2.14')") == null)
    val stream =
      """'{"name": "S", "subjects": ["a.*"], "subject_transform": {"src": "a.*", "dest": "b.{{left(1,1)}}"}}'"""
    assert(one(s"SELECT stream_config_plan($stream) IS NOT NULL") == true)
    assert(refused(s"SELECT stream_config_plan($stream, '2.14')").getMessage.contains("left"))
    val accounts = "'accounts { A: { mappings: { \"a.*\": \"b.{{left(1,1)}}\" } } }'"
    assert(one(s"SELECT accounts_plan($accounts) IS NOT NULL") == true)
    assert(refused(s"SELECT accounts_plan($accounts, NULL, '2.14')").getMessage.contains("unknown function"))
  }

  test("the session conf is the default, read when the query is analysed; a named argument beats it") {
    withConf("2.14") {
      assert(refused(s"SELECT $left)").getMessage.contains("unknown function"))
      assert(one(s"SELECT $left, server_version => '2.15')") == "b.x")
    }
    // A DataFrame analysed under 2.10 keeps 2.10 after the conf changes.
    val under210 = withConf("2.10")(spark.range(1).selectExpr(s"$partitionByZero) AS out"))
    assert(spark.conf.getOption(Conf).isEmpty)
    assert(under210.collect().head.get(0) == null)
    assert(one(s"SELECT $partitionByZero)") == "bar.0")
  }

  test("an unsupported version is an analysis error on server_version naming the supported lines") {
    for (written <- Seq("'2.9'", "'3.0'", "'latest'")) {
      val e = refused(s"SELECT $left, server_version => $written)")
      assert(SparkCompat.condition(e) == "INVALID_PARAMETER_VALUE.PATTERN", e.getMessage)
      assert(e.getMessage.contains("`server_version`") && e.getMessage.contains("2.10, 2.11, 2.12, 2.14, 2.15"),
        e.getMessage)
    }
    val fromConf = withConf("1.0")(refused("SELECT mappings_plan('a b')"))
    assert(fromConf.getMessage.contains("`server_version`") && fromConf.getMessage.contains("2.10, 2.11"),
      fromConf.getMessage)
  }

  test("server_version must be a constant: Spark's NON_FOLDABLE_INPUT, as for seed") {
    val df = spark.range(1).selectExpr("'2.10' AS v")
    for (call <- Seq(s"$left, server_version => v)", "mappings_plan('a b', v)", "accounts_plan('a: 1', NULL, v)")) {
      val e = intercept[AnalysisException](df.selectExpr(call))
      assert(SparkCompat.condition(e) == "DATATYPE_MISMATCH.NON_FOLDABLE_INPUT", e.getMessage)
      assert(e.getMessage.contains("`server_version`"), e.getMessage)
    }
  }

  test("the column's name shows the version only when the call writes it") {
    def name(expr: String) = spark.range(1).selectExpr(expr).columns.head
    assert(name(s"$partitionByZero)") == "subject_transform(foo.x, foo.*, bar.{{partition(0,1)}})")
    assert(withConf("2.10")(name(s"$partitionByZero)")) == "subject_transform(foo.x, foo.*, bar.{{partition(0,1)}})")
    assert(name(s"$partitionByZero, server_version => '2.10')") ==
      "subject_transform(foo.x, foo.*, bar.{{partition(0,1)}}, false, NULL, NULL, 2.10)")
    assert(name("mappings_plan('a b')") == "mappings_plan(a b)")
    assert(name("mappings_plan('a b', '2.10')") == "mappings_plan(a b, 2.10)")
  }

  test("the Scala API's overloads pass the version") {
    import org.apache.spark.sql.functions.{col, lit}
    import subjxform.spark.functions._
    val df = spark.range(1).select(lit("foo.x").as("s"))
    val out = df.select(
      subject_transform(col("s"), "foo.*", "bar.{{partition(0,1)}}", strict = false, "2.10"),
      subject_transform(col("s"), "foo.*", "bar.{{partition(0,1)}}", strict = false, "2.12"),
      subject_map(col("s"), lit("foo.* \"bar.{{partition(0,1)}}\""), lit(null).cast("string"), "2.11")).collect().head
    assert(out.get(0) == null && out.get(1) == "bar.0" && out.get(2) == null)
  }
}
