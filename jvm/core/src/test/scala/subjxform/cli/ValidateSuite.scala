package subjxform.cli

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, PrintStream}
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files

import org.scalatest.funsuite.AnyFunSuite

import subjxform.config.ConfSyntax
import subjxform.engine.ServerVersion

class ValidateSuite extends AnyFunSuite {
  private val Q = "\"" // a quote inside s"...": Scala 2.12 reads no \" there

  /** How a valid file's line starts by default: the newest line's measured release (ServerVersion.LineReleases). */
  private val V = "valid for nats-server 2.15.1 (the 2.15 line's release)"

  /** Exit code and printed lines of `validate` on `text`. */
  private def validate(text: String, forced: Option[Validate.Kind] = None,
      version: ServerVersion = ServerVersion.Newest): (Int, Seq[String]) = {
    val bytes = new ByteArrayOutputStream
    val out = new PrintStream(bytes, true, UTF_8.name)
    val code = Validate.run(text, "f.conf", forced, out, version = version)
    (code, new String(bytes.toByteArray, UTF_8).linesIterator.toSeq)
  }

  test("a file with a server option at its top level is a server config, whatever its length (as -t reads it)") {
    // nats-server -t (every line): valid; a mappings block's reading refused it (rule "max_payload").
    assert(validate("max_payload: 67108864\n") == (0, Seq(s"$V: a server config of 1 top-level field")))
    // 2.10.26 has no default_sentinel (2.11 added it): -t 2.10.26 says unknown field, 2.11.11 valid.
    assert(validate("default_sentinel: \"x\"\n", version = ServerVersion.parse("2.10.26")) ==
      (1, Seq("f.conf:1:0: error: unknown field \"default_sentinel\"",
        "f.conf: 1 error (a server config of 1 top-level field): nats-server 2.10.26 would not accept it")))
    assert(validate("default_sentinel: \"x\"\n", version = ServerVersion.parse("2.11")) ==
      (0, Seq("valid for nats-server 2.11.11 (the 2.11 line's release): a server config of 1 top-level field")))
    // per release, not per line: 2.11.2 added default_sentinel, 2.10.26 max_closed_clients (their binaries' -t)
    assert(validate("default_sentinel: \"x\"\n", version = ServerVersion.parse("2.11.1"))._1 == 1)
    assert(validate("default_sentinel: \"x\"\n", version = ServerVersion.parse("2.11.2"))._1 == 0)
    assert(validate("max_closed_clients: 10\n", version = ServerVersion.parse("2.10.25"))._2.head ==
      "f.conf:1:0: error: unknown field \"max_closed_clients\"")
    assert(validate("max_closed_clients: 10\n", version = ServerVersion.parse("2.10.26"))._1 == 0)
    // Permission variables nothing uses: each an unknown field, on its line (-t: 1:0, 5:1).
    val (code, lines) = validate("ADMIN = {\n  publish = \">\"\n  subscribe = \">\"\n}\nDEFAULT_PERMISSIONS = {\n" +
      "  publish = \"SANDBOX.*\"\n}\n")
    assert(code == 1 && lines.take(2) == Seq("f.conf:1:0: error: unknown field \"ADMIN\"",
      "f.conf:5:1: error: unknown field \"DEFAULT_PERMISSIONS\""))
  }

