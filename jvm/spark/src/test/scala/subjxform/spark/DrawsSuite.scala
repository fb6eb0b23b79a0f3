package subjxform.spark

import org.apache.spark.sql.catalyst.expressions.{Expression, Literal, Nondeterministic}
import org.apache.spark.sql.types.{LongType, StringType}
import org.scalatest.funsuite.AnyFunSuite

import subjxform.config.MappingTable
import subjxform.engine.Workspace

/**
 * What the shell does with a plan's draws (the `seed` and `key` arguments) and with a result longer
 * than a subject may be, the same for every function that draws.
 */
class DrawsSuite extends AnyFunSuite with ExpressionChecks {

  private val fiftyFifty = str("svc: [{destination: svc.v1, weight: 50%}, {destination: svc.v2, weight: 50%}]")
  private def key(ordinal: Int) = column(ordinal, LongType)

  /** The three functions that draw, each with a constant plan that draws, the subject in column 0 and the key in column 1. */
  private def keyedForms(seed: Long): Seq[Expression] = Seq(
    registered("subject_map", column(0), fiftyFifty, Literal.create(null, org.apache.spark.sql.types.StringType),
      Literal(seed), key(1)),
    registered("subject_transform", column(0), str("*"), str("{{random(1000)}}"), Literal.FalseLiteral, Literal(seed),
      key(1)),
    registered("subject_filter_transform", column(0), filterList("*" -> "{{random(1000)}}"), Literal(seed), key(1)))

  private def filterList(pairs: (String, String)*): Expression = {
    import org.apache.spark.sql.catalyst.InternalRow
    import org.apache.spark.sql.catalyst.util.GenericArrayData
    import org.apache.spark.sql.types.{ArrayType, StringType, StructField, StructType}
    import org.apache.spark.unsafe.types.UTF8String
    val pairType = StructType(Seq(StructField("src", StringType), StructField("dest", StringType)))
    Literal.create(
      new GenericArrayData(
        pairs.map(p => InternalRow(UTF8String.fromString(p._1), UTF8String.fromString(p._2))).toArray[Any]),
      ArrayType(pairType))
  }

  test("with a key, a draw is a pure function of (seed, key, rule): any partition, any order, any mode") {
    for (e <- keyedForms(seed = 42)) {
      assert(e.deterministic && !e.isInstanceOf[Nondeterministic], e)
      val rows = (0 until 200).map(i => row(if (e.prettyName == "subject_map") "svc" else s"m$i", i.toLong * 7919))
      val first = compiled(e, rows, partition = 0)
      assert(compiled(e, rows.reverse, partition = 5).reverse == first, e)
      assert(rows.map(interpreted(e, _)) == first, e)
      assert(first.distinct.size > 1, e) // the key does choose
      // another seed, other draws
      val reseeded = keyedForms(seed = 43).find(_.prettyName == e.prettyName).get
      assert(compiled(reseeded, rows) != first, e)
    }
  }

  test("without a key, the draws come from the workspace, seeded per partition as rand(seed)") {
    val unkeyed =
      registered("subject_map", column(0), fiftyFifty, Literal.create(null, org.apache.spark.sql.types.StringType),
        Literal(42L))
    assert(unkeyed.isInstanceOf[Nondeterministic])
    val rows = Seq.fill(64)(row("svc"))
    assert(compiled(unkeyed, rows, partition = 1) == compiled(unkeyed, rows, partition = 1))
    assert(compiled(unkeyed, rows, partition = 1) != compiled(unkeyed, rows, partition = 2))
  }

  test("an explicit seed draws as it always has: partition p's draws come from a workspace seeded with seed + p") {
    val seeded = registered("subject_map", column(0), fiftyFifty, Literal.create(null, StringType), Literal(42L))
    val table = MappingTable.compile(fiftyFifty.value.toString)
    for (partition <- Seq(0, 3)) {
      val ws = new Workspace(42L + partition)
      val expected = Seq.fill(64)(table("svc", null, ws))
      assert(compiled(seeded, Seq.fill(64)(row("svc")), partition) == expected)
    }
  }

  test("without a seed or a key, the registry chooses the seed once, as it builds rand(): hidden from the name") {
    def seedOf(e: Expression): Option[Long] = e.collectFirst { case ChosenSeed(s) => s }
    for (name <- Seq("subject_map", "subject_map_explain")) {
      val unseeded = registered(name, column(0), fiftyFifty)
      val chosen = seedOf(unseeded).get
      // the draws of that seed, in every task that runs this expression
      val seeded = registered(name, column(0), fiftyFifty, Literal.create(null, StringType), Literal(chosen))
      val rows = Seq.fill(64)(row("svc"))
      assert(compiled(unseeded, rows, partition = 2) == compiled(seeded, rows, partition = 2))
      assert(afterRoundTrip(unseeded, row("svc")) == interpreted(unseeded, row("svc")))
      assert(unseeded.sql == s"$name(${column(0).sql}, ${fiftyFifty.sql})", unseeded.sql)
      assert(seeded.sql.endsWith(s", ${chosen}L)"), seeded.sql)
      assert(seedOf(registered(name, column(0), fiftyFifty)) != Some(chosen)) // another call, another seed
    }
    for (e <- Seq(registered("subject_transform", column(0), str("*"), str("{{random(9)}}")),
        registered("subject_filter_transform", column(0), filterList("*" -> "{{random(9)}}")),
        registered("try_subject_transform", column(0), column(1), column(2)))) {
      assert(seedOf(e).isDefined, e)
    }
    // a seed written as an INT (SQL `5`: the builder runs before implicit casts) is the seed given
    assert(seedOf(registered("subject_map", column(0), fiftyFifty, Literal.create(null, StringType),
          Literal(5))).isEmpty)
    // a key decides alone, and a plan that never draws has nothing to seed
    assert(seedOf(registered("subject_map", column(0), fiftyFifty, Literal.create(null, StringType),
          Literal.create(null, LongType), key(1))).isEmpty)
    assert(seedOf(registered("subject_transform", column(0), str("a.*"), str("b.$1"))).isEmpty)
  }

