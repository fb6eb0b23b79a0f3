package subjxform.config

import scala.collection.mutable

import subjxform.config.ConfValue._
import subjxform.engine.{GoQuote, ServerVersion}

/** What [[ServerOptions.check]] found, and what it read: `tlsBlocks` checked, `filesRead` opened. */
final case class OptionsCheck(problems: Seq[ConfigProblem], tlsBlocks: Int, filesRead: Int)

/**
 * The blocks of a server config beyond its accounts (those are [[Accounts]]'), read as `nats-server -t` of a
 * line reads them (server/opts.go): the fields each block knows on that line ([[ServerFields]]), the values
 * read with a bare type assertion ([[ServerFieldTypes]]: a string where it takes an integer stops the server with
 * Go's `interface conversion` panic text), durations (fields read with `parseDuration`) as Go's `time.ParseDuration` reads them ([[GoDuration]]), every `tls` block (cipher and curve names the line knows, then its certificate, key
 * and CA files opened and parsed: [[TlsFiles]]), the account resolver and the operator JWT files. Each problem
 * is in the server's words, on the line the server names. `readFiles` false leaves the files alone (a config
 * checked away from the machine it runs on).
 */
object ServerOptions {

  /** The longest ping interval a block keeps, and the warning (an error for -t) above it (route.go, gateway.go). */
  private val PingIntervalMax: Map[String, (Long, String)] = Map(
    "cluster" -> (30L * 1000000000L, "Cluster 'ping_interval' will reset to 30s which is the max for routes"),
    "gateway" -> (15L * 1000000000L, "Gateway 'ping_interval' will reset to 15s which is the max for gateways"))

  /**
   * The names `cipher_suites` and `curve_preferences` accept, per line (server/ciphersuites.go: 2.10 and 2.11
   * list their ciphers; from 2.12 the server takes Go's `tls.CipherSuites()` and `tls.InsecureCipherSuites()`).
   */
  private val CiphersListed = Set("TLS_RSA_WITH_RC4_128_SHA", "TLS_RSA_WITH_3DES_EDE_CBC_SHA",
    "TLS_RSA_WITH_AES_128_CBC_SHA", "TLS_RSA_WITH_AES_128_CBC_SHA256", "TLS_RSA_WITH_AES_256_CBC_SHA",
    "TLS_RSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_ECDSA_WITH_RC4_128_SHA", "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA",
    "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", "TLS_ECDHE_RSA_WITH_RC4_128_SHA", "TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA",
    "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256",
    "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256", "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA",
    "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
    "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
    "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305", "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305", "TLS_AES_128_GCM_SHA256",
    "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256")
  private val CiphersOfGo = Set("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256",
    "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA",
    "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA",
    "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
    "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
    "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
    "TLS_RSA_WITH_RC4_128_SHA", "TLS_RSA_WITH_3DES_EDE_CBC_SHA", "TLS_RSA_WITH_AES_128_CBC_SHA",
    "TLS_RSA_WITH_AES_256_CBC_SHA", "TLS_RSA_WITH_AES_128_CBC_SHA256", "TLS_RSA_WITH_AES_128_GCM_SHA256",
    "TLS_RSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_ECDSA_WITH_RC4_128_SHA", "TLS_ECDHE_RSA_WITH_RC4_128_SHA",
    "TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA", "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256",
    "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256")

  /**
   * The ciphers Go's tls package marks Insecure, which the 2.12 on parser (Go's list) refuses unless
   * `allow_insecure_cipher_suites` is set (measured one by one on 2.12.0, 2.12.8, 2.14.6, 2.15.1 and 2.15.3).
   */
  private val InsecureCiphersOfGo = Set("TLS_RSA_WITH_RC4_128_SHA", "TLS_RSA_WITH_3DES_EDE_CBC_SHA",
    "TLS_RSA_WITH_AES_128_CBC_SHA", "TLS_RSA_WITH_AES_256_CBC_SHA", "TLS_RSA_WITH_AES_128_CBC_SHA256",
    "TLS_RSA_WITH_AES_128_GCM_SHA256", "TLS_RSA_WITH_AES_256_GCM_SHA384", "TLS_ECDHE_ECDSA_WITH_RC4_128_SHA",
    "TLS_ECDHE_RSA_WITH_RC4_128_SHA", "TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA", "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256",
    "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256")
  private val Curves2_10 = Set("X25519", "CurveP256", "CurveP384", "CurveP521")
  private val Curves2_12 = Curves2_10 + "X25519MLKEM768"
  private val Curves2_15 = Curves2_12 ++ Set("SecP256r1MLKEM768", "SecP384r1MLKEM1024")

