package subjxform.config

import org.scalatest.funsuite.AnyFunSuite

import subjxform.engine.ServerVersion

class StreamConfigSuite extends AnyFunSuite {

  private def tr(s: String, d: String) = TransformConfig(s, d)

  test("a stream with no subjects, sources or mirror listens on its name") {
    assert(StreamConfig.plan(StreamConfig("ORDERS")).subjects == Seq("ORDERS"))
    assert(StreamConfig.plan(StreamConfig("B", sources = Seq(SourceConfig("A")))).subjects.isEmpty)
  }

  test("a mirror's or a source's single filter is a filter list of one entry that keeps the subject") {
    val p = StreamConfig.plan(StreamConfig("B", mirror = Some(SourceConfig("A", filterSubject = "a.>"))))
    assert(p.origins == Seq(OriginPlan("A", "mirror", Seq(tr("a.>", "")))))
  }

  test("nats-server's checks, each naming the field") {
    def err(cfg: StreamConfig) = intercept[InvalidStreamConfigException](StreamConfig.plan(cfg))
    val mirror = Some(SourceConfig("A"))
    assert(err(StreamConfig("B", subjects = Seq("b"), mirror = mirror)).getMessage ==
      "subjects: stream mirrors can not contain subjects (nats-server error 10034)")
    assert(err(StreamConfig("B", sources = Seq(SourceConfig("C")), mirror = mirror)).errCode == 10031)
    val both = err(StreamConfig("B", sources = Seq(SourceConfig("A", "a.>", Seq(tr("a.b", "x"))))))
    assert(both.field == "sources[0].filter_subject, sources[0].subject_transforms" && both.errCode == 10144)
    val twice = err(StreamConfig("B", sources = Seq(SourceConfig("A", "a.>"), SourceConfig("A", "a.>"))))
    assert(twice.field == "sources[0], sources[1]" && twice.description == "duplicate source configuration detected")
    val overlap =
      err(StreamConfig("B", sources = Seq(SourceConfig("A", subjectTransforms = Seq(tr("a.>", ""), tr("a.b", "x"))))))
    assert(overlap.field.startsWith("sources[0].subject_transforms[0]") && overlap.errCode == 10147)
    val ingress = err(StreamConfig("B", subjectTransform = Some(tr("a.*", "b.$2"))))
    assert(ingress.field == "subject_transform" && ingress.errCode == 10156)
    assert(err(StreamConfig("a.b")).field == "name")
    assert(err(StreamConfig("B", sources = Seq(SourceConfig("a.b")))).errCode == 10141)
    val cycle = err(StreamConfig("B", subjects = Seq("b.>"), republish = Some(tr("b.>", "b.x.>"))))
    assert(cycle.description == "stream configuration for republish destination forms a cycle")
    assert(err(StreamConfig("B", subjects = Seq("a.*", "a.b"))).description == "subject \"a.*\" overlaps with \"a.b\"")
    val badFilter = err(StreamConfig("B", sources = Seq(SourceConfig("A", filterSubject = "a..b"))))
    assert(badFilter.description == "subject filter 'a..b' for the source: invalid subject")
  }

  test("republish defaults: empty src is '>', empty dest republishes nothing, '>' -> '>' is implicit") {
    val all = StreamConfig.plan(StreamConfig("S", subjects = Seq("s.>"), republish = Some(tr("", "r.>"))))
    assert(all.republish.contains(tr(">", "r.>")))
    val none = StreamConfig.plan(StreamConfig("S", subjects = Seq("s.>"), republish = Some(tr("s.>", ""))))
    assert(none.republish.isEmpty)
    // Implicitly "t.$1" -> "t.$1", which nats-server cannot build ("$1" with no wildcard in the source).
    val implicitly = intercept[InvalidStreamConfigException](StreamConfig.plan(StreamConfig("S", subjects = Seq("s.*"),
          subjectTransform = Some(tr("s.*", "t.$1")), republish = Some(tr(">", ">")))))
    assert(implicitly.description == "stream configuration for republish with transform from 't.$1' to 't.$1' not valid")
    val implicitFwc =
      StreamConfig.plan(StreamConfig("S", subjects = Seq("s.>"), subjectTransform = Some(tr("s.>", "t.>")),
          republish = Some(tr(">", ">"))))
    assert(implicitFwc.republish.contains(tr("t.>", "t.>")))
  }

