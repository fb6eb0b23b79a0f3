package subjxform.cli

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, PrintStream}
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files

import org.scalatest.funsuite.AnyFunSuite

/** `--server-version` on `mapping` and `validate`, and `validate --upgrade-to`. */
class ServerVersionCliSuite extends AnyFunSuite {

  private def mapping(args: String*): (Int, String, String) = {
    val out = new ByteArrayOutputStream
    val err = new ByteArrayOutputStream
    val code = Main.mapping(args.map(_.getBytes(UTF_8)).toList, new ByteArrayInputStream(Array.emptyByteArray),
      new PrintStream(out, true, "UTF-8"), new PrintStream(err, true, "UTF-8"))
    (code, new String(out.toByteArray, UTF_8), new String(err.toByteArray, UTF_8))
  }

  private def validate(text: String, args: String*): (Int, Seq[String]) = {
    val file = Files.createTempFile("upgrade", ".conf")
    Files.write(file, text.getBytes(UTF_8))
    val out = new ByteArrayOutputStream
    val printed = new PrintStream(out, true, "UTF-8") // (stdout and stderr, a usage error's, in one)
    val code = Main.validate((args :+ file.toString).map(_.getBytes(UTF_8)).toList,
      new ByteArrayInputStream(Array.emptyByteArray), printed, printed)
    Files.delete(file)
    (code, new String(out.toByteArray, UTF_8).linesIterator.map(_.replace(file.toString, "f.conf")).toSeq)
  }

  test("mapping --server-version: that line's verdict and subject; an unsupported one is a usage error") {
    assert(mapping("a.*", "b.{{left(1,2)}}", "a.xyz")._2.trim == "b.xy")
    val (code, out, _) = mapping("--server-version", "2.14", "a.*", "b.{{left(1,2)}}", "a.xyz")
    assert(code == 1 && out.trim == "Error: invalid mapping destination: unknown function in {{left(1,2)}}")
    assert(mapping("--server-version=2.10.26", "foo.*", "bar.{{partition(2147483648,1)}}",
      "foo.x")._2.trim == "bar.2097959047")
    // after `--` it is a subject, not the option
    assert(mapping("a.*", "b.$1", "--", "--server-version")._1 == 0)
    val (bad, _, err) = mapping("--server-version", "2.13", "a.*", "b.$1")
    assert(bad == 2 && err.contains("supported lines are 2.10, 2.11, 2.12, 2.14, 2.15"), err)
    assert(mapping("a.*", "b.$1", "--server-version")._1 == 2)
  }

  private val config =
    """accounts {
      |  A {
      |    users: [{user: a, password: a}]
      |    mappings {
      |      "orders.*": "orders.{{left(1,2)}}"
      |      "keys.*": "k.{{partition(0,1)}}"
      |      "big.*": "b.{{partition(2147483648,1)}}"
      |      "plain.*": "p.$1"
      |      "gap.*": "foo..bar"
      |    }
      |  }
      |}
      |""".stripMargin

  test("validate --server-version checks as that line does: the exit code follows") {
    val (code10, lines10) = validate(config, "--server-version", "2.10")
    assert(code10 == 1)
    assert(lines10.exists(_.contains("unknown function in {{left(1,2)}}")))
    assert(lines10.exists(_.contains("invalid mapping destination: invalid subject in ")))
    assert(!lines10.exists(_.contains("big.*")))
    val (code15, lines15) = validate(config)
    assert(code15 == 1 && lines15.exists(
      _.contains("function argument is invalid or in the wrong format in {{partition(2147483648,1)}}")))
    assert(validate("\"a.*\": \"b.{{left(1,1)}}\"\n", "--server-version", "2.15")._1 == 0)
    assert(validate("\"a.*\": \"b.{{left(1,1)}}\"\n", "--server-version", "2.14")._1 == 1)
    val (bad, badLines) = validate(config, "--server-version", "1.0")
    assert(bad == 2 && badLines.head.contains("supported lines are 2.10, 2.11, 2.12, 2.14, 2.15"), badLines)
    assert(validate(config, "--upgrade-to", "2.15")._1 == 2) // upgrade from what?
  }

