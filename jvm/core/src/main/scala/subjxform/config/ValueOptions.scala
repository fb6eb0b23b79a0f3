package subjxform.config

import subjxform.config.ConfValue._
import subjxform.engine.GoQuote

/**
 * Values of a server config that processConfigFileLine and parseWebsocket read with their own switch of types rather
 * than a bare assertion (server/opts.go): tags, trusted operator keys, pinned accounts, JetStream domains per
 * account, feature flags, server metadata, the system account, the resolver's preload map, OCSP and its cache,
 * proxies, websocket's origins, headers and handshake timeout, a cluster's pinned accounts. Each in its case's words,
 * on the token it names. Part of [[ServerOptions]]' walk.
 */
private[config] trait ValueOptions {
  protected def version: subjxform.engine.ServerVersion
  protected def error(at: ConfValue, field: String, message: String, placed: Boolean = true): Unit

  /** The top-level `key` (lower case), written `field`, if this trait reads it. */
  protected def topValue(key: String, v: ConfValue, field: String): Unit = {
    key match {
      case "server_tags" => v match {
          case _: Str =>
          // (%T of the list's entry as the parser holds it: the config's token)
          case Arr(items, _) => if (items.exists(!_.isInstanceOf[Str]))
              error(v, field, "error parsing tags: unsupported type *conf.token where string is expected")
          case other => error(other, field, s"error parsing tags: unsupported type ${goType(other)}")
        }
      case "trusted" | "trusted_keys" =>
        val keys = strings(v, field, "trusted")
        // the check's token is the last one read: the key's, or the list's last entry
        val at = v match { case Arr(items, _) if items.nonEmpty => items.last; case _ => v }
        for (k <- keys if !NKeys.isValidPublic(k, NKeys.Operator))
          error(at, field, s"trust key ${GoQuote(k)} required to be a valid public operator nkey")
      case "resolver_pinned_accounts" => strings(v, field, "resolver_pinned_accounts")
      case "default_js_domain" => v match {
          case o: Obj => for (x <- o.entries.map(_._2).find(!_.isInstanceOf[Str]))
              error(v, field, s"interface conversion: interface {} is ${goType(x)}, not string")
          case other => error(other, field, s"error default_js_domain config: unsupported type ${goType(other)}")
        }
      case "feature_flags" => v match {
          case o: Obj => for ((k, x) <- o.entries.find(!_._2.isInstanceOf[Bool]))
              error(x, s"$field.$k", s"error parsing feature flag ${GoQuote(k)}: expected bool, got ${goType(x)}")
          case other => error(other, field, s"error parsing feature flags: unsupported type ${goType(other)}")
        }
      case "server_metadata" => v match {
          case o: Obj => for ((k, x) <- o.entries.find(!_._2.isInstanceOf[Str]))
              error(x, s"$field.$k", s"interface conversion: interface {} is ${goType(x)}, not string")
          case other => error(other, field, s"error parsing metadata: unsupported type ${goType(other)}")
        }
      case "system_account" | "system" => if (!v.isInstanceOf[Str])
          error(v, field, "system account name must be a string")
      case "resolver_preload" => if (!v.isInstanceOf[Obj])
          error(v, field, "preload should be a map of account_public_key:account_jwt")
      // (its words say tags: the server's own)
      case "ocsp_cache" => v match {
          case _: Bool =>
          case o: Obj => ocspCache(o, field)
          case other => error(other, field, s"error parsing tags: unsupported type ${goType(other)}")
        }
      case "ocsp" => v match {
          case _: Bool =>
          case o: Obj => ocsp(o, field)
          case other => error(other, field, s"error parsing ocsp config: unsupported type ${goType(other)}")
        }
      case "proxies" => v match {
          case o: Obj => proxies(o, field)
          case other => error(other, field, s"expected proxies to be a map/struct, got ${goType(other)}")
        }
      case _ =>
    }
  }

  /**
   * A field of an account (lower case `key`, written `written`; parseAccounts' own cases), if this trait reads it:
   * its public key, its limits (parseAccountLimits) and its message trace destination (parseAccountMsgTrace).
   */
  protected def accountValue(key: String, written: String, v: ConfValue, field: String): Unit = key match {
    case "nkey" => v match {
        case Str(s, _, _) if NKeys.isValidPublic(s, NKeys.Account) =>
        case other => error(other, field, s"Not a valid public nkey for an account: ${goQ(other)}")
      }
    case "limits" => v match {
        case _: Obj => // its fields: ServerOptions' (the account_limits block)
        case other => error(other, field, s"Expected account limits to be a map/struct, got ${ConfValue.goText(other)}")
      }
    case "msg_trace" | "trace_dest" => v match {
        case Str(dest, _, _) => traceDestination(v, dest, written, field)
        case o: Obj =>
          // it returns at its first error (Go's map order picks which): each is one it may give
          for ((k, x) <- o.entries; path = s"$field.$k") (GoBytes.lower(k), x) match {
            case ("dest", Str(dest, _, _)) => traceDestination(x, dest, k, path)
            case ("dest", other) => error(other, path, s"Field ${GoQuote(k)} should be a string, got ${goType(other)}")
            case ("sampling", Integer(n, _)) => sampling(x, n, path)
            case ("sampling", Str(text, _, _)) =>
              val percent = text.stripSuffix("%")
              GoInts.parseInt64(percent).toOption.filter(_.isValidInt) match {
                case Some(n) => sampling(x, n, path)
                case None => error(x, path, s"Invalid trace destination sampling value ${GoQuote(text)}")
              }
            case ("sampling", other) => error(other, path,
                s"Trace destination sampling field ${GoQuote(k)} should be an integer or a percentage, got ${goType(other)}")
            case _ if !o.usedVariables(k) =>
              error(x, path,
                s"Unknown field ${GoQuote(k)} parsing account message trace map/struct ${GoQuote(written)}")
            case _ =>
          }
        case other => error(other, field,
            s"Expected account message trace ${GoQuote(written)} to be a string or a map/struct, got ${goType(other)}")
      }
    case _ =>
  }

  private def traceDestination(v: ConfValue, dest: String, key: String, field: String): Unit =
    if (!subjxform.engine.Subjects.isValidSubject(dest) || dest.split('.').exists(t => t == "*" || t == ">"))
      error(v, field, s"Trace destination ${GoQuote(dest)} is not valid")

  private def sampling(v: ConfValue, n: Long, field: String): Unit =
    if (n <= 0 || n > 100) // (the server's own spelling)
      error(v, field, s"Ttrace destination sampling value $n is invalid, needs to be [1..100]")

  /** Go's `%q` of a value nats-server holds: a string quoted; anything else in fmt's words for a wrong verb. */
  private def goQ(v: ConfValue): String = v match {
    case Str(s, _, _) => GoQuote(s)
    case other => s"%!q(${goType(other)}=${ConfValue.goText(other)})"
  }

  /**
   * Per line, whether a leafnode remote's JetStream cluster migration is checked (every 2.11 and later module, no 2.10
   * one: it takes any value).
   */
  private val MigrateChecked: Map[String, Boolean] = Map("2.10" -> false).withDefaultValue(true)

  /**
   * A field of a leafnode remote (lower case `key`, written `written`), if this trait reads it: its user seed, the
   * subjects it denies, its JetStream cluster migration and its proxy.
   */
  protected def leafRemoteValue(key: String, written: String, v: ConfValue, field: String): Unit = key match {
    case "nkey" | "seed" => v match {
        case Str(s, _, _) if !NKeys.isValidSeed(s, NKeys.User) =>
          error(v, field, s"Remote leafnode nkey is not a valid seed: ${GoQuote(s)}")
        case _ => // another type: its interface conversion is typed()'s
      }
    case "deny_imports" | "deny_import" | "deny_exports" | "deny_export" => v match {
        case _: Str =>
        case Arr(items, _) => items.find(!_.isInstanceOf[Str])
            .foreach(x => error(x, field, "Subject in permissions array cannot be cast to string"))
        case other => error(other, field,
            s"Expected subject permissions to be a subject, or array of subjects, got ${goType(other)}")
      }
    // (read without the field's token: no line)
    case "jetstream_cluster_migrate" | "js_cluster_migrate" => v match {
        case _ if !MigrateChecked(version.line) =>
        case _: Bool | _: Obj =>
        case other => error(other, field,
            s"Expected boolean or map for jetstream_cluster_migrate, got ${goType(other)}", placed = false)
      }
    case "proxy" => v match {
        case o: Obj => for ((k, x) <- o.entries; path = s"$field.$k") (GoBytes.lower(k), x) match {
            case ("url" | "username" | "password", _: Str) | ("timeout" | "tls", _) =>
            case ("url" | "username" | "password", other) =>
              error(other, path, s"interface conversion: interface {} is ${goType(other)}, not string")
            case _ if !o.usedVariables(k) => error(x, path, s"unknown field ${GoQuote(k)}")
            case _ =>
          }
        case other => error(other, field, s"Expected proxy to be a map, got ${goType(other)}")
      }
    case _ =>
  }

  /**
   * `ocsp` as a map: its `mode` (always, must, never or auto), `url` and `urls` (which the server asserts as a
   * []string, which no config list is), no other key (compared as written). It returns at its first error (Go's map
   * order picks which): each is one it may give.
   */
  private def ocsp(o: Obj, field: String): Unit =
    for ((k, x) <- o.entries; path = s"$field.$k") (k, x) match {
      case ("mode", Str(mode, _, _)) =>
        if (!Set("always", "must", "never", "auto").exists(_.equalsIgnoreCase(mode)))
          error(x, path, "error parsing ocsp config: unsupported ocsp mode string")
      case ("url", _: Str) =>
      case ("mode" | "url", other) =>
        error(other, path, s"interface conversion: interface {} is ${goType(other)}, not string")
      case ("urls", other) => error(other, path, s"interface conversion: interface {} is ${goType(other)}, not []string")
      case _ => error(x, path, "error parsing ocsp config: unsupported field string")
    }

  /** parseOCSPResponseCache: its `type` (none or local), `local_store`, `preserve_revoked` and `save_interval`. */
  private def ocspCache(o: Obj, field: String): Unit = {
    val words = "error parsing OCSP peer cache config, "
    for ((k, x) <- o.entries; path = s"$field.$k") (GoBytes.lower(k), x) match {
      case ("type", Str(kind, _, _)) => if (!Set("none", "local")(GoBytes.lower(kind)))
          error(x, path, s"${words}unknown type [$kind]")
      case ("local_store", _: Str) | ("preserve_revoked", _: Bool) =>
      case ("save_interval", _: Integer | _: Decimal) =>
      case ("save_interval", Str(d, _, _)) => GoDuration.parse(d).left.foreach(e =>
          error(x, path, s"error parsing tls peer config, conversion error: $e"))
      case ("save_interval", _) => error(x, path, s"${words}conversion error: unexpected type")
      // a field of another type, or no field it knows: the same words
      case _ => error(x, path, s"${words}unknown field [${GoQuote(k)}]")
    }
  }

  /** parseProxies: its `trusted` list of proxies, each a map of a public `key` (parseProxiesTrusted). */
  private def proxies(o: Obj, field: String): Unit =
    for ((k, x) <- o.entries; path = s"$field.$k") GoBytes.lower(k) match {
      case "trusted" => x match {
          case Arr(items, _) => for (item <- items) item match {
              case entry: Obj => for ((ek, kv) <- entry.entries) (GoBytes.lower(ek), kv) match {
                  case ("key" | "public_key", Str(key, _, _)) =>
                    if (!NKeys.isValidPublicAny(key)) error(kv, s"$path.$ek", s"invalid proxy key ${GoQuote(key)}")
                  case ("key" | "public_key", other) =>
                    error(other, s"$path.$ek", s"interface conversion: interface {} is ${goType(other)}, not string")
                  case _ if !entry.usedVariables(ek) => error(kv, path, s"unknown field ${GoQuote(ek)}")
                  case _ =>
                }
              case other => error(other, path,
                  s"expected proxies' trusted entry to be a map/struct, got ${goType(other)}")
            }
          case other => error(other, path, s"expected proxies' trusted field to be an array, got ${goType(other)}")
        }
      case _ if !o.usedVariables(k) => error(x, field, s"unknown field ${GoQuote(k)}")
      case _ =>
    }

  /** A field of websocket (lower case `key`), if this trait reads it. */
  protected def websocketValue(key: String, v: ConfValue, field: String): Unit = {
    key match {
      case "allowed_origins" | "allowed_origin" | "allow_origins" | "allow_origin" | "origins" | "origin" =>
        strings(v, field, "allowed origins")
      case "handshake_timeout" => v match {
          case _: Integer =>
          case Str(s, _, _) => GoDuration.parse(s).left.foreach(error(v, field, _))
          case other => error(other, field, s"error parsing handshake timeout: unsupported type ${goType(other)}")
        }
      case "headers" => headers(v, field)
      case _ =>
    }
  }

  /** Websocket's `headers`: a map of strings. */
  private def headers(v: ConfValue, field: String): Unit = v match {
    case o: Obj => for ((k, x) <- o.entries if !x.isInstanceOf[Str])
        error(x, s"$field.$k", s"error parsing header key $k: unsupported type ${goType(x)}")
    case other => error(other, field, s"error parsing headers: unsupported type ${goType(other)}")
  }

  /** parseStringArray and its like: a string or a list of strings (`what`: the words its errors give). */
  protected def strings(v: ConfValue, field: String, what: String): Seq[String] = v match {
    case Str(s, _, _) => Seq(s)
    case Arr(items, _) => items.flatMap {
        case Str(s, _, _) => Some(s)
        case other => error(other, field, s"error parsing $what: unsupported type in array ${goType(other)}"); None
      }
    case other => error(other, field, s"error parsing $what: unsupported type ${goType(other)}"); Nil
  }
}
