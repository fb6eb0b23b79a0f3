package subjxform.spark

import org.apache.spark.sql.{AnalysisException, Row, SparkSession}
import org.apache.spark.sql.execution.WholeStageCodegenExec
import org.apache.spark.sql.execution.debug._
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

/** The functions as a Spark SQL user meets them, in a local session with codegen fallback off. */
class SqlFunctionsSuite extends AnyFunSuite with BeforeAndAfterAll {

  // Nothing registers the functions here: the jar's service entry must make Spark find them.
  lazy val spark: SparkSession = SparkSession.builder()
    .master("local[2]")
    .appName("subjxform-tests")
    .config("spark.sql.codegen.fallback", "false")
    .config("spark.sql.shuffle.partitions", "2")
    .getOrCreate()

  override def afterAll(): Unit = spark.stop()

  private def one(sql: String): Any = spark.sql(sql).collect().head.get(0)

  test("the functions are there with no configuration: found through the service entry") {
    assert(one("SELECT subject_transform('a.b', 'a.*', 'b.<<wildcard(1)>>')") == "b.b")
    assert(one("SELECT subject_matches('a.b', 'a.*')") == true)
    assert(one("SELECT try_subject_transform('a.b', 'a.*', 'b.{{nope(1)}}')") == null)
  }

  test("inside whole-stage codegen, no fallback to interpretation, with constant and column transforms") {
    // From a range, not a local Seq: Spark would evaluate a projection of local rows while optimizing.
    val df = spark.range(0, 1000).selectExpr(
      "concat('orders.', if(id % 2 = 0, 'eu', 'us'), '.', id) AS subject",
      "if(id % 3 = 0, 'orders.*.*', 'orders.>') AS src",
      "if(id % 3 = 0, 'o.$2.$1', 'p.>') AS dest")
    for (expr <- Seq("subject_transform(subject, 'orders.*.*', 'o.$2.$1')", "subject_transform(subject, src, dest)")) {
      val q = df.selectExpr(s"$expr AS out")
      val plan = q.queryExecution.executedPlan
      val stages = plan.collect { case w: WholeStageCodegenExec => w }
      assert(stages.nonEmpty, plan.treeString)
      val generated = stages.map(_.doCodeGen()._2.body).mkString
      assert(generated.contains("subjxform.spark.PerRow.transform"), s"not compiled into the stage: $expr")
    }
    val outs = df.selectExpr("subject", "subject_transform(subject, src, dest)").collect()
    val engine = Map(true -> subjxform.engine.SubjectTransform.compile("orders.*.*", "o.$2.$1"),
      false -> subjxform.engine.SubjectTransform.compile("orders.>", "p.>"))
    outs.zipWithIndex.foreach { case (r, id) => assert(r.getString(1) == engine(id % 3 == 0)(r.getString(0))) }
    assert(outs(0).getString(1) == "o.0.eu" && outs(1).getString(1) == "p.us.1")
  }

  test("an invalid constant transform fails when the query is analysed, before any data is read") {
    val neverRead = spark.range(10).selectExpr("raise_error('the data was read') AS subject")
    val e = intercept[AnalysisException] {
      neverRead.selectExpr("subject_transform(subject, 'a.*', 'b.{{wildcard(2)}}')")
    }
    assert(SparkCompat.condition(e) == "INVALID_PARAMETER_VALUE.PATTERN")
    assert(e.getMessage.contains("wildcard index out of range in {{wildcard(2)}}"))
    val sqlError = intercept[AnalysisException](spark.sql("SELECT subject_transform('a', 'a.>', 'b')"))
    assert(sqlError.getMessage.contains("invalid subject"))
  }

  test("an invalid transform in a column fails the job with the row's transform named") {
    import spark.implicits._
    val df = Seq(("a.b", "a.*", "b.$1"), ("a.c", "a.*", "b.{{split(1,-,x)}}")).toDF("subject", "src", "dest")
    // Spark hands the task's error to the caller as it is: a SparkThrowable, not "Job aborted ..."
    val e = intercept[InvalidArgumentValueException](df.selectExpr("subject_transform(subject, src, dest)").collect())
    assert(SparkCompat.condition(e) == "INVALID_PARAMETER_VALUE.PATTERN" && e.getSqlState == "22023")
    assert(e.getMessageParameters.get("parameter") == "`dest`")
    assert(e.getMessage.contains("too many arguments passed to the function in {{split(1,-,x)}}"))
    assert(e.getMessage.contains("\"b.{{split(1,-,x)}}\""))
    val tried = df.selectExpr("try_subject_transform(subject, src, dest)").collect().map(_.getString(0)).toSeq
    assert(tried == Seq("b.b", null))
  }

