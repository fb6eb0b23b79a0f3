package subjxform.spark

import org.apache.spark.sql.AnalysisException
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, Hex, Literal, Nondeterministic}
import org.scalatest.funsuite.AnyFunSuite

import subjxform.engine.Golden

class SubjectTransformExpressionSuite extends AnyFunSuite with ExpressionChecks {

  private def transform(subject: String, src: String, dest: String) =
    new SubjectTransformExpression(str(subject), str(src), str(dest), Literal.FalseLiteral)

  test("constant transforms give the same result interpreted, after a round trip and compiled") {
    assert(evaluate(transform("bar.a.b", "bar.*.*", "baz.{{wildcard(2)}}.{{wildcard(1)}}")) == "baz.b.a")
    assert(evaluate(transform("neworders.customerid2", "neworders.*", "neworders.$1.{{partition(3,1)}}")) ==
      "neworders.customerid2.2")
    assert(evaluate(transform("a.b", "a.*", "b.<<wildcard(1)>>")) == "b.b")
    assert(evaluate(transform("x.b", "a.*", "b.$1")) == null)
  }

  test("a NULL argument gives NULL") {
    val nullStr = Literal.create(null, org.apache.spark.sql.types.StringType)
    assert(evaluate(new SubjectTransformExpression(nullStr, str("a.*"), str("b.$1"), Literal.FalseLiteral)) == null)
    assert(evaluate(new SubjectTransformExpression(str("a.b"), nullStr, str("b.$1"), Literal.FalseLiteral)) == null)
    assert(evaluate(new SubjectTransformExpression(str("a.b"), str("a.*"), nullStr, Literal.FalseLiteral)) == null)
    assert(evaluate(new SubjectTransformExpression(str("a.b"), str("a.*"), str("b.$1"), bool(null))) == null)
    val fromColumns = new SubjectTransformExpression(column(0), column(1), column(2), Literal.FalseLiteral)
    assert(evaluate(fromColumns, row(null, "a.*", "b.$1")) == null)
    assert(evaluate(fromColumns, row("a.b", null, "b.$1")) == null)
    assert(evaluate(fromColumns, row("a.b", "a.*", null)) == null)
  }

  test("every golden case, with constant src and dest, in all three evaluation modes") {
    val failures = Golden.transformCases.filter(c =>
      c.accepted && c.subject.isDefined && c.expected.isDefined &&
        c.randomPattern.isEmpty).groupBy(c => (c.src, c.dest)).toSeq.flatMap { case ((src, dest), cases) =>
      // Compared as the hex of the result's bytes: a cut inside a character is no valid UTF-8 (SPEC §4).
      val e = Hex(new SubjectTransformExpression(column(0), str(src), str(dest), Literal.FalseLiteral))
      val inputs = cases.map(c => row(c.subject.get))
      val viaCodegen = compiled(e, inputs)
      cases.zip(inputs).zip(viaCodegen).flatMap { case ((c, in), generated) =>
        val results = Seq(interpreted(e, in), generated)
        if (results.forall(r => c.agreesHex(r.asInstanceOf[String]))) None
        else Some(s"${c.id}: $results, expected ${c.expectedText}")
      }
    }
    assert(failures.isEmpty, failures.take(20).mkString("\n"))
  }

  test("every golden case, with src and dest from columns, through one generated projection") {
    val cases = Golden.transformCases.filter(c => c.subject.isDefined && (c.expected.isDefined || !c.accepted))
    val e = Hex(new TrySubjectTransformExpression(column(0), column(1), column(2), Literal.FalseLiteral))
    val inputs = cases.map(c => row(c.subject.get, c.src, c.dest))
    val results = compiled(e, inputs)
    val failures = cases.zip(inputs).zip(results).flatMap { case ((c, in), generated) =>
      val expected = if (c.accepted) c else c.copy(expected = Some(None), randomPattern = None)
      val both = Seq(generated, interpreted(e, in))
      if (both.forall(r => expected.agreesHex(r.asInstanceOf[String]))) None else Some(s"${c.id}: $both")
    }
    assert(failures.isEmpty, failures.take(20).mkString("\n"))
  }

  test("an invalid constant transform fails analysis with the function, the token and nats-server's reason") {
    val e = intercept[AnalysisException] {
      transform("a.b", "a.*", "b.{{wildcard(2)}}").checkInputDataTypes()
    }
    assert(SparkCompat.condition(e) == "INVALID_PARAMETER_VALUE.PATTERN")
    assert(e.getMessage.contains("`subject_transform`"))
    assert(e.getMessage.contains("`dest`"))
    assert(e.getMessage.contains("invalid mapping destination: wildcard index out of range in {{wildcard(2)}}"))

    val badSource = intercept[AnalysisException](transform("a.b", "a b.*", "b.$1").checkInputDataTypes())
    assert(badSource.getMessage.contains("`src`"))
    assert(badSource.getMessage.contains("Subject \"a b.*\" is not a valid subject"))
  }

