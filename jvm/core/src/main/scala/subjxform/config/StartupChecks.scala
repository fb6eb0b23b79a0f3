package subjxform.config

import subjxform.config.ConfValue._
import subjxform.engine.{GoQuote, ServerVersion}

/**
 * The checks a server makes of its options when it starts (server.go's validateOptions), which `nats-server -t` runs
 * too from 2.15.3 ([[ServerVersion.testRunsStartupChecks]]): the server stops at the first that fails, and names no
 * line. Modelled, in validateOptions' order: the lame duck grace period against its duration, max_payload against
 * max_pending, a `default_sentinel` without operators (validateTrustedOperators), leafnode and remote compression
 * modes (validateLeafNode), the cluster's compression mode, its name against the gateway's and its pinned accounts
 * (validateCluster), the first checks of validateMQTTOptions, a JetStream cluster's server and cluster names
 * (validateJetStreamOptions) and websocket's TLS (validateWebsocketOptions). Not yet: validateLeafNode's accounts,
 * validateAuth, validateProxies, validateGatewayOptions, MQTT's users, JetStream domains. Part of [[ServerOptions]]'
 * walk.
 */
private[config] trait StartupChecks {
  protected def version: ServerVersion
  protected def error(at: ConfValue, field: String, message: String, placed: Boolean = true): Unit

  private def lower(k: String): String = GoBytes.lower(k)

  private final val Second = 1000000000L

  protected def startupChecks(doc: Obj): Unit = {
    def entry(o: Obj, keys: String*) = o.entries.reverseIterator.collectFirst {
      case (k, v) if keys.contains(lower(k)) => v
    }
    def block(keys: String*) = entry(doc, keys: _*).collect { case o: Obj => o }
    // a block's port: its `port`, else its `listen`'s (a port, or host:port)
    def port(o: Option[Obj]) = o.flatMap(b => entry(b, "port").orElse(entry(b, "listen"))).collect {
      case Integer(p, _) => p
      case Str(hostPort, _, _) => GoNet.splitHostPort(hostPort).flatMap(hp => GoInts.parseInt64(hp._2).toOption)
          .getOrElse(0L)
    }.getOrElse(0L)
    def text(o: Option[Obj], keys: String*) = o.flatMap(entry(_, keys: _*)).collect { case Str(s, _, _) => s }
      .getOrElse("")
    def duration(key: String, default: Long) = entry(doc, key).collect { case Str(d, _, _) => GoDuration.parse(d) }
      .map(_.getOrElse(default)).getOrElse(default)
    def integer(key: String, default: Long) = entry(doc, key).collect { case Integer(n, _) => n }.getOrElse(default)
    val (cluster, gateway, leafnodes, mqtt, websocket) =
      (block("cluster"), block("gateway"), block("leafnodes", "leaf"), block("mqtt"), block("websocket", "ws"))
    val serverName = entry(doc, "server_name").collect { case Str(n, _, _) => n }.getOrElse("")
    val operators = entry(doc, "operator", "operators", "roots", "root", "root_operators", "root_operator")
    val jetstream = entry(doc, "jetstream").exists {
      case Bool(on, _) => on
      case Str(s, _, _) => Set("enabled", "enable")(lower(s))
      case o: Obj => entry(o, "enabled", "enable").forall { case Bool(on, _) => on; case _ => true }
      case _ => false
    }
    val remotes = leafnodes.flatMap(entry(_, "remotes")).toSeq.flatMap {
      case Arr(items, _) => items.collect { case o: Obj => o }
      case _ => Nil
    }

    def lameDuck = {
      // DEFAULT_LAME_DUCK_DURATION and DEFAULT_LAME_DUCK_GRACE_PERIOD
      val (lameDuck, grace) =
        (duration("lame_duck_duration", 120 * Second), duration("lame_duck_grace_period", 10 * Second))
      Some(s"lame duck grace period (${GoDuration.format(grace)}) should be strictly lower than lame duck duration " +
        s"(${GoDuration.format(lameDuck)})").filter(_ => lameDuck > 0 && grace >= lameDuck)
    }
    def payload = {
      // MAX_PAYLOAD_SIZE and MAX_PENDING_SIZE
      val (payload, pending) = (integer("max_payload", 1L << 20), integer("max_pending", 64L << 20))
      Some(s"max_payload ($payload) cannot be higher than max_pending ($pending)").filter(_ => payload > pending)
    }
    def sentinel = entry(doc, "default_sentinel").collect {
      case Str(s, _, _) if s.nonEmpty && operators.isEmpty =>
        "default sentinel requires operators and accounts"
    }

    /** validateAndNormalizeCompressionOption's mode (its thresholds' order not modelled). */
    def compression(o: Option[Obj]) = o.flatMap(entry(_, "compression")).flatMap {
      case Str(mode, _, _) => Some(mode)
      case m: Obj => entry(m, "mode").collect { case Str(mode, _, _) => mode }
      case _ => None
    }.filter(mode =>
      mode.nonEmpty && !Set("on", "enabled", "true", "not supported", "not_supported", "disabled", "off",
        "false", "accept", "auto", "s2_auto", "fast", "s2_fast", "better", "s2_better", "best", "s2_best")(lower(mode)))
      .map(mode => s"unsupported compression mode ${GoQuote(mode)}")
    def leafCompression =
      compression(leafnodes).orElse(remotes.iterator.flatMap(r => compression(Some(r))).toSeq.headOption)
    def clusterChecks = compression(cluster).orElse {
      val (clusterName, gatewayName) = (text(cluster, "name"), text(gateway, "name"))
      if (gatewayName.nonEmpty && gatewayName != clusterName && clusterName.nonEmpty)
        Some("cluster name conflicts between cluster and gateway definitions")
      else {
        val pinned = cluster.flatMap(entry(_, "accounts")).toSeq.flatMap {
          case Str(s, _, _) => Seq(s)
          case Arr(items, _) => items.collect { case Str(s, _, _) => s }
          case _ => Nil
        }
        pinned.diff(pinned.distinct).headOption.map(a =>
          s"found duplicate account name ${GoQuote(a)} in pinned accounts list ${pinned.map(GoQuote(_)).mkString("[",
              " ", "]")}")
      }
    }
    def mqttChecks = mqtt.filter(m => port(Some(m)) != 0).flatMap { m =>
      def negative(key: String) = entry(m, key).collect { case Str(d, _, _) => GoDuration.parse(d) }.exists {
        case Right(nanos) => nanos < 0
        case Left(_) => false
      }
      if (serverName.isEmpty && (port(cluster) != 0 || port(gateway) != 0))
        Some("mqtt requires server name to be explicitly set")
      else if (negative("ack_wait")) Some("ack wait must be a positive value")
      else if (negative("js_api_timeout")) Some("JS API timeout must be a positive value")
      else if (!jetstream && port(cluster) == 0 && port(gateway) == 0 && port(leafnodes) == 0 && remotes.isEmpty)
        Some("mqtt requires JetStream to be enabled if running in standalone mode")
      else None
    }
    def jetStreamCluster =
      if (!jetstream || port(cluster) == 0) None
      else if (serverName.isEmpty) Some("jetstream cluster requires `server_name` to be set")
      // (a gateway's name stands for a cluster's that has none: validateCluster)
      else if (text(cluster, "name").isEmpty && text(gateway, "name").isEmpty)
        Some("jetstream cluster requires `cluster.name` to be set")
      else None
    def websocketTls = websocket.filter(w => port(Some(w)) != 0).collect {
      case w if entry(w, "tls").isEmpty && !entry(w, "no_tls").exists { case Bool(b, _) => b; case _ => false } =>
        "websocket requires TLS configuration"
    }

    val first = Iterator(() => lameDuck, () => payload, () => sentinel, () => leafCompression, () => clusterChecks,
      () => mqttChecks, () => jetStreamCluster, () => websocketTls).map(_()).collectFirst { case Some(p) => p }
    // the server names no line: the problem is given on the file's first value, without one
    for (problem <- first) error(doc.entries.headOption.map(_._2).getOrElse(doc), "", problem, placed = false)
  }
}
