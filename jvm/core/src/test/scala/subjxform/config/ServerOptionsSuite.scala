package subjxform.config

import org.scalatest.funsuite.AnyFunSuite

import subjxform.engine.{Golden, ServerVersion}

/**
 * A server config's blocks and the files it names, as `nats-server -t` reads them: each expectation below is what
 * the line's binary printed for the same config (tests/test_validate_corpus.py compares the whole corpus with
 * every installed binary). The certificates are tests/validate_corpus/certs, made with openssl for these tests.
 */
class ServerOptionsSuite extends AnyFunSuite {
  private val certs = Golden.root.resolve("tests").resolve("validate_corpus").resolve("certs")
  private def cert(name: String) = certs.resolve(name).toString
  private val Q = "\"" // a quote inside s"...": Scala 2.12 reads no \" there

  /** Each problem as (line, field, message), for `text` on `line`. */
  private def problems(text: String, line: String = "2.15", readFiles: Boolean = true): Seq[(Int, String, String)] =
    ServerOptions.check(ConfSyntax.parseDocument(text), ServerVersion.parse(line), readFiles).problems.map(p =>
      (p.at.line, p.field, p.message))

  private def tls(fields: String) = s"port: 4222\ntls {\n$fields\n}\n"

  test("a key pair and CA that load: no problem, and the files are counted") {
    val text = tls(s"cert_file: $Q${cert("server-cert.pem")}$Q\nkey_file: $Q${cert("server-key.pem")}$Q\n" +
      s"ca_file: $Q${cert("ca.pem")}$Q")
    val checked = ServerOptions.check(ConfSyntax.parseDocument(text), ServerVersion.Newest)
    assert(checked.problems.isEmpty && checked.tlsBlocks == 1 && checked.filesRead == 3)
    // PKCS #1 and SEC 1 keys, an EC certificate
    assert(problems(tls(s"cert_file: $Q${cert("server-cert.pem")}$Q\nkey_file: $Q${cert("server-key-pkcs1.pem")}$Q"))
        .isEmpty)
    assert(problems(tls(s"cert_file: $Q${cert("ec-cert.pem")}$Q\nkey_file: $Q${cert("ec-key-sec1.pem")}$Q")).isEmpty)
    assert(problems(tls(s"cert_file: $Q${cert("ec-cert.pem")}$Q\nkey_file: $Q${cert("ec-key.pem")}$Q")).isEmpty)
  }

  test("TLS files that do not load: Go's words, on the tls key's line") {
    val pair = "error parsing X509 certificate/key pair: "
    assert(problems(tls("cert_file: \"/nonexistent/server.crt\"\nkey_file: \"/nonexistent/server.key\"")) ==
      Seq((2, "tls", pair + "open /nonexistent/server.crt: no such file or directory")))
    assert(problems(tls(s"cert_file: $Q${cert("server-cert.pem")}$Q\nkey_file: $Q${cert("other-key.pem")}$Q")) ==
      Seq((2, "tls", pair + "tls: private key does not match public key")))
    assert(problems(tls(s"cert_file: $Q${cert("ec-cert.pem")}$Q\nkey_file: $Q${cert("server-key.pem")}$Q")) ==
      Seq((2, "tls", pair + "tls: private key type does not match public key type")))
    assert(problems(tls(s"cert_file: $Q${cert("not-pem.txt")}$Q\nkey_file: $Q${cert("server-key.pem")}$Q")) ==
      Seq((2, "tls", pair + "tls: failed to find any PEM data in certificate input")))
    assert(problems(tls(s"cert_file: $Q${cert("server-key.pem")}$Q\nkey_file: $Q${cert("server-cert.pem")}$Q")) ==
      Seq((2, "tls",
          pair + "tls: failed to find certificate PEM data in certificate input, but did find a private " +
            "key; PEM inputs may have been switched")))
    assert(problems(tls(s"cert_file: $Q${cert("server-cert.pem")}$Q\nkey_file: $Q${cert("server-key.pem")}$Q\n" +
        s"ca_file: $Q${cert("not-pem.txt")}$Q")) == Seq((2, "tls", "failed to parse root ca certificate")))
    assert(problems(tls(s"key_file: $Q${cert("server-key.pem")}$Q")) ==
      Seq((2, "tls", "missing 'cert_file' in TLS configuration")))
    assert(problems(tls(s"verfy: true\ncert_file: $Q${cert("server-cert.pem")}$Q")) ==
      Seq((3, "tls", "error parsing tls config, unknown field \"verfy\"")))
  }