  test("an unseeded call's generated code does not depend on the seed chosen for it: Spark compiles it once for all queries") {
    import org.apache.spark.sql.catalyst.expressions.codegen.CodegenContext
    def seedOf(e: Expression): Option[Long] = e.collectFirst { case ChosenSeed(s) => s }
    def code(e: Expression): String = e.genCode(new CodegenContext).code.toString
    for (build <- Seq[() => Expression](
        () => registered("subject_map", column(0), fiftyFifty),
        () => registered("subject_transform", column(0), column(1), column(2)),
        () => registered("subject_filter_transform", column(0), filterList("*" -> "{{random(9)}}")))) {
      val (a, b) = (build(), build())
      assert(seedOf(a).get != seedOf(b).get)
      assert(code(a) == code(b), code(a))
    }
  }

  test("a plan that never draws leaves its seed out of its name: the Python and Scala APIs always pass one") {
    val e = registered("subject_transform", column(0), str("a.*"), str("b.$1"), Literal.FalseLiteral, Literal(7L))
    assert(e.deterministic && e.sql == s"subject_transform(${column(0).sql}, 'a.*', 'b.$$1')", e.sql)
  }

  test("a NULL key constant is no key; a key column's NULL is a key like any other") {
    val noKey =
      registered("subject_map", column(0), fiftyFifty, Literal.create(null, org.apache.spark.sql.types.StringType),
        Literal(42L), Literal(null))
    assert(noKey.isInstanceOf[Nondeterministic])
    val e = keyedForms(42).head
    val nulls = compiled(e, Seq.fill(20)(row("svc", null)))
    assert(nulls.distinct.size == 1)
  }

  // A 1 MB token sliced 100 times asks for a 200 MB subject: more than the 8 MiB a subject may have.
  private val longToken = "x" * (1 << 20)
  private val slices = Seq.fill(100)("{{slicefromleft(1,1)}}").mkString(".")

  test("a result longer than a subject may be is the row's error naming the function, in every mode") {
    val e = new SubjectTransformExpression(column(0), str("*"), str(slices))
    for (run <- Seq[() => Any](() => interpreted(e, row(longToken)), () => compiled(e, row(longToken)))) {
      val err = intercept[InvalidArgumentValueException](run())
      assert(
        err.getMessage.contains("`subject_transform`") && err.getMessage.contains("more than the limit of 8388608 bytes"))
    }
    val mappings = str(s"""{"*": "$slices"}""")
    for (e <- Seq(new SubjectMapExpression(column(0), mappings), new SubjectMapExplainExpression(column(0), mappings),
        new SubjectFilterTransformExpression(column(0), filterList("*" -> slices)));
      run <- Seq[() => Any](() => interpreted(e, row(longToken)), () => compiled(e, row(longToken)))) {
      assert(intercept[InvalidArgumentValueException](run()).getMessage.contains(s"`${e.prettyName}`"), e)
    }
  }

  test("... with no exception handler in the generated row code: one there cost every row ~30 ns, thrown or not") {
    import org.apache.spark.sql.catalyst.expressions.codegen.CodegenContext
    for (e <- Seq(new SubjectTransformExpression(column(0), str("*"), str(slices)),
        new TrySubjectTransformExpression(column(0), column(1), column(2)),
        new SubjectMapExpression(column(0), str(s"""{"*": "$slices"}""")),
        registered("subject_filter_transform", column(0), filterList("*" -> "x.$1")),
        registered("subject_matches", column(0), str("a.*")))) {
      val code = e.genCode(new CodegenContext).code.toString
      assert(!code.contains("catch") && !code.contains("try {"), code)
    }
  }

  test("... and NULL in the try_ forms, the workspace usable for the next rows") {
    for (e <- Seq(new TrySubjectTransformExpression(column(0), str("*"), str(slices)),
        new TrySubjectFilterTransformExpression(column(0), filterList("*" -> slices)))) {
      assert(compiled(e, Seq(row(longToken), row("abc"))) == Seq(null, Seq.fill(100)("a.b.c").mkString(".")), e)
      assert(interpreted(e, row(longToken)) == null, e)
    }
  }
}
