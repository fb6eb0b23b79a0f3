package subjxform.engine

import org.scalatest.funsuite.AnyFunSuite

import subjxform.config.{
  InvalidMappingsException, InvalidStreamConfigException, MappingSource, MappingTable, StreamConfig, StreamConfigJson
}

/**
 * The account functions of nats-server 2.14.10 and 2.15.3 (issue #8631), with what a live 2.15.3 built from its Go
 * module did (tests/test_account_functions_nats_server.py runs the same configs against the binary when it is in
 * .tools/nats-server/2.15.3/): accounts A and B mapping `orders.*` to `orders.{{account-hash()}}.{{wildcard(1)}}`
 * delivered `orders.NUmM6cRx.x` in A and `orders.b2oh2L6w.y` in B; `nats-server -t` refused arguments and the
 * import's function in a mapping, a stream refused them in its transforms; 2.15.1 calls every one unknown.
 */
class AccountFunctionsSuite extends AnyFunSuite {
  import ServerVersion._

  private val V2153 = parse("2.15.3")
  private val Block =
    """{"orders.*": "orders.{{account-hash()}}.{{wildcard(1)}}", "in.{{account-hash()}}.*": "got.$1"}"""

  test("the server's hash of an account name") {
    assert(AccountFunctions.hash("A") == "NUmM6cRx" && AccountFunctions.hash("B") == "b2oh2L6w")
  }

  test("an account's mappings resolve them once, to its own hash, source and destination (2.15.3, 2.14.10)") {
    for (v <- Seq(V2153, parse("2.14.10"))) {
      assert(MappingTable.compile(Block, v, "A").apply("orders.x") == "orders.NUmM6cRx.x", v)
      assert(MappingTable.compile(Block, v, "B").apply("orders.y") == "orders.b2oh2L6w.y", v)
      assert(MappingTable.compile(Block, v, "A").apply("in.NUmM6cRx.q") == "got.q", v)
      // spelled as the server's pattern allows: a capital first letter of each word, spaces inside
      assert(MappingTable.compile("""{"o.*": "o.{{ Account-Hash( ) }}.$1"}""", v, "A").apply("o.x") == "o.NUmM6cRx.x")
      assert(MappingTable.compile("""{"o.*": "o.<<account-hash()>>.$1"}""", v, "A").apply("o.x") == "o.NUmM6cRx.x")
    }
  }

  test("refused in the server's words: arguments, the import's function in a mapping, and unknown before") {
    def errors(block: String, v: ServerVersion, account: String) =
      intercept[InvalidMappingsException](MappingTable.compile(block, v, account)).problems.map(_.message)
    assert(errors("""{"orders.*": "orders.{{account-hash(x)}}.{{wildcard(1)}}"}""", V2153, "A") == Seq(
      "Error adding mapping for \"orders.*\" to \"orders.{{account-hash(x)}}.{{wildcard(1)}}\" : invalid mapping " +
        "destination: too many arguments passed to the function in {{account-hash(x)}}"))
    for (fn <- Seq("account-hash-import", "account-hash-leaf-remote"))
      assert(errors(s"""{"orders.*": "orders.{{$fn()}}.{{wildcard(1)}}"}""", V2153, "A") == Seq(
        "Error adding mapping for \"orders.*\" to \"orders.{{" + fn + "()}}.{{wildcard(1)}}\" : invalid mapping " +
          s"destination: function is not available in this context in {{$fn()}}"))
    for (v <- Seq(parse("2.15.1"), parse("2.15.2"), parse("2.14.9"), V2_10, V2_12))
      assert(errors(Block, v, "A").head.endsWith("unknown function in {{account-hash()}}"), v)
    // a transform outside an account (a stream's) refuses them, arguments or not
    for (dest <- Seq("t.{{account-hash()}}.$1", "t.{{account-hash(x)}}.$1")) {
      val e = intercept[InvalidTransformException](SubjectTransform.compile("s.*", dest, false, V2153))
      assert(e.reason.startsWith("invalid mapping destination: function is not available in this context in {{"))
    }
  }