  /**
   * The version pattern of versionComponents (server/util.go), per line: 2.10 takes a `v`, digits and two optional
   * dots and digits at the start; from 2.11.0 a whole semver (measured: `2.8` and `v2.7.9` differ between them).
   */
  private val SemVer2_10 = """\Av?([0-9]+)\.?([0-9]+)?\.?([0-9]+)?""".r
  private val SemVer2_11 =
    ("""\A(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)""" +
      """(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?\z""").r
  private val SemVer: Map[String, scala.util.matching.Regex] = Map("2.10" -> SemVer2_10, "2.11" -> SemVer2_11,
    "2.12" -> SemVer2_11, "2.14" -> SemVer2_11, "2.15" -> SemVer2_11)

  /** Per line: (cipher names, curve names). */
  private val TlsNames: Map[String, (Set[String], Set[String])] = Map(
    "2.10" -> (CiphersListed, Curves2_10), "2.11" -> (CiphersListed, Curves2_10), "2.12" -> (CiphersOfGo, Curves2_12),
    "2.14" -> (CiphersOfGo, Curves2_12), "2.15" -> (CiphersOfGo, Curves2_15))

  /** What each block's parser says of a value that is no map (its `%T`), for the blocks that say it so. */
  private val NotAMap: Map[String, String => String] = Map(
    "cluster" -> (t => s"Expected map to define cluster, got $t"),
    "gateway" -> (t => s"Expected gateway to be a map, got $t"),
    "leafnodes" -> (t => s"Expected map to define a leafnode, got $t"),
    "websocket" -> (t => s"Expected websocket to be a map, got $t"),
    "mqtt" -> (t => s"Expected mqtt to be a map, got $t"))

  private def lower(k: String): String = GoBytes.lower(k)

  /** A Windows certificate store is read only on Windows (certstore.ParseCertStore, by the OS -t runs on). */
  private val onWindows = System.getProperty("os.name", "").startsWith("Windows")

  def check(doc: Obj, version: ServerVersion, readFiles: Boolean = true): OptionsCheck =
    new Walk(version, readFiles).run(doc)

  /** What a block's parser says of a field it does not know, where it is not `unknown field "NAME"`. */
  private val UnknownFieldWords: Map[String, String => String] = Map(
    "permissions" -> (k => s"Unknown field ${GoQuote(k)} parsing permissions"),
    "allow_responses" -> (k => s"Unknown field ${GoQuote(k)} parsing permissions"),
    "subject_permission" ->
      (k => s"Unknown field name ${GoQuote(k)} parsing subject permissions, only 'allow' or 'deny' are permitted"),
    "auth_callout" -> (k => s"Unknown field ${GoQuote(k)} parsing authorization callout"),
    "account_limits" -> (k => s"Unknown field ${GoQuote(k)} parsing account limits"))