  test(
    "an empty src in a source's transforms, or in one of a mirror's several, takes nothing (as nats-server 2.15.1 did)") {
    def origin(cfg: StreamConfig) = StreamConfig.plan(cfg).origins.head
    val source = origin(StreamConfig("S", sources = Seq(SourceConfig("A", subjectTransforms = Seq(tr("", "x.>"))))))
    assert(source.inactive.exists(_.contains("consumer filter in FilterSubjects cannot be empty")))
    val mirrorOne = origin(StreamConfig("M", mirror = Some(SourceConfig("A", subjectTransforms = Seq(tr("", "x.>"))))))
    assert(mirrorOne.inactive.isEmpty && mirrorOne.transforms == Seq(tr("", "x.>")))
    val mirrorTwo =
      origin(StreamConfig("M", mirror = Some(SourceConfig("A", subjectTransforms = Seq(tr("", ""), tr("q", "y"))))))
    assert(mirrorTwo.inactive.isDefined)
  }

  // Each case measured with nats-server 2.10.25 and 2.10.26 (2.11.0 and later check these as the newest line).
  private def err210(cfg: StreamConfig) =
    intercept[InvalidStreamConfigException](StreamConfig.plan(cfg, ServerVersion.V2_10))
  private def src(name: String, ts: TransformConfig*) = SourceConfig(name, subjectTransforms = ts)
  private val partitionOfAll = "{{partition(3)}}" // no wildcard index: 2.10 cannot build it (10049) when it adds the stream

  test("2.10 refuses an empty src in a source's or a mirror's transforms, which later lines read as '>'") {
    val source = err210(StreamConfig("S", sources = Seq(src("A", tr("", "x.>")))))
    assert((source.field, source.description, source.errCode) ==
      (("sources[0].subject_transforms[0]", "source subject filter is invalid", 10145)))
    val mirror = err210(StreamConfig("M", mirror = Some(src("A", tr("a.*", "x.$1"), tr("", "")))))
    assert((mirror.field, mirror.description, mirror.errCode) ==
      (("mirror.subject_transforms[1]", "mirror subject filter is invalid", 10151)))
    assert(StreamConfig.plan(StreamConfig("S", sources = Seq(src("A", tr("", "x.>")))),
        ServerVersion.V2_11).origins.nonEmpty)
    // From 2.11 on an empty src is `>`, and a destination `>` cannot take is refused as `>`'s.
    val asFwc =
      intercept[InvalidStreamConfigException](StreamConfig.plan(StreamConfig("S", sources = Seq(src("A", tr("", "x"))))))
    assert((asFwc.description, asFwc.errCode) == (("source transform: invalid subject", 10146)))
  }

  test("2.10 reports every config error before a transform it cannot build, which it builds last") {
    def first(cfg: StreamConfig) = { val e = err210(cfg); (e.errCode, e.description) }
    val bad = tr("a.*.*", s"b.$partitionOfAll")
    assert(first(StreamConfig("S", sources = Seq(src("A", bad), src("A", bad)))) ==
      ((10140, "duplicate source configuration detected")))
    assert(first(StreamConfig("S", sources = Seq(src("A", bad), src("B", tr("a.*.*", "b.{{unknown(1)}}"))))) ==
      ((10146, "source transform destination is invalid")))
    assert(first(StreamConfig("S", sources = Seq(src("A", bad), src("S")))) == ((10052, "detected cycle")))
    assert(first(StreamConfig("S", subjects = Seq("s.*", "s.a"), sources = Seq(src("A", bad)))) ==
      ((10052, "subject \"s.*\" overlaps with \"s.a\"")))
    assert(first(StreamConfig("S", subjects = Seq("s.*"), republish = Some(tr("s.*", "s.>")),
        sources = Seq(src("A", bad)))) ==
      ((10052, "stream configuration for republish destination forms a cycle")))
    assert(first(StreamConfig("M", mirror = Some(src("A", bad)), republish = Some(tr(">", "r.$3")))) ==
      ((10052, "stream configuration for republish with transform from '>' to 'r.$3' not valid")))
    // The transforms are built in nats-server's order: the mirror's or each source's, then the ingress transform.
    assert(first(StreamConfig("S", subjects = Seq("s.*"), subjectTransform = Some(tr(".orders", "x")),
        sources = Seq(src("A", bad)))) == ((10049,
      "subject transform from 'a.*.*' to 'b.{{partition(3)}}' for the " +
        "source: invalid mapping destination: not enough arguments passed to the function in {{partition(3)}}")))
    // A source's filters are checked entry by entry, overlaps included.
    assert(first(StreamConfig("S", sources = Seq(src("A", tr("a.b.c", "x"), tr("a.>.c", ""))))) ==
      ((10147, "source filters can not overlap (\"a.b.c\" and \"a.>.c\")")))
  }