  test("validate --upgrade-to lists what becomes valid or invalid and what is delivered otherwise") {
    val (code, lines) = validate(config, "--server-version", "2.10", "--upgrade-to", "2.15")
    assert(code == 1) // validate's verdict on 2.10
    val table = lines.dropWhile(!_.startsWith("Upgrade from nats-server 2.10 to 2.15"))
    assert(table.head == "Upgrade from nats-server 2.10 to 2.15: 4 changes", lines.mkString("\n"))
    def row(rule: String) = table.find(_.contains(rule)).getOrElse(fail(s"no row for $rule in\n${table.mkString("\n")}"))
    assert(row("orders.*").contains("become valid") && row("orders.*").contains("unknown function in {{left(1,2)}}"))
    assert(row("big.*").contains("become invalid"))
    assert(row("keys.*").contains("deliver otherwise") && row("keys.*").contains("{{partition(0,1)}}") &&
      row("keys.*").contains("nats-server 2.10's process exits on the first message this destination maps"))
    assert(lines.exists(_.startsWith("f.conf:6:8: crash: accounts.A.mappings: rule \"keys.*\"")), lines.mkString("\n"))
    assert(row("gap.*").contains("change their error"))
    assert(!table.exists(_.contains("plain.*")))
    assert(row("orders.*").startsWith("f.conf:5"))
    assert(table.last == "1 become invalid, 1 become valid, 1 change their error, 1 deliver otherwise")

    val (same, sameLines) = validate("\"a.*\": \"b.$1\"\n", "--server-version", "2.12", "--upgrade-to", "2.14")
    assert(same == 0 && sameLines.last == "Upgrade from nats-server 2.12 to 2.14: no rule changes")
  }

  test("validate --upgrade-to on a stream config compares its verdicts") {
    val stream =
      """{"name": "S", "subjects": ["a.*"], "subject_transform": {"src": "a.*", "dest": "b.{{random(3)}}"}}"""
    val (code, lines) = validate(stream, "--server-version", "2.11", "--upgrade-to", "2.12")
    assert(code == 1)
    assert(lines.exists(l => l.contains("become valid") && l.contains("unknown function")), lines.mkString("\n"))
  }

  test("validate --upgrade-to between releases: 2.14.0 -> 2.14.6 reports the republish of an invalid subject") {
    val stream = """{"name": "R", "subjects": ["r.*"], "republish": {"src": "r.*", "dest": "rp.a b.$1"}}"""
    val (code, lines) = validate(stream, "--server-version", "2.14.0", "--upgrade-to", "2.14.6")
    assert(code == 0, lines)
    assert(lines.exists(_.contains("warning: republish \"r.*\" -> \"rp.a b.$1\" builds subjects with white space")),
      lines)
    assert(lines.contains("Upgrade from nats-server 2.14.0 to 2.14.6: 1 change"), lines)
    assert(
      lines.exists(l =>
        l.contains("deliver otherwise") && l.contains("sends a message whose subject is invalid as built (a hazard)") &&
          l.contains("suppresses a message whose subject is invalid")), lines)
    // on a release that suppresses it, no hazard; the same release on both sides, no change
    assert(!validate(stream, "--server-version", "2.14.1")._2.exists(_.contains("warning")))
    assert(validate(stream, "--server-version", "2.14.1", "--upgrade-to", "2.14.6")._2.contains(
        "Upgrade from nats-server 2.14.1 to 2.14.6: no rule changes"))
    // the implicit republish becomes valid from 2.11.10 to 2.11.11
    val implicitAll =
      """{"name": "T", "subjects": ["a.>"], "subject_transform": {"src": "a.>", "dest": "b.>"}, "republish": {"src": ">", "dest": ">"}}"""
    val (was, upgraded) = validate(implicitAll, "--server-version", "2.11.10", "--upgrade-to", "v2.11.11")
    assert(was == 1 && upgraded.exists(l => l.contains("become valid") && l.contains("forms a cycle")), upgraded)
  }

  test("validate: a measured release (every published one, with or without a wheel) says nothing; one never " +
    "published is a usage error naming the nearest") {
    val stream = """{"name": "S", "subjects": ["a"]}"""
    for (measured <- Seq("2.12.3", "2.14.4", "2.11.5", "2.10.20", "2.10.5")) {
      val (ok, out) = validate(stream, "--server-version", measured, "--upgrade-to", "2.12.3")
      assert(ok == 0 && !out.exists(_.contains("note:")), out)
    }
    val (bad, out) = validate("""{"name": "S", "subjects": ["a"]}""", "--server-version", "2.11.13")
    assert(bad == 2 && out.exists(_.contains("(the nearest: 2.11.12 or 2.11.14;")), out)
    // a release after the data is never said not to exist: it follows its line's newest known release, and says so
    val (later, notes) = validate(stream, "--server-version", "2.14.99")
    assert(
      later == 0 && notes.head.startsWith("f.conf: note: nats-server 2.14.99 is not known to subjxform ") &&
        notes.head.contains("it follows 2.14.10, the newest 2.14 release known here; `bash scripts/server-releases.sh`"),
      notes)
  }