  test("a block of settings with a destination's key in it is no weighted destination: a server config's field") {
    // nats-streaming-server's config (its test_parse.conf's shape): -t (every line) says unknown field "streaming" on
    // 1:0; read as a mappings block it was rule "streaming" with an unknown field "id"
    val streaming = "streaming: {\n  id: \"me\"\n  cluster: { node_id: \"a\" }\n  store_limits: { max_msgs: 12 }\n}\n"
    assert(validate(streaming) == (1, Seq("f.conf:1:0: error: unknown field \"streaming\"",
      "f.conf: 1 error (a server config of 1 top-level field): nats-server 2.15.1 would not accept it")))
    // a file of variables whose values have dots (nats-server's conf/includes/passwords.conf: bcrypt hashes): -t
    // reads it as a server config, each an unknown field (2:1, 3:1); it was read as 2 mappings, valid
    val passwords = "# foo & bar\nALICE_PASS: $2a$10$UHR6GhotWhpLsKtVP0/i6.Nh9.fuY73cWjLoJjb2sKT8KISBcUW5q\n" +
      "BOB_PASS: $2a$11$dZM98SpGeI7dCFFGSpt.JObQcix8YHml4TBUZoge9R1uxnMIln5ly\n"
    val (passwordsCode, passwordsLines) = validate(passwords)
    assert(passwordsCode == 1 && passwordsLines.head.startsWith("f.conf: note: read as a server config") &&
      passwordsLines.slice(1, 3) == Seq("f.conf:2:1: error: unknown field \"ALICE_PASS\"",
        "f.conf:3:1: error: unknown field \"BOB_PASS\""))
    // a wildcard's reference in a destination still reads as a mapping
    assert(validate("orders: \"orders.$1\"\n")._2.exists(_.contains("rule \"orders\"")))
    // a weighted destination with its cluster is still one
    assert(validate("\"a.*\": [ { destination: \"b.$1\", weight: 100%, cluster: c1 } ]\n")._1 == 0)
  }

  test("an error nats-server names no line for is given without one, with the entry it is in") {
    // -t 2.15.1: `nats-server: Expected permissions to be a map/struct, got 5` (parseUserPermissions is handed the
    // value without its token), and a publish subject of two words: `subject "not ok" is not a valid subject`
    assert(validate("cluster {\n  port: 6222\n  permissions: 5\n}\n")._2.head ==
      "f.conf: error: cluster.permissions: Expected permissions to be a map/struct, got 5")
    val twoWords = "authorization {\n  users: [ {user: a, password: b, permissions: {publish: [\"not ok\"]}} ]\n}\n"
    assert(validate(twoWords)._2.head ==
      "f.conf: error: authorization.users[0].permissions.publish: subject \"not ok\" is not a valid subject")
    // 2.14.3 takes two words there (its checkPermSubjectArray has no allowQueue: its binary's -t says valid)
    assert(validate(twoWords, version = ServerVersion.parse("2.14.3"))._1 == 0)
  }

  test("a server config's TLS files are read, counted in the summary, and left alone with --no-file-checks") {
    val certs = subjxform.engine.Golden.root.resolve("tests/validate_corpus/certs")
    val good = s"tls {\n  cert_file: $Q$certs/server-cert.pem$Q\n  key_file: $Q$certs/server-key.pem$Q\n}\n"
    assert(validate(good) == (0, Seq(s"$V: a server config of 1 top-level field, 1 TLS block, 2 files read")))
    val missing = "port: 4222\ntls {\n  cert_file: \"/nonexistent/c.pem\"\n  key_file: \"/nonexistent/k.pem\"\n}\n"
    assert(validate(missing) == (1, Seq(
      "f.conf:2:1: error: tls: error parsing X509 certificate/key pair: open " +
        "/nonexistent/c.pem: no such file or directory",
      "f.conf: 1 error (a server config of 2 top-level fields, 1 TLS block, 2 files read): " +
        "nats-server 2.15.1 would not accept it")))
    val bytes = new ByteArrayOutputStream
    val code = Validate.run(missing, "f.conf", None, new PrintStream(bytes, true, UTF_8.name), readFiles = false)
    assert((code, new String(bytes.toByteArray, UTF_8).trim) ==
      (0, s"$V: a server config of 2 top-level fields, 1 TLS block, files not read (--no-file-checks)"))
  }

  test("a file where nothing reads as a mapping is read as the server reads it, and says so; --mappings decides") {
    val (code, lines) = validate("foo = bar\n")
    assert(code == 1)
    assert(lines.head.startsWith("f.conf: note: read as a server config: nothing in it reads as a mapping"))
    assert(lines(1) == "f.conf:1:0: error: unknown field \"foo\"")
    assert(validate("foo = bar\n", Some(Validate.Mappings)) == (0, Seq(s"$V: 1 mapping")))
    assert(validate("foo = 5\n", Some(Validate.Mappings))._2.contains("f.conf:1:0: error: unknown field \"foo\""))
    assert(validate("\"foo.*\" = bar.$1\n") == (0, Seq(s"$V: 1 mapping")))
  }

