package subjxform.config

import subjxform.config.ConfValue._
import subjxform.engine.{GoQuote, ServerVersion, Subjects}

/**
 * The authorization blocks of a server config as `nats-server -t` reads them (server/opts.go): a top-level,
 * cluster's or gateway's `authorization` (parseAuthorization), its `users` (parseUsers, as an account's `users`),
 * permissions (parseUserPermissions and the parsers it calls), `auth_callout` (parseAuthCallout), a leafnodes
 * block's `authorization` (parseLeafAuthorization, parseLeafUsers) and websocket's and mqtt's (parseSimpleAuth).
 * Each block's fields and bare type assertions are the release's ([[ServerFields]], [[ServerFieldTypes]], through
 * `fields`); the values are checked as those parsers check them, in their words, on the token they name (none,
 * where the parser has no token: `placed` false). Part of [[ServerOptions]]' walk, which collects the problems.
 */
private[config] trait AuthorizationOptions {
  protected def version: ServerVersion

  /** A problem of `field`, on `at`'s line (or on none: `placed` false). */
  protected def error(at: ConfValue, field: String, message: String, placed: Boolean = true): Unit

  /** `o`'s unknown fields and bare type assertions, as `block`; whether an assertion failed (the parser stops). */
  protected def fields(o: Obj, block: String, field: String): Boolean

  private def lower(k: String): String = GoBytes.lower(k)

  private def text(o: Obj, keys: String*): String =
    o.entries.reverseIterator.collectFirst { case (k, Str(s, _, _)) if keys.contains(lower(k)) => s }.getOrElse("")

  /**
   * The connection types a user may be limited to, per line (jwt's ConnectionType names as client.go's
   * convertAllowedConnectionTypes lists them: IN_PROCESS from 2.11.0, in every 2.11 and later module, no 2.10 one).
   */
  private val ConnectionTypes2_10 = Set("STANDARD", "WEBSOCKET", "LEAFNODE", "LEAFNODE_WS", "MQTT", "MQTT_WS")
  private val ConnectionTypes: Map[String, Set[String]] = Map("2.10" -> ConnectionTypes2_10)
    .withDefaultValue(ConnectionTypes2_10 + "IN_PROCESS")

  /** What a bare `v.(map[string]any)` of a block that is no map leaves: Go's panic, then the caller's nil auth. */
  private def notAMap(v: ConfValue, field: String): Unit = {
    error(v, field, s"interface conversion: interface {} is ${goType(v)}, not map[string]interface {}")
    error(v, field, "runtime error: invalid memory address or nil pointer dereference")
  }

  /**
   * An `authorization` block of `owner` ("top", "cluster" or "gateway"): its fields, then the checks its caller
   * makes of what it read (a user and a token, a users list where one user is allowed).
   */
  protected def authorization(v: ConfValue, field: String, owner: String): Unit = v match {
    case o: Obj =>
      if (fields(o, "authorization", field)) return
      var users = false
      var callout = false
      for ((k, x) <- o.entries; path = s"$field.$k") lower(k) match {
        case "timeout" => if (!timeout(x, path, k, "authorization config")) return
        case "users" => users = this.users(x, path, "user")
        case "default_permission" | "default_permissions" | "permissions" => permissions(x, path)
        case "auth_callout" | "auth_hook" => callout = authCallout(x, path)
        case _ =>
      }
      val (user, token) = (text(o, "user", "username") + text(o, "pass", "password"), text(o, "token"))
      val problem = owner match {
        case "top" =>
          if (user.nonEmpty && token.nonEmpty) Some("Cannot have a user/pass and token")
          else if (users && text(o, "user", "username").nonEmpty)
            Some("Can not have a single user/pass and a users array")
          else if (users && token.nonEmpty) Some("Can not have a token and a users array")
          else None
        case _ =>
          val block = if (owner == "cluster") "Cluster" else "Gateway"
          if (users) Some(s"$block authorization does not allow multiple users")
          else if (token.nonEmpty) Some(s"$block authorization does not support tokens")
          else if (callout && owner == "cluster") Some("Cluster authorization does not support callouts")
          else None
      }
      problem.foreach(error(o, field, _))
    case other => notAMap(other, field)
  }

  /**
   * An authorization's `timeout`: seconds as a number, or a Go duration; above a minute a warning, which -t refuses
   * as it does an error (from 2.11.2; before, any value is taken). False where the parser returns at it (`what`:
   * the block its messages name).
   */
  private def timeout(v: ConfValue, field: String, key: String, what: String): Boolean = {
    if (!version.authorizationTimeoutChecked) return true
    val seconds = v match {
      case Integer(n, _) => Some(n.toDouble)
      case Decimal(d, _) => Some(d)
      case Str(s, _, _) => GoDuration.parse(s) match {
          case Right(nanos) => Some(nanos / 1e9)
          case Left(e) => error(v, field, s"error parsing $what, 'timeout' $e"); return false
        }
      case _ => error(v, field, s"error parsing $what, 'timeout' wrong type"); return false
    }
    for (s <- seconds if s > 60)
      error(v, field,
        s"invalid use of field ${GoQuote(key)}: timeout of ${ConfValue.goText(v)} " +
          f"(${s}%.6f seconds) is high, consider keeping it under 60 seconds. possibly caused by unquoted duration; " +
          "use '1m' instead of 1m, for example")
    true
  }

  /**
   * A `users` list (parseUsers; `block` "leaf_user": a leafnodes authorization's, parseLeafUsers): each entry a
   * map of its fields, with a user name or an nkey. Whether the parser returned the list (a caller's check of it).
   */
  protected def users(v: ConfValue, field: String, block: String): Boolean = v match {
    case Arr(items, _) =>
      for ((item, i) <- items.zipWithIndex; path = s"$field[$i]") item match {
        case u: Obj =>
          if (fields(u, block, path)) return false
          for ((k, x) <- u.entries; at = s"$path.$k") lower(k) match {
            case "permission" | "permissions" | "authorization" if block == "user" => permissions(x, at)
            case "allowed_connection_types" | "connection_types" | "clients" if block == "user" =>
              connectionTypes(x, at)
            case _ =>
          }
          if (block == "user") {
            val (nkey, user, pass) = (text(u, "nkey"), text(u, "user", "username"), text(u, "pass", "password"))
            // the token of the entry's last field read (Go's map order: one field's, when it has one)
            val last = u.entries.lastOption.map(_._2).getOrElse(u)
            val problem =
              if (nkey.isEmpty && user.isEmpty) Some("User entry requires a user")
              else if (nkey.nonEmpty && !NKeys.isValidPublic(nkey, NKeys.User))
                Some("Not a valid public nkey for a user")
              else if (nkey.nonEmpty && (user.nonEmpty || pass.nonEmpty))
                Some("Nkey users do not take usernames or passwords")
              else None
            for (p <- problem) { error(last, path, p); return false }
          }
        case other => error(other, field, s"Expected user entry to be a map/struct, got ${ConfValue.goText(other)}")
      }
      true
    case other =>
      error(other, field, s"Expected users field to be an array, got ${ConfValue.goText(other)}")
      false
  }

  /** parseStringArray, then convertAllowedConnectionTypes: the names the line knows, upper-cased. */
  private def connectionTypes(v: ConfValue, field: String): Unit = {
    val named = v match {
      case Str(s, _, _) => Seq(s)
      case Arr(items, _) => items.flatMap {
          case Str(s, _, _) => Some(s)
          case other =>
            error(other, field,
              s"error parsing allowed connection types: unsupported type in array ${goType(other)}")
            None
        }
      case other =>
        return error(other, field, s"error parsing allowed connection types: unsupported type ${goType(other)}")
    }
    val unknown = named.map(_.toUpperCase(java.util.Locale.ROOT)).filterNot(ConnectionTypes(version.line))
    if (unknown.nonEmpty) error(v, field, s"invalid connection types ${unknown.map(GoQuote(_)).mkString("[", " ", "]")}")
  }

  /**
   * Permissions (parseUserPermissions): a map of publish and subscribe subjects and response permissions.
   * `placed` false: the caller passed the value without its token (a cluster's `permissions`). Whether they
   * allow responses (which a cluster's may not).
   */
  protected def permissions(v: ConfValue, field: String, placed: Boolean = true): Boolean = v match {
    case o: Obj =>
      fields(o, "permissions", field)
      var responses = false
      for ((k, x) <- o.entries; path = s"$field.$k") lower(k) match {
        case "pub" | "publish" | "import" => subjectPermission(x, path, allowQueue = false)
        case "sub" | "subscribe" | "export" => subjectPermission(x, path, allowQueue = true)
        case "publish_allow_responses" | "allow_responses" => x match {
            case Bool(on, _) => responses = on
            case r: Obj => responses = allowResponses(r, path)
            case other => error(other, path, "error parsing response permissions, expected a boolean or a map")
          }
        case _ =>
      }
      responses
    case other =>
      error(other, field, s"Expected permissions to be a map/struct, got ${ConfValue.goText(other)}", placed)
      false
  }

  /**
   * parseVariablePermissions: a map of `allow` and `deny` subjects (each with its token), or the subjects themselves
   * (the old style, read without the token: its errors name no line, but a list's entry that is no string).
   */
  private def subjectPermission(v: ConfValue, field: String, allowQueue: Boolean): Unit = v match {
    case o: Obj =>
      if (o.entries.nonEmpty && !fields(o, "subject_permission", field))
        for ((k, x) <- o.entries if Set("allow", "deny")(lower(k))) subjects(x, s"$field.$k", allowQueue, placed = true)
    case other => subjects(other, field, allowQueue, placed = false)
  }

  /**
   * parsePermSubjects and checkPermSubjectArray: subjects, or subscribe subjects with a queue group (before the
   * release checks queues, two words with a valid first one in either).
   */
  private def subjects(v: ConfValue, field: String, allowQueue: Boolean, placed: Boolean): Unit = {
    val written = v match {
      case Str(s, _, _) => Seq(s)
      case Arr(items, _) =>
        items.map {
          case Str(s, _, _) => s
          case other => return error(other, field, "Subject in permissions array cannot be cast to string")
        }
      case other =>
        return error(other, field,
          s"Expected subject permissions to be a subject, or array of subjects, got ${goType(other)}", placed)
    }
    for (s <- written if !Subjects.isValidSubject(s)) {
      val queued = s.split("\\s+").filter(_.nonEmpty) // Go's strings.Fields
      val checked = version.permissionQueuesChecked
      val problem =
        if ((checked && !allowQueue) || queued.length != 2) s"subject ${GoQuote(s)} is not a valid subject"
        else if (!Subjects.isValidSubject(queued(0))) s"subject ${GoQuote(queued(0))} is not a valid subject"
        else if (checked && !Subjects.isValidSubject(queued(1))) s"queue ${GoQuote(queued(1))} is not a valid queue"
        else ""
      if (problem.nonEmpty) return error(v, field, problem, placed)
    }
  }

  /** parseAllowResponses of a map: its `max` messages and its `expires` duration. Whether responses are allowed. */
  private def allowResponses(o: Obj, field: String): Boolean = {
    if (fields(o, "allow_responses", field)) return false
    for ((k, x) <- o.entries if Set("expires", "expiration", "ttl")(lower(k))) x match {
      case Str(s, _, _) =>
        for (e <- GoDuration.parse(s).left) { error(x, field, s"error parsing expires: $e"); return false }
      case other => error(other, field, "error parsing expires, not a duration string"); return false
    }
    true
  }

  /** parseAuthCallout: an issuer account key, the users it authorizes, an optional xkey. Whether it was read. */
  private def authCallout(v: ConfValue, field: String): Boolean = v match {
    case o: Obj =>
      if (fields(o, "auth_callout", field)) return false
      var authUsers = false
      for ((k, x) <- o.entries; path = s"$field.$k") (lower(k), x) match {
        case ("issuer", Str(s, _, _)) if !NKeys.isValidPublic(s, NKeys.Account) =>
          error(x, path, s"Expected callout user to be a valid public account nkey, got ${GoQuote(s)}"); return false
        case ("xkey" | "key", Str(s, _, _)) if !NKeys.isValidPublic(s, NKeys.Curve) =>
          error(x, path, s"Expected callout xkey to be a valid public xkey, got ${GoQuote(s)}"); return false
        case (name @ ("auth_users" | "users" | "allowed_accounts"), list) =>
          val what = if (name == "allowed_accounts") "allowed accounts" else "auth_users"
          list match {
            case Arr(items, _) =>
              items.collectFirst { case s if !s.isInstanceOf[Str] => s } match {
                case Some(s) =>
                  error(s, path, s"interface conversion: interface {} is ${goType(s)}, not string"); return false
                case None => if (name != "allowed_accounts") authUsers = items.nonEmpty
              }
            // `%T` of the value as the parser holds it: the config's token
            case _ => error(x, path, s"Expected $what field to be an array, got *conf.token"); return false
          }
        case _ =>
      }
      // the token of the last field read (Go's map order: one field's, when it has one)
      val last = o.entries.lastOption.map(_._2).getOrElse(o)
      if (text(o, "issuer").isEmpty) {
        error(last, field, "Authorization callouts require an issuer to be specified"); false
      } else if (!authUsers) {
        error(last, field, "Authorization callouts require authorized users to be specified"); false
      } else true
    case other =>
      error(other, field, s"Expected authorization callout to be a map/struct, got ${ConfValue.goText(other)}")
      false
  }

  /** A leafnodes block's `authorization` (parseLeafAuthorization, then validateLeafNodeAuthOptions). */
  protected def leafAuthorization(v: ConfValue, field: String): Unit = v match {
    case o: Obj =>
      if (fields(o, "leaf_authorization", field)) return
      var users = Seq.empty[Obj]
      for ((k, x) <- o.entries; path = s"$field.$k") (lower(k), x) match {
        case ("nkey", Str(nk, _, _)) if !NKeys.isValidPublic(nk, NKeys.User) =>
          error(x, path, "Not a valid public nkey for leafnode authorization")
        case ("timeout", _) => if (!timeout(x, path, k, "leafnode authorization config")) return
        case ("users", _) => if (this.users(x, path, "leaf_user")) users = x match {
            case Arr(items, _) => items.collect { case u: Obj => u }
            case _ => Nil
          }
        case _ =>
      }
      val names = users.map(text(_, "user", "username"))
      val problem =
        if (users.isEmpty) None
        else if (text(o, "user", "username").nonEmpty) Some("can not have a single user/pass and a users array")
        else if (text(o, "nkey").nonEmpty) Some("can not have a single nkey and a users array")
        else names.diff(names.distinct).headOption.map(n =>
          s"duplicate user ${GoQuote(n)} detected in leafnode authorization")
      problem.foreach(error(o, field, _))
    case other => notAMap(other, field)
  }

  /** Websocket's and mqtt's `authorization` (parseSimpleAuth): a user, a password or a token, and a timeout. */
  protected def simpleAuthorization(v: ConfValue, field: String): Unit = v match {
    case o: Obj => fields(o, "simple_authorization", field)
    case other => notAMap(other, field)
  }
}
