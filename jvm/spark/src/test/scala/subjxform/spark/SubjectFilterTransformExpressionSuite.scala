package subjxform.spark

import org.apache.spark.sql.AnalysisException
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{CreateArray, CreateNamedStruct, Expression, Literal, Nondeterministic}
import org.apache.spark.sql.catalyst.util.GenericArrayData
import org.apache.spark.sql.types.{ArrayType, StringType, StructField, StructType}
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

class SubjectFilterTransformExpressionSuite extends AnyFunSuite with ExpressionChecks {

  private val pairType = StructType(Seq(StructField("src", StringType), StructField("dest", StringType)))
  private val listType = ArrayType(pairType)

  /** A constant list, as `array(named_struct('src', .., 'dest', ..), ..)` is after constant folding. */
  private def constantList(pairs: (String, String)*): Literal = Literal.create(listValue(pairs: _*), listType)

  /** The list's value, for a row (a column argument). A null pair is a NULL element. */
  private def listValue(pairs: (String, String)*): GenericArrayData =
    new GenericArrayData(pairs.map { p =>
      if (p == null) null else InternalRow(UTF8String.fromString(p._1), UTF8String.fromString(p._2))
    }.toArray[Any])

  private def filterTransform(subject: Expression, list: Expression) =
    new SubjectFilterTransformExpression(subject, list)

  private val mirrorExample = Seq("foo" -> "foo-transformed", "bar" -> "")

  test("ADR-36's mirror list, constant: renames foo, keeps bar, drops the rest, every evaluation mode") {
    val e = filterTransform(column(0), constantList(mirrorExample: _*))
    assert(evaluate(e, row("foo")) == "foo-transformed")
    assert(evaluate(e, row("bar")) == "bar")
    assert(evaluate(e, row("baz")) == null)
    assert(evaluate(e, row(null)) == null)
    assert(compiled(e, Seq(row("foo"), row("bar"), row("baz"), row("a..b"))) == Seq("foo-transformed", "bar", null, null))
  }

  test("a list built with array(named_struct(...)) works before it is folded too") {
    val built = CreateArray(mirrorExample.map { case (s, d) =>
      CreateNamedStruct(Seq(str("src"), str(s), str("dest"), str(d)))
    })
    assert(evaluate(filterTransform(str("foo"), built)) == "foo-transformed")
  }

  test("a list from a column: the same answers through one generated projection, lists alternating") {
    val e = filterTransform(column(0), column(1, listType))
    val a = listValue(mirrorExample: _*)
    val b = listValue("stream2.foo.>" -> "foo2.>", "stream2.bar.>" -> "bar2.>")
    val inputs =
      Seq(row("foo", a), row("stream2.foo.x", b), row("bar", a), row("stream2.bar.y.z", b), row("x", b), row("foo", null))
    val expected = Seq("foo-transformed", "foo2.x", "bar", "bar2.y.z", null, null)
    assert(compiled(e, inputs) == expected)
    assert(inputs.map(interpreted(e, _)) == expected)
    assert(inputs.map(afterRoundTrip(e, _)) == expected)
  }

  test("NULL src or dest fields are absent ones; a NULL element is an error") {
    val withNullDest =
      Literal.create(new GenericArrayData(Array[Any](InternalRow(UTF8String.fromString("a.*"), null))), listType)
    assert(evaluate(filterTransform(str("a.b"), withNullDest)) == "a.b")
    val e = intercept[AnalysisException](filterTransform(str("a"), constantList("a" -> "", null)).checkInputDataTypes())
    assert(e.getMessage.contains("transforms[1]: is NULL"))
  }

  test("an invalid constant list fails analysis naming the entry and nats-server's reason") {
    val overlap = intercept[AnalysisException] {
      filterTransform(column(0), constantList("foo.>" -> "", "foo.bar" -> "x")).checkInputDataTypes()
    }
    assert(SparkCompat.condition(overlap) == "INVALID_PARAMETER_VALUE.PATTERN")
    assert(overlap.getMessage.contains("`subject_filter_transform`"))
    assert(overlap.getMessage.contains("transforms[0], transforms[1]: source filters can not overlap"))
    val dest = intercept[AnalysisException] {
      filterTransform(column(0), constantList("a.*" -> "b.{{wildcard(2)}}")).checkInputDataTypes()
    }
    assert(dest.getMessage.contains(
        "transforms[0]: source transform: invalid mapping destination: wildcard index out of range"))
  }

