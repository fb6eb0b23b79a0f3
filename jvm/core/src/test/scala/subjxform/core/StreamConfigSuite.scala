package subjxform.core

import org.scalatest.funsuite.AnyFunSuite

class FilterTransformsSuite extends AnyFunSuite {

  test("the first matching entry renames; an empty dest keeps the subject; no match is not taken") {
    val ft = FilterTransforms.of("foo", "foo-transformed", "bar", "")
    assert(ft("foo") == "foo-transformed")
    assert(ft("bar") == "bar")
    assert(ft("baz") == null)
    assert(ft("foo.x") == null)
  }

  test("wildcards and functions in the entries, as in subject_transform") {
    val ft = FilterTransforms.of("stream2.foo.>", "foo2.>", "stream2.bar.*", "bar2.{{wildcard(1)}}.{{partition(3,1)}}")
    assert(ft("stream2.foo.a.b") == "foo2.a.b")
    assert(ft("stream2.bar.customerid2") == SubjectTransform.compile("stream2.bar.*", "bar2.$1.{{partition(3,1)}}")("stream2.bar.customerid2"))
    assert(ft("stream2.bar.a.b") == null)
  }

  test("an empty list takes every literal subject unchanged; a non-literal subject is never taken") {
    val all = FilterTransforms.compile(Nil)
    assert(all("a.b.c") == "a.b.c")
    assert(all("a..b") == null && all("a.*") == null && all("") == null)
    assert(FilterTransforms.of("a.>", "")("a.*") == null)
  }

  test("an empty src means '>'") {
    assert(FilterTransforms.of("", "x.>")("a.b") == "x.a.b")
  }

  test("as nats-server: an entry with an empty dest does not stop a later matching one from renaming") {
    // "a.*.c" and "a.b.*" collide but neither contains the other, so one source may hold both.
    val ft = FilterTransforms.of("a.*.c", "", "a.b.*", "x.$1")
    assert(ft("a.b.c") == "x.c")
    assert(ft("a.z.c") == "a.z.c")
    assert(ft("a.b.z") == "x.z")
  }

  test("overlapping filters: one inside another is rejected for a source, any collision for a mirror") {
    val e = intercept[InvalidStreamConfigException](FilterTransforms.of("foo.>", "", "foo.bar", "x"))
    assert(e.description.startsWith("source filters can not overlap") && e.errCode == 10147)
    assert(e.field == "subject_transforms[0], subject_transforms[1]")
    val m = intercept[InvalidStreamConfigException](
      FilterTransforms.compile(Seq(("a.*.c", ""), ("a.b.*", "")), FilterTransforms.MirrorRule, "mirror.subject_transforms"))
    assert(m.description.startsWith("mirror subject filters can not overlap") && m.errCode == 10152)
    assert(FilterTransforms.compile(Seq(("a.*.c", ""), ("a.b.*", ""))).pairs.length == 2)
  }

  test("an invalid entry names itself with nats-server's API error") {
    val dest = intercept[InvalidStreamConfigException](FilterTransforms.of("a.*", "b.{{wildcard(2)}}"))
    assert(dest.getMessage ==
      "subject_transforms[0]: source transform: invalid mapping destination: wildcard index out of range in {{wildcard(2)}}: [2] (nats-server error 10146)")
    val src = intercept[InvalidStreamConfigException](FilterTransforms.of("ok", "", "a b", ""))
    assert(src.field == "subject_transforms[1]" && src.description == "source transform source: invalid subject a b")
  }
}

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

  test("KV sourcing: the transform and the source entry the clients write") {
    assert(KeyValue.sourceTransform("A", "B") == tr("$KV.A.>", "$KV.B.>"))
    assert(KeyValue.source("A", "B") == SourceConfig("KV_A", subjectTransforms = Seq(tr("$KV.A.>", "$KV.B.>"))))
    assertThrows[IllegalArgumentException](KeyValue.sourceTransform("a.b", "B"))
  }

  test("the plan as JSON escapes strings") {
    val p = StreamPlan(Seq("a\"b"), None, Nil, None)
    assert(p.toJson == """{"subjects":["a\"b"],"subject_transform":null,"origins":[],"republish":null}""")
  }
}
