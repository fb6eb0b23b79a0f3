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
          case _: Bool | _: Obj =>
          case other => error(other, field, s"error parsing tags: unsupported type ${goType(other)}")
        }
      case "ocsp" => v match {
          case _: Bool | _: Obj =>
          case other => error(other, field, s"error parsing ocsp config: unsupported type ${goType(other)}")
        }
      case "proxies" => if (!v.isInstanceOf[Obj])
          error(v, field, s"expected proxies to be a map/struct, got ${goType(v)}")
      case _ =>
    }
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
