package subjxform.config

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files

import org.scalatest.funsuite.AnyFunSuite

class AccountsSuite extends AnyFunSuite {

  private def plan(conf: String): AccountsPlan = Accounts.plan(conf)
  private def errors(conf: String): Seq[String] = plan(conf).errors.map(p => s"${p.field}: ${p.message}")

  test("a stream import's `to`, its prefix and a service import's reverse transform become routes") {
    val p = plan(
      """accounts {
        |  A: { exports: [{stream: "foo.*.*"}, {stream: "pre.>"}, {stream: "news"}, {service: "svc.*.*"}] }
        |  B: { imports: [{stream: {account: A, subject: "foo.*.*"}, to: "bar.$2.$1"},
        |                 {stream: {account: A, subject: "pre.>"}, prefix: "p"},
        |                 {stream: {account: A, subject: "news"}, to: "a_news"},
        |                 {service: {account: A, subject: "svc.*.*"}, to: "local.$2.$1"}] }
        |}""".stripMargin)
    assert(p.errors.isEmpty)
    assert(p.routes.map(r => (r.kind, r.importer, r.exporter, r.filter, r.src, r.dest, r.literal)) == Seq(
      ("stream", "B", "A", "foo.*.*", "foo.*.*", "bar.$2.$1", null),
      ("stream", "B", "A", "pre.>", "pre.>", "p.pre.>", null),
      ("stream", "B", "A", "news", "news", "", "a_news"),
      ("service", "B", "A", "local.*.*", "local.*.*", "svc.$2.$1", null)))
  }

  test("nats-server's errors, in its words: strict transforms, not exported, unknown accounts, prefix") {
    val base = """A: { exports: [{stream: "foo.*.*"}, {service: "svc.*"}] }"""
    def one(imports: String) = errors(s"accounts { $base\n B: { imports: [$imports] } }")
    assert(one("""{stream: {account: A, subject: "foo.*.*"}, to: "bar.$1"}""") == Seq("accounts.B.imports[0]: " +
      """Error adding stream import "foo.*.*": failed to create mapping transform for stream import subject from "foo.*.*" """ +
      """to "bar.$1": invalid mapping destination: not using all of the token wildcard(s) in bar.$1"""))
    assert(one("""{stream: {account: A, subject: "baz.*"}}""") ==
      Seq("""accounts.B.imports[0]: Error adding stream import "baz.*": stream import not authorized"""))
    assert(one("""{service: {account: A, subject: "foo.*.*"}}""") ==
      Seq("""accounts.B.imports[0]: Error adding service import "foo.*.*": service import not authorized"""))
    assert(one("""{stream: {account: Z, subject: "foo.*.*"}}""") ==
      Seq("""accounts.B.imports[0]: "Z" account not defined for stream import"""))
    assert(one("""{stream: {account: A, subject: "foo.*.*"}, prefix: "p.*"}""") ==
      Seq("""accounts.B.imports[0]: Error adding stream import "foo.*.*": stream import prefix can not contain wildcard tokens"""))
    assert(one("""{stream: {account: A}}""") == Seq("accounts.B.imports[0]: Expect an account name and a subject"))
  }

  test("a preloaded JWT that does not decode, an import's share that is no bool: -t's words on the entry's line") {
    // server/jwt_test.go's `resolver_preload: { %s: %s }`: what 2.10.26's and 2.15.1's -t say, on each entry's line
    val preload = "listen: 127.0.0.1:-1\nresolver: MEM\nresolver_preload: {\n  ADVW: notajwt\n  BDVW: 5\n}\n"
    assert(plan(preload).errors.map(p => (p.at.line, p.message)) ==
      Seq((4, "invalid account JWT"), (5, "preload map value should be a string JWT")))
    // server/accounts_test.go's user in two accounts: 2.10.26's and 2.15.1's -t name the second account's users
    val twice = "\naccounts {\n  synadia {\n    users = [\n      {user: alice, password: foo}\n      " +
      "{user: bob, password: bar}\n    ]\n  }\n  nats.io {\n    users = [\n      {user: alice, password: bar}\n" +
      "    ]\n  }\n}\n"
    assert(plan(twice).errors.map(p => (p.at.line, p.message)) == Seq((10, "Duplicate user \"alice\" detected")))
    // test/service_latency_test.go's `share:%t`, on the import's own line (read while the import is)
    val share = "accounts {\n  SVC: { exports: [{service: \"svc.echo\"}] }\n  CLIENT: { imports: [ {service: " +
      "{account: SVC, subject: svc.echo}, to: SVC, share:%t} ] }\n}\n"
    assert(plan(share).errors.map(p => (p.at.line, p.message)) ==
      Seq((3, "interface conversion: interface {} is string, not bool")))
  }

  test("exports and imports are checked only when the accounts read without error, as nats-server does") {
    val e =
      errors("""accounts { A: { mappings: { "a.*": "b.$2" } }, B: { imports: [{stream: {account: Z, subject: x}}] } }""")
    assert(e.size == 1 && e.head.startsWith("accounts.A.mappings: rule \"a.*\""))
  }