  test("an invalid transform from columns is a runtime error naming it, or NULL in try_subject_transform") {
    val strictE = new SubjectTransformExpression(column(0), column(1), column(2), Literal.FalseLiteral)
    val input = row("a.b", "a.*", "b.{{foo(1)}}")
    for (run <- Seq[() => Any](() => interpreted(strictE, input), () => compiled(strictE, input))) {
      val e = intercept[InvalidArgumentValueException](run())
      assert(SparkCompat.condition(e) == "INVALID_PARAMETER_VALUE.PATTERN")
      assert(e.getMessage.contains("unknown function in {{foo(1)}}"))
      assert(e.getMessage.contains("\"a.*\" to \"b.{{foo(1)}}\""))
    }
    val tryE = new TrySubjectTransformExpression(column(0), column(1), column(2), Literal.FalseLiteral)
    assert(evaluate(tryE, input) == null)
    assert(evaluate(new TrySubjectTransformExpression(str("a.b"), str("a.*"), str("b.{{foo(1)}}"),
        Literal.FalseLiteral)) == null)
    assert(new TrySubjectTransformExpression(str("a.b"), str("a.*"), str("b.{{foo(1)}}"), Literal.FalseLiteral)
        .checkInputDataTypes().isSuccess)
  }

  test("strict mode accepts only what an import mapping accepts") {
    val ok = new SubjectTransformExpression(str("a.x.y"), str("a.*.*"), str("b.$2.{{wildcard(1)}}"), bool(true))
    assert(evaluate(ok) == "b.y.x")
    val e = intercept[AnalysisException] {
      new SubjectTransformExpression(str("a.x.y"), str("a.*.*"), str("b.$2"), bool(true)).checkInputDataTypes()
    }
    assert(e.getMessage.contains("not using all of the token wildcard(s) in b.$2"))
    val fn = intercept[AnalysisException] {
      new SubjectTransformExpression(str("a.x"), str("a.*"), str("b.{{partition(3,1)}}"),
        bool(true)).checkInputDataTypes()
    }
    assert(fn.getMessage.contains("the only mapping function allowed for import transforms is {{Wildcard()}}"))
    assert(new SubjectTransformExpression(str("a.x"), str("a.*"), str("b.{{partition(3,1)}}"),
        column(0, org.apache.spark.sql.types.BooleanType))
        .checkInputDataTypes().isFailure)
  }

  /** What Spark's analyzer looks at: whether the expression is deterministic, and whether it is a `Nondeterministic` one. */
  private def form(e: Expression): (Boolean, Boolean) = (e.deterministic, e.isInstanceOf[Nondeterministic])

  test("the registry builds the Nondeterministic form for a random destination or a transform from columns") {
    for (name <- Seq("subject_transform", "try_subject_transform")) {
      assert(form(registered(name, column(0), str("a.*"), str("b.{{random(10)}}"))) == (false, true))
      assert(form(registered(name, column(0), str("a.*"), str("b.{{partition(10,1)}}"))) == (true, false))
      assert(form(registered(name, column(0), str("a.*"), str("b.$1"), bool(true))) == (true, false))
      // a column may hold a random destination in some row
      assert(form(registered(name, column(0), column(1), column(2))) == (false, true))
      assert(form(registered(name, column(0), str("a.*"), column(2))) == (false, true))
    }
    // printed (plans, column names) as the function that was written
    val args = Seq(column(0), str("a.*"), str("b.{{random(10)}}"), Literal.FalseLiteral)
    for (written <- Seq(new SubjectTransformExpression(args(0), args(1), args(2), args(3)),
        new TrySubjectTransformExpression(args(0), args(1), args(2), args(3)))) {
      val random = registered(written.prettyName, args: _*)
      assert(random.isInstanceOf[RandomSubjectTransformExpression])
      // (a plan shows the seed chosen for the unseeded call, as it shows rand()'s)
      val seed = random.collectFirst { case s: ChosenSeed => s }.get
      assert((random.sql, random.toString) == (written.sql, written.toString.replace(", null, null, ",
        s", $seed, null, ")))
    }
    assert(form(registered("try_subject_transform", column(0), str("a.*"), str("b.{{nope(1)}}"))) == (true, false))
    // built directly (not through the registry), the deterministic class still says what it is
    assert(!transform("a.b", "a.*", "b.{{random(10)}}").deterministic)
    assert(!new SubjectTransformExpression(column(0), column(1), column(2), Literal.FalseLiteral).deterministic)
  }