  test("every block's tls is read: cluster, gateway and its remotes, leafnodes and its remotes, websocket, mqtt") {
    val missing = "cert_file: \"/nonexistent/c.pem\", key_file: \"/nonexistent/k.pem\""
    val text =
      s"""cluster { port: 6222, tls { $missing } }
         |gateway { name: A, port: 7222, tls { $missing }, gateways: [{name: B, url: "nats://b:7222", tls { $missing }}] }
         |leafnodes {
         |  tls { $missing }
         |  remotes: [{url: "tls://hub:7422", tls { $missing }}]
         |}
         |websocket { port: 8443, tls { $missing } }
         |mqtt { port: 8883, tls { $missing } }
         |""".stripMargin
    assert(problems(text).map(p => (p._1, p._2)) == Seq((1, "cluster.tls"), (2, "gateway.tls"),
      (2, "gateway.gateways[0].tls"), (4, "leafnodes.tls"), (5, "leafnodes.remotes[0].tls"), (7, "websocket.tls"),
      (8, "mqtt.tls")))
    assert(problems(text, readFiles = false).isEmpty) // the files left alone
  }

  test("cipher and curve names each line knows; a name it does not is refused on the name's line") {
    val base = s"cert_file: $Q${cert("server-cert.pem")}$Q\nkey_file: $Q${cert("server-key.pem")}$Q\n"
    assert(problems(tls(base + "cipher_suites: [\n\"TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA512\"\n]")) ==
      Seq((6, "tls", "unrecognized cipher TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA512")))
    assert(problems(tls(base + "curve_preferences: [\"CurveP256\", \"P-384\"]")) ==
      Seq((5, "tls", "unrecognized curve preference P-384")))
    val mlkem = tls(base + "curve_preferences: [\"X25519MLKEM768\"]")
    assert(problems(mlkem, "2.11") == Seq((5, "tls", "unrecognized curve preference X25519MLKEM768")))
    assert(problems(mlkem, "2.12").isEmpty)
    // 2.10's own list spells ChaCha20 without _SHA256, Go's list (2.12 on) with it
    val chacha = tls(base + "cipher_suites: [\"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305\"]")
    assert(problems(chacha, "2.10").isEmpty)
    assert(problems(chacha, "2.12").map(_._3) == Seq("unrecognized cipher TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305"))
  }

  test("fields a line does not know in cluster, jetstream, leafnodes and remotes; integer fields; resolvers") {
    val text = "cluster { port: 6222, connect_backoff: true }\njetstream { max_buffered_msgs: 10 }\n" +
      "leafnodes { dial_timeout: \"5s\", remotes: [{url: \"nats://h:7422\", disabled: true}] }\n"
    assert(problems(text, "2.10").map(p => (p._1, p._3)) == Seq((1, "unknown field \"connect_backoff\""),
      (2, "unknown field \"max_buffered_msgs\""), (3, "unknown field \"dial_timeout\""),
      (3, "unknown field \"disabled\"")))
    assert(problems(text, "2.14").isEmpty)
    assert(problems("port: 4222\nwebsocket {\n  port: \"<ws>\"\n  no_tls: true\n}\n") ==
      Seq((3, "websocket.port", "interface conversion: interface {} is string, not int64")))
    assert(problems("http_port: \"8222\"\n").map(_._3) == Seq("interface conversion: interface {} is string, not int64"))
    assert(problems("resolver {}\n").map(_._3) == Seq("error parsing account resolver, should be MEM or  " +
      "URL(\"url\") or a map containing dir and type state=[FULL|CACHE])"))
    assert(problems("resolver: MEMORY\n").isEmpty)
    // blocks that are no map: each parser's words
    assert(problems("cluster: 6222\ntls: \"on\"\nleafnodes { remotes: \"nats-leaf://hub:7422\" }\n").map(_._3) == Seq(
      "Expected map to define cluster, got int64",
      "interface conversion: interface {} is string, not map[string]interface {}",
      "Expected remotes field to be an array, got string"))
    assert(problems("resolver: 5\n").map(_._3) == Seq("error parsing operator resolver, wrong type int64"))
    assert(problems("operator: \"/nonexistent/op.jwt\"\n").map(_._3) ==
      Seq("error parsing operator JWT: open /nonexistent/op.jwt: no such file or directory"))
  }