  test("2.10 checks the ingress transform only when it builds it: a bad src is 10049 'invalid subject'") {
    val e = err210(StreamConfig("S", subjects = Seq("s.*"), subjectTransform = Some(tr(".orders", "x"))))
    assert((e.field, e.description, e.errCode) ==
      (("subject_transform", "stream subject transform from '.orders' to 'x': invalid subject", 10049)))
    // Without a destination it builds no transform, and checks nothing.
    assert(StreamConfig.plan(StreamConfig("S", subjects = Seq("s.*"), subjectTransform = Some(tr(".orders", ""))),
        ServerVersion.V2_10).ingress.isEmpty)
    val later = intercept[InvalidStreamConfigException](StreamConfig.plan(
        StreamConfig("S", subjects = Seq("s.*"), subjectTransform = Some(tr(".orders", ""))), ServerVersion.V2_11))
    assert((later.description, later.errCode) == (("stream transform source: invalid subject .orders", 10155)))
  }

  // Measured with nats-server 2.10.25, 2.10.26, 2.11.0, 2.11.11, 2.12.8, 2.14.6 and 2.15.1: a republish's source is
  // checked only as NewSubjectTransform checks a transform's source (no empty token, `>` last only): white space in
  // it passes, and the stream republishes nothing through it (no valid subject matches).
  test("a republish src with white space is accepted on every line, and republishes nothing") {
    for (v <- ServerVersion.all) {
      for ((s, d) <- Seq("e1 x" -> "r", " e1" -> "r", "e1\tx" -> "r", "e1 x.>" -> "r.>", "a b.*" -> "r.$1",
          "a b.>" -> "r.>", "e1 x" -> "r x")) {
        val p = StreamConfig.plan(StreamConfig("R", subjects = Seq("z.*"), republish = Some(tr(s, d))), v)
        assert(p.republish.contains(tr(s, d)), s"$v $s -> $d")
        assert(p.appliedAs("republish").contains(v.name) && StreamConfig.invalidRepublish(p, v).isEmpty, s"$v")
      }
      // What nats-server refuses still is: a `>` in one of src and dest only, a `*` in dest, an empty token.
      for ((s, d) <- Seq("e1 x" -> "r.>", " e1" -> "r.>", "a b.*" -> "r.>", "a b.*" -> "r.*", "a..b" -> "r",
          "a.>.b" -> "r")) {
        val e = intercept[InvalidStreamConfigException](
          StreamConfig.plan(StreamConfig("R", subjects = Seq("z.*"), republish = Some(tr(s, d))), v))
        assert((e.field, e.description, e.errCode) ==
          (("republish", s"stream configuration for republish with transform from '$s' to '$d' not valid", 10052)))
      }
    }
    // A mapping (and an import) still refuses such a source, as nats-server does.
    intercept[subjxform.engine.InvalidTransformException](subjxform.engine.SubjectTransform.compile("e1 x", "r"))
  }

  test("2.10 takes an ingress transform src with white space (renaming nothing); 2.11 on refuse it (10155)") {
    val ok = StreamConfig.plan(StreamConfig("S", subjects = Seq("g.*"), subjectTransform = Some(tr("e1 x", "x"))),
      ServerVersion.V2_10)
    assert(ok.ingress.contains(tr("e1 x", "x")) && ok.appliedAs("subject_transform").contains("2.10"))
    for (s <- Seq(" e1", "e1\tx"))
      assert(StreamConfig.plan(StreamConfig("S", subjects = Seq("g.*"), subjectTransform = Some(tr(s, "x"))),
          ServerVersion.V2_10).ingress.isDefined)
    assert(StreamConfig.plan(StreamConfig("S", subjects = Seq("g.*"), subjectTransform = Some(tr("a b.*", "n.$1"))),
        ServerVersion.V2_10).ingress.isDefined)
    val fwc = err210(StreamConfig("S", subjects = Seq("g.*"), subjectTransform = Some(tr("e1 x", "r.>"))))
    assert((fwc.description, fwc.errCode) == (("stream subject transform from 'e1 x' to 'r.>': invalid subject", 10049)))
    for (v <- ServerVersion.all.tail) {
      val e = intercept[InvalidStreamConfigException](StreamConfig.plan(
          StreamConfig("S", subjects = Seq("g.*"), subjectTransform = Some(tr("e1 x", "x"))), v))
      assert((e.field, e.description, e.errCode) ==
        (("subject_transform.src", "stream transform source: invalid subject e1 x", 10155)))
    }
    // A source's or a mirror's transform src is a consumer filter too: 2.10 refuses white space there.
    val source = err210(StreamConfig("S", sources = Seq(src("A", tr("o x.*", "s.$1")))))
    assert((source.description, source.errCode) == (("source subject filter is invalid", 10145)))
    val mirror = err210(StreamConfig("M", mirror = Some(src("A", tr("o x.*", "s.$1")))))
    assert((mirror.description, mirror.errCode) == (("mirror subject filter is invalid", 10151)))
  }

  test("the plan as JSON escapes strings") {
    val p = StreamPlan(Seq("a\"b"), None, Nil, None)
    assert(p.toJson == """{"subjects":["a\"b"],"subject_transform":null,"origins":[],"republish":null}""")
  }
}
