package subjxform.config

import org.scalatest.funsuite.AnyFunSuite

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
    val overlap = err(StreamConfig("B", sources = Seq(SourceConfig("A", subjectTransforms = Seq(tr("a.>", ""), tr("a.b", "x"))))))
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
    val implicitFwc = StreamConfig.plan(StreamConfig("S", subjects = Seq("s.>"), subjectTransform = Some(tr("s.>", "t.>")),
      republish = Some(tr(">", ">"))))
    assert(implicitFwc.republish.contains(tr("t.>", "t.>")))
  }

  test("an empty src in a source's transforms, or in one of a mirror's several, takes nothing (as nats-server 2.15.1 did)") {
    def origin(cfg: StreamConfig) = StreamConfig.plan(cfg).origins.head
    val source = origin(StreamConfig("S", sources = Seq(SourceConfig("A", subjectTransforms = Seq(tr("", "x.>"))))))
    assert(source.inactive.exists(_.contains("consumer filter in FilterSubjects cannot be empty")))
    val mirrorOne = origin(StreamConfig("M", mirror = Some(SourceConfig("A", subjectTransforms = Seq(tr("", "x.>"))))))
    assert(mirrorOne.inactive.isEmpty && mirrorOne.transforms == Seq(tr("", "x.>")))
    val mirrorTwo = origin(StreamConfig("M", mirror = Some(SourceConfig("A", subjectTransforms = Seq(tr("", ""), tr("q", "y"))))))
    assert(mirrorTwo.inactive.isDefined)
  }

  test("the plan as JSON escapes strings") {
    val p = StreamPlan(Seq("a\"b"), None, Nil, None)
    assert(p.toJson == """{"subjects":["a\"b"],"subject_transform":null,"origins":[],"republish":null}""")
  }
}