  test("operator JWTs are decoded and their issuer's signature checked, from a file or written in place") {
    val jwts = Golden.root.resolve("tests").resolve("validate_corpus").resolve("jwt")
    def operator(path: String) = problems(s"operator: $Q$path$Q\nresolver: MEMORY\n").map(_._3)
    assert(operator(jwts.resolve("operator.jwt").toString).isEmpty) // minted by nats-io/jwt, -t: valid
    val token = new String(java.nio.file.Files.readAllBytes(jwts.resolve("operator.jwt")), "UTF-8").trim
    assert(operator(token).isEmpty)
    assert(operator(jwts.resolve("operator-tampered.jwt").toString) ==
      Seq("error parsing operator JWT: claim failed V2 signature verification"))
    assert(operator(jwts.resolve("not-a-jwt.txt").toString) == Seq("error parsing operator JWT: expected 3 chunks"))
  }

  test("route, gateway and leafnode URLs Go's url.Parse refuses (templates nats-server's tests fill in)") {
    // the shapes of configs nats-server's own Go tests write with fmt.Sprintf (tests/test_validate_module_corpus.py)
    val text = """cluster {
                 |  port: -1
                 |  routes: [
                 |    "nats-route://127.0.0.1:%d"
                 |    "nats-route://127.0.0.1:4245"
                 |    "localhost:%d"
                 |    "127.0.0.1:4244"
                 |  ]
                 |}
                 |gateway {
                 |  name: A
                 |  gateways: [
                 |    {name: B, url: "nats://gw:pw@127.0.0.1:%d"}
                 |    {name: C, urls: ["nats://%s@h:1", "nats://ok:2/p%zz", "nats://h:2#f%"]}
                 |  ]
                 |}
                 |leafnodes {
                 |  remotes: [
                 |    {url: "nats-leaf://%s%s:%d"}
                 |    {urls: ["ws://127.0.0.1:4222", "tls://[::1]:4222", "nats://h ost:1", "*", ""]}
                 |    {url: " nats://a b@h:1 "}
                 |  ]
                 |}
                 |""".stripMargin
    // what 2.10.26's -t printed for it (2.15.1 the same, and a duplicate-remote error of its own on lines 20, 21)
    assert(problems(text, "2.10").map { case (line, _, message) => (line, message) }.sortBy(_._1) == Seq(
      (4, "error parsing route url [\"nats-route://127.0.0.1:%d\"]"),
      (7, "error parsing route url [\"127.0.0.1:4244\"]"),
      (13, "error parsing gateway url [\"nats://gw:pw@127.0.0.1:%d\"]"),
      (14, "error parsing gateway url [\"nats://%s@h:1\"]"),
      (14, "error parsing gateway url [\"nats://ok:2/p%zz\"]"),
      (14, "error parsing gateway url [\"nats://h:2#f%\"]"),
      (19, "error parsing leafnode url [\"nats-leaf://%s%s:%d\"]"),
      (20, "error parsing leafnode url [\"nats://h ost:1\"]"),
      (21, "error parsing leafnode url [\"nats://a b@h:1\"]")))
  }