  test("validate --upgrade-to: fields and TLS names of the other blocks that one release knows and the other not") {
    val conf = "cluster {\n  name: c\n  connect_backoff: true\n}\ntls {\n  curve_preferences: [\"X25519MLKEM768\"]\n}\n"
    val (code, lines) = validate(conf, "--server-version", "2.10", "--upgrade-to", "2.15")
    assert(code == 1, lines.mkString("\n"))
    val table = lines.dropWhile(!_.startsWith("Upgrade from"))
    assert(table.head == "Upgrade from nats-server 2.10 to 2.15: 2 changes", lines.mkString("\n"))
    assert(
      table.exists(r =>
        r.startsWith("f.conf:3") && r.contains("cluster") && r.contains("become valid") &&
          r.contains("unknown field \"connect_backoff\"")), table.mkString("\n"))
    assert(
      table.exists(r =>
        r.startsWith("f.conf:6") && r.contains("become valid") &&
          r.contains("unrecognized curve preference X25519MLKEM768")), table.mkString("\n"))
  }

  /** An account JWT as a resolver holds it (claims as nsc writes them; the signature is not read here). */
  private def jwt(key: String, name: String, mappings: String): String = {
    def b64(s: String) = java.util.Base64.getUrlEncoder.withoutPadding.encodeToString(s.getBytes(UTF_8))
    val claims = s"""{"sub": "$key", "name": "$name", "iss": "OKEY", "nats": {"type": "account", "version": 2,""" +
      s""" "mappings": $mappings}}"""
    s"${b64("""{"typ":"JWT","alg":"ed25519-nkey"}""")}.${b64(claims)}.c2ln"
  }

  // The issue-48 account: 2.11 knows neither left() nor partition() of the whole subject.
  private val orders = jwt("AORDERS", "ORDERS",
    """{"orders.*": [{"subject": "orders.v1.$1", "weight": 95}, {"subject": "orders.v2.$1", "weight": 5}],""" +
      """ "shard.*.*": [{"subject": "shard.{{partition(8,1,2)}}.$1.$2"}], "wh.*.*": [{"subject": "wh.{{left(1,2)}}.$2"}],""" +
      """ "whole.>": [{"subject": "whole.{{partition(4)}}.>"}]}""")
  // `OJWT` stands for the operator's JWT file, not read here (--no-file-checks): nats-server would open it.
  private val resolver = s"operator: OJWT\nresolver: MEMORY\nresolver_preload: {\n  AORDERS: $orders\n}\n"

  test("validate --upgrade-to on account JWTs: the rules one release leaves out of the account and the other loads") {
    val (code, lines) = validate(resolver, "--server-version", "2.11", "--upgrade-to", "2.15", "--no-file-checks")
    assert(code == 0, lines.mkString("\n"))
    assert(lines.count(l =>
        l.startsWith("f.conf:4:3: warning:") && l.endsWith("nats-server 2.11 loads the account without this rule")) == 2,
      lines.mkString("\n"))
    assert(
      lines.contains("valid for nats-server 2.11.11 (the 2.11 line's release): a server config of 3 top-level " +
        "fields, 1 account (account JWTs), 4 mappings in jwt(ORDERS).mappings, files not read (--no-file-checks), " +
        "2 warnings"), lines.mkString("\n"))
    val table = lines.dropWhile(!_.startsWith("Upgrade from"))
    assert(table.head == "Upgrade from nats-server 2.11 to 2.15: 2 changes", lines.mkString("\n"))
    def row(rule: String) = table.find(_.contains(rule)).get
    assert(row("\"wh.*.*\"").startsWith("f.conf:4") && row("\"wh.*.*\"").contains("become loaded") &&
      row("\"wh.*.*\"").contains(
        "left out: Error adding mapping for \"wh.*.*\" : invalid mapping destination: unknown function in {{left(1,2)}}"))
    assert(row("\"whole.>\"").contains("become loaded"))
    assert(table.last == "2 become loaded")
    val (down, downLines) = validate(resolver, "--server-version", "2.15", "--upgrade-to", "2.11.0", "--no-file-checks")
    assert(down == 0 && downLines.last == "2 become left out", downLines.mkString("\n"))
    // the JWTs alone (no config), and the same table in a config file, where 2.11 refuses the file
    val (_, alone) = validate(orders, "--server-version", "2.11", "--upgrade-to", "2.15")
    assert(alone.last == "2 become loaded", alone.mkString("\n"))
  }

  test("a JWT brought in by include: its problems point at the included file and line") {
    val dir = Files.createTempDirectory("jwts")
    Files.write(dir.resolve("preload.conf"), s"# the account JWTs\n\nAORDERS: $orders\n".getBytes(UTF_8))
    Files.write(dir.resolve("server.conf"),
      "operator: OJWT\nresolver: MEMORY\nresolver_preload: {\n  include preload.conf\n}\n"
        .getBytes(UTF_8))
    val out = new ByteArrayOutputStream
    val code =
      Main.validate(
        List("--server-version", "2.11", "--no-file-checks", dir.resolve("server.conf").toString).map(_.getBytes(UTF_8)),
        new ByteArrayInputStream(Array.emptyByteArray), new PrintStream(out, true, "UTF-8"))
    val lines = new String(out.toByteArray, UTF_8).linesIterator.toSeq
    assert(code == 0)
    assert(lines.count(_.startsWith(s"${dir.resolve("preload.conf")}:3:1: warning: jwt(ORDERS).mappings: rule ")) == 2,
      lines.mkString("\n"))
  }

  test("a destination the release's server crashes on: validate says so and exits 1 unless --allow-crashes") {
    val table = "\"k.*\": \"k.{{partition(0,1)}}\"\n"
    val (code, lines) = validate(table, "--server-version", "2.11")
    assert(code == 1)
    assert(
      lines.head == "f.conf:1:1: crash: rule \"k.*\", destination \"k.{{partition(0,1)}}\": nats-server 2.11's " +
        "process exits on the first message this destination maps ({{partition(0,1)}}: panic: runtime error: integer " +
        "divide by zero): the whole server goes down, with every account's traffic, not only this message", lines)
    assert(lines.last.startsWith("f.conf: 1 crash (1 mapping): nats-server 2.11 loads it, and its process exits"))
    val (allowed, allowedLines) = validate(table, "--server-version", "2.11", "--allow-crashes")
    assert(
      allowed == 0 && allowedLines.last == "valid for nats-server 2.11.11 (the 2.11 line's release): 1 mapping, 1 crash (allowed)")
    assert(validate(table, "--server-version", "2.12")._1 == 0)
    // the upgrade check: an upgrade to a release that crashes on it is refused too
    val (down, downLines) = validate(table, "--server-version", "2.15", "--upgrade-to", "2.10")
    assert(down == 1 && downLines.last.contains(
        "nats-server 2.10's process exits on the first message a destination above maps"),
      downLines.mkString("\n"))
    assert(validate(table, "--server-version", "2.15", "--upgrade-to", "2.10", "--allow-crashes")._1 == 0)
    // mapping: the same words for the subject
    val (_, shown, _) = mapping("--server-version", "2.11", "k.*", "k.{{partition(0,1)}}", "k.x")
    assert(shown.startsWith("Error: nats-server 2.11's process exits on the first message this destination maps"))
  }

  test("validate: a misspelled top-level mapping block is nats-server's unknown field, with its line") {
    val (code, lines) = validate("# orders\nmapping {\n  a.*: \"b.$1\"\n}\n")
    assert(code == 1)
    assert(lines.head == "f.conf:2:1: error: unknown field \"mapping\" (an account's or the server's mappings block is " +
        "written mappings { ... })", lines)
  }

  test("validate: each unquoted {{...}} destination with its fix, and the file's other errors beside them") {
    val (code, lines) =
      validate("mappings {\n  shard.*.*: shard.{{partition(8,1,2)}}.$1.$2\n  w.*: w.{{wildcard(1)}}\n  x.*: \"y.{{wildcard(3)}}\"\n}\n")
    assert(code == 1)
    assert(lines.take(3).map(_.take(9)) == Seq("f.conf:2:", "f.conf:3:", "f.conf:4:"), lines.mkString("\n"))
    assert(lines.head.endsWith("put the destination in quotes: \"shard.{{partition(8,1,2)}}.$1.$2\""), lines.head)
    assert(lines(1).endsWith("put the destination in quotes: \"w.{{wildcard(1)}}\""))
    assert(lines(2).contains("wildcard index out of range in {{wildcard(3)}}"))
    assert(lines.last.startsWith("f.conf: 3 errors (3 mappings)"), lines.last)
  }

  test("validate: a config's top-level mappings are the global account's, so 2.15.3 resolves its account functions") {
    // measured: a live 2.15.3's -t accepts both; 2.15.1's: unknown function
    val top = "mappings { \"orders.*\": \"orders.{{account-hash()}}.{{wildcard(1)}}\" }\n"
    val block = "\"orders.*\": \"orders.{{account-hash()}}.{{wildcard(1)}}\"\n"
    for (text <- Seq(top, block)) {
      val (ok, okLines) = validate(text, "--server-version", "2.15.3")
      assert(ok == 0 && okLines.last == "valid for nats-server 2.15.3: 1 mapping", okLines)
      val (old, oldLines) = validate(text, "--server-version", "2.15.1")
      assert(old == 1 && oldLines.exists(_.contains("unknown function in {{account-hash()}}")), oldLines)
    }
  }
}
