package subjxform.engine

import org.scalatest.funsuite.AnyFunSuite

import subjxform.config.{
  Accounts, FilterTransforms, InvalidMappingsException, InvalidStreamConfigException, MappingTable, StreamConfig,
  StreamConfigJson, StreamPlan, TransformConfig
}

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
    assert(
      parse("2.10") == V2_10 && parse("2.10.26") == V2_10 && parse(" v2.15.1 ") == V2_15 && parse("2.12.8") == V2_12)
    assert(all.map(_.line) == Seq("2.10", "2.11", "2.12", "2.14", "2.15"))
    assert(Newest == V2_15)
    for (bad <- Seq("2.13", "2.9", "3.0", "2", "two", "", "2.10.x", null)) {
      val e = intercept[IllegalArgumentException](parse(bad))
      assert(e.getMessage.contains("supported lines are 2.10, 2.11, 2.12, 2.14, 2.15"), e.getMessage)
    }
    assert(intercept[IllegalArgumentException](SubjectTransform.compile("a", "b", false, null)).getMessage.contains(
        "2.10"))
  }

  test("left/right exist from 2.15, random from 2.12 (unknown functions before)") {
    val left = onEveryLine("a.*", "b.{{left(1,1)}}", "a.xyz")
    assert(
      left("2.14") == Left(Unknown + "{{left(1,1)}}") && left("2.10") == left("2.14") && left("2.15") == Right("b.x"))
    val random = onEveryLine("a.*", "b.{{random(1)}}", "a.x")
    assert(random("2.11") == Left(Unknown + "{{random(1)}}") && random("2.10") == random("2.11"))
    assert(random("2.12") == Right("b.0") && random("2.14") == Right("b.0"))
  }

  test("2.10/2.11: partition(n) needs a wildcard index, and no function works on a source without `*`") {
    val whole = onEveryLine("foo", "bar.{{partition(3)}}", "foo")
    assert(whole("2.11") == Left(
      "invalid mapping destination: not enough arguments passed to the function in {{partition(3)}}"))
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

  test(
    "2.10 takes character counts above 2^31-1 (low 32 bits: here negative, so the token stays whole); 2.11+ refuse") {
    val big = onEveryLine("a.*", "b.{{slicefromleft(1,2147483648)}}", "a.abc")
    assert(big("2.10") == Right("b.abc") && big("2.11") == Left(InvalidArg + "{{slicefromleft(1,2147483648)}}"))
  }

  test("2.10/2.11 crash on a message for partition(0, ...) (the message is lost: NULL); 2.12+ give 0") {
    val zero = onEveryLine("foo.*", "bar.{{partition(0,1)}}", "foo.x")
    assert(zero("2.10") == Right(null) && zero("2.11") == Right(null) && zero("2.12") == Right("bar.0"))
    // a count whose low 32 bits are 0 is a zero too
    assert(verdict("a.*", "b.{{partition(4294967296,1)}}", V2_10, "a.x") == Right(null))
    assert(SubjectTransform.compile("foo.*", "bar.{{partition(0,1)}}", false, V2_10).crashesServer)
    assert(!SubjectTransform.compile("foo.*", "bar.{{partition(0,1)}}", false, V2_12).crashesServer)
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

    val stream = StreamConfigJson.parse(
      """{"name": "S", "subjects": ["a.*"], "subject_transform": {"src": "a.*", "dest": "b.{{random(3)}}"}}""")
    assert(StreamConfig.plan(stream).ingress.isDefined)
    assert(intercept[InvalidStreamConfigException](StreamConfig.plan(stream, V2_11)).getMessage.contains(
        "unknown function"))
    assert(intercept[InvalidStreamConfigException](
        FilterTransforms.compile(Seq("a.*" -> "b.{{random(3)}}"), version = V2_11)).getMessage.contains(
        "unknown function"))
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
        "stream subject transform from 'a.*' to 'b.{{random(3)}}': invalid mapping destination: unknown function in {{random(3)}}",
        10049)))
    val source = """{"name": "S", "sources": [{"name": "O", "subject_transforms": [{"src": "a.*", "dest": "%s"}]}]}"""
    assert(plan(source.format("b.{{left(1,2)}}"), V2_10) == Left(("source transform destination is invalid", 10146)))
    assert(plan(source.format("b.$2"), V2_10) == Left((
        "subject transform from 'a.*' to 'b.$2' for the source: invalid mapping destination: wildcard index out of range in $2: [2]",
        10049)))
    val mirror = """{"name": "M", "mirror": {"name": "O", "subject_transforms": [{"src": "a.*", "dest": "%s"}]}}"""
    assert(plan(mirror.format("b..$1"), V2_10) == Left(
      ("subject transform from 'a.*' to 'b..$1' for the mirror: invalid subject", 10049)))
    assert(plan(mirror.format("b..$1"), V2_11) == Left(
      ("mirror transform: invalid mapping destination: invalid transform in ", 10154)))
    // republish: 2.10 checks it only as a transform (white space in a literal passes)
    val republish = """{"name": "R", "subjects": ["r.*"], "republish": {"src": "r.*", "dest": "x b.$1"}}"""
    assert(plan(republish, V2_10).isRight)
    assert(plan(republish.replace("x b.$1", "x..$1"), V2_10).isLeft)
  }

  test("parse: a release decides where releases of its line differ; a line is its measured release") {
    assert(parse("2.12.0") == V2_12_0 && parse("2.12.1") == V2_12_0 && parse("2.12.2") == V2_12_2 && parse(
      "2.12.4") == V2_12_2)
    assert(parse("2.12.5") == V2_12 && parse("2.12.9") == V2_12_9 && parse("2.12.12") == V2_12_9 &&
      parse("2.12.15") == V2_12_14)
    assert(parse("2.11.1") == V2_11_0 && parse("2.11.7") == V2_11_2 && parse("2.11.10") == V2_11_8 && parse(
      "v2.11.11") == V2_11 && parse(
      "nats-server: v2.11.11") == V2_11)
    assert(
      parse("2.14.0") == V2_14_0 && parse("2.14.1") == V2_14_1 && parse("2.14.4") == V2_14 && parse(
        "2.14.6") == V2_14 && parse("2.10.0") == V2_10_0)
    assert(parse("2.14.0").toString == "2.14.0" && parse("2.14").toString == "2.14" && parse("2.14").release == "2.14.6")
    assert(parse("2.14.6") == V2_14 && parse("2.14.6").toString == "2.14.6") // the line's measured release: its row
    // every published release was measured from its own binary: none says a note
    assert(Measured == Published)
    assert(Measured.toSeq.flatMap { case (line, ps) => ps.map(p => parse(s"$line.$p")) }.forall(_.note.isEmpty))
    assert(parse("2.14.4").note.isEmpty && parse("2.14").note.isEmpty && V2_14.measured.contains("2.14.4"))
    assert(parse("2.10.20").note.isEmpty && V2_10.measured.contains("2.10.20") && V2_10_0.measured.contains("2.10.5"))
    assert(rows.map(_.since) == rows.map(_.since).distinct && rows.forall(r =>
      r.measured.forall(m => m.startsWith(r.line + ".") && parse(m) == r)))
    assert(rows.map(_.measured.size).sum == 76 && V2_12_9.measured.size == 4 && V2_12_14.measured.size == 2 &&
      V2_15_3.measured == Seq("2.15.3"))
  }

  test("every release published of a supported line is taken, with its date; 2.14.7 knows left/right, 2.14.10 and " +
    "2.15.3 the account functions and suppress a reserved republish; 2.10.0-2.10.14 do not parse left/right") {
    for (r <- Seq("2.10.15", "2.14.7", "2.14.8", "2.14.9", "2.14.10", "2.15.2", "2.15.3"))
      assert(parse(r).toString == r && dateOf(r).isDefined, r)
    assert(dateOf("2.15.3").contains("2026-11-11") && dateOf("2.10.15").contains("2024-05-16") && dateOf(
      "2.10.13").isEmpty)
    assert(Published.forall { case (line, ps) => ps.forall(p => dateOf(s"$line.$p").isDefined) })
    assert(Published.values.map(_.size).sum == 76 && dataEnds == "2.15.3, 2026-11-11")
    assert(!parse("2.14.6").functions("left") && parse("2.14.7").functions("left") && parse("2.14.9").functions(
      "right"))
    assert(Seq("2.14.9", "2.15.2", "2.15", "2.14").forall(v => !parse(v).accountFunctions), "before 2.14.10 / 2.15.3")
    assert(Seq("2.14.10", "2.15.3").forall(v => parse(v).accountFunctions && parse(v).suppressesReservedRepublish))
    assert(parse("2.15.3").functions == parse("2.15.1").functions && parse("2.14.10").functions == V2_15.functions)
    assert(!parse("2.10.14").parsedFunctions.contains("left") && parse("2.10.15").parsedFunctions.contains("left"))
    assert(parse("2.10.15") == V2_10 && parse("2.10.14") == V2_10_14 && parse("2.10.12") == V2_10_8 &&
      parse("2.10.27") == V2_10 && parse("2.10.29") == V2_10_28)
    // 2.10.0-2.10.12 take a source's colliding filters; 2.10.14 to 2.12.4 refuse them (the consumer fails)
    assert(
      V2_10_8.consumerFiltersMayCollide && !V2_10_14.consumerFiltersMayCollide && !V2_12_2.consumerFiltersMayCollide)
    // 2.10.0-2.10.7's parseTLS names a tls block's unknown field in a list
    assert(
      parse("2.10.7").tlsUnknownFieldInList && !parse("2.10.8").tlsUnknownFieldInList && !V2_10.tlsUnknownFieldInList)
    // 2.11.2's parseAuthorization checks a timeout; no 2.10 release does
    assert(!V2_10.authorizationTimeoutChecked && !parse("2.11.1").authorizationTimeoutChecked &&
      parse("2.11.2").authorizationTimeoutChecked && V2_15_3.authorizationTimeoutChecked)
    // checkPermSubjectArray's allowQueue from 2.12.14 and 2.14.4: every 2.15 release
    assert(!V2_12.permissionQueuesChecked && !parse("2.12.12").permissionQueuesChecked &&
      parse("2.12.14").permissionQueuesChecked && !parse("2.14.3").permissionQueuesChecked &&
      V2_14.permissionQueuesChecked && V2_15.permissionQueuesChecked && V2_15_3.permissionQueuesChecked)
    // TLS `verify: optional` in 2.14.10 and 2.15.3 (as the account functions)
    assert(Seq("2.14.10", "2.15.3").forall(parse(_).tlsVerifyOptional) &&
      Seq("2.14.9", "2.15.2", "2.15").forall(!parse(_).tlsVerifyOptional))
    // a local subject imported from two accounts: refused up to 2.10.27 and 2.11.1
    assert(Seq("2.10.27", "2.10", "2.11.1").forall(!parse(_).serviceImportSubjectPerAccount) &&
      Seq("2.10.28", "2.11.2", "2.12", "2.15.3").forall(parse(_).serviceImportSubjectPerAccount))
    assert(V2_10_0.measured.size == 8 && V2_10_8.measured.size == 5 && V2_10_14.measured == Seq(
      "2.10.14") && V2_10.measured.size == 13 && V2_10_28.measured == Seq("2.10.28", "2.10.29"))
    // an import's `to` is checked only as a transform: a function the parser does not read is unknown there
    assert(verdict("a.*", "b.{{left(1,2)}}", parse("2.10.14"), "a.xyz") == Left(Unknown + "{{left(1,2)}}"))
  }

  test("a release newer than the data is not said not to exist: it follows its line's newest known release") {
    val later = parse("2.15.9")
    assert(later == V2_15_3 && later.toString == "2.15.9" && later.release == "2.15.9")
    assert(later.note.contains(s"nats-server 2.15.9 is not known to subjxform $subjxformVersion (its release data " +
        "ends at 2.15.3, 2026-11-11): it follows 2.15.3, the newest 2.15 release known here; " +
        "`bash scripts/server-releases.sh` measures the releases published since"))
    assert(parse("v2.14.11") == V2_14_10 && parse("2.10.30") == V2_10_28 && parse("2.11.18").note.exists(
      _.contains("it follows 2.11.17, the newest 2.11 release known here")))
    assert(subjxformVersion.matches("""\d+\.\d+\.\d+.*"""), subjxformVersion)
  }

  test("parse: a release never published names the nearest published ones; 'v' needs a release") {
    def refused(text: String) = intercept[IllegalArgumentException](parse(text)).getMessage
    assert(refused(
      "2.11.13") == "unsupported nats-server version \"2.11.13\": nats-server published no release 2.11.13 " +
      "(the nearest: 2.11.12 or 2.11.14; the 2.11 releases are 2.11.0 to 2.11.17)")
    assert(refused("2.10.13").contains("(the nearest: 2.10.12 or 2.10.14;"))
    assert(refused("2.12.13").contains("the nearest: 2.12.12 or 2.12.14;"))
    assert(refused("v2.11").contains("(a 'v' names a release, as nats-server --version prints it: write the line as '2.11' or a release like 'v2.11.11')"))
    assert(refused("2.13.0").contains("supported lines are 2.10, 2.11, 2.12, 2.14, 2.15"))
    assert(refused("2.14.0-RC.1").contains("(not a version)"))
  }

  test("releases: character counts above 2^31-1 are taken (low 32 bits) up to 2.11.7, refused from 2.11.8") {
    def on(v: String, dest: String) =
      try Right(SubjectTransform.compile("a.*", dest, false, parse(v))("a.abc-d"))
      catch { case e: InvalidTransformException => Left(e.reason) }
    for (v <- Seq("2.10.26", "2.11.0", "2.11.7")) {
      assert(on(v, "b.{{splitfromleft(1,4294967298)}}") == Right("b.ab.c-d"), v) // 2^32 + 2: a count of 2
      assert(on(v, "b.{{slicefromleft(1,2147483648)}}") == Right("b.abc-d"), v) // negative: the token whole
    }
    for (v <- Seq("2.11.8", "2.11.11", "2.12.0"))
      assert(on(v, "b.{{splitfromleft(1,4294967298)}}") == Left(InvalidArg + "{{splitfromleft(1,4294967298)}}"), v)
  }

  test("releases: an empty destination token's error ends in \" in \" up to 2.12.4, not from 2.12.5") {
    def reason(v: ServerVersion) =
      try { SubjectTransform.compile("a.*", "b..$1", false, v); "" }
      catch { case e: InvalidTransformException => e.reason }
    assert(reason(parse("2.12.4")) == "invalid mapping destination: invalid transform in ")
    assert(reason(parse("2.12.5")) == "invalid mapping destination: invalid transform")
    assert(reason(parse("2.11.17")) == reason(parse("2.12.0")) && reason(parse("2.14.0")) == reason(V2_12))
  }

  test("releases: the implicit republish > -> > (PR #7515) from 2.11.11 and 2.12.2 on; a cycle before") {
    def plan(json: String, v: ServerVersion): Either[(String, Int), StreamPlan] =
      try Right(StreamConfig.plan(StreamConfigJson.parse(json), v))
      catch { case e: InvalidStreamConfigException => Left((e.description, e.errCode)) }
    val implicitAll = """{"name": "T", "subjects": ["a.>"], "subject_transform": {"src": "a.>", "dest": "%s"},
      "republish": {"src": ">", "dest": ">"}}"""
    val cycle = Left(("stream configuration for republish destination forms a cycle", 10052))
    for (v <- Seq("2.10.26", "2.11.0", "2.11.10", "2.12.0", "2.12.1"))
      assert(plan(implicitAll.format("b.>"), parse(v)) == cycle, v)
    for (v <- Seq("2.11.11", "2.12.2", "2.12.8", "2.14.0", "2.15.1")) {
      assert(plan(implicitAll.format("b.>"), parse(v)).map(_.republish) == Right(Some(TransformConfig("b.>", "b.>"))), v)
    }
    // with a function, the implicit republish is not a valid transform: refused by every release, in other words
    val split = implicitAll.format("b.{{split(1,-)}}.>").replace("\"a.>\"", "\"a.*.>\"")
    assert(plan(split, parse("2.11.10")) == cycle)
    assert(plan(split, parse("2.11.11")) == Left((
        "stream configuration for republish with transform from 'b.{{split(1,-)}}.>' to 'b.{{split(1,-)}}.>' not valid",
        10052)))
  }

  test("releases: a republish that builds white space is suppressed from 2.14.1 (and 2.12.9) on") {
    val plan = StreamConfig.plan(StreamConfigJson.parse(
        """{"name": "R", "subjects": ["r.*"], "republish": {"src": "r.*", "dest": "rp.a b.$1"}}"""))
    assert(Seq("2.14.1", "2.14.6", "2.15.0", "2.12.9").forall(v => parse(v).suppressesInvalidRepublish))
    assert(Seq("2.14.0", "2.12.8", "2.11.17", "2.10.29").forall(v => !parse(v).suppressesInvalidRepublish))
    assert(StreamConfig.invalidRepublish(plan, parse("2.14.0")).exists(
        _.contains("nats-server 2.14.0 sends such a message as built, a hazard")))
    assert(StreamConfig.invalidRepublish(plan, parse("2.14.1")).exists(
        _.contains("nats-server 2.14.1 suppresses such a message")))
    val plain = StreamConfig.plan(
      StreamConfigJson.parse("""{"name": "R", "subjects": ["r.*"], "republish": {"src": "r.*", "dest": "rp.$1"}}"""))
    assert(StreamConfig.invalidRepublish(plain, parse("2.14.0")).isEmpty)
  }

  test("every line checks a republish only as a transform: white space and a function its parser reads pass") {
    def plan(dest: String, v: ServerVersion) = StreamConfig.plan(StreamConfigJson.parse(
        s"""{"name": "R", "subjects": ["s.*.*"], "republish": {"src": "s.*.*", "dest": "$dest"}}"""), v)
    for (v <- all) {
      val spaced = plan("rp.a b.$1", v)
      assert(spaced.republish.contains(TransformConfig("s.*.*", "rp.a b.$1")) && spaced.appliedAs("republish").isEmpty,
        v)
      // 2.10-2.14 parse right() though their mapping list does not know it: built as 2.15 builds it
      val right = plan("rp.{{right(2,3)}}.{{Wildcard(1)}}", v)
      assert(right.appliedAs("republish").contains("2.15"), v)
      assert(plan("rp.$2.$1", v).appliedAs("republish").contains(v.name), v)
    }
    assert(plan("rp.$1", parse("2.14.0")).appliedAs("republish").contains("2.14.0"))
    assert(intercept[InvalidStreamConfigException](plan("rp.{{random(3)}}", V2_11)).errCode == 10052)
  }

  test("2.10 stores what its stream transforms build as transforms, white space and left/right: applied as 2.10") {
    val mirror = StreamConfig.plan(StreamConfigJson.parse(
        """{"name": "M", "mirror": {"name": "O", "subject_transforms": [{"src": "o.*.*", "dest": "m.{{left(1,2)}}.$2"}]}}"""),
      V2_10)
    assert(mirror.appliedAs == Map("mirror" -> Some("2.10")))
    val ingress = StreamConfig.plan(StreamConfigJson.parse(
        """{"name": "I", "subjects": ["i.*"], "subject_transform": {"src": "i.*", "dest": "v.a b.$1"}}"""), V2_10)
    assert(ingress.appliedAs == Map("subject_transform" -> Some("2.10")) && ingress.toJson.endsWith(
      """"applied_as":{"subject_transform":"2.10"}}"""))
    // What subject_filter_transform builds with them on 2.10: what nats-server 2.10.26 stores (a tab too).
    def stored(pairs: Seq[(String, String)], subject: String) =
      FilterTransforms.compile(pairs, FilterTransforms.SourceRule, "transforms", V2_10)(subject)
    assert(stored(Seq(("o.*.*", "m.{{left(1,2)}}.$2")), "o.abc.d") == "m.ab.d")
    assert(stored(Seq(("i.*", "v.a b.$1")), "i.x") == "v.a b.x")
    assert(stored(Seq(("u.*", "v.hello\tworld.$1")), "u.a") == "v.hello\tworld.a")
    assert(stored(Seq(("al.>", "m x.>")), "al.abcdef.x") == "m x.abcdef.x")
    // A source's own check still refuses such a destination (10146), as 2.10's stream config check does.
    val source = intercept[InvalidStreamConfigException](StreamConfig.plan(StreamConfigJson.parse(
          """{"name": "S", "sources": [{"name": "O", "subject_transforms": [{"src": "o.*", "dest": "s.a b.$1"}]}]}"""),
        V2_10))
    assert(source.errCode == 10146 && source.description == "source transform destination is invalid")
  }

  test("an import's to: a function the parser reads fails the import check on every line, not 'unknown function'") {
    def reason(v: ServerVersion, dest: String) =
      try { SubjectTransform.compile("a.*", dest, true, v); "" }
      catch { case e: InvalidTransformException => e.reason }
    val notForImport =
      "invalid mapping destination: the only mapping function allowed for import transforms is {{Wildcard()}} in "
    for (v <- all) assert(reason(v, "b.{{left(1,2)}}") == notForImport + "{{left(1,2)}}", v)
    assert(reason(V2_10, "b.{{random(3)}}") == Unknown + "{{random(3)}}") // 2.10 does not parse random
    assert(reason(V2_12, "b.{{random(3)}}") == notForImport + "{{random(3)}}")
  }

  test(
    "releases: a source whose filters collide (not nested) takes nothing before 2.12.5 (its consumer fails, 10138)") {
    val cfg = StreamConfigJson.parse("""{"name": "S", "sources": [{"name": "O", "subject_transforms": [
      {"src": "al.*.m", "dest": "x.$1"}, {"src": "al.k.*", "dest": "y.$1"}]}]}""")
    for (v <- Seq("2.10.26", "2.11.11", "2.12.0", "2.12.4")) {
      assert(StreamConfig.plan(cfg, parse(v)).origins.head.inactive.exists(
          _.contains("consumer subject filters cannot overlap, 10138")), v)
    }
    for (v <- Seq("2.12.5", "2.14.0", "2.15")) assert(StreamConfig.plan(cfg, parse(v)).origins.head.inactive.isEmpty, v)
  }

  test("tokensBuiltOtherwiseThan names the destination tokens two lines build differently, and only those") {
    def on(v: ServerVersion, dest: String) = SubjectTransform.compile("a.*.*", dest, false, v)
    val dest = "x.$1.{{partition(0,1)}}.{{partition(3,2)}}"
    assert(on(V2_10, dest).tokensBuiltOtherwiseThan(on(V2_15, dest)) == Seq("{{partition(0,1)}}"))
    assert(on(V2_12, dest).tokensBuiltOtherwiseThan(on(V2_15, dest)).isEmpty)
    assert(on(V2_15, "x.$2").tokensBuiltOtherwiseThan(on(V2_15, "x.$1")) == Seq("$2"))
  }
}
