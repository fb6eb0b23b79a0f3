package subjxform.config

import org.scalatest.funsuite.AnyFunSuite

import subjxform.engine.{ServerVersion, SubjectTransform, Workspace}

/** Mapping tables as the NATS docs write them, rule choice, weights, clusters and validation. */
class MappingTableSuite extends AnyFunSuite {

  private def errorsOf(text: String): Seq[MappingProblem] =
    intercept[InvalidMappingsException](MappingTable.compile(text)).problems

  // The docs page's blocks (docs.nats.io, "Subject Mapping and Transforms"), pasted as they are.
  private val docsSimple =
    """mappings: {
      |    orders.flush  orders.central.flush 
      |	orders.* "orders.central.{{wildcard(1)}}"
      |}""".stripMargin
  private val docsCanary =
    """    myservice.requests: [
      |        { destination: myservice.requests.v1, weight: 98% },
      |        { destination: myservice.requests.v2, weight: 2% }
      |    ]""".stripMargin
  private val docsLoss = "foo.loss.>: [ { destination: foo.loss.>, weight: 50% } ]"
  private val docsSplitAndLoss =
    "myservice.requests: [{ destination: myservice.requests.v3, weight: 90% }, { destination: myservice.requests.v3.fail, weight: 8% }]"
  private val docsClusters =
    """mappings = {
      |        "foo":[
      |               {destination:"foo.west", weight: 100%, cluster: "west"},
      |               {destination:"foo.central", weight: 100%, cluster: "central"},
      |               {destination:"foo.east", weight: 100%, cluster: "east"}
      |        ]
      |}""".stripMargin

  test("the docs' simple block, with its wildcard destination quoted") {
    val t = MappingTable.compile(docsSimple)
    assert(t("orders.flush") == "orders.central.flush")
    assert(t("orders.42") == "orders.central.42")
    assert(t("billing.42") == "billing.42")
    assert(!t.isRandom)
  }

