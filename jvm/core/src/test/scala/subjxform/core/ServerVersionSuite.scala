package subjxform.core

import org.scalatest.funsuite.AnyFunSuite

/**
 * Each measured difference between the server lines, one test each, with what the line's real binary did
 * (`nats-server -t` and a live server, through tests/server_lines_golden.py's `run_line`; the same facts are
 * in tests/golden/servers/<line>/). Every one of them failed on main, which followed 2.15 only.
 */
class ServerVersionSuite extends AnyFunSuite {
  import ServerVersion._

  private def verdict(src: String, dest: String, v: ServerVersion, subject: String): Either[String, String] =
    try Right(SubjectTransform.compile(src, dest, false, v)(subject))
    catch { case e: InvalidTransformException => Left(e.reason) }

  private def onEveryLine(src: String, dest: String, subject: String): Map[String, Either[String, String]] =
    all.map(v => v.line -> verdict(src, dest, v, subject)).toMap

  private val Unknown = "invalid mapping destination: unknown function in "
  private val InvalidArg = "invalid mapping destination: function argument is invalid or in the wrong format in "
  private val OutOfRange = "invalid mapping destination: wildcard index out of range in "

  test("parse: a line or a release of it; anything else names the supported lines; the newest is the default") {
    assert(parse("2.10") == V2_10 && parse("2.10.26") == V2_10 && parse(" v2.15.1 ") == V2_15 && parse("2.12.0") == V2_12)
    assert(all.map(_.line) == Seq("2.10", "2.11", "2.12", "2.14", "2.15"))
    assert(Newest == V2_15)
    for (bad <- Seq("2.13", "2.9", "3.0", "2", "two", "", "2.10.x", null)) {
      val e = intercept[IllegalArgumentException](parse(bad))
      assert(e.getMessage.contains("supported lines are 2.10, 2.11, 2.12, 2.14, 2.15"), e.getMessage)
    }
    assert(intercept[IllegalArgumentException](SubjectTransform.compile("a", "b", false, null)).getMessage.contains("2.10"))
  }

  test("left/right exist from 2.15, random from 2.12 (unknown functions before)") {
    val left = onEveryLine("a.*", "b.{{left(1,1)}}", "a.xyz")
    assert(left("2.14") == Left(Unknown + "{{left(1,1)}}") && left("2.10") == left("2.14") && left("2.15") == Right("b.x"))
    val random = onEveryLine("a.*", "b.{{random(1)}}", "a.x")
    assert(random("2.11") == Left(Unknown + "{{random(1)}}") && random("2.10") == random("2.11"))
    assert(random("2.12") == Right("b.0") && random("2.14") == Right("b.0"))
  }

  test("2.10/2.11: partition(n) needs a wildcard index, and no function works on a source without `*`") {
    val whole = onEveryLine("foo", "bar.{{partition(3)}}", "foo")
    assert(whole("2.11") == Left("invalid mapping destination: not enough arguments passed to the function in {{partition(3)}}"))
    assert(whole("2.12").isRight)
    // 2.10/2.11 refuse the token ("out of range", without the index); 2.12+ hash (SPEC §4: the subject)
    val literal = onEveryLine("foo", "bar.{{partition(3,1)}}", "foo")
    assert(literal("2.10") == Left(OutOfRange + "{{partition(3,1)}}") && literal("2.12").isRight)
    val fwcOnly = onEveryLine("a.>", "b.{{wildcard(0)}}.>", "a.x.y")
    assert(fwcOnly("2.11") == Left(OutOfRange + "{{wildcard(0)}}") && fwcOnly("2.12") == Right("b.a.x.y"))
  }

  test("2.10/2.11 take partition counts above 2^31-1 (their low 32 bits); 2.12+ refuse them") {
    val big = onEveryLine("foo.*", "bar.{{partition(2147483648,1)}}", "foo.x")
    assert(big("2.10") == Right("bar.2097959047") && big("2.11") == big("2.10"))
    assert(big("2.12") == Left(InvalidArg + "{{partition(2147483648,1)}}"))
    assert(verdict("a.*", "b.{{partition(4294967299,1)}}", V2_11, "a.x") == Right("b.0")) // 2^32 + 3: a count of 3
  }

  test("2.10 takes character counts above 2^31-1 (low 32 bits: here negative, so the token stays whole); 2.11+ refuse") {
    val big = onEveryLine("a.*", "b.{{slicefromleft(1,2147483648)}}", "a.abc")
    assert(big("2.10") == Right("b.abc") && big("2.11") == Left(InvalidArg + "{{slicefromleft(1,2147483648)}}"))
  }

  test("2.10/2.11 crash on a message for partition(0, ...) (the message is lost: NULL); 2.12+ give 0") {
    val zero = onEveryLine("foo.*", "bar.{{partition(0,1)}}", "foo.x")
    assert(zero("2.10") == Right(null) && zero("2.11") == Right(null) && zero("2.12") == Right("bar.0"))
    // a count whose low 32 bits are 0 is a zero too
    assert(verdict("a.*", "b.{{partition(4294967296,1)}}", V2_10, "a.x") == Right(null))
    assert(SubjectTransform.compile("foo.*", "bar.{{partition(0,1)}}", false, V2_10).losesMessages)
    assert(!SubjectTransform.compile("foo.*", "bar.{{partition(0,1)}}", false, V2_12).losesMessages)
  }