  test("the Nondeterministic form draws from a workspace set up per partition, interpreted and compiled alike") {
    // {{random(1)}} always draws 0: one answer every way, each through the per-partition workspace
    val once = registered("subject_transform", str("a.b"), str("a.*"), str("b.{{random(1)}}.$1"))
    assert(once.isInstanceOf[Nondeterministic] && evaluate(once) == "b.0.b")
    def random10 = registered("subject_transform", str("a.b"), str("a.*"), str("b.{{random(10)}}"))
    val viaCodegen = compiled(random10, Seq.fill(500)(InternalRow.empty))
    val interpretedOnce = initialized(random10)
    val viaInterpreter = Seq.fill(500)(interpretedOnce.eval(InternalRow.empty).toString)
    for (draws <- Seq(viaCodegen, viaInterpreter)) {
      assert(draws.map(_.toString.stripPrefix("b.").toInt).toSet == (0 until 10).toSet)
    }
  }

  test("from columns, the Nondeterministic form gives the same results and errors every way") {
    val fromColumns = registered("subject_transform", column(0), column(1), column(2))
    assert(evaluate(fromColumns, row("orders.eu.42", "orders.*.*", "x.$2.$1")) == "x.42.eu")
    assert(evaluate(fromColumns, row("billing.eu.42", "orders.*.*", "x.$2.$1")) == null)
    val bad = row("a.b", "a.*", "b.{{foo(1)}}")
    for (run <- Seq[() => Any](() => interpreted(fromColumns, bad), () => afterRoundTrip(fromColumns, bad),
        () => compiled(fromColumns, bad))) {
      val e = intercept[InvalidArgumentValueException](run())
      assert(e.getMessage.contains("`subject_transform`") && e.getMessage.contains("\"a.*\" to \"b.{{foo(1)}}\""))
    }
    assert(evaluate(registered("try_subject_transform", column(0), column(1), column(2)), bad) == null)
  }

  test("the column cache stays bounded and correct across many distinct transforms") {
    val e = new SubjectTransformExpression(column(0), column(1), column(2), Literal.FalseLiteral)
    val inputs = (0 until 5000).map(i => row(s"p$i.x", s"p$i.*", s"q.$$1.$i"))
    val results = compiled(e, inputs)
    assert(results == (0 until 5000).map(i => s"q.x.$i"))
    val cache = e.newCache()
    (0 until 5000).foreach(i =>
      cache.get(org.apache.spark.unsafe.types.UTF8String.fromString(s"p$i.*"),
        org.apache.spark.unsafe.types.UTF8String.fromString("q"), failOnError = true))
    assert(cache.size == PlanCache.DefaultCapacity)
  }

  test("the column cache gives each row its own plan when rows cycle through more values than it keeps recent") {
    val e = new SubjectTransformExpression(column(0), column(1), column(2), Literal.FalseLiteral)
    // 11 distinct dests (more than PlanCache.Recent), in a pseudo-random order, some repeated back to back
    val rnd = new scala.util.Random(7)
    val picks = Seq.fill(3000)(rnd.nextInt(11))
    val results = compiled(e, picks.map(k => row("a.b", "a.*", s"x$k.$$1")))
    assert(results == picks.map(k => s"x$k.b"))
    // the strings a hit is compared with are the cache's copies, not the caller's (reused) buffers
    val cache = e.newCache()
    val buffer = "a.*".getBytes("UTF-8")
    val src = org.apache.spark.unsafe.types.UTF8String.fromBytes(buffer)
    val first = cache.get(src, org.apache.spark.unsafe.types.UTF8String.fromString("y.$1"), failOnError = true)
    buffer(0) = 'c'.toByte // the caller's buffer now says "c.*"
    val other = cache.get(src, org.apache.spark.unsafe.types.UTF8String.fromString("y.$1"), failOnError = true)
    assert(first("a.b") == "y.b" && other("c.b") == "y.b" && other("a.b") == null)
  }

  test("subject_matches: interest matching, NULLs, invalid filters") {
    def m(s: String, f: String) = evaluate(SubjectMatchesExpression(str(s), str(f)))
    assert(m("orders.eu.42", "orders.*.>") == true)
    assert(m("orders.eu", "orders.*.>") == false)
    assert(m("orders.eu", ">") == true)
    assert(m("a.*x", "a.*x") == true)
    assert(m("a.b", "a.*x") == false) // `*x` is a literal token for interest matching
    assert(m("a..b", ">") == false)
    assert(evaluate(SubjectMatchesExpression(column(0), column(1)), row(null, "a")) == null)
    val e = intercept[AnalysisException](SubjectMatchesExpression(str("a"), str("a.>.b")).checkInputDataTypes())
    assert(e.getMessage.contains("`filter`"))
    val fromColumn = SubjectMatchesExpression(column(0), column(1))
    intercept[InvalidArgumentValueException](compiled(fromColumn, row("a", "a..b")))
  }
}
