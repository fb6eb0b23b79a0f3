package subjxform.config

import subjxform.config.ConfValue._
import subjxform.engine.{GoQuote, ServerVersion}

/**
 * A server config's `jetstream` as `nats-server -t` reads it (server/opts.go: parseJetStream, parseJetStreamLimits
 * and its `batch`, parseJetStreamTPM): `enabled`/`disabled`, a bool or a map; the map's sizes (getStorageSize: an
 * integer, or digits and K, M, G or T), counts, limits and TPM blocks and cipher names. Each field is read the same
 * way on every release that knows it; which release knows which field is [[ServerFields]]'. parseJetStream returns
 * at its first error (Go's map order picks which) and recovers no panic: a bare type assertion that fails is
 * reported on the top-level `jetstream` key, as the config's own recovery names it. Part of [[ServerOptions]]' walk.
 */
private[config] trait JetStreamOptions {
  protected def version: ServerVersion
  protected def error(at: ConfValue, field: String, message: String, placed: Boolean = true): Unit

  /** `o`'s unknown fields and bare type assertions as `block` (a failed one reported on `panicAt`), its durations. */
  protected def fields(o: Obj, block: String, field: String, panicAt: Option[ConfValue]): Boolean
  protected def durations(o: Obj, block: String, field: String): Unit
  protected def known(block: String): Set[String]

  private def lower(k: String): String = GoBytes.lower(k)

  protected def jetStream(v: ConfValue, field: String): Unit = v match {
    case o: Obj =>
      fields(o, "jetstream", field, Some(o))
      durations(o, "jetstream", field)
      for ((k, x) <- o.entries if known("jetstream")(lower(k)); path = s"$field.$k") lower(k) match {
        case "strict" => x match {
            case _: Bool =>
            case other => error(other, path, s"Expected 'true' or 'false' for bool value, got '${goString(other)}'")
          }
        case "max_memory_store" | "max_mem_store" | "max_mem" => size(x, path, "max_mem_store")
        case "max_file_store" | "max_file" => size(x, path, "max_file_store")
        case name @ ("max_outstanding_catchup" | "max_buffered_size") => size(x, path, name)
        case "meta_compact_size" =>
          if (size(x, path, "meta_compact_size").exists(_ < 0))
            error(x, path, s"Expected an absolute size for ${GoQuote(k)}, got ${ConfValue.goText(x)}")
        case "max_buffered_msgs" | "request_queue_limit" | "info_queue_limit" =>
          if (!x.isInstanceOf[Integer])
            error(x, path, s"Expected a parseable size for ${GoQuote(k)}, got ${ConfValue.goText(x)}")
        case "meta_compact" => x match {
            case Integer(n, _) if n >= 0 =>
            case other =>
              error(other, path, s"Expected an absolute size for ${GoQuote(k)}, got ${ConfValue.goText(other)}")
          }
        case "max_concurrent_io" => x match {
            case Integer(n, _) if n >= 4 && n <= 8192 =>
            case other => error(other, path,
                s"Expected an absolute size for ${GoQuote(k)} between 4 and 8192, got ${ConfValue.goText(other)}")
          }
        case "cipher" => cipher(x, path, o)
        case "limits" => limits(x, path, o)
        case "tpm" => tpm(x, path, o)
        case _ =>
      }
    case Str(s, _, _) if !Set("enabled", "enable", "disabled", "disable")(lower(s)) =>
      error(v, field, s"Expected 'enabled' or 'disabled' for string value, got '$s'")
    case _: Str | _: Bool =>
    case other => error(other, field, s"Expected map, bool or string to define JetStream, got ${goType(other)}")
  }

  /**
   * An account's `jetstream` (parseJetStreamForAccount, handed the value without its token: its own errors name no
   * line, its fields' do): `enabled`/`disabled`, a bool, or a map of limits, each an integer but
   * `max_bytes_required` (a bool) and `cluster_traffic` (`system` or `owner`).
   */
  protected def accountJetStream(v: ConfValue, field: String): Unit = v match {
    case o: Obj =>
      fields(o, "account_jetstream", field, None)
      for ((k, x) <- o.entries if known("account_jetstream")(lower(k)); path = s"$field.$k") (lower(k), x) match {
        case ("max_bytes_required" | "max_stream_bytes" | "max_bytes", _: Bool) =>
        case ("max_bytes_required" | "max_stream_bytes" | "max_bytes", other) =>
          error(other, path, s"Expected a parseable bool for ${GoQuote(k)}, got ${ConfValue.goText(other)}")
        case ("cluster_traffic", Str("system" | "owner" | "", _, _)) =>
        case ("cluster_traffic", s: Str) =>
          error(s, path, s"Expected 'system' or 'owner' string value for ${GoQuote(k)}, got ${s.value}")
        case ("cluster_traffic", other) => error(other, path,
            s"Expected either 'system' or 'owner' string value for ${GoQuote(k)}, got ${ConfValue.goText(other)}")
        case (_, _: Integer) =>
        case (_, other) =>
          error(other, path, s"Expected a parseable size for ${GoQuote(k)}, got ${ConfValue.goText(other)}")
      }
    case Str(s, _, _) if !Set("enabled", "enable", "disabled", "disable")(lower(s)) =>
      error(v, field, s"Expected 'enabled' or 'disabled' for string value, got '$s'", placed = false)
    case _: Str | _: Bool =>
    case other =>
      error(other, field, s"Expected map, bool or string to define JetStream, got ${goType(other)}", placed = false)
  }

  /** Go's `%s` of a value that is no string, as fmt writes a wrong verb: `%!s(int64=5)`. */
  private def goString(v: ConfValue): String = v match {
    case Str(s, _, _) => s
    case other => s"%!s(${goType(other)}=${ConfValue.goText(other)})"
  }

  /**
   * getStorageSize: an integer, or a string of digits and one of K, M, G, T (`""` is 0); its error after `what`. The
   * size when it reads one.
   */
  private def size(v: ConfValue, field: String, what: String): Option[Long] = v match {
    case Integer(n, _) => Some(n)
    case Str("", _, _) => Some(0L)
    case Str(s, _, _) =>
      val (digits, suffix) = (s.dropRight(1), s.takeRight(1))
      GoInts.parseInt64(digits) match {
        case Left(e) => error(v, field, s"$what $e"); None
        case Right(n) =>
          Map("K" -> 10, "M" -> 20, "G" -> 30, "T" -> 40).get(suffix) match {
            case Some(shift) => Some(n << shift)
            case None => error(v, field, s"$what sizes defined as strings must end in K, M, G, T"); None
          }
      }
    case other => error(other, field, s"$what must be int64 or string"); None
  }

  /** setJetStreamEkCipher: its bare assertion of a string panics up to the top-level key. */
  private def cipher(v: ConfValue, field: String, top: ConfValue): Unit = v match {
    case Str(name, _, _) if !Set("chacha", "chachapoly", "aes")(lower(name)) =>
      error(v, field, s"Unknown cipher type: ${GoQuote(name)}")
    case _: Str =>
    case other => error(top, field, s"interface conversion: interface {} is ${goType(other)}, not string")
  }

  private def limits(v: ConfValue, field: String, top: ConfValue): Unit = v match {
    case o: Obj =>
      if (fields(o, "jetstream_limits", field, Some(top))) return
      for ((k, x) <- o.entries; path = s"$field.$k") (lower(k), x) match {
        case ("duplicate_window", Str(s, _, _)) => goDurationError(s).foreach(error(x, path, _, placed = false))
        case ("duplicate_window", other) =>
          error(top, path, s"interface conversion: interface {} is ${goType(other)}, not string")
        case ("batch", b: Obj) => if (!fields(b, "jetstream_limits_batch", path, Some(top)))
            for ((bk, t) <- b.entries if lower(bk) == "timeout") t match {
              case Str(s, _, _) => goDurationError(s).foreach(error(t, s"$path.$bk", _, placed = false))
              case other =>
                error(top, s"$path.$bk", s"interface conversion: interface {} is ${goType(other)}, not string")
            }
        case ("batch", other) => error(other, path, s"Expected a map to define batch limits, got ${goType(other)}")
        case _ =>
      }
    case other => error(other, field, s"Expected a map to define JetStreamLimits, got ${goType(other)}")
  }

  /** A duration read with a bare time.ParseDuration: its error is appended as it is, with no token (no line). */
  private def goDurationError(s: String): Option[String] = GoDuration.parse(s).left.toOption

  private def tpm(v: ConfValue, field: String, top: ConfValue): Unit = v match {
    case o: Obj =>
      if (!fields(o, "jetstream_tpm", field, Some(top)))
        for ((k, x) <- o.entries if lower(k) == "cipher") cipher(x, s"$field.$k", top)
    // (its words say JetStreamLimits too)
    case other => error(other, field, s"Expected a map to define JetStreamLimits, got ${goType(other)}")
  }
}

/** Go's strconv.ParseInt(s, 10, 64), with its error's words. */
private[config] object GoInts {
  def parseInt64(s: String): Either[String, Long] = {
    val digits = if (s.startsWith("+") || s.startsWith("-")) s.drop(1) else s
    if (digits.isEmpty || !digits.forall(c => c >= '0' && c <= '9'))
      Left(s"strconv.ParseInt: parsing ${GoQuote(s)}: invalid syntax")
    else scala.util.Try(BigInt(s)).toOption.filter(n => n.isValidLong).map(_.toLong)
      .toRight(s"strconv.ParseInt: parsing ${GoQuote(s)}: value out of range")
  }
}