  test("an invalid list from a column: a runtime error, or NULL in try_subject_filter_transform") {
    val bad = listValue("a.*" -> "b.{{nope(1)}}")
    val strictE = filterTransform(column(0), column(1, listType))
    val input = row("a.b", bad)
    for (run <- Seq[() => Any](() => interpreted(strictE, input), () => compiled(strictE, input))) {
      val e = intercept[InvalidArgumentValueException](run())
      assert(e.getMessage.contains("unknown function in {{nope(1)}}"))
    }
    val tryE = new TrySubjectFilterTransformExpression(column(0), column(1, listType))
    assert(compiled(tryE, Seq(input, row("a.b", listValue("a.*" -> "x.$1")))) == Seq(null, "x.b"))
    assert(evaluate(new TrySubjectFilterTransformExpression(str("a.b"),
        constantList("a.>" -> "", "a.b" -> "x"))) == null)
  }

  test("the list must be ARRAY<STRUCT<src STRING, dest STRING>>") {
    val wrong = Literal.create(new GenericArrayData(Array[Any](UTF8String.fromString("a"))), ArrayType(StringType))
    assert(filterTransform(str("a"), wrong).checkInputDataTypes().isFailure)
    assert(filterTransform(Literal(1), constantList("a" -> "")).checkInputDataTypes().isFailure)
  }

  test("a random destination or a list from a column makes the registry build the Nondeterministic form") {
    def form(e: Expression) = (e.deterministic, e.isInstanceOf[Nondeterministic])
    for (name <- Seq("subject_filter_transform", "try_subject_filter_transform")) {
      assert(form(registered(name, column(0), constantList("a.*" -> "b.{{random(3)}}"))) == (false, true))
      assert(form(registered(name, column(0), constantList("a.*" -> "b.$1"))) == (true, false))
      assert(form(registered(name, column(0), column(1, listType))) == (false, true))
    }
    // printed (plans, column names) as the function that was written
    val list = constantList("a.*" -> "b.{{random(3)}}")
    for (written <- Seq(new SubjectFilterTransformExpression(column(0), list),
        new TrySubjectFilterTransformExpression(column(0), list))) {
      val random = registered(written.prettyName, column(0), list)
      assert(random.isInstanceOf[RandomSubjectFilterTransformExpression])
      // (a plan shows the seed chosen for the unseeded call, as it shows rand()'s)
      val seed = random.collectFirst { case s: ChosenSeed => s }.get
      assert((random.sql, random.toString) == (written.sql, written.toString.replace(", null, null, ",
        s", $seed, null, ")))
    }
    // a list of the wrong type is left to checkInputDataTypes, whichever form
    assert(registered("subject_filter_transform", column(0), str("a")).checkInputDataTypes().isFailure)
    assert(!filterTransform(column(0), constantList("a.*" -> "b.{{random(3)}}")).deterministic)
  }

  test("the Nondeterministic form: per-partition workspace, same results and errors every way") {
    val once = registered("subject_filter_transform", column(0), constantList("a.*" -> "b.{{random(1)}}.$1"))
    assert(once.isInstanceOf[Nondeterministic] && evaluate(once, row("a.x")) == "b.0.x")
    val draws = compiled(registered("subject_filter_transform", column(0), constantList("a.*" -> "b.{{random(3)}}")),
      Seq.fill(300)(row("a.x")))
    assert(draws.toSet == Set("b.0", "b.1", "b.2"))
    val fromColumn = registered("subject_filter_transform", column(0), column(1, listType))
    assert(evaluate(fromColumn, row("a.x", listValue("a.*" -> "x.$1"))) == "x.x")
    val bad = row("a.b", listValue("a.*" -> "b.{{nope(1)}}"))
    for (run <- Seq[() => Any](() => interpreted(fromColumn, bad), () => compiled(fromColumn, bad))) {
      assert(intercept[InvalidArgumentValueException](run()).getMessage.contains("unknown function in {{nope(1)}}"))
    }
    assert(evaluate(registered("try_subject_filter_transform", column(0), column(1, listType)), bad) == null)
  }

  test("the column cache is bounded") {
    val cache = filterTransform(column(0), column(1, listType)).newCache()
    (0 until PlanCache.DefaultCapacity + 50).foreach(i => cache.get(listValue(s"s$i.>" -> ""), null, failOnError = true))
    assert(cache.size == PlanCache.DefaultCapacity)
  }
}
