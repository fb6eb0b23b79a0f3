package subjxform.spark.nats

import java.io.{ByteArrayInputStream, IOException}
import java.nio.charset.StandardCharsets.UTF_8
import java.security.{KeyFactory, KeyStore, PrivateKey}
import java.security.cert.{Certificate, CertificateFactory}
import java.security.spec.PKCS8EncodedKeySpec
import java.time.Duration
import java.util.Base64
import javax.net.ssl.{KeyManagerFactory, SSLContext, SSLException, TrustManagerFactory}

import scala.util.control.NonFatal

import io.nats.client.{
  AuthenticationException, Connection, ErrorListener, JetStreamApiException, JetStreamOptions, Nats, Options
}
import io.nats.client.api.StreamInfo

/**
 * Connections to NATS as the options say, and the server's refusals turned into errors that name the option to
 * change. The only place that builds a jnats `Options`.
 */
private[nats] object NatsClient {

  /**
   * jnats reports every asynchronous error to a listener (by default on stderr), and a failed connect only as
   * "Unable to connect": this one keeps the last error and exception, which say why (a TLS handshake refused, an
   * authorization violation), and prints nothing: the tasks raise what matters.
   */
  private final class Remembering extends ErrorListener {
    @volatile var error: Option[String] = None
    @volatile var exception: Option[Exception] = None
    override def errorOccurred(conn: Connection, error: String): Unit = this.error = Some(error)
    override def exceptionOccurred(conn: Connection, exp: Exception): Unit = exception = Some(exp)
  }

  /**
   * A connection; with `patienceMs`, a server that does not answer (restarting) is tried again until then. Wrong
   * credentials, TLS and a bad option are never tried again.
   */
  def connect(spec: NatsConnectionSpec, patienceMs: Long = 0): Connection = {
    val deadline = System.nanoTime + patienceMs * 1000000L
    while (true) {
      try return connectOnce(spec)
      catch {
        case e: NatsOptionException if e.option == "servers" && System.nanoTime < deadline => Thread.sleep(250)
      }
    }
    throw new IllegalStateException("unreachable")
  }

  /** `attempt` again while it fails for want of an answer (a restarting server), until `patienceMs` has passed. */
  def patiently[A](patienceMs: Long)(attempt: => A): A = {
    val deadline = System.nanoTime + patienceMs * 1000000L
    while (true) {
      try return attempt
      catch {
        case e: NatsOptionException if (e.option == "servers" || e.option == "domain") && System.nanoTime < deadline =>
          Thread.sleep(250)
      }
    }
    throw new IllegalStateException("unreachable")
  }

  private def connectOnce(spec: NatsConnectionSpec): Connection = {
    val listener = new Remembering
    val builder = new Options.Builder()
      .servers(spec.servers.toArray)
      .connectionTimeout(Duration.ofMillis(spec.connectTimeoutMs))
      .reconnectWait(Duration.ofMillis(500))
      .maxReconnects(-1) // a task gives up after its read_timeout, not after a count of tries
      .errorListener(listener)
      .noRandomize()
    spec.user.foreach(u => builder.userInfo(u, spec.password.getOrElse("")))
    spec.token.foreach(t => builder.token(t.toCharArray))
    spec.nkeySeed.foreach(s => builder.authHandler(Nats.staticCredentials(null, s.toCharArray)))
    spec.creds.foreach(c => builder.authHandler(Nats.staticCredentials(c)))
    if (spec.tls) builder.sslContext(sslContext(spec))
    try Nats.connect(builder.build())
    catch {
      case e: IOException =>
        val seen = listener.exception.toSeq.flatMap(causes) ++ causes(e)
        if (seen.exists(_.isInstanceOf[AuthenticationException]) || listener.error.exists(isAuthorization) ||
          seen.exists(c => Option(c.getMessage).exists(isAuthorization)))
          throw refused(spec, listener.error.map(new IOException(_)).getOrElse(e))
        else if (seen.exists(_.isInstanceOf[SSLException]))
          throw new NatsOptionException(if (spec.tlsCa.isDefined) "tls_ca" else "servers",
            s"the TLS handshake with ${spec.servers.mkString(", ")} failed" +
              (if (spec.tlsCert.isEmpty) " (no client certificate was given: tls_cert, tls_key)" else "") +
              s": ${NatsErrors.reason(seen.find(_.isInstanceOf[SSLException]).get)}", e)
        else if (spec.tls && spec.tlsCert.isEmpty && !seen.exists(_.isInstanceOf[java.net.ConnectException]))
          // a server that verifies clients closes the connection after the handshake: jnats sees a time-out
          throw new NatsOptionException("tls_cert",
            s"the TLS connection to ${spec.servers.mkString(", ")} was " +
              s"closed (${NatsErrors.reason(listener.exception.getOrElse(e))}): a server that verifies its clients " +
              "needs a client certificate, tls_cert and tls_key", e)
        else
          throw new NatsOptionException("servers",
            s"cannot connect to ${spec.servers.mkString(", ")}: ${NatsErrors.reason(listener.exception.getOrElse(e))}",
            e)
      case e: InterruptedException =>
        Thread.currentThread().interrupt()
        throw new NatsException("interrupted while connecting to NATS", e)
    }
  }

  private def causes(e: Throwable): Iterator[Throwable] = Iterator.iterate(e)(_.getCause).takeWhile(_ != null).take(20)

  private def isAuthorization(message: String): Boolean = {
    val m = message.toLowerCase(java.util.Locale.ROOT)
    m.contains("authorization") || m.contains("authentication")
  }

  private def refused(spec: NatsConnectionSpec, e: Throwable) =
    new NatsOptionException(spec.credentialOption,
      s"the server at ${spec.servers.mkString(", ")} refused the credentials: ${NatsErrors.reason(e)}", e)

  def jetStreamOptions(spec: NatsConnectionSpec): JetStreamOptions = {
    val b = JetStreamOptions.builder().requestTimeout(Duration.ofMillis(math.max(spec.connectTimeoutMs, 5000)))
    spec.domain.foreach(b.domain)
    b.build()
  }

  /** The stream's info, or an error naming `stream` (no such stream) or `domain`/`servers` (no JetStream). */
  def streamInfo(connection: Connection, spec: NatsConnectionSpec, stream: String): StreamInfo =
    try connection.jetStreamManagement(jetStreamOptions(spec)).getStreamInfo(stream)
    catch {
      case e: JetStreamApiException if e.getApiErrorCode == 10059 =>
        throw new NatsOptionException("stream",
          s"no stream '$stream' on ${spec.servers.mkString(", ")}" +
            spec.domain.fold("")(d => s" in domain '$d'") + s" (the server answered: ${e.getErrorDescription})", e)
      case e: JetStreamApiException if e.getErrorCode == 503 || e.getApiErrorCode == 503 => throw noJetStream(spec, e)
      case e: JetStreamApiException =>
        throw new NatsOptionException("stream", s"the server refused to describe stream '$stream': ${e.getMessage}", e)
      case e: IOException => throw noJetStream(spec, e)
      case e: RuntimeException if Option(e.getMessage).exists(_.contains("503")) => throw noJetStream(spec, e)
    }

  def noJetStream(spec: NatsConnectionSpec, e: Throwable): NatsOptionException =
    spec.domain match {
      case Some(d) => new NatsOptionException("domain",
          s"no JetStream answered in domain '$d' at ${spec.servers.mkString(", ")}: ${NatsErrors.reason(e)}", e)
      case None => new NatsOptionException("servers",
          s"no JetStream answered at ${spec.servers.mkString(
              ", ")} (is JetStream enabled, or is the stream in another domain?): ${NatsErrors.reason(e)}", e)
    }

  /** An SSLContext from PEM files: the CA to trust (else the JVM's), and the client's certificate and key. */
  private def sslContext(spec: NatsConnectionSpec): SSLContext = {
    val certificates = CertificateFactory.getInstance("X.509")
    def certs(option: String, pem: Array[Byte]): Seq[Certificate] = {
      val read =
        try JavaCollections.toScala(certificates.generateCertificates(new ByteArrayInputStream(pem)))
        catch {
          case NonFatal(e) =>
            throw new NatsOptionException(option, s"holds no PEM certificate: ${NatsErrors.reason(e)}", e)
        }
      if (read.isEmpty) throw new NatsOptionException(option, "holds no PEM certificate")
      read
    }
    val trust = spec.tlsCa.map { pem =>
      val store = KeyStore.getInstance(KeyStore.getDefaultType)
      store.load(null, null)
      certs("tls_ca", pem).zipWithIndex.foreach { case (c, i) => store.setCertificateEntry(s"ca$i", c) }
      val factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm)
      factory.init(store)
      factory.getTrustManagers
    }
    val keys = for (cert <- spec.tlsCert; key <- spec.tlsKey) yield {
      val store = KeyStore.getInstance(KeyStore.getDefaultType)
      store.load(null, null)
      val password = Array.empty[Char]
      store.setKeyEntry("client", privateKey(key), password, certs("tls_cert", cert).toArray)
      val factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm)
      factory.init(store, password)
      factory.getKeyManagers
    }
    val context = SSLContext.getInstance("TLS")
    context.init(keys.orNull, trust.orNull, null)
    context
  }

  /** A PEM private key: PKCS#8 (`BEGIN PRIVATE KEY`, RSA, EC or Ed25519) or PKCS#1 (`BEGIN RSA PRIVATE KEY`). */
  private def privateKey(pem: Array[Byte]): PrivateKey = {
    val text = new String(pem, UTF_8)
    def body(label: String): Option[Array[Byte]] = {
      val begin = s"-----BEGIN $label-----"
      val at = text.indexOf(begin)
      if (at < 0) None
      else {
        val end = text.indexOf(s"-----END $label-----", at)
        if (end < 0) None else Some(Base64.getMimeDecoder.decode(text.substring(at + begin.length, end)))
      }
    }
    val pkcs8 = body("PRIVATE KEY").orElse(body("RSA PRIVATE KEY").map(rsaPkcs1ToPkcs8)).getOrElse(
      throw new NatsOptionException("tls_key",
        "holds no unencrypted PEM private key (BEGIN PRIVATE KEY or BEGIN RSA PRIVATE KEY; an EC key: openssl pkcs8 -topk8 -nocrypt)"))
    val spec = new PKCS8EncodedKeySpec(pkcs8)
    Seq("RSA", "EC", "Ed25519").iterator.map { algorithm =>
      try Some(KeyFactory.getInstance(algorithm).generatePrivate(spec))
      catch { case NonFatal(_) => None }
    }.collectFirst { case Some(k) => k }.getOrElse(
      throw new NatsOptionException("tls_key", "holds a private key of a kind Java cannot read (RSA, EC or Ed25519)"))
  }

  /** PKCS#1's RSAPrivateKey wrapped as PKCS#8's PrivateKeyInfo (version 0, rsaEncryption, the key). */
  private def rsaPkcs1ToPkcs8(pkcs1: Array[Byte]): Array[Byte] = {
    def der(tag: Int, content: Array[Byte]): Array[Byte] = {
      val n = content.length
      val length =
        if (n < 0x80) Array(n.toByte)
        else {
          val bytes = BigInt(n).toByteArray.dropWhile(_ == 0)
          (0x80 | bytes.length).toByte +: bytes
        }
      (tag.toByte +: length) ++ content
    }
    val rsaEncryption =
      Array[Byte](0x06, 0x09, 0x2a, 0x86.toByte, 0x48, 0x86.toByte, 0xf7.toByte, 0x0d, 0x01, 0x01, 0x01)
    val algorithm = der(0x30, rsaEncryption ++ Array[Byte](0x05, 0x00))
    der(0x30, Array[Byte](0x02, 0x01, 0x00) ++ algorithm ++ der(0x04, pkcs1))
  }
}
