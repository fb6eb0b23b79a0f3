package subjxform.config

import java.math.BigInteger
import java.security.{KeyFactory, PrivateKey, PublicKey, Signature}
import java.security.cert.{CertificateFactory, X509Certificate}
import java.security.interfaces.{RSAPrivateKey, RSAPublicKey}
import java.security.spec.PKCS8EncodedKeySpec

import scala.util.Try

/**
 * The certificate, key and CA files of a `tls` block, read as nats-server reads them (Go's
 * `tls.LoadX509KeyPair` and `x509.CertPool.AppendCertsFromPEM`), each failure in Go's words. Paths are taken
 * as the server takes them: as written, a relative one from the working directory (not the config file's
 * folder: measured with `nats-server -t`). The JVM's own X.509 and key factories parse the DER; the checks
 * around them (which PEM blocks count, in which order the errors come) follow Go's.
 */
private[config] object TlsFiles {
  private final case class PemBlock(kind: String, der: Array[Byte])

  private val PemPattern = "(?s)-----BEGIN ([^\\n-]*)-----\\r?\\n(.*?)-----END \\1-----".r

  /** Go's `pem.Decode`, every block of `bytes` in order: a block whose body is no base64 is skipped. */
  private def pemBlocks(bytes: Array[Byte]): Seq[PemBlock] = {
    val text = new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1)
    PemPattern.findAllMatchIn(text).flatMap { m =>
      val lines = m.group(2).split("\n").map(_.trim)
      val body = (if (lines.exists(_.contains(':'))) lines.dropWhile(_.nonEmpty).drop(1) else lines).mkString
      Try(java.util.Base64.getDecoder.decode(body)).toOption.map(PemBlock(m.group(1), _))
    }.toSeq
  }

  /** The file's bytes, or Go's `os.ReadFile` error (`open PATH: no such file or directory`). */
  private def read(path: String): Either[String, Array[Byte]] =
    try Right(ConfFile.readBytes(path))
    catch { case e: ConfSyntaxException => Left(e.getMessage) }

  /** `tls.LoadX509KeyPair(cert, key)`: None when it loads, else Go's error. */
  def keyPairError(certPath: String, keyPath: String): Option[String] =
    (for {
      certBytes <- read(certPath)
      keyBytes <- read(keyPath)
      problem <- keyPair(certBytes, keyBytes).toLeft(())
    } yield problem).left.toOption

  private def keyPair(certBytes: Array[Byte], keyBytes: Array[Byte]): Option[String] = {
    val (certs, skipped) = pemBlocks(certBytes).partition(_.kind == "CERTIFICATE")
    if (certs.isEmpty) return Some(
      if (skipped.isEmpty) "tls: failed to find any PEM data in certificate input"
      else if (skipped.size == 1 && skipped.head.kind.endsWith("PRIVATE KEY"))
        "tls: failed to find certificate PEM data in certificate input, but did find a private key; PEM inputs " +
          "may have been switched"
      else "tls: failed to find \"CERTIFICATE\" PEM block in certificate input after skipping PEM blocks of the " +
        s"following types: ${skipped.map(_.kind).mkString("[", " ", "]")}")
    val keyBlocks = pemBlocks(keyBytes)
    val (before, from) = keyBlocks.span(b => b.kind != "PRIVATE KEY" && !b.kind.endsWith(" PRIVATE KEY"))
    if (from.isEmpty) return Some(
      if (before.isEmpty) "tls: failed to find any PEM data in key input"
      else if (before.size == 1 && before.head.kind == "CERTIFICATE")
        "tls: found a certificate rather than a key in the PEM for the private key"
      else "tls: failed to find PEM block with type ending in \"PRIVATE KEY\" in key input after skipping PEM " +
        s"blocks of the following types: ${before.map(_.kind).mkString("[", " ", "]")}")
    val cert = certificate(certs.head.der) match {
      case Some(c) => c
      case None => return Some("x509: malformed certificate")
    }
    val key = privateKey(from.head.der) match {
      case Some(k) => k
      case None => return Some("tls: failed to parse private key")
    }
    matches(cert.getPublicKey, key)
  }

  private def certificate(der: Array[Byte]): Option[X509Certificate] =
    Try(CertificateFactory.getInstance("X.509").generateCertificate(new java.io.ByteArrayInputStream(der))).toOption
      .collect { case c: X509Certificate => c }

  /** The key kind as Go names the families it knows: RSA, ECDSA, Ed25519. */
  private def family(algorithm: String): String = algorithm match {
    case "RSA" => "RSA"
    case "EC" => "EC"
    case "EdDSA" | "Ed25519" => "Ed25519"
    case other => other
  }

  /** Go's checks that the key belongs to the certificate's public key (same family, same key). */
  private def matches(pub: PublicKey, key: PrivateKey): Option[String] = {
    if (!Set("RSA", "EC", "Ed25519")(family(pub.getAlgorithm))) return Some("tls: unknown public key algorithm")
    if (family(pub.getAlgorithm) != family(key.getAlgorithm))
      return Some("tls: private key type does not match public key type")
    val same = (pub, key) match {
      case (p: RSAPublicKey, k: RSAPrivateKey) => p.getModulus == k.getModulus
      case _ => // ECDSA, Ed25519: a signature the key makes, checked with the certificate's public key
        val algorithm = if (family(pub.getAlgorithm) == "EC") "SHA256withECDSA" else "Ed25519"
        Try {
          val probe = "subjxform key check".getBytes("UTF-8")
          val signer = Signature.getInstance(algorithm)
          signer.initSign(key)
          signer.update(probe)
          val signature = signer.sign()
          val verifier = Signature.getInstance(algorithm)
          verifier.initVerify(pub)
          verifier.update(probe)
          verifier.verify(signature)
        }.getOrElse(false)
    }
    if (same) None else Some("tls: private key does not match public key")
  }

  /** Go's `parsePrivateKey`: PKCS #1 (RSA), then PKCS #8 (RSA, ECDSA, Ed25519), then SEC 1 (ECDSA). */
  private def privateKey(der: Array[Byte]): Option[PrivateKey] =
    pkcs8(wrapPkcs1(der)).orElse(pkcs8(der)).orElse(sec1Curve(der).flatMap(c => pkcs8(wrapSec1(der, c))))

  private def pkcs8(der: Array[Byte]): Option[PrivateKey] =
    if (der == null) None
    else Seq("RSA", "EC", "Ed25519").iterator.flatMap { algorithm =>
      Try(KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der))).toOption
    }.find(_ != null)

  // A little DER: enough to put a PKCS #1 or SEC 1 key in the PKCS #8 envelope the JVM's key factories read.

  private def der(tag: Int, content: Array[Byte]): Array[Byte] = {
    val n = content.length
    val length =
      if (n < 0x80) Array(n.toByte)
      else {
        val bytes = BigInteger.valueOf(n.toLong).toByteArray.dropWhile(_ == 0)
        (0x80 | bytes.length).toByte +: bytes
      }
    (tag.toByte +: length) ++ content
  }

  /** The children of the DER SEQUENCE `bytes` as (tag, whole element, content); None if it is not one. */
  private def children(bytes: Array[Byte]): Option[Seq[(Int, Array[Byte], Array[Byte])]] = Try {
    def element(at: Int): (Int, Int, Int) = { // tag, content start, end
      val first = bytes(at + 1) & 0xff
      if (first < 0x80) (bytes(at) & 0xff, at + 2, at + 2 + first)
      else {
        val count = first & 0x7f
        val n = (0 until count).foldLeft(0L)((a, i) => (a << 8) | (bytes(at + 2 + i) & 0xff)).toInt
        (bytes(at) & 0xff, at + 2 + count, at + 2 + count + n)
      }
    }
    val (tag, start, end) = element(0)
    require(tag == 0x30 && end == bytes.length)
    val out = Seq.newBuilder[(Int, Array[Byte], Array[Byte])]
    var at = start
    while (at < end) {
      val (t, s, e) = element(at)
      require(e <= end)
      out += ((t, bytes.slice(at, e), bytes.slice(s, e)))
      at = e
    }
    out.result()
  }.toOption

  private val Version0 = Array[Byte](2, 1, 0)
  private val RsaEncryption = der(0x30,
    Array[Byte](6, 9, 0x2a, 0x86.toByte, 0x48, 0x86.toByte, 0xf7.toByte, 0x0d, 1,
      1, 1, 5, 0))
  private val EcPublicKey = Array[Byte](6, 7, 0x2a, 0x86.toByte, 0x48, 0xce.toByte, 0x3d, 2, 1)

  /** A PKCS #1 RSAPrivateKey (a SEQUENCE of nine INTEGERs) in a PKCS #8 envelope; null if it is none. */
  private def wrapPkcs1(key: Array[Byte]): Array[Byte] = children(key) match {
    case Some(items) if items.size >= 9 && items.forall(_._1 == 0x02) =>
      der(0x30, Version0 ++ RsaEncryption ++ der(0x04, key))
    case _ => null
  }

  /** The named curve (its OID element) of a SEC 1 ECPrivateKey (version 1, the key, [0] the curve). */
  private def sec1Curve(key: Array[Byte]): Option[Array[Byte]] = children(key).flatMap { items =>
    if (items.headOption.exists(i => i._1 == 0x02 && i._3.sameElements(Array[Byte](1))))
      items.collectFirst { case (0xa0, _, content) => content }
    else None
  }

  private def wrapSec1(key: Array[Byte], curve: Array[Byte]): Array[Byte] =
    der(0x30, Version0 ++ der(0x30, EcPublicKey ++ curve) ++ der(0x04, key))

  /** `ca_file` as nats-server loads it: Go's open error, or no certificate in it. */
  def caError(path: String): Option[String] = read(path) match {
    case Left(e) => Some(e)
    case Right(bytes) =>
      val found = pemBlocks(bytes).exists(b => b.kind == "CERTIFICATE" && certificate(b.der).isDefined)
      if (found) None else Some("failed to parse root ca certificate")
  }
}