  private final class Walk(protected val version: ServerVersion, readFiles: Boolean)
    extends AuthorizationOptions with JetStreamOptions with ValueOptions with StartupChecks {
    private val problems = mutable.ArrayBuffer.empty[ConfigProblem]
    private var tlsBlocks = 0
    private var filesRead = 0
    protected def known(block: String): Set[String] = ServerFields.of(version.release, version.line, block)

    protected def error(at: ConfValue, field: String, message: String, placed: Boolean = true): Unit =
      problems += ConfigProblem(at, field, "error", message, placed)

    protected def fields(o: Obj, block: String, field: String): Boolean = fields(o, block, field, None)

    protected def fields(o: Obj, block: String, field: String, panicAt: Option[ConfValue]): Boolean = {
      unknownFields(o, block, field)
      typed(o, block, field, panicAt)
    }

    def run(doc: Obj): OptionsCheck = {
      typed(doc, "top", "")
      durations(doc, "top", "")
      for ((k, v) <- doc.entries if !doc.usedVariables(k)) lower(k) match {
        case "tls" => tls(v, k)
        case "cluster" => block(v, "cluster", k)
        case "gateway" => block(v, "gateway", k)
        case "leafnodes" | "leaf" => block(v, "leafnodes", k)
        case "websocket" | "ws" => block(v, "websocket", k)
        case "mqtt" => block(v, "mqtt", k)
        case "jetstream" => jetStream(v, k)
        case "listen" | "http" | "https" => listen(v, k)
        case "write_timeout" => writeTimeout(v, k)
        case name @ ("lame_duck_duration" | "lame_duck_grace_period") => lameDuck(v, k, name)
        // int32 fields: a larger integer is refused
        case "max_control_line" | "max_payload" => v match {
            case Integer(n, _) if n > Int.MaxValue => error(v, k, s"$k value is too big")
            case _ =>
          }
        case "authorization" => authorization(v, k, "top")
        case "accounts" => for ((name, account: Obj) <- v match { case o: Obj => o.entries; case _ => Nil };
            (ak, x) <- account.entries) lower(ak) match {
            case "users" => users(x, s"$k.$name.$ak", "user")
            case "default_permissions" => permissions(x, s"$k.$name.$ak")
            case "jetstream" => accountJetStream(x, s"$k.$name.$ak")
            case "limits" =>
              accountValue("limits", ak, x, s"$k.$name.$ak")
              x match { case o: Obj => fields(o, "account_limits", s"$k.$name.$ak"); case _ => }
            case key if known("account")(key) => accountValue(key, ak, x, s"$k.$name.$ak")
            case _ =>
          }
        case "resolver" | "account_resolver" | "accounts_resolver" => resolver(v, k)
        case "operator" | "operators" | "roots" | "root" | "root_operators" | "root_operator" =>
          operators(v, k)
        case "resolver_tls" => tls(v, k)
        case key if known("top")(key) => topValue(key, v, k)
        case _ =>
      }
      // From 2.11.0 (the same releases, measured: every 2.11.x opts.go has the cluster and gateway checks, no 2.10.x)
      if (version.serverNameSpacesRefused) {
        for ((k, name: Str) <- doc.entries if lower(k) == "server_name" && name.value.contains(" "))
          error(name, k, "server name cannot contain spaces")
        for ((k, o: Obj) <- doc.entries; block = lower(k) if block == "cluster" || block == "gateway";
          (nk, name: Str) <- o.entries if lower(nk) == "name" && name.value.contains(" "))
          error(name, s"$k.$nk", s"$block name cannot contain spaces")
      }
      if (version.testRunsStartupChecks) startupChecks(doc)
      OptionsCheck(problems.toVector, tlsBlocks, filesRead)
    }

    /**
     * How the release reads `key` of `block` ([[ServerFieldTypes]]): the Go type its case asserts, or
     * `duration:NAME` for one read with `parseDuration` (NAME: what its messages call it; empty: the key as written).
     */
    private def assertedType(block: String, key: String): Option[String] =
      ServerFieldTypes.of(version.release, version.line, block, lower(key))

    private final val Duration = "duration:"

    /**
     * A value of another type than the one its field's case asserts (a string where it takes an integer): Go's panic
     * text, recovered by nats-server as the field's error, on the field's token, or on `panicAt` for a parser that
     * recovers none (the caller's recovery names its own last token). Whether one failed.
     */
    private def typed(o: Obj, block: String, field: String, panicAt: Option[ConfValue] = None): Boolean = {
      val failed = for ((k, v) <- o.entries if known(block)(lower(k));
        expected <- assertedType(block, k) if !expected.startsWith(Duration) && goType(v) != expected) yield {
        error(panicAt.getOrElse(v), if (field.isEmpty) k else s"$field.$k",
          s"interface conversion: interface {} is ${goType(v)}, not $expected")
      }
      failed.nonEmpty
    }

    /**
     * The durations: a string is read by Go's `time.ParseDuration`; a number is taken as seconds with a warning, and
     * anything else panics after that warning: `-t` fails on either. A JetStream `sync: always` is no duration.
     */
    protected def durations(o: Obj, block: String, field: String): Unit =
      for ((k, v) <- o.entries if known(block)(lower(k)) && !(block == "jetstream" && isAlways(v));
        how <- assertedType(block, k) if how.startsWith(Duration)) {
        val path = if (field.isEmpty) k else s"$field.$k"
        val said = Some(how.stripPrefix(Duration)).filter(_.nonEmpty).getOrElse(k)
        val nanos = v match {
          case Str(text, _, _) =>
            GoDuration.parse(text) match {
              case Left(e) => error(v, path, s"error parsing $said: $e"); None
              case Right(d) => Some(d)
            }
          case other =>
            error(other, path, s"invalid use of field ${GoQuote(said)}: $said should be converted to a duration")
            other match {
              case Integer(seconds, _) => Some(seconds * 1000000000L)
              case _ => error(other, path, s"interface conversion: interface {} is ${goType(other)}, not int64"); None
            }
        }
        for (d <- nanos; (max, words) <- PingIntervalMax.get(block) if lower(k) == "ping_interval" && d > max)
          error(v, path, words)
      }

    private def isAlways(v: ConfValue): Boolean = v match {
      case Str(s, _, _) => lower(s) == "always"
      case _ => false
    }

    private def unknownFields(o: Obj, block: String, field: String): Unit =
      for ((k, v) <- o.entries if !o.usedVariables(k) && !known(block)(lower(k)))
        error(v, field, UnknownFieldWords.get(block).fold(s"unknown field ${GoQuote(k)}")(_(k)))

    /** A block with its own field list, its integers, its `tls`, and the lists of remotes it holds. */
    private def block(v: ConfValue, block: String, field: String): Unit = v match {
      case o: Obj =>
        unknownFields(o, block, field)
        typed(o, block, field)
        durations(o, block, field)
        for ((k, x) <- o.entries) (block, lower(k)) match {
          case (_, "tls") => tls(x, s"$field.$k")
          case ("cluster" | "gateway" | "leafnodes" | "websocket" | "mqtt", "listen") => listen(x, s"$field.$k")
          case ("cluster" | "gateway" | "leafnodes", "write_timeout") => writeTimeout(x, s"$field.$k")
          case ("cluster" | "leafnodes", "compression") => compression(x, s"$field.$k", k)
          case ("cluster" | "gateway", "authorization") => authorization(x, s"$field.$k", block)
          case ("websocket" | "mqtt", "authorization" | "authentication") => simpleAuthorization(x, s"$field.$k")
          case ("cluster", "accounts") => strings(x, s"$field.$k", "accounts")
          // whatever its value, a warning on every line measured (which -t refuses)
          case ("mqtt", "consumer_replicas") => error(x, s"$field.$k",
              s"invalid use of field ${GoQuote(k)}: consumer replicas setting ignored in this server version")
          case ("websocket", key) if known(block)(key) =>
            websocketValue(key, x, s"$field.$k")
          case ("leafnodes", "authorization") => leafAuthorization(x, s"$field.$k")
          case ("cluster", "permissions") =>
            // read without its token: a permissions value that is no map is an error on no line
            if (permissions(x, s"$field.$k", placed = false))
              error(x, s"$field.$k", "Cluster permissions do not support dynamic responses")
          case ("leafnodes", name @ ("min_version" | "minimum_version")) if known(block)(name) =>
            leafMinVersion(x, s"$field.$k")
          case ("gateway", "gateways") => remotes(x, "gateway_remote", s"$field.$k")
          case ("leafnodes", "remotes") => remotes(x, "leafnode_remote", s"$field.$k")
          case ("cluster", "routes") => urls(x, "route", s"$field.$k")
          case _ =>
        }
      case other => NotAMap.get(block).foreach(words => error(other, field, words(goType(other))))
    }

    /** parseListen: a port, or `host:port` as Go's net.SplitHostPort and strconv.Atoi read it. */
    private def listen(v: ConfValue, field: String): Unit = v match {
      case _: Integer =>
      case Str(s, _, _) =>
        GoNet.splitHostPort(s) match {
          case None => error(v, field, s"could not parse address string ${GoQuote(s)}")
          case Some((_, port)) =>
            if (!GoNet.atoi(port)) error(v, field, s"could not parse port ${GoQuote(port)}")
        }
      case other => error(other, field, s"expected port or host:port, got ${goType(other)}")
    }

    /** parseWriteDeadlinePolicy (its string asserted by the field's own case: typed's). */
    private def writeTimeout(v: ConfValue, field: String): Unit = v match {
      case Str("default" | "close" | "retry", _, _) =>
      case _: Str => error(v, field, "write_timeout must be 'default', 'close' or 'retry'")
      case _ =>
    }

    /** parseCompression: a mode, a bool, or a map of `mode` and `rtt_thresholds` durations. */
    private def compression(v: ConfValue, field: String, key: String): Unit = v match {
      case _: Str | _: Bool =>
      case o: Obj =>
        // it returns at its first error (Go's map order picks which): each is one it may give
        for ((k, x) <- o.entries; path = s"$field.$k") lower(k) match {
          case "mode" => if (!x.isInstanceOf[Str])
              error(x, path, s"interface conversion: interface {} is ${goType(x)}, not string")
          case "rtt_thresholds" | "thresholds" | "rtts" | "rtt" => x match {
              case Arr(items, _) =>
                items.collectFirst {
                  case Str(d, _, _) if GoDuration.parse(d).isLeft => GoDuration.parse(d).left.toOption.get
                  case other if !other.isInstanceOf[Str] =>
                    s"interface conversion: interface {} is ${goType(other)}, not string"
                }.foreach(error(x, path, _))
              case other =>
                error(other, path, s"interface conversion: interface {} is ${goType(other)}, not []interface {}")
            }
          case _ if !o.usedVariables(k) => error(x, path, s"unknown field ${GoQuote(k)}")
          case _ =>
        }
      case other =>
        error(other, field, s"field ${GoQuote(key)} should be a boolean or a structure, got ${goType(other)}")
    }

    /** A lame duck duration (a Go duration string: its type is typed's): at least 30 seconds, a grace period >= 0. */
    private def lameDuck(v: ConfValue, field: String, name: String): Unit = v match {
      case Str(s, _, _) =>
        GoDuration.parse(s) match {
          case Left(e) => error(v, field, s"error parsing $name: $e")
          case Right(d) if name == "lame_duck_duration" && d < 30L * 1000000000L =>
            error(v, field, s"invalid lame_duck_duration of ${GoDuration.format(d)}, minimum is 30 seconds")
          case Right(d) if name == "lame_duck_grace_period" && d < 0 =>
            error(v, field, "invalid lame_duck_grace_period, needs to be positive")
          case _ =>
        }
      case _ =>
    }

    private def remotes(v: ConfValue, block: String, field: String): Unit = v match {
      case Arr(items, _) =>
        for ((item, i) <- items.zipWithIndex) item match {
          case o: Obj =>
            unknownFields(o, block, s"$field[$i]")
            typed(o, block, s"$field[$i]")
            durations(o, block, s"$field[$i]")
            val kind = if (block == "gateway_remote") "gateway" else "leafnode"
            for ((k, x) <- o.entries) lower(k) match {
              case "tls" => tls(x, s"$field[$i].$k")
              case "url" | "urls" => urls(x, kind, s"$field[$i].$k")
              case "compression" if block == "leafnode_remote" => compression(x, s"$field[$i].$k", k)
              case key if block == "leafnode_remote" && known(block)(key) =>
                leafRemoteValue(key, k, x, s"$field[$i].$k")
              case _ =>
            }
          case other =>
            val entry = if (block == "gateway_remote") "gateway entry" else "remote leafnode entry"
            error(other, field, s"Expected $entry to be a map/struct, got ${ConfValue.goText(other)}")
        }
      case other if block == "leafnode_remote" =>
        error(other, field, s"Expected remotes field to be an array, got ${goType(other)}")
      // parseGateways is handed the value without its token: no line
      case other => error(other, field, s"Expected gateways field to be an array, got ${goType(other)}", placed = false)
    }

    /**
     * Route, gateway and leafnode URLs as parseURL takes each: what Go's `url.Parse` refuses, on the URL's line;
     * a list's repeated URL is a warning (not parsed again), which -t refuses as it does an error.
     */
    private def urls(v: ConfValue, kind: String, field: String): Unit = {
      val seen = mutable.Set.empty[String]
      val written = v match {
        case Arr(items, _) => items.collect { case s: Str => s }
        case s: Str => Seq(s)
        case _ => Nil
      }
      for (u <- written) if (!seen.add(u.value)) {
        error(u, field, s"invalid use of field ${GoQuote(u.value)}: Duplicate $kind entry detected")
      } else {
        val trimmed = GoUrl.trimSpace(u.value)
        if (!GoUrl.parses(trimmed)) error(u, field, s"error parsing $kind url [${GoQuote(trimmed)}]")
      }
    }

    /** checkLeafMinVersionConfig: versionComponents' semver (per line: [[SemVer]]), at least 2.8.0. */
    private def leafMinVersion(v: ConfValue, field: String): Unit = v match {
      case Str(s, _, _) =>
        val m = SemVer(version.line).findPrefixMatchOf(s)
        def atoi(digits: String) =
          if (digits == null) Left("strconv.Atoi: parsing \"\": invalid syntax")
          else scala.util.Try(digits.toInt).toOption.toRight(
            s"strconv.Atoi: parsing ${GoQuote(digits)}: value out of range")
        val parts = m match {
          case None => Left("invalid semver")
          case Some(found) => for (a <- atoi(found.group(1)); b <- atoi(found.group(2)); c <- atoi(found.group(3)))
              yield (a, b, c)
        }
        parts match {
          case Left(e) => error(v, field, s"invalid leafnode's minimum version: $e")
          case Right((major, minor, patch)) =>
            if (!(major > 2 || major == 2 && minor > 8 || major == 2 && minor == 8 && patch >= 0))
              error(v, field, "the minimum version should be at least 2.8.0")
        }
      case _ => // another type: its interface conversion is typed()'s
    }

    private def string(o: Obj, key: String): Option[String] =
      o.entries.reverseIterator.collectFirst { case (k, Str(s, _, _)) if lower(k) == key => s }

    /**
     * A `tls` block as parseTLS and GenTLSConfig take it: the cipher and curve names first (each error on its
     * name's line), then the files, each error on the `tls` key's line.
     */
    private def tls(v: ConfValue, field: String): Unit = v match {
      case o: Obj =>
        tlsBlocks += 1
        val (ciphers, curves) = TlsNames(version.line)
        val named =
          for ((k, list) <- o.entries;
            (key, known, what) <- Seq(
              ("cipher_suites", ciphers, "unrecognized cipher"),
              ("curve_preferences", curves, "unrecognized curve preference")) if lower(k) == key) yield list match {
            case Arr(items, _) => items.collectFirst { case s @ Str(name, _, _) if !known(name) => (s, s"$what $name") }
            case _ => None
          }
        val empty = o.entries.collectFirst {
          case (k, a @ Arr(items, _)) if items.isEmpty && Set("cipher_suites", "curve_preferences")(lower(k)) =>
            (a: ConfValue, s"error parsing tls config, '${lower(k)}' cannot be empty")
        }
        val certStore = o.entries.collectFirst {
          case (k, s @ Str(store, _, _)) if lower(k) == "cert_store" && !onWindows =>
            val known = Set("windowscurrentuser", "windowslocalmachine")(lower(store))
            (s: ConfValue,
              if (known) "cert_store not compatible with current operating system"
              else "cert store type not implemented")
        }
        val values = o.entries.flatMap { case (k, x) =>
          if (known("tls")(lower(k))) tlsValue(lower(k), k, x).map(m => (x, m)) else None
        }
        (empty ++ named.flatten ++ certStore ++ values).headOption match {
          case Some((at, message)) => return error(at, field, message)
          case None =>
        }
        // parseTLS returns at the first field it does not know (one error, on that field's line)
        o.entries.collectFirst { case (k, x) if !known("tls")(lower(k)) => (k, x) } match {
          case Some((k, x)) =>
            val named = if (version.tlsUnknownFieldInList) s"[${GoQuote(k)}]" else GoQuote(k)
            return error(x, field, s"error parsing tls config, unknown field $named")
          case None =>
        }
        // then, with Go's list (2.12 on), the insecure ciphers named, in their written order, unless allowed
        val allowed =
          o.entries.exists { case (k, Bool(true, _)) => lower(k) == "allow_insecure_cipher_suites"; case _ => false }
        val insecure = o.entries.collect { case (k, Arr(items, _)) if lower(k) == "cipher_suites" => items }.flatten
          .collect { case Str(name, _, _) if InsecureCiphersOfGo(name) => name }
        if ((ciphers eq CiphersOfGo) && !allowed && insecure.nonEmpty)
          return error(o, field,
            "insecure cipher suites configured without 'allow_insecure_cipher_suites' option set: " +
              insecure.mkString(", "))
        (string(o, "cert_file"), string(o, "key_file")) match {
          case (Some(_), None) => return error(o, field, "missing 'key_file' in TLS configuration")
          case (None, Some(_)) => return error(o, field, "missing 'cert_file' in TLS configuration")
          case (Some(cert), Some(key)) if readFiles =>
            filesRead += 2
            TlsFiles.keyPairError(cert, key) match {
              case Some(e) => return error(o, field, s"error parsing X509 certificate/key pair: $e")
              case None =>
            }
          case _ =>
        }
        for (ca <- string(o, "ca_file") if readFiles) {
          filesRead += 1
          TlsFiles.caError(ca).foreach(e => error(o, field, e))
        }
      case other =>
        error(other, field, s"interface conversion: interface {} is ${goType(other)}, not map[string]interface {}")
    }

    /**
     * What parseTLS says of a field's value of another kind than its case reads (`key` lower case, written `written`),
     * if it does; it returns at the first (Go's map order picks which).
     */
    private def tlsValue(key: String, written: String, v: ConfValue): Option[String] = {
      val words = "error parsing tls config, "
      // a case that starts with a bare assertion (the release's: the first 2.10 releases' handshake_first takes a bool)
      val asserted = assertedType("tls", key).filter(t => !t.startsWith(Duration) && goType(v) != t)
      if (asserted.nonEmpty) return asserted.map(t => s"interface conversion: interface {} is ${goType(v)}, not $t")
      (key, v) match {
        case ("cert_file" | "key_file" | "ca_file", _: Str) => None
        case ("cert_file" | "key_file" | "ca_file", _) => Some(s"${words}expected '$key' to be filename")
        case ("insecure" | "verify_and_map" | "verify_cert_and_check_known_urls" | "allow_insecure_cipher_suites",
              other) => if (other.isInstanceOf[Bool]) None else Some(s"${words}expected '$key' to be a boolean")
        case ("verify", _: Bool) => None
        case ("verify", Str(s, _, _)) if version.tlsVerifyOptional && s.equalsIgnoreCase("optional") => None
        case ("verify", _) =>
          Some(s"${words}expected 'verify' to be a boolean${if (version.tlsVerifyOptional) " or 'optional'" else ""}")
        case ("timeout", _: Integer | _: Decimal) => None
        case ("timeout", Str(s, _, _)) => GoDuration.parse(s).left.toOption.map(e => s"$words'timeout' $e")
        case ("timeout", _) => Some(s"$words'timeout' wrong type")
        case ("connection_rate_limit", _: Integer) => None
        case ("connection_rate_limit", _) => Some(s"$words'connection_rate_limit' wrong type")
        case ("handshake_first" | "first" | "immediate", _: Bool) => None
        case ("handshake_first" | "first" | "immediate", Str(s, _, _)) =>
          if (Set("true", "on", "false", "off", "auto", "auto_fallback")(lower(s)) || GoDuration.parse(s).isRight) None
          else Some(s"field ${GoQuote(written)}'s value ${GoQuote(s)} is invalid")
        case ("handshake_first" | "first" | "immediate", other) =>
          Some(s"field ${GoQuote(written)} should be a boolean or a string, got ${goType(other)}")
        case _ => None
      }
    }

    private val ResolverWords =
      "error parsing account resolver, should be MEM or  URL(\"url\") or a map containing dir and type state=[FULL|CACHE])"

    /** The account resolver: a string (MEM, URL(...)), or a map whose `type` is FULL, CACHE or MEM. */
    private def resolver(v: ConfValue, field: String): Unit = v match {
      case Str(s, _, _) =>
        val upper = s.toUpperCase(java.util.Locale.ROOT)
        if (!upper.contains("MEM") && !upper.contains("URL")) error(v, field, ResolverWords)
      case o: Obj =>
        string(o, "type").map(_.toUpperCase(java.util.Locale.ROOT)) match {
          case Some("FULL" | "CACHE") =>
            // The dir checked, then made if missing (MkdirAll: -t makes it; here nothing is made): both can fail.
            string(o, "dir").getOrElse("") match {
              case "" =>
                error(o, field, "dir has no value and needs to point to a directory")
                error(o, field, "mkdir : no such file or directory")
              case dir if readFiles && new java.io.File(dir).exists() && !new java.io.File(dir).isDirectory =>
                error(o, field, "dir needs to point to an accessible directory")
                error(o, field, s"mkdir $dir: not a directory")
              case _ =>
            }
          case Some("MEM" | "MEMORY") =>
          case _ => error(o, field, ResolverWords)
        }
      case other => error(other, field, s"error parsing operator resolver, wrong type ${goType(other)}")
    }

    /** Operator JWTs, each a file (or written in place): opened, decoded and their signature checked. */
    private def operators(v: ConfValue, field: String): Unit = if (readFiles) {
      val values = v match {
        case s: Str => Seq(s)
        case Arr(items, _) => items.collect { case s: Str => s }
        case _ => Nil
      }
      v match {
        case _: Str | _: Arr =>
        case other => error(other, field, s"error parsing operators: unsupported type ${goType(other)}")
      }
      for (p <- values) {
        if (!p.value.startsWith("eyJ")) filesRead += 1
        OperatorJwts.error(p.value).foreach(e => error(v, field, s"error parsing operator JWT: $e"))
      }
    }
  }
}