  test("with no account given, a table or a transform that uses them says it needs one") {
    val e = intercept[InvalidMappingsException](MappingTable.compile(Block, V2153, null))
    assert(e.getMessage.contains("{{account-hash()}} is the hash of an account's name, and no account was given"))
    val t = SubjectTransform.compileForAccount("a.*", "b.{{account-hash()}}.$1", false, V2153,
      AccountFunctions.Context("B"))
    assert(t("a.x") == "b.b2oh2L6w.x")
    // a table loaded for an account: the load says nothing of it
    val block = subjxform.config.ConfSyntax.parseMappings(Block)
    assert(MappingTable.load(block, V2153, MappingSource.ConfigFile, "A").problems.filter(_.isError).isEmpty)
  }

  test("an export hashes its account, an import its own and its exporter's; a mapping's import function is refused") {
    val conf =
      """accounts {
        |  A: { mappings: { "orders.*": "orders.{{account-hash()}}.$1" }, exports: [{stream: "ev.{{account-hash()}}.>"}] }
        |  B: { imports: [{stream: {account: A, subject: "ev.{{account-hash-import()}}.>"},
        |                  to: "imp.{{account-hash-import()}}.{{account-hash()}}.>"}] }
        |}""".stripMargin
    val live = subjxform.config.Accounts.plan(conf, V2153)
    assert(live.errors.isEmpty, live.errors)
    // what the live 2.15.3 delivered to B for `ev.NUmM6cRx.z` published in A: imp.NUmM6cRx.b2oh2L6w.z
    val route = live.routes.head
    assert(route.filter == "ev.NUmM6cRx.>" && route.dest == "imp.NUmM6cRx.b2oh2L6w.>", route)
    val before = subjxform.config.Accounts.plan(conf, parse("2.15.1"))
    assert(before.errors.map(_.message).exists(_.contains("unknown function in {{account-hash()}}")), before.errors)
  }

  test("a stream refuses them with the codes a live 2.15.3 gave: ingress 10156, source 10146, mirror 10154, " +
    "republish 10052") {
    def refusal(json: String) =
      try { StreamConfig.plan(StreamConfigJson.parse(json), V2153); None }
      catch { case e: InvalidStreamConfigException => Some((e.description, e.errCode)) }
    val unavailable = "invalid mapping destination: function is not available in this context in {{account-hash()}}"
    assert(refusal("""{"name": "S1", "subjects": ["s1.*"], "subject_transform": {"src": "s1.*",
      "dest": "t1.{{account-hash()}}.$1"}}""").contains((s"stream transform: $unavailable", 10156)))
    assert(refusal("""{"name": "S3", "sources": [{"name": "S1", "subject_transforms": [{"src": "t1.>",
      "dest": "u.{{account-hash()}}.>"}]}]}""").contains((s"source transform: $unavailable", 10146)))
    assert(refusal("""{"name": "S4", "mirror": {"name": "S1", "subject_transforms": [{"src": "t1.>",
      "dest": "u.{{account-hash()}}.>"}]}}""").contains((s"mirror transform: $unavailable", 10154)))
    assert(refusal("""{"name": "S2", "subjects": ["s2.*"], "republish": {"src": "s2.*",
      "dest": "rp.{{account-hash()}}.$1"}}""").contains(
        ("stream configuration for republish with transform from 's2.*' to 'rp.{{account-hash()}}.$1' not valid", 10052)))
    assert(refusal("""{"name": "S5", "subjects": ["s5.*"], "subject_transform": {"src": "s5.*",
      "dest": "t5.{{account-hash(x)}}.$1"}}""").contains(
        ("stream transform: invalid mapping destination: function is not available in this context in " +
            "{{account-hash(x)}}", 10156)))
  }
}