  test("durations as parseDuration reads them; warnings, which -t refuses; empty TLS lists; a Windows cert store") {
    // configs after nats-server's opts_test.go and leafnode_test.go (tests/test_validate_module_corpus.py)
    val text = """ping_interval: 5
                 |write_deadline: "2x"
                 |cluster {
                 |  port: -1
                 |  ping_interval: "1.5m30s"
                 |  routes: ["nats://127.0.0.1:4245", "nats://127.0.0.1:4245"]
                 |}
                 |leafnodes {
                 |  reconnect: "10"
                 |  dial_timeout: ".s"
                 |}
                 |websocket {
                 |  port: -1
                 |  no_tls: true
                 |  ping_interval: true
                 |}
                 |mqtt {
                 |  port: -1
                 |  ack_wait: "-1.5h"
                 |}
                 |tls {
                 |  cert_store: "WindowsCurrentUser"
                 |}
                 |""".stripMargin
    def lines(line: String) = problems(text, line).map { case (n, _, message) => (n, message) }.sortBy(_._1)
    // what 2.10.26's and 2.15.1's -t printed (2.10 knows no leafnodes dial_timeout nor websocket ping_interval)
    val common = Seq(
      (1, "invalid use of field \"ping_interval\": ping_interval should be converted to a duration"),
      (2, "error parsing write_deadline: time: unknown unit \"x\" in duration \"2x\""),
      (5, "Cluster 'ping_interval' will reset to 30s which is the max for routes"),
      (6, "invalid use of field \"nats://127.0.0.1:4245\": Duplicate route entry detected"),
      (9, "error parsing reconnect: time: missing unit in duration \"10\""))
    assert(lines("2.10") == (common ++ Seq((10, "unknown field \"dial_timeout\""),
      (15, "unknown field \"ping_interval\""), (22, "cert_store not compatible with current operating system")))
      .sortBy(_._1))
    assert(lines("2.15") == (common ++ Seq((10, "error parsing dial_timeout: time: invalid duration \".s\""),
      (15, "invalid use of field \"ping_interval\": ping_interval should be converted to a duration"),
      (15, "interface conversion: interface {} is bool, not int64"),
      (22, "cert_store not compatible with current operating system"))).sortBy(_._1))
    val tlsLists =
      "port: 4222\ntls {\n  cipher_suites: []\n}\ncluster {\n  tls {\n    cert_store: \"nostore\"\n  }\n}\n"
    assert(problems(tlsLists).map { case (n, _, message) => (n, message) } == Seq(
      (3, "error parsing tls config, 'cipher_suites' cannot be empty"), (7, "cert store type not implemented")))
  }

  test("bools read with a bare type assertion, a JetStream cipher, an int32 too big, jetstream as a string") {
    // templates of nats-server's leafnode_test.go, jetstream_test.go, opts_test.go (test_validate_module_corpus.py)
    val text = """port: -1
                 |max_payload: 4294967296
                 |debug: "%s"
                 |jetstream {
                 |  cipher: "%s"
                 |}
                 |leafnodes {
                 |  remotes [
                 |    {url: "ws://127.0.0.1:1234", ws_compression: %s}
                 |  ]
                 |}
                 |websocket {
                 |  port: -1
                 |  no_tls: true
                 |  compression: %v
                 |}
                 |""".stripMargin
    val bool = "interface conversion: interface {} is string, not bool"
    // what 2.10.26's and 2.15.1's -t printed
    for (line <- Seq("2.10", "2.15"))
      assert(problems(text, line).map { case (n, _, message) => (n, message) }.sortBy(_._1) == Seq(
        (2, "max_payload value is too big"), (3, bool), (5, "Unknown cipher type: \"%s\""), (9, bool), (15, bool)))
    assert(problems("jetstream: \"%s\"\n").map(_._3) ==
      Seq("Expected 'enabled' or 'disabled' for string value, got '%s'"))
  }

  test("a cluster or gateway name with a space, refused from 2.11 as a server name is") {
    // nats-server's server_test.go (tests/test_validate_module_corpus.py): 2.11.11's -t refuses both, 2.10.26's neither
    val text = "port: -1\ncluster {\n  name: \"my cluster\"\n}\ngateway {\n  name: \"my gateway\"\n}\n"
    assert(problems(text, "2.11").map { case (n, _, message) => (n, message) } == Seq(
      (3, "cluster name cannot contain spaces"), (6, "gateway name cannot contain spaces")))
    assert(problems(text, "2.10").isEmpty)
  }