  test("a config with imports and no mappings block, and the top-level mappings as account $G") {
    val p = plan("""mappings { "g.*": "h.$1" }
                   |accounts { A: { exports: [{stream: "x"}] }, B: { imports: [{stream: {account: A, subject: x}}] } }""".stripMargin)
    assert(p.errors.isEmpty && p.routes.size == 1)
    assert(p.toJson.contains(""""name":"$G","id":"$G","mappings":"{\"g.*\": \"h.$1\"}""""))
  }

  test("include is read relative to the including file; variables from the config, then the environment") {
    val dir = Files.createTempDirectory("accounts")
    Files.createDirectories(dir.resolve("sub"))
    Files.write(dir.resolve("sub/b.conf"),
      "B: { imports: [{stream: {account: A, subject: $SUBJ_FROM_ENV}}] }\n".getBytes(UTF_8))
    val main = dir.resolve("main.conf")
    Files.write(main,
      "EXPORTED = \"foo.*\"\naccounts {\n  A: { exports: [{stream: $EXPORTED}] }\n  include sub/b.conf\n}\n".getBytes(
        UTF_8))
    val env = Map("SUBJ_FROM_ENV" -> "foo.x")
    val file = ConfSyntax.parseFile(main.toString, env.get)
    val p = Accounts.fromDocument(file.root)
    assert(p.errors.isEmpty)
    assert(p.routes.map(_.filter) == Seq("foo.x"))
    val b = p.accounts.find(_.name == "B").get
    assert(file.fileOf(b.at) == dir.resolve("sub/b.conf").toString && file.fileOf(p.accounts.head.at) == main.toString)
    // The included file does not see the including file's variables (nats-server parses it on its own).
    Files.write(dir.resolve("sub/b.conf"),
      "B: { imports: [{stream: {account: A, subject: $EXPORTED}}] }\n".getBytes(UTF_8))
    val e = intercept[ConfSyntaxException](ConfSyntax.parseFile(main.toString, env.get))
    assert(
      e.getMessage == "error parsing include file 'sub/b.conf', variable reference for 'EXPORTED' on line 1 can not be " +
        "found (an included file sees none of the variables of the file that includes it)")
    // Without a file there is nothing to include relative to.
    assert(intercept[ConfSyntaxException](ConfSyntax.parseDocument("include x.conf\n")).getMessage.contains(
        "error parsing include file 'x.conf', a config read as text includes no files"))
  }

  test("a variable of the accounts block used by an account is skipped, as nats-server skips it; a mappings that is not a map is refused") {
    val used = Accounts.fromDocument(ConfSyntax.parseDocument(
        "accounts {\n  PASS: secret\n  A: { users: [{user: a, password: $PASS}], mappings: { \"x.*\": \"y.$1\" } }\n}\n"))
    assert(used.errors.isEmpty && used.accounts.map(_.name) == Seq("A"))
    val unused = Accounts.fromDocument(ConfSyntax.parseDocument("accounts {\n  PASS: secret\n  A: {}\n}\n"))
    assert(unused.errors.map(_.message) == Seq("Expected map entries for accounts"))
    for ((text, goType) <- Seq("mappings: [{foo: bar}]" -> "[]interface {}", "mappings: 5" -> "int64",
        "accounts { A: { mappings: \"x\" } }" -> "string"))
      assert(
        Accounts.fromDocument(ConfSyntax.parseDocument(text)).errors.map(_.message) ==
          Seq(s"interface conversion: interface {} is $goType, not map[string]interface {}"), text)
  }

  test("JWT claims: mappings in their shape (0 and missing weights are 100), imports and exports by public key") {
    val claims = (name: String, key: String, nats: String) =>
      s"""{"sub": "$key", "name": "$name", "nats": {"type": "account", $nats}}"""
    val a = claims("A", "AKEYA",
      """"exports": [{"type": "stream", "subject": "foo.*"}], "mappings": {"w": [{"subject": "w1"}], "z": [{"subject": "z1", "weight": 0}]}""")
    val b = claims("B", "AKEYB",
      """"imports": [{"type": "stream", "account": "AKEYA", "subject": "foo.*", "local_subject": "bar.$1"}, {"type": "stream", "account": "AKEYA", "subject": "foo.*", "to": "p"}]""")
    val p = Accounts.plan(s"[$a, $b]")
    assert(p.jwtMode)
    // the second import of the same subject: nats-server leaves it out (it only logs it): a warning
    assert(p.errors.isEmpty && p.problems.map(_.message) == Seq(
      """Error adding stream import "foo.*": stream import already exists (nats-server loads the account without it)"""))
    assert(p.routes.map(r => (r.importer, r.exporter, r.dest)) == Seq(("B", "A", "bar.$1")))
    val table = MappingTable.compile(ConfValue.confText(p.accounts.head.mappings.get))
    assert(table("w") == "w1" && table("z") == "z1")
    val refused = Accounts.plan(claims("A", "AKEYA", """"mappings": {"w": [{"subject": "w1"}, {"subject": "w2"}]}"""))
    assert(refused.errors.map(_.message) == Seq(
      """rule "w": Mapping "w" exceeds 100% among all of it's weighted to mappings: nats-server refuses the account (account validation failed)"""))
  }
}