  test("a valid block's content, with or without `mappings` around it, is valid, with its rule count") {
    val body = """orders.* "orders.central.{{wildcard(1)}}"
                 |svc: [{destination: svc.v1, weight: 98%}, {destination: svc.v2, weight: 2%}]""".stripMargin
    assert(validate(body) == (0, Seq(s"$V: 2 mappings")))
    assert(validate(s"mappings {\n$body\n}") == (0, Seq(s"$V: 2 mappings")))
    assert(validate("""{"a.*": "b.$1"}""") == (0, Seq(s"$V: 1 mapping")))
  }

  test("every error is listed with its line and column (its key's, as nats-server's token), rule, destination and nats-server's message; exit code 1") {
    val (code, lines) = validate(
      """"a.*": "b.$2"
        |ok: fine
        |"c..d": x
        |"e.*": [{destination: "e.{{partition(2,1)}}", weight: 60}, {destination: "f.$1", weight: 50}]
        |""".stripMargin)
    assert(code == 1)
    assert(lines == Seq(
      """f.conf:1:1: error: rule "a.*", destination "b.$2": Error adding mapping for "a.*" to "b.$2" : """ +
        "invalid mapping destination: wildcard index out of range in $2: [2]",
      """f.conf:3:2: error: rule "c..d": Subject "c..d" is not a valid subject""",
      """f.conf:4:2: error: rule "e.*", destination "f.$1": Error adding mapping for "e.*" : total weight needs to be <= 100""",
      "f.conf: 3 errors (4 mappings): nats-server 2.15.1 would not accept it"))
  }

  test("each problem at the line and column nats-server -t names: a bad subject's block, a destination's field") {
    // measured with nats-server 2.15.1 -t: u.conf:2:1 (the block), 4:31 (weight), 4:47 (the list's item), 5:30 (wait)
    val conf = "port: 4222\nmappings {\n  \"c..d\": x\n  n.*: [{destination: \"n.$1\", weight: \"x%\"}, \"q\"]\n" +
      "  w.*: {destination: \"w.$1\", wait: 5}\n}\n"
    val (code, lines) = validate(conf)
    assert(code == 1)
    assert(lines.init.map(_.split(": error: ")(0)) == Seq("f.conf:2:1", "f.conf:4:31", "f.conf:4:47", "f.conf:5:30"),
      lines)
    assert(lines.init.map(_.split(": ").last) == Seq("Subject \"c..d\" is not a valid subject",
        "Invalid weight \"x\" for mapping destination", "Expected an entry for the mapping destination",
        "Unknown field \"wait\" for mapping destination"), lines)
  }