  test("insecure ciphers need allow_insecure_cipher_suites from 2.12 (Go's list); 2.10 and 2.11 know fewer names") {
    // nats-server's server/configs/tls_insecure_ciphers.conf, shortened (tests/test_validate_module_corpus.py)
    val text = "port: 4222\ntls {\n  cipher_suites: [\"TLS_RSA_WITH_RC4_128_SHA\", " +
      "\"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256\", \"TLS_RSA_WITH_AES_128_GCM_SHA256\"]\n}\n"
    def said(line: String, t: String = text) = problems(t, line).map { case (n, _, message) => (n, message) }
    // what 2.12.8's and 2.15.1's -t printed; 2.10.26's and 2.11.11's
    for (line <- Seq("2.12", "2.15"))
      assert(said(line) == Seq((2,
          "insecure cipher suites configured without 'allow_insecure_cipher_suites' " +
            "option set: TLS_RSA_WITH_RC4_128_SHA, TLS_RSA_WITH_AES_128_GCM_SHA256")))
    for (line <- Seq("2.10", "2.11"))
      assert(said(line) == Seq((3, "unrecognized cipher TLS_RSA_WITH_AES_128_GCM_SHA256")))
    val allowed = "port: 4222\ntls {\n  cipher_suites: [\"TLS_RSA_WITH_RC4_128_SHA\"]\n  " +
      "allow_insecure_cipher_suites: true\n}\n"
    assert(said("2.15", allowed).isEmpty)
  }

  test("a leafnodes min_version as each line's versionComponents reads it, at least 2.8.0") {
    // nats-server's leafnode_test.go (tests/test_validate_module_corpus.py); what 2.10.26's and 2.15.1's -t printed
    def said(value: String, line: String) =
      problems(s"port: -1\nleafnodes {\n  min_version: $value\n}\n", line).map { case (n, _, m) => (n, m) }
    val semver = "invalid leafnode's minimum version: invalid semver"
    val empty = "invalid leafnode's minimum version: strconv.Atoi: parsing \"\": invalid syntax"
    assert(said("\"abc\"", "2.10") == Seq((3, semver)) && said("\"abc\"", "2.15") == Seq((3, semver)))
    assert(said("\"2.8\"", "2.10") == Seq((3, empty)) && said("\"2.8\"", "2.15") == Seq((3, semver)))
    assert(said("\"v2.7.9\"", "2.10") == Seq((3, "the minimum version should be at least 2.8.0")))
    assert(said("\"v2.7.9\"", "2.15") == Seq((3, semver)))
    assert(said("\"v3\"", "2.10") == Seq((3, empty)))
    assert(said("\"2.10.0\"", "2.10").isEmpty && said("\"2.10.0\"", "2.15").isEmpty)
    assert(said("5", "2.15") == Seq((3, "interface conversion: interface {} is int64, not string")))
  }

