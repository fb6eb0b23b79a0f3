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

  test("the plan as JSON escapes strings") {
    val p = StreamPlan(Seq("a\"b"), None, Nil, None)
    assert(p.toJson == """{"subjects":["a\"b"],"subject_transform":null,"origins":[],"republish":null}""")
  }
}