  test("random destinations are nondeterministic to the optimizer") {
    val q = spark.range(200).selectExpr("subject_transform('a.b', 'a.*', 'b.{{random(5)}}') AS r")
    assert(!q.queryExecution.analyzed.expressions.forall(_.deterministic))
    val values = q.collect().map(_.getString(0)).distinct.sorted.toSeq
    assert(values == Seq("b.0", "b.1", "b.2", "b.3", "b.4"))
  }

  test("a random or column transform can be grouped by, as rand() can: Spark pulls it out of the aggregate") {
    spark.range(300).selectExpr("concat('a.', id % 7) AS s", "'a.*' AS src",
      "if(id % 2 = 0, 'b.{{random(3)}}', 'c.$1') AS dest").createOrReplaceTempView("grouping_input")
    def counts(sql: String): Map[String, Long] = spark.sql(sql).collect().map(r => r.getString(0) -> r.getLong(1)).toMap
    val draws = Set("b.0", "b.1", "b.2")
    for (fn <- Seq("subject_transform", "try_subject_transform")) {
      val random = counts(s"SELECT $fn(s, 'a.*', 'b.{{random(3)}}') AS k, count(*) FROM grouping_input GROUP BY k")
      assert(random.keySet == draws && random.values.sum == 300)
      // from columns: half the rows draw, the other half are renamed as the deterministic rule says
      val fromColumns = counts(s"SELECT $fn(s, src, dest), count(*) FROM grouping_input GROUP BY 1")
      val renamed = (0 until 300).filter(_ % 2 == 1).groupBy(id => s"c.${id % 7}").map { case (k, ids) =>
        k -> ids.size.toLong
      }
      assert(fromColumns -- draws == renamed && fromColumns.values.sum == 300)
    }
    for (fn <- Seq("subject_filter_transform", "try_subject_filter_transform")) {
      val random = counts(s"SELECT $fn(s, array(named_struct('src', 'a.*', 'dest', 'b.{{random(3)}}'))) AS k, count(*) " +
        "FROM grouping_input GROUP BY k")
      assert(random.keySet == draws && random.values.sum == 300)
    }
    val viaDataFrame = spark.table("grouping_input").groupBy(org.apache.spark.sql.functions.expr(
        "subject_transform(s, 'a.*', 'b.{{random(3)}}')").as("k")).count().collect()
    assert(viaDataFrame.map(_.getString(0)).toSet == draws && viaDataFrame.map(_.getLong(1)).sum == 300)
  }

  test("constants built with aliases (DataFrame struct(lit(..).as(..))) stay deterministic: usable in an aggregate") {
    import org.apache.spark.sql.functions.{array, call_function, col, length, lit, struct, sum}
    val df = spark.range(10).selectExpr("concat('foo.', id) AS s")
    val list = array(struct(lit("foo.*").as("src"), lit("x.$1").as("dest")))
    val aliased = Seq(
      call_function("subject_filter_transform", col("s"), list),
      call_function("subject_transform", col("s"), lit("foo.*").as("src"), lit("x.$1").as("dest")),
      call_function("subject_map", col("s"), lit("foo.* x.$1").as("mappings")))
    for (e <- aliased) {
      val q = df.select(e.as("v"))
      assert(q.queryExecution.analyzed.expressions.forall(_.deterministic), q.queryExecution.analyzed)
      assert(df.agg(sum(length(e))).head().getLong(0) == 10 * "x.0".length, e)
    }
  }

  test("the Nondeterministic form works inside a lambda and a WHERE (Spark initializes it there too)") {
    val df = spark.range(4).selectExpr("array(concat('a.', id), 'a.x') AS arr", "'a.*' AS src",
      "if(id = 0, 'b.{{random(1)}}', 'c.$1') AS dest")
    val mapped = df.selectExpr("transform(arr, x -> subject_transform(x, src, dest))").collect().map(_.getSeq[String](0))
    assert(mapped.toSeq == Seq(Seq("b.0", "b.0"), Seq("c.1", "c.x"), Seq("c.2", "c.x"), Seq("c.3", "c.x")))
    val drawn = df.selectExpr("transform(arr, x -> subject_transform(x, 'a.*', 'r.{{random(2)}}'))").collect()
      .flatMap(_.getSeq[String](0))
    assert(drawn.toSet.subsetOf(Set("r.0", "r.1")) && drawn.length == 8)
    val kept =
      df.where("subject_transform(arr[0], src, dest) <> 'c.2'").selectExpr("subject_transform(arr[0], src, dest)")
    assert(kept.collect().map(_.getString(0)).toSet == Set("b.0", "c.1", "c.3"))
  }