/** Go's net.SplitHostPort (the host and port, or None for its error) and whether strconv.Atoi reads a port. */
private[config] object GoNet {
  def splitHostPort(hostport: String): Option[(String, String)] = {
    val i = hostport.lastIndexOf(':')
    if (i < 0) return None // missing port in address
    val (host, j, k) =
      if (hostport.charAt(0) == '[') {
        val end = hostport.indexOf(']')
        if (end < 0 || end + 1 != i) return None // missing ']', missing port, too many colons
        (hostport.substring(1, end), 1, end + 1)
      } else {
        val h = hostport.substring(0, i)
        if (h.contains(':')) return None // too many colons in address
        (h, 0, 0)
      }
    if (hostport.indexOf('[', j) >= 0 || hostport.indexOf(']', k) >= 0) return None
    Some((host, hostport.substring(i + 1)))
  }

  def atoi(s: String): Boolean = GoInts.parseInt64(s).isRight
}

/**
 * Whether Go's `net/url.Parse` takes a URL, as nats-server's parseURL calls it (server/opts.go): a control byte,
 * a scheme that starts with `:`, a scheme-less first segment with a colon, a port that is not digits, a host
 * byte or a userinfo byte Go refuses, and a `%` that is not an escape (in the user, host, path or fragment; the
 * query is not read) are errors; a URL with a scheme and no `/` after it is opaque and not read further.
 */