  test("warnings alone keep the exit code 0") {
    val (code, lines) = validate("\"a.>\": \"b.>\"\n\"a.x\": c\n")
    assert(code == 0)
    assert(lines.head.startsWith("""f.conf:2:2: warning: rule "a.x": rule "a.x" overlaps rule "a.>""""))
    assert(lines.last == s"$V: 2 mappings, 1 warning")
  }

  test("a server config: the top-level block and every account's block, labelled") {
    val conf =
      """port: 4222
        |mappings { "a.*": "b.$1" }
        |accounts {
        |  A: { users: [{user: a, password: a}], mappings: { "x.*": "y.$2" } }
        |  B: { maps: { q: r } }
        |  C: {}
        |}
        |""".stripMargin
    val (code, lines) = validate(conf)
    assert(code == 1)
    assert(lines == Seq(
      """f.conf:4:54: error: accounts.A.mappings: rule "x.*", destination "y.$2": Error adding mapping for "x.*" to "y.$2" : """ +
        "invalid mapping destination: wildcard index out of range in $2: [2]",
      "f.conf: 1 error (a server config of 3 top-level fields, 3 accounts, 3 mappings in mappings, " +
        "accounts.A.mappings, accounts.B.maps): nats-server 2.15.1 would not accept it"))
    // nats-server accepts a config without any mappings block (imports alone route messages too).
    assert(validate("port: 4222\njetstream: {}\n") == (0, Seq(s"$V: a server config of 2 top-level fields")))
  }

  test("stream configs are recognised by their fields; nats-server's first error names the field") {
    val ok = """{"name": "orders", "subjects": ["orders.local.*"],
               | "subject_transform": {"src": "orders.local.*", "dest": "orders.{{wildcard(1)}}"}}""".stripMargin
    assert(validate(ok) == (0, Seq(
      s"$V: stream " + """"orders" (1 subject, subject_transform "orders.local.*" -> "orders.{{wildcard(1)}}")""")))
    val info = s"""{"config": $ok, "state": {"messages": 0}}"""
    assert(validate(info)._1 == 0)
    val (code, lines) = validate("""{"name": "b", "sources": [{"name": "a.b"}]}""")
    assert(code == 1)
    assert(lines.head == "f.conf: error: sources[0].name: sourced stream name is invalid (nats-server error 10141)")
    assert(validate("""{"name": "b", "num_replicas": "three", "subjects": ["b"]}""")._2.head ==
      "f.conf: error: num_replicas: must be an integer")
  }

  test("the guess between a mappings block and a stream config, and how to overrule it") {
    def kind(text: String) = Validate.kindOf(ConfSyntax.parseDocument(text))
    assert(kind("""{"subjects": ["a"]}""") == Validate.Stream)
    assert(kind("""{"name": "x", "retention": "limits"}""") == Validate.Stream)
    assert(kind("""{"name": "x"}""") == Validate.Mappings) // a rule for the subject `name`
    assert(kind("""subjects: [{destination: a, weight: 100}]""") == Validate.Mappings)
    assert(validate("""{"name": "x"}""", Some(Validate.Stream)) == (0, Seq(s"$V: stream " + """"x" (1 subject)""")))
  }

  test("text neither syntax reads is an error in the parser's words") {
    val (code, lines) = validate("a: [b\n")
    assert(code == 1)
    assert(lines.head.startsWith("f.conf: error: Parse error on line"), lines)
  }

  test("Main.validate: stdin, unreadable files, several files, and usage errors on stderr (exit code 2)") {
    def main(args: String*)(stdin: String = ""): (Int, String, String) = {
      val (bytes, errBytes) = (new ByteArrayOutputStream, new ByteArrayOutputStream)
      val code = Main.validate(args.toList.map(_.getBytes(UTF_8)), new ByteArrayInputStream(stdin.getBytes(UTF_8)),
        new PrintStream(bytes, true, UTF_8.name), new PrintStream(errBytes, true, UTF_8.name))
      (code, new String(bytes.toByteArray, UTF_8), new String(errBytes.toByteArray, UTF_8))
    }
    assert(main("-")("foo.x: bar") == (0, s"$V: 1 mapping\n", ""))
    assert(main("--stream", "-")("{\"name\": \"x\"}")._1 == 0)
    val dir = Files.createTempDirectory("validate")
    val missing = dir.resolve("missing.conf").toString
    assert(main(missing)() == (2, s"subjxform validate: cannot read $missing: no such file\n", ""))
    // Several files: each one's report, a valid one's summary led by its name; the worst exit code.
    val good = Files.write(dir.resolve("good.conf"), "foo.x: bar\n".getBytes(UTF_8)).toString
    val bad = Files.write(dir.resolve("bad.conf"), "foo.*: \"bar.$2\"\n".getBytes(UTF_8)).toString
    val (code, out, err) = main(good, bad, "--server-version", "2.15")()
    assert(code == 1 && err.isEmpty)
    assert(out.linesIterator.toList.head == s"$good: $V: 1 mapping")
    assert(out.linesIterator.exists(_.startsWith(s"$bad:1:0: error: ")), out)
    for ((args, problem) <- Seq(
        Nil -> "FILE is needed",
        Seq("a", "-") -> "standard input ('-') is read alone, not with other FILEs",
        Seq("--mappings", "--stream", "-") -> "--mappings or --stream, not both",
        Seq("--bogus") -> "unknown option --bogus",
        Seq("--upgrade-to", "2.15", "-") -> "--upgrade-to needs --server-version (the line upgraded from)"))
      assert(main(args: _*)() == (2, "", s"subjxform validate: $problem (see subjxform validate --help)\n"))
  }
}