  test("an unquoted {{...}} destination is refused with a message that says to quote it") {
    val text = "orders.flush  orders.central.flush\norders.* orders.central.{{wildcard(1)}}\n"
    val p = errorsOf(text)
    assert(p.size == 1)
    assert(p.head.message.contains("put the destination in quotes: \"orders.central.{{wildcard(1)}}\""), p.head.message)
    assert(p.head.message.contains("\"orders.central.{{wildcard(1)\""))
    // the docs' traffic-shaping line has the same problem inside entries
    val shaping = "myservice.requests.*: [{ destination: myservice.requests.{{wildcard(1)}}, weight: 80% }, " +
      "{ destination: myservice.requests.fail.{{wildcard(1)}}, weight: 20% }]"
    assert(
      errorsOf(shaping).head.message.contains("put the destination in quotes: \"myservice.requests.{{wildcard(1)}}\""))
    // the fix proposed is the whole destination, its function's commas and what follows it included
    val sharded = errorsOf("shard.*.*: shard.{{partition(8,1,2)}}.$1.$2\n").head.message
    assert(sharded.contains(
        """(here "shard.{{partition(8"); put the destination in quotes: "shard.{{partition(8,1,2)}}.$1.$2""""),
      sharded)
    assert(errorsOf("{a.*: b.{{wildcard(1)}}}").head.message.endsWith("""quotes: "b.{{wildcard(1)}}""""))
  }

  test("one rule, never applied again: the docs' loop example") {
    val t = MappingTable.compile("transform.order target.order\n\ttarget.order transform.order\n")
    assert(t("transform.order") == "target.order")
    assert(t("target.order") == "transform.order")
  }

  test("a literal rule equal to the subject wins; then the first matching wildcard rule in written order") {
    val t = MappingTable.compile("""{"a.*": "first.$1", "a.>": "second.>", "a.b": "literal", "*.b": "third"}""")
    assert(t("a.b") == "literal")
    assert(t("a.c") == "first.c")
    assert(t("a.c.d") == "second.c.d")
    assert(t("x.b") == "third")
    val reordered = MappingTable.compile("""{"a.>": "second.>", "a.*": "first.$1"}""")
    assert(reordered("a.c") == "second.c")
  }

  test("JSON, nats-server config syntax and the block with braces read alike") {
    val forms = Seq(
      """{"orders.*": "o.{{wildcard(1)}}", "x": [{"destination": "y", "weight": "100%"}]}""",
      """orders.* = "o.{{wildcard(1)}}"; x: [ {dest: y, weight: 100} ]""",
      "{\n  # comment\n  'orders.*' : 'o.{{wildcard(1)}}' // another\n  x [{destination = y, weight = \"100%\"}]\n}",
      "mappings {\n orders.*: \"o.$1\"\n x: {destination: y, weight: 100%}\n}")
    for (f <- forms) {
      val t = MappingTable.compile(f)
      assert(t("orders.9") == "o.9", f)
      assert(t("x") == "y", f)
    }
  }

  test("weights: nats-server's draw, reproducible with a seed, and a binomial test over 100k draws") {
    val t = MappingTable.compile(docsCanary)
    assert(t.isRandom)
    val n = 100000
    def draws(seed: Long) = { val ws = new Workspace(seed); Seq.fill(n)(t("myservice.requests", null, ws)) }
    val a = draws(42)
    assert(a == draws(42))
    assert(a != draws(43))
    val counts = a.groupBy(identity).map { case (k, v) => k -> v.size }
    assert(counts.keySet == Set("myservice.requests.v1", "myservice.requests.v2"))
    // Each count is Binomial(n, p): mean n*p, sd sqrt(n*p*(1-p)); allow 5 sd (a false alarm ~ 6e-7).
    for ((dest, p) <- Seq("myservice.requests.v1" -> 0.98, "myservice.requests.v2" -> 0.02)) {
      val sd = math.sqrt(n * p * (1 - p))
      assert(math.abs(counts(dest) - n * p) <= 5 * sd, s"$dest: ${counts(dest)} of $n, expected ${n * p} +- ${5 * sd}")
    }
  }

  test("artificial loss: the source listed as a destination drops the remainder (NULL)") {
    val loss = MappingTable.compile(docsLoss)
    val ws = new Workspace(1)
    val results = Seq.fill(20000)(loss("foo.loss.a", null, ws))
    assert(results.toSet == Set("foo.loss.a", null))
    val dropped = results.count(_ == null)
    assert(math.abs(dropped - 10000) <= 5 * math.sqrt(20000 * 0.25))

    val split = MappingTable.compile(docsSplitAndLoss)
    val r = Seq.fill(20000)(split("myservice.requests", null, ws)).groupBy(identity).map { case (k, v) => k -> v.size }
    // Not listed: the 2% left keep the subject unchanged.
    assert(r.keySet == Set("myservice.requests.v3", "myservice.requests.v3.fail", "myservice.requests"))
    assert(MappingTable.compile("one: [{destination: one, weight: 0%}]")("one") == null)
    assert(MappingTable.compile("""{"one": []}""")("one") == "one")
  }

  test("cluster scope: the cluster's destinations, else the cluster-less ones, else unchanged") {
    val t = MappingTable.compile(docsClusters)
    assert(t("foo", "west") == "foo.west")
    assert(t("foo", "east") == "foo.east")
    assert(t("foo", "north") == "foo")
    assert(t("foo") == "foo")
    val withDefault = MappingTable.compile(
      "foo: [{destination: foo.west, weight: 100%, cluster: west}, {destination: foo.any, weight: 100%}]")
    assert(withDefault("foo", "west") == "foo.west")
    assert(withDefault("foo", "south") == "foo.any")
    assert(withDefault("foo", "") == "foo.any")
  }

  test("what a nats-server 2.15.1 in a cluster delivered (probed by publishing through it)") {
    // Cluster "east", the source listed only for "west": nats-server delivered none of 20 messages.
    val sourceInWest = MappingTable.compile("foo: [{destination: foo, weight: 100%, cluster: west}]")
    assert(sourceInWest("foo", "east") == null && sourceInWest("foo") == null)
    assert(sourceInWest("foo", "west") == "foo")
    // Another destination for "west": east keeps the subject.
    val otherInWest = MappingTable.compile("foo: [{destination: bar, weight: 100%, cluster: west}]")
    assert(otherInWest("foo", "east") == "foo" && otherInWest("foo", "west") == "bar")
    // A source token like `*x` matches any token, and the remainder delivers the literal source.
    val quirk = MappingTable.compile("\"a.*x\": [{destination: q, weight: 50%}]")
    val ws = new Workspace(3)
    assert(Seq.fill(200)(quirk("a.b", null, ws)).toSet == Set("q", "a.*x"))
  }

  test("a subject that is not a literal subject gives NULL") {
    val t = MappingTable.compile("""{">": "x.>"}""")
    assert(t("a..b") == null && t("a.*") == null && t("") == null)
    assert(t("a.b") == "x.a.b")
  }

  test("invalid tables: nats-server's message, its rule and destination; every error listed") {
    val p = errorsOf("""a.*: [{destination: "b.{{wildcard(2)}}", weight: 50}]
                       |c: [{destination: d, weight: 101%}, {destination: e, weight: 10}]
                       |"bad subject": x
                       |f: [{destination: g, weight: 60}, {destination: h, weight: 50}]""".stripMargin)
    val byRule = p.map(x => x.rule -> x).toMap
    assert(byRule("a.*").message.startsWith(
        "Error adding mapping for \"a.*\" : invalid mapping destination: wildcard index out of range in {{wildcard(2)}}"))
    assert(byRule("a.*").destination == "b.{{wildcard(2)}}")
    assert(byRule("c").message == "Invalid weight 101 for mapping destination" && byRule("c").destination == "d")
    assert(byRule("bad subject").message == "Subject \"bad subject\" is not a valid subject")
    assert(byRule("f").message == "Error adding mapping for \"f\" : total weight needs to be <= 100" && byRule(
      "f").destination == "h")
    val e = intercept[InvalidMappingsException](MappingTable.compile("c: [{destination: d, weight: 101%}]"))
    assert(e.getMessage == "invalid mappings: rule \"c\", destination \"d\": Invalid weight 101 for mapping destination")
    assert(errorsOf("x: [{destination: y, weight: 50.5}]").head.message == "Unknown entry type for weight of 50.5")
    assert(
      errorsOf("x: [{destination: y, weight: \"5%%\"}]").head.message == "Invalid weight \"5%\" for mapping destination")
    assert(errorsOf("x: $1").head.message.contains("variable reference for '1' on line 1 can not be found"))
    assert(errorsOf("x: [1, 2").head.message.startsWith("Parse error on line 1"))
    // same destination in two clusters is a duplicate for nats-server too
    assert(errorsOf("x: [{destination: y, weight: 100, cluster: a}, {destination: y, weight: 100, cluster: b}]")
      .head.message == "Error adding mapping for \"x\" : duplicate entry for \"y\"")
  }

  test("validate: warnings for overlapping rules and repeated rules, none for a clean table") {
    assert(MappingTable.validate(docsSimple).map(_.severity) == Seq("warning"))
    val overlap = MappingTable.validate("""{"a.*": "x.$1", "*.b": "y.$1", "c.>": "z.>", "c.d": "w"}""")
    assert(overlap.forall(_.severity == "warning"))
    val msgs = overlap.map(_.message)
    assert(msgs.exists(m =>
        m.contains("\"*.b\" overlaps rule \"a.*\"") && m.contains("\"a.b\"") && m.contains("applies \"a.*\"")))
    assert(msgs.exists(m => m.contains("\"c.d\" overlaps rule \"c.>\"") && m.contains("applies \"c.d\"")))
    assert(msgs.exists(m => m.contains("\"c.>\" overlaps rule \"*.b\"") && m.contains("\"c.b\"")))
    assert(overlap.size == 3)
    assert(MappingTable.validate("""{"a.*": "x.$1", "b.*": "y.$1", "a.*.c": "z"}""").isEmpty)
    val repeated = MappingTable.validate("a: b\na: c")
    assert(repeated.map(_.message) == Seq(
      "rule \"a\" is written more than once: the last one replaces the others (as in nats-server)"))
    assert(MappingTable.compile("a: b\na: c")("a") == "c")
    assert(MappingTable.validateJson("a: [{destination: b, weight: 101}]") ==
      """[{"rule":"a","destination":"b","severity":"error","message":"Invalid weight 101 for mapping destination"}]""")
  }

  test("a table without weights or random() is deterministic; a literal-source partition hashes the subject") {
    val t = MappingTable.compile("""{"orders": "p.{{partition(10)}}", "x.*": "y.{{random(5)}}"}""")
    assert(t.isRandom)
    assert(!MappingTable.compile("""{"orders": "p.{{partition(10)}}"}""").isRandom)
    assert(t("orders") == SubjectTransform.compile("orders", "p.{{partition(10)}}")("orders"))
    assert(!MappingTable.compile("a: [{destination: b, weight: 100}, {destination: c, weight: 0}]").isRandom)
  }

  // The issue-48 account's rules: 2.11 knows neither left() nor partition() of the whole subject.
  private val jwtTable =
    """{"orders.*": [{"subject": "orders.v1.$1", "weight": 95}, {"subject": "orders.v2.$1", "weight": 5}],
      | "wh.*.*": [{"subject": "wh.{{left(1,2)}}.$2"}],
      | "whole.>": [{"subject": "whole.{{partition(4)}}.>"}]}""".stripMargin

  test("a table in an account JWT's shape loads as nats-server loads a JWT: rule by rule, a refused one left out") {
    val block = ConfSyntax.parseMappings(jwtTable)
    assert(MappingSource.of(block) == MappingSource.AccountJwt)
    assert(MappingSource.of(ConfSyntax.parseMappings("a.*: b.$1")) == MappingSource.ConfigFile)
    val on211 = MappingTable.load(block, ServerVersion.parse("2.11"), MappingSource.AccountJwt)
    assert(!on211.refused && on211.applied == Seq("orders.*"))
    assert(on211.leftOut.map(_._1) == Seq("wh.*.*", "whole.>"))
    assert(on211.leftOut.head._2.endsWith("unknown function in {{left(1,2)}}"))
    assert(on211.problems.forall(_.severity == "warning"))
    assert(on211.problems.head.message.endsWith(": nats-server 2.11 loads the account without this rule"))
    // applied (subject_map) and validated alike: 2.11 keeps the subject of a rule it left out
    val t211 = MappingTable.compile(jwtTable, ServerVersion.parse("2.11"))
    assert(t211("wh.apacwx.delivered") == "wh.apacwx.delivered" && t211("whole.eu.w031") == "whole.eu.w031")
    assert(MappingTable.compile(jwtTable)("wh.apacwx.delivered") == "wh.ap.delivered")
    assert(MappingTable.validate(jwtTable, ServerVersion.parse("2.11")).count(_.severity == "warning") == 2)
    // the same rules in a config file: the server refuses the file, whole
    val asConfig = MappingTable.load(block, ServerVersion.parse("2.11"), MappingSource.ConfigFile)
    assert(asConfig.refused)
  }

  test("an account JWT's claims nats-io/jwt refuses: the account is refused, not a rule left out") {
    for ((table, error) <- Seq(
        """{"w": [{"subject": "w1"}, {"subject": "w2"}]}""" -> "Mapping \"w\" exceeds 100% among all of it's weighted",
        """{"w": [{"subject": "w 1"}]}""" -> "subject \"w 1\" cannot have spaces",
        """{"w": [{"subject": "w1", "weight": 300}]}""" -> "must be an integer 0..255",
        """{"w": [{"subject": "w1", "weight": 101}]}""" -> "has a weight 101 that exceeds 100")) {
      val err = intercept[InvalidMappingsException](MappingTable.compile(table))
      assert(err.getMessage.contains(error) && err.getMessage.contains("nats-server refuses the account"), table)
    }
    // a subject nats-io/jwt passes and the server's AddWeightedMappings refuses: that rule is left out
    val load = MappingTable.load(ConfSyntax.parseMappings("""{"a.>.b": [{"subject": "c"}], "d": [{"subject": "e"}]}"""),
      ServerVersion.Newest, MappingSource.AccountJwt)
    assert(load.applied == Seq("d") && load.leftOut.map(_._1) == Seq("a.>.b"))
  }

  test("a config file's entry in a JWT's shape is refused as nats-server refuses it") {
    val block = ConfSyntax.parseMappings("""a.*: [{destination: "b.$1", weight: 50%}, {subject: "c.$1"}]""")
    assert(MappingSource.of(block) == MappingSource.ConfigFile)
    assert(MappingTable.load(block, ServerVersion.Newest, MappingSource.ConfigFile).problems.exists(p =>
        p.isError && p.message == "Unknown field \"subject\" for mapping destination"))
  }

  test("a destination the release's server crashes on is a crash: loaded, and its process exits") {
    val v = ServerVersion.parse("2.11")
    val crash = MappingTable.validate("k.*: \"k.{{partition(0,1)}}\"", v)
    assert(crash.map(_.severity) == Seq("crash"))
    assert(crash.head.message == "nats-server 2.11's process exits on the first message this destination maps " +
      "({{partition(0,1)}}: panic: runtime error: integer divide by zero): the whole server goes down, with every " +
      "account's traffic, not only this message")
    val t = MappingTable.compile("k.*: \"k.{{partition(0,1)}}\"", v) // loaded: subject_map gives NULL
    assert(t("k.x") == null)
    assert(t.explain("k.x", null, new Workspace).outcomeName == "crash")
    assert(MappingTable.validate("k.*: \"k.{{partition(0,1)}}\"").isEmpty) // 2.12 on: 0
  }
}