  test("DESCRIBE FUNCTION EXTENDED documents each function, and every documented example holds") {
    for ((id, info, _) <- SubjxformFunctions.all) {
      val text = spark.sql(s"DESCRIBE FUNCTION EXTENDED ${id.funcName}").collect().map(_.getString(0)).mkString("\n")
      assert(text.contains("Usage:") && text.contains("Examples:") && text.contains("Since: 0.1.0"), text)
      assert(info.getGroup == "string_funcs")
      val examples = info.getExamples.split("\n").map(_.trim).filter(_.nonEmpty).dropWhile(_ != "Examples:").drop(1)
      assert(examples.nonEmpty)
      examples.grouped(2).foreach { case Array(query, expected) =>
        val actual = Option(spark.sql(query.stripPrefix("> ")).collect().head.get(0)).fold("NULL")(_.toString)
        assert(actual == expected, s"$query gave $actual, documented $expected")
      }
    }
  }

  test("register() adds the functions to a running session; the extension class loads as spark.sql.extensions loads it") {
    val session = spark.newSession()
    // The extension gave the new session the functions: take them away, whatever names the line keeps them under.
    val registry = SparkCompat.functionRegistry(session)
    val ours = SubjxformFunctions.all.map(_._1.funcName).toSet
    registry.listFunction().filter(id => ours(id.funcName)).foreach(registry.dropFunction)
    intercept[AnalysisException](session.sql("SELECT subject_transform('x.y', 'x.*', 'z.$1')").collect())
    SubjxformFunctions.register(session)
    assert(session.sql("SELECT subject_transform('x.y', 'x.*', 'z.$1')").collect().head == Row("z.y"))
    // What Spark does with each class named in spark.sql.extensions:
    val ext = new org.apache.spark.sql.SparkSessionExtensions
    Class.forName(classOf[SubjxformExtensions].getName).getConstructor().newInstance()
      .asInstanceOf[org.apache.spark.sql.SparkSessionExtensions => Unit](ext)
    assert(SubjxformFunctions.all.map(_._1.funcName).toSet == Set("subject_transform", "try_subject_transform",
      "subject_matches",
      "subject_map", "subject_map_explain", "mappings_plan", "subject_filter_transform", "try_subject_filter_transform",
      "stream_config_plan",
      "accounts_plan", "consumer_group_partition", "consumer_group_member", "consumer_group_plan"))
  }

  test("named arguments: any order, defaults for the rest; an unknown name is Spark's analysis error") {
    val table = "svc: [{destination: svc.v1, weight: 50%}, {destination: svc.v2, weight: 50%}]"
    val named = one(s"SELECT subject_map(key => 'order-1', mappings => '$table', subject => 'svc', seed => 7)")
    assert(named == one(s"SELECT subject_map('svc', '$table', NULL, 7, 'order-1')"))
    assert(one("SELECT subject_transform('a.b', 'a.*', 'x.$1', strict => true)") == "x.b")
    assert(one("SELECT subject_transform(subject => 'a.b', src => 'a.*', dest => 'x.$1')") == "x.b")
    assert(one("SELECT subject_matches(filter => 'a.*', subject => 'a.b')") == true)
    val unknown = intercept[AnalysisException](spark.sql("SELECT subject_map('svc', 'a b', kee => 1)").collect())
    assert(!SparkCompat.condition(unknown).startsWith("INTERNAL_ERROR"), unknown.getMessage)
    assert(unknown.getMessage.contains("kee"), unknown.getMessage)
  }