  test("error texts: an empty or misplaced token, white space in a literal") {
    val empty = onEveryLine("a.*", "foo..bar", "a.x")
    assert(empty("2.10") == Left("invalid mapping destination: invalid subject in "))
    assert(empty("2.11") == Left("invalid mapping destination: invalid transform in "))
    assert(empty("2.12") == Left("invalid mapping destination: invalid transform"))
    val space = onEveryLine("a.*", "b c.$1", "a.x")
    assert(space("2.10") == Left("invalid mapping destination: invalid subject"))
    assert(space("2.11") == Left("invalid mapping destination: invalid transform"))
  }

  test("the version reaches every compile entry point: tables, validation, imports, streams, filter lists") {
    val block = """{"a.*": "b.{{left(1,2)}}"}"""
    assert(MappingTable.compile(block)("a.xyz") == "b.xy")
    val e = intercept[InvalidMappingsException](MappingTable.compile(block, V2_14))
    assert(e.problems.head.message.contains(Unknown + "{{left(1,2)}}"))
    assert(MappingTable.validate(block, V2_14).exists(_.isError) && !MappingTable.validate(block).exists(_.isError))
    assert(MappingTable.validateJson(block, V2_14).contains("unknown function"))
    // a table compiled for one line is not handed out for another (the shared-table cache knows the line)
    assert(MappingTable.compile("""{"a.*": "b.{{partition(0,1)}}"}""", V2_11)("a.x") == null)
    assert(MappingTable.compile("""{"a.*": "b.{{partition(0,1)}}"}""")("a.x") == "b.0")

    val accounts = "accounts { A { users: [{user: a, password: a}], mappings { \"a.*\": \"b.{{random(3)}}\" } } }"
    assert(Accounts.plan(accounts).problems.isEmpty)
    assert(Accounts.plan(accounts, V2_11).problems.exists(_.message.contains(Unknown + "{{random(3)}}")))

    val stream = StreamConfigJson.parse("""{"name": "S", "subjects": ["a.*"], "subject_transform": {"src": "a.*", "dest": "b.{{random(3)}}"}}""")
    assert(StreamConfig.plan(stream).ingress.isDefined)
    assert(intercept[InvalidStreamConfigException](StreamConfig.plan(stream, V2_11)).getMessage.contains("unknown function"))
    assert(intercept[InvalidStreamConfigException](
      FilterTransforms.compile(Seq("a.*" -> "b.{{random(3)}}"), version = V2_11)).getMessage.contains("unknown function"))
  }

  test("streams: 2.10 checks transforms only as transforms (white space and left pass), with its own error texts") {
    def plan(json: String, v: ServerVersion): Either[(String, Int), StreamPlan] =
      try Right(StreamConfig.plan(StreamConfigJson.parse(json), v))
      catch { case e: InvalidStreamConfigException => Left((e.description, e.errCode)) }
    val ingress = """{"name": "I", "subjects": ["a.*"], "subject_transform": {"src": "a.*", "dest": "%s"}}"""
    assert(plan(ingress.format("b.{{left(1,2)}}"), V2_10).isRight && plan(ingress.format("b c.$1"), V2_10).isRight)
    assert(plan(ingress.format("b.{{left(1,2)}}"), V2_11) ==
      Left(("stream transform: invalid mapping destination: unknown function in {{left(1,2)}}", 10156)))
    assert(plan(ingress.format("b.{{random(3)}}"), V2_10) == Left((
      "stream subject transform from 'a.*' to 'b.{{random(3)}}': invalid mapping destination: unknown function in {{random(3)}}", 10049)))
    val source = """{"name": "S", "sources": [{"name": "O", "subject_transforms": [{"src": "a.*", "dest": "%s"}]}]}"""
    assert(plan(source.format("b.{{left(1,2)}}"), V2_10) == Left(("source transform destination is invalid", 10146)))
    assert(plan(source.format("b.$2"), V2_10) == Left((
      "subject transform from 'a.*' to 'b.$2' for the source: invalid mapping destination: wildcard index out of range in $2: [2]", 10049)))
    val mirror = """{"name": "M", "mirror": {"name": "O", "subject_transforms": [{"src": "a.*", "dest": "%s"}]}}"""
    assert(plan(mirror.format("b..$1"), V2_10) == Left(("subject transform from 'a.*' to 'b..$1' for the mirror: invalid subject", 10049)))
    assert(plan(mirror.format("b..$1"), V2_11) == Left(("mirror transform: invalid mapping destination: invalid transform in ", 10154)))
    // republish: 2.10 checks it only as a transform (white space in a literal passes)
    val republish = """{"name": "R", "subjects": ["r.*"], "republish": {"src": "r.*", "dest": "x b.$1"}}"""
    assert(plan(republish, V2_10).isRight)
    assert(plan(republish.replace("x b.$1", "x..$1"), V2_10).isLeft)
  }

  test("tokensBuiltOtherwiseThan names the destination tokens two lines build differently, and only those") {
    def on(v: ServerVersion, dest: String) = SubjectTransform.compile("a.*.*", dest, false, v)
    val dest = "x.$1.{{partition(0,1)}}.{{partition(3,2)}}"
    assert(on(V2_10, dest).tokensBuiltOtherwiseThan(on(V2_15, dest)) == Seq("{{partition(0,1)}}"))
    assert(on(V2_12, dest).tokensBuiltOtherwiseThan(on(V2_15, dest)).isEmpty)
    assert(on(V2_15, "x.$2").tokensBuiltOtherwiseThan(on(V2_15, "x.$1")) == Seq("$2"))
  }
}
