package subjxform.config

import org.scalatest.funsuite.AnyFunSuite

import subjxform.engine.SubjectTransform

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
    assert(ft("stream2.bar.customerid2") == SubjectTransform.compile("stream2.bar.*", "bar2.$1.{{partition(3,1)}}")(
      "stream2.bar.customerid2"))
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
      FilterTransforms.compile(Seq(("a.*.c", ""), ("a.b.*", "")), FilterTransforms.MirrorRule,
        "mirror.subject_transforms"))
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