  test("an unaliased column is named by its arguments, a long one (a mapping table) shortened") {
    val table = (1 to 2000).map(i => s""""r$i.*": "d$i.$$1"""").mkString("{", ", ", "}")
    val name = spark.range(1).selectExpr(s"subject_map('r7.x', '$table')").columns.head
    assert(name.startsWith("subject_map(r7.x, {\"r1.*\"") && name.length < 200, name)
    assert(name.contains(s"(${table.length} characters)"), name)
    assert(spark.range(1).selectExpr(
      "subject_transform('a.b', 'a.*', 'x.$1')").columns.head == "subject_transform(a.b, a.*, x.$1)")
  }

  test("an unseeded draw takes one seed per query, as rand() does: a DataFrame collected twice draws alike") {
    val fifty = "svc: [{destination: svc.v1, weight: 50%}, {destination: svc.v2, weight: 50%}]"
    def routed() = spark.range(0, 4000, 1, 4).selectExpr(s"subject_map('svc', '$fifty') AS r")
    val df = routed()
    val first = df.collect().map(_.getString(0)).toSeq
    assert(first.distinct.size == 2)
    assert(df.collect().map(_.getString(0)).toSeq == first)
    // a recomputation from the same plan (what a rerun task or a lost shuffle output is) draws alike too
    assert(df.rdd.map(_.getString(0)).collect().toSeq == first)
    assert(routed().collect().map(_.getString(0)).toSeq != first) // another query, another seed
    // the chosen seed is not part of the column's name (as rand()'s is not)
    assert(spark.range(1).selectExpr(s"subject_map('svc', '$fifty')").columns.head == s"subject_map(svc, $fifty)")
    val seedInPlan = df.queryExecution.analyzed.expressions.flatMap(_.collect { case s: ChosenSeed => s })
    assert(seedInPlan.size == 1, df.queryExecution.analyzed)
  }
  test("a STRING argument of another type is an analysis error naming the function and the parameter") {
    // Cast to its text, a BIGINT or BINARY subject (a `content` column by mistake) would map "unchanged".
    def typeError(sql: String): AnalysisException = {
      val e = intercept[AnalysisException](spark.range(1).selectExpr(sql).collect())
      assert(SparkCompat.condition(e) == "UNEXPECTED_INPUT_TYPE", e.getMessage)
      e
    }
    val bigint = typeError("subject_map(id, 'a.*: b.$1')").getMessage
    assert(bigint.contains("`subject`") && bigint.contains("`subject_map`") && bigint.contains("\"BIGINT\""), bigint)
    val binary = typeError("subject_transform(CAST('a.b' AS BINARY), 'a.*', 'x.$1')").getMessage
    assert(binary.contains("`subject_transform`") && binary.contains("\"BINARY\""), binary)
    assert(typeError("subject_map('a.b', 'a.*: b.$1', id)").getMessage.contains("`cluster`"))
    assert(typeError("subject_matches('a.b', 7)").getMessage.contains("`filter`"))
    assert(typeError("consumer_group_partition(id, '{}')").getMessage.contains("`consumer_group_partition`"))
    // NULL has no type of its own: it is still the NULL subject
    assert(one("SELECT subject_transform(NULL, 'a.*', 'x.$1')") == null)
  }

  test("a MAP draw key is hashed by its entries in key order; a map inside another type says what to pass") {
    val fifty = "svc: [{destination: svc.v1, weight: 50%}, {destination: svc.v2, weight: 50%}]"
    val both = spark.range(0, 400).selectExpr(
      s"subject_map('svc', '$fifty', NULL, 7, map(concat('k', id), '1', 'x', '2')) AS a",
      s"subject_map('svc', '$fifty', NULL, 7, map('x', '2', concat('k', id), '1')) AS b").collect()
    assert(both.forall(r => r.getString(0) == r.getString(1)))
    assert(both.map(_.getString(0)).distinct.length == 2) // keys of their own: both destinations drawn
    val nested = intercept[AnalysisException](
      spark.range(1).selectExpr(s"subject_map('svc', '$fifty', key => array(map('a', '1')))").collect())
    assert(nested.getMessage.contains("`key`") && nested.getMessage.contains("holds a map"), nested.getMessage)
  }

  test("a bad server version from the session conf is named as that conf") {
    spark.conf.set(ServerVersionArgument.Conf, "2.12.x")
    try {
      val e = intercept[AnalysisException](spark.sql("SELECT subject_transform('a.b', 'a.*', 'x.$1')").collect())
      assert(e.getMessage.contains("\"2.12.x\"") && e.getMessage.contains(ServerVersionArgument.Conf), e.getMessage)
      val given = intercept[AnalysisException](
        spark.sql("SELECT subject_transform('a.b', 'a.*', 'x.$1', server_version => '2.9')").collect())
      assert(!given.getMessage.contains(ServerVersionArgument.Conf), given.getMessage) // the argument, not the conf
    } finally spark.conf.unset(ServerVersionArgument.Conf)
  }

  test("the plan an analysis error prints names a long table shortened, not whole") {
    val table = (1 to 400).map(i => s""""r$i.*": "d$i.$$1"""").mkString("{", ", ", ", \"bad.*\": \"x.$2\"}")
    val e = intercept[AnalysisException](spark.range(1).selectExpr(s"subject_map('r7.x', '$table') AS m").collect())
    val shown = e.getMessage + e.toString
    assert(shown.contains("wildcard index out of range") && !shown.contains("r399.*"), shown.take(3000))
  }
}