private[config] object GoUrl {
  private def isHex(c: Char) = c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
  private def isAlnum(c: Char) = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'

  /** Go's strings.TrimSpace over ASCII white space (the URLs' other spaces are kept, and refused in a host). */
  def trimSpace(s: String): String = s.dropWhile(c => " \t\n\r\u000b\f".indexOf(c) >= 0)
    .reverse.dropWhile(c => " \t\n\r\u000b\f".indexOf(c) >= 0).reverse

  /** url.unescape: every `%` starts two hex digits; in a host an escape below %80 other than %25 is refused. */
  private def escapesOk(s: String, host: Boolean): Boolean = {
    var i = 0
    while (i < s.length) {
      val c = s.charAt(i)
      if (c == '%') {
        if (i + 2 >= s.length || !isHex(s.charAt(i + 1)) || !isHex(s.charAt(i + 2))) return false
        if (host && Character.digit(s.charAt(i + 1), 16) < 8 && s.substring(i, i + 3) != "%25") return false
        i += 3
      } else {
        if (host && c < 0x80 && !isAlnum(c) && "!$&'()*+,;=:[]<>\"-_.~".indexOf(c) < 0) return false
        i += 1
      }
    }
    true
  }

  /** url.validOptionalPort: empty, or a colon and digits. */
  private def portOk(p: String) = p.isEmpty || p.charAt(0) == ':' && p.drop(1).forall(c => c >= '0' && c <= '9')

  private def hostOk(host: String): Boolean = {
    val portFrom =
      if (host.startsWith("[")) { val i = host.lastIndexOf(']'); if (i < 0) return false; i + 1 }
      else { val i = host.lastIndexOf(':'); if (i < 0) host.length else i }
    portOk(host.substring(portFrom)) && escapesOk(host, host = true)
  }

  private def userOk(user: String): Boolean =
    user.forall(c => c >= 0x80 || isAlnum(c) || "-._:~!$&'()*+,;=%@".indexOf(c) >= 0) && escapesOk(user, host = false)

  def parses(url: String): Boolean = {
    val hash = url.indexOf('#')
    val (beforeFragment, fragment) = if (hash < 0) (url, "") else (url.substring(0, hash), url.substring(hash + 1))
    if (beforeFragment.exists(c => c < 0x20 || c == 0x7f) || !escapesOk(fragment, host = false)) return false
    if (beforeFragment.isEmpty) return true
    // getScheme: letters, then digits, '+', '-', '.' (not first); a ':' ends it; any other byte: no scheme
    val schemeEnd = beforeFragment.indexWhere(c => !(isAlnum(c) || c == '+' || c == '-' || c == '.'))
    val hasScheme = schemeEnd > 0 && beforeFragment.charAt(schemeEnd) == ':' && beforeFragment.charAt(0).isLetter &&
      beforeFragment.charAt(0) < 0x80
    if (schemeEnd == 0 && beforeFragment.charAt(0) == ':') return false // missing protocol scheme
    val rest0 = if (hasScheme) beforeFragment.substring(schemeEnd + 1) else beforeFragment
    val rest =
      if (rest0.endsWith("?") && rest0.count(_ == '?') == 1) rest0.dropRight(1)
      else rest0.takeWhile(_ != '?')
    if (!rest.startsWith("/")) {
      if (hasScheme) return true // opaque
      if (rest.takeWhile(_ != '/').contains(':')) return false // first path segment in URL cannot contain colon
    }
    val path =
      if (rest.startsWith("//") && (hasScheme || !rest.startsWith("///"))) {
        val authority = rest.drop(2).takeWhile(_ != '/')
        val at = authority.lastIndexOf('@')
        if (!hostOk(authority.substring(at + 1))) return false
        if (at >= 0 && !userOk(authority.substring(0, at))) return false
        rest.drop(2 + authority.length)
      } else rest
    escapesOk(path, host = false)
  }
}
