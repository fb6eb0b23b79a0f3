package subjxform.spark

import org.apache.spark.sql.{AnalysisException, Row, SparkSession}
import org.apache.spark.sql.functions.{array, call_function, col, lit, struct}
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import subjxform.spark.functions._

/** The Scala/Java API: the same answers as the SQL functions, on every Spark line. */
class FunctionsApiSuite extends AnyFunSuite with BeforeAndAfterAll {

  lazy val spark: SparkSession = SparkSession.builder()
    .master("local[2]")
    .appName("subjxform-functions-api")
    .config("spark.sql.codegen.fallback", "false")
    .getOrCreate()

  override def afterAll(): Unit = spark.stop()

  private def messages = spark.createDataFrame(Seq(
      ("orders.eu.42", "orders.*.*", "x.$2"), ("billing.eu.7", "billing.>", "y.>"))).toDF("subject", "src", "dest")

  test("each function answers as its SQL function does") {
    val api = messages.select(
      subject_transform(col("subject"), "orders.*.*", "shipments.$2.$1"),
      subject_transform(col("subject"), col("src"), col("dest")),
      subject_transform(col("subject"), "orders.*.*", "$2.$1", strict = true),
      try_subject_transform(col("subject"), "orders.*", "{{nope(1)}}"),
      subject_matches(col("subject"), "orders.>"),
      subject_map(col("subject"), """{"orders.*.*": "o.$2", "billing.>": "b.>"}"""),
      subject_map(col("subject"), "orders.*.* o.$1", lit("west"), 7L),
      subject_map(col("subject"), "orders.*.*: [{destination: a.$1, weight: 50%}, {destination: b.$1, weight: 50%}]",
        lit(null).cast("string"), 7L, col("src")),
      subject_transform(col("subject"), "*.*.*", "{{random(100)}}", 7L, col("dest")),
      subject_filter_transform(col("subject"), Seq("orders.>" -> "", "billing.*.*" -> "b.$2")),
      try_subject_filter_transform(col("subject"), Seq("a.>" -> "", "a.b" -> "x")))
    val sql = messages.selectExpr(
      "subject_transform(subject, 'orders.*.*', 'shipments.$2.$1')",
      "subject_transform(subject, src, dest)",
      "subject_transform(subject, 'orders.*.*', '$2.$1', true)",
      "try_subject_transform(subject, 'orders.*', '{{nope(1)}}')",
      "subject_matches(subject, 'orders.>')",
      """subject_map(subject, '{"orders.*.*": "o.$2", "billing.>": "b.>"}')""",
      "subject_map(subject, 'orders.*.* o.$1', 'west', 7)",
      "subject_map(subject, 'orders.*.*: [{destination: a.$1, weight: 50%}, {destination: b.$1, weight: 50%}]', seed => 7, key => src)",
      "subject_transform(subject, '*.*.*', '{{random(100)}}', seed => 7, key => dest)",
      "subject_filter_transform(subject, array(named_struct('src', 'orders.>', 'dest', ''), named_struct('src', 'billing.*.*', 'dest', 'b.$2')))",
      "try_subject_filter_transform(subject, array(named_struct('src', 'a.>', 'dest', ''), named_struct('src', 'a.b', 'dest', 'x')))")
    val rows = api.collect().toSeq
    assert(rows == sql.collect().toSeq)
    val first = rows.head.toSeq
    assert(first.take(7) == Seq("shipments.42.eu", "x.42", "42.eu", null, true, "o.42", "o.eu"))
    assert(first.drop(9) == Seq("orders.eu.42", null))
  }

  test("subject_map with a key and a server version: an account JWT's table as that release loads it") {
    // 2.11 does not know left(): it loads the account without that rule, and applies the other.
    val jwt = """{"orders.*.*": [{"subject": "a.$1", "weight": 50}, {"subject": "b.$1", "weight": 50}],""" +
      """ "billing.*.*": [{"subject": "bl.{{left(1,1)}}.$2"}]}"""
    def mapped(version: String) = messages.select(
      subject_map(col("subject"), jwt, lit(null).cast("string"), 7L, col("src"), version)).collect().map(_.getString(0))
    val sql = messages.selectExpr(s"subject_map(subject, '$jwt', seed => 7, key => src, server_version => '2.11')")
    assert(mapped("2.11").toSeq == sql.collect().map(_.getString(0)).toSeq)
    assert(mapped("2.11")(1) == "billing.eu.7")
    assert(mapped("2.15")(1) == "bl.e.7")
    assert(Set("a.eu", "b.eu")(mapped("2.11")(0)))
    assert(mapped("2.11")(0) == mapped("2.15")(0)) // the same keyed draw on both releases
  }

  test("an invalid constant fails analysis naming the function and nats-server's reason") {
    val err =
      intercept[AnalysisException](messages.select(subject_transform(col("subject"), "a.*", "b.{{wildcard(2)}}")).schema)
    assert(SparkCompat.condition(err) == "INVALID_PARAMETER_VALUE.PATTERN")
    assert(err.getMessage.contains("wildcard index out of range in {{wildcard(2)}}"))
  }

  test("the error of a constant written with aliases (as PySpark builds them) can be printed with its plan") {
    // Spark 3.5 prints the failed plan in the exception's message, asking each expression whether it is
    // resolved: that question must not throw the analysis error a second time, from inside getMessage.
    val list = array(struct(lit("a.>").as("src"), lit("").as("dest")), struct(lit("a.b").as("src"), lit("x").as("dest")))
    val invalid = Seq(
      subject_filter_transform(col("subject"), list) -> "source filters can not overlap",
      call_function("subject_transform", col("subject"), lit("a.*").as("s"), lit("b.{{wildcard(2)}}").as("d")) ->
        "wildcard index out of range",
      call_function("stream_config_plan",
        lit("""{"name": "S", "subjects": ["x"], "mirror": {"name": "O"}}""").as("c")) ->
        "stream mirrors can not contain subjects",
      call_function("accounts_plan", lit("accounts { A: { mappings: { \"a.*\": \"b.$2\" } } }").as("c")) ->
        "wildcard index out of range")
    for ((column, reason) <- invalid) {
      val err = intercept[AnalysisException](messages.select(column).collect())
      assert(SparkCompat.condition(err) == "INVALID_PARAMETER_VALUE.PATTERN")
      assert(err.getMessage.contains(reason), err.getMessage)
      assert(err.toString.contains(reason))
    }
  }
}