  test("users, permissions and auth callouts as parseUsers, parseUserPermissions and parseAuthCallout read them") {
    // each expectation: what the line's binary's -t printed (tests/validate_corpus/80-93 compare every release)
    val types = "accounts {\n  A: {\n    users: [\n      {user: a, password: a, allowed_connection_types: " +
      "[\"STANDARD\", \"in_process\", \"bogus\"]}\n    ]\n  }\n}\n"
    val field = "accounts.A.users[0].allowed_connection_types"
    assert(problems(types, "2.10") == Seq((4, field, "invalid connection types [\"IN_PROCESS\" \"BOGUS\"]")))
    assert(problems(types, "2.11") == Seq((4, field, "invalid connection types [\"BOGUS\"]")))
    val user = "UDXU4RCSJNZOIQHZNWXHXORDPRTGNJAHAHFRGZNEEJCPQTT2M7NLCNF4"
    assert(problems(s"authorization {\n  users: [\n    {nkey: $user}\n  ]\n}\n").isEmpty)
    // one character changed: its CRC no longer matches
    assert(problems(s"authorization {\n  users: [\n    {nkey: ${user.dropRight(1)}5}\n  ]\n}\n") ==
      Seq((3, "authorization.users[0]", "Not a valid public nkey for a user")))
    assert(problems("authorization {\n  users: [\n    {password: x}\n  ]\n}\n") ==
      Seq((3, "authorization.users[0]", "User entry requires a user")))
    // a user key is no account key: an auth callout's issuer must be one
    assert(problems(s"authorization {\n  auth_callout {\n    issuer: $user\n  }\n}\n") == Seq((3,
        "authorization.auth_callout.issuer", s"Expected callout user to be a valid public account nkey, got $Q$user$Q")))
    assert(
      problems("authorization {\n  permissions: {\n    publish: {allow: [\"a..b\"]}\n    responses: true\n  }\n}\n") ==
        Seq((4, "authorization.permissions", "Unknown field \"responses\" parsing permissions"),
          (3, "authorization.permissions.publish.allow", "subject \"a..b\" is not a valid subject")))
    // a timeout above a minute: a warning from 2.11.2 (which -t refuses), taken before
    val timeout = "authorization {\n  user: a\n  password: b\n  timeout: \"2m\"\n}\n"
    assert(problems(timeout, "2.11.1").isEmpty && problems(timeout, "2.11.2").map(_._1) == Seq(4))
  }

  test("jetstream sizes, counts and limits as parseJetStream reads them; a failed assertion on the jetstream key") {
    def js(fields: String, line: String = "2.15") = problems(s"jetstream {\n$fields\n}\n", line)
    // each: the 2.15 binary's -t (tests/validate_corpus/94-97 compare every release)
    assert(js("max_file: \"10x\"") == Seq((2, "jetstream.max_file",
        "max_file_store sizes defined as strings must end in K, M, G, T")))
    assert(js("max_mem: \"x\"") == Seq((2, "jetstream.max_mem",
        "max_mem_store strconv.ParseInt: parsing \"\": invalid syntax")))
    assert(js("max_mem: 1.5") == Seq((2, "jetstream.max_mem", "max_mem_store must be int64 or string")))
    assert(js("max_mem: 1G\nmax_file: \"10G\"\nmax_buffered_size: \"\"").isEmpty)
    assert(js("max_concurrent_io: 2") ==
      Seq((2, "jetstream.max_concurrent_io",
          "Expected an absolute size for \"max_concurrent_io\" between 4 and 8192, got 2")))
    assert(js("strict: 5") == Seq((2, "jetstream.strict",
        "Expected 'true' or 'false' for bool value, got '%!s(int64=5)'")))
    // parseJetStream recovers no panic: the config's recovery names the top-level key's line
    assert(js("domain: 5") == Seq((1, "jetstream.domain", "interface conversion: interface {} is int64, not string")))
    assert(js("limits: { default_max_consumers: 1 }", "2.14") ==
      Seq((2, "jetstream.limits", "unknown field \"default_max_consumers\"")))
    assert(js("limits: { default_max_consumers: 1 }").isEmpty)
    assert(problems("jetstream: 5\n") == Seq((1, "jetstream",
        "Expected map, bool or string to define JetStream, got int64")))
  }

  test("values read by their own switch of types: listen addresses, lame duck, tags, keys, seeds, trace sampling") {
    // each: the 2.15 binary's -t (tests/validate_corpus/98-108 compare every release)
    assert(problems("listen: \"0.0.0.0:4222\"\nhttp: \"localhost:x\"\n") ==
      Seq((2, "http", "could not parse port \"x\"")))
    assert(problems("leafnodes {\n  listen: \"a:b:7422\"\n}\n") ==
      Seq((2, "leafnodes.listen", "could not parse address string \"a:b:7422\"")))
    assert(problems("cluster {\n  listen: \"[::1]:6222\"\n}\n").isEmpty)
    assert(problems("lame_duck_duration: \"10s\"\n") ==
      Seq((1, "lame_duck_duration", "invalid lame_duck_duration of 10s, minimum is 30 seconds")))
    assert(problems("lame_duck_duration: \"2m\"\n").isEmpty)
    assert(problems("trusted_keys: [\"OBADKEY\"]\n") ==
      Seq((1, "trusted_keys", "trust key \"OBADKEY\" required to be a valid public operator nkey")))
    assert(problems("feature_flags: { a: true, b: \"yes\" }\n") ==
      Seq((1, "feature_flags.b", "error parsing feature flag \"b\": expected bool, got string")))
    assert(problems("accounts {\n  A: {\n    nkey: \"ABADKEY\"\n  }\n}\n") ==
      Seq((3, "accounts.A.nkey", "Not a valid public nkey for an account: \"ABADKEY\"")))
    assert(problems("accounts {\n  B: {\n    msg_trace: { dest: \"t.b\", sampling: \"50x\" }\n  }\n}\n") ==
      Seq((3, "accounts.B.msg_trace.sampling", "Invalid trace destination sampling value \"50x\"")))
    // a user seed (nkeys' test seed): valid; a text that is no seed is refused
    val userSeed = "SUAMK2FG4MI6UE3ACF3FK3OIQBCEIEZV7NSWFFEW63UXMRLFM2XLAXK4GY"
    val remote = (seed: String) => s"leafnodes {\n  remotes: [ { url: ${Q}nats://h:7422$Q, seed: $Q$seed$Q } ]\n}\n"
    assert(problems(remote(userSeed)).isEmpty)
    // the maps of ocsp, ocsp_cache and proxies (tests/validate_corpus/118-120)
    assert(problems("ocsp {\n  mode: \"sometimes\"\n}\n") ==
      Seq((2, "ocsp.mode", "error parsing ocsp config: unsupported ocsp mode string")))
    assert(problems("ocsp_cache {\n  type: \"remote\"\n}\n") ==
      Seq((2, "ocsp_cache.type", "error parsing OCSP peer cache config, unknown type [remote]")))
    assert(problems("proxies {\n  trusted: [ { key: \"XBADKEY\" } ]\n}\n") ==
      Seq((2, "proxies.trusted.key", "invalid proxy key \"XBADKEY\"")))
    assert(problems(remote("SUBADSEED")) ==
      Seq((2, "leafnodes.remotes[0].seed", "Remote leafnode nkey is not a valid seed: \"SUBADSEED\"")))
  }

  test("2.15.3's -t runs the startup checks: the first that fails, on no line; before, -t takes these configs") {
    def said(text: String, release: String) =
      ServerOptions.check(ConfSyntax.parseDocument(text), ServerVersion.parse(release)).problems
        .map(p => (p.placed, p.message))
    // each: the 2.15.3 binary's -t (tests/validate_corpus/112-117 compare every release)
    val checks = Seq(
      "lame_duck_duration: \"30s\"\nlame_duck_grace_period: \"40s\"\n" ->
        "lame duck grace period (40s) should be strictly lower than lame duck duration (30s)",
      "max_payload: 100000\nmax_pending: 50000\n" -> "max_payload (100000) cannot be higher than max_pending (50000)",
      "websocket {\n  port: 8080\n}\n" -> "websocket requires TLS configuration",
      "cluster {\n  name: a\n  port: 6222\n}\ngateway {\n  name: b\n  port: 7222\n}\n" ->
        "cluster name conflicts between cluster and gateway definitions",
      "jetstream: enabled\ncluster {\n  listen: \"127.0.0.1:6222\"\n}\n" ->
        "jetstream cluster requires `server_name` to be set",
      "cluster {\n  port: 6222\n  compression: \"fastest\"\n}\n" -> "unsupported compression mode \"fastest\"")
    for ((text, message) <- checks) {
      assert(said(text, "2.15.3") == Seq((false, message)), text)
      assert(said(text, "2.15.2").isEmpty, text)
    }
  }
}
