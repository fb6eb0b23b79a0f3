package subjxform.config

import java.nio.charset.StandardCharsets.UTF_8

import scala.util.Try

import subjxform.config.ConfValue._

/**
 * An operator JWT named by a config's `operator`, read as nats-server reads it (server/jwt.go `readOperatorJWT`,
 * nats-io/jwt's `ParseDecoratedJWT` and `DecodeOperatorClaims`): the file (or, when no such file opens and the
 * value starts as a JWT does, the value itself), its three chunks, the header's type and algorithm, the claims'
 * type, and the issuer's Ed25519 signature. Errors in the library's words; Go's base64 and JSON errors are
 * given in their commonest forms. A JVM without Ed25519 (before Java 15) leaves the signature unchecked.
 */
private[config] object OperatorJwts {
  private val Decorated = "(?s)-{3,}[^\\n]*-{3,}\\r?\\n([\\w\\-.=]+)\\r?\\n-{3,}[^\\n]*-{3,}".r

  /** None when the server loads the operator JWT `value` names, else its error (without the server's prefix). */
  def error(value: String): Option[String] = {
    val contents =
      try new String(ConfFile.readBytes(value), UTF_8)
      catch {
        case _: ConfSyntaxException if value.startsWith("eyJ") => value // inlined
        case e: ConfSyntaxException => return Some(e.getMessage)
      }
    val token = Decorated.findFirstMatchIn(contents).map(_.group(1)).getOrElse(contents)
    val chunks = token.split("\\.", -1)
    if (chunks.length != 3) return Some("expected 3 chunks")
    val result = for {
      header <- json(chunks(0))
      _ <- headerValid(header)
      claims <- json(chunks(1))
      signature <- base64(chunks(2))
      _ <- signed(claims, if (version(claims) <= 1) chunks(1) else s"${chunks(0)}.${chunks(1)}", signature)
      _ <- claimsType(claims)
    } yield ()
    result.left.toOption
  }

  /** Go's `base64.RawURLEncoding.DecodeString` (which skips line ends): its error names the first bad byte. */
  private def base64(chunk: String): Either[String, Array[Byte]] = {
    val s = chunk.filterNot(c => c == '\r' || c == '\n')
    val bad = s.indexWhere(c => !(c.isLetterOrDigit && c < 128) && c != '-' && c != '_')
    if (bad >= 0) Left(s"illegal base64 data at input byte $bad")
    else if (s.length % 4 == 1) Left(s"illegal base64 data at input byte ${s.length - 1}")
    else Try(java.util.Base64.getUrlDecoder.decode(s)).toOption.toRight(s"illegal base64 data at input byte 0")
  }

  private def json(chunk: String): Either[String, Obj] = base64(chunk).flatMap { bytes =>
    val text = new String(bytes, UTF_8)
    Try(ConfSyntax.parseJson(text)).toOption.toRight {
      val t = text.trim
      if (t.isEmpty || t.startsWith("{") || t.startsWith("[") || t.startsWith("\"")) "unexpected end of JSON input"
      else s"invalid character '${t.head}' looking for beginning of value"
    }
  }

  private def str(o: Obj, key: String): String = o.get(key).collect { case Str(s, _, _) => s }.getOrElse("")

  private def headerValid(h: Obj): Either[String, Unit] = {
    val (typ, alg) = (str(h, "typ"), str(h, "alg"))
    if (typ.toUpperCase(java.util.Locale.ROOT) != "JWT") Left(s"not supported type ${subjxform.engine.GoQuote(typ)}")
    else if (!Set("ed25519", "ed25519-nkey")(alg.toLowerCase(java.util.Locale.ROOT)))
      Left(s"unexpected ${subjxform.engine.GoQuote(alg)} algorithm")
    else Right(())
  }

  private def nats(claims: Obj): Option[Obj] = claims.get("nats").collect { case o: Obj => o }

  private def version(claims: Obj): Long = nats(claims).flatMap(_.get("version")).collect {
    case Integer(v, _) => v
    case Decimal(v, _) => v.toLong
  }.getOrElse(1L)

  private def claimsType(claims: Obj): Either[String, Unit] = {
    val kind = nats(claims).map(str(_, "type")).filter(_.nonEmpty).getOrElse(str(claims, "type"))
    if (kind == "operator") Right(()) else Left("not operator claim")
  }

  /** The issuer's signature over `signed` (an nkey: base32 of a prefix byte, the Ed25519 key and a CRC). */
  private def signed(claims: Obj, signed: String, signature: Array[Byte]): Either[String, Unit] = {
    val failed = Left(s"claim failed V${if (version(claims) <= 1) 1 else 2} signature verification")
    val key = NKeys.decode(str(claims, "iss")).filter(_.length == 33).map(_.slice(1, 33))
    val verified = key.map { raw =>
      Try {
        val spec = new java.security.spec.X509EncodedKeySpec(
          Array[Byte](0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00) ++ raw)
        val verifier = java.security.Signature.getInstance("Ed25519")
        verifier.initVerify(java.security.KeyFactory.getInstance("Ed25519").generatePublic(spec))
        verifier.update(signed.getBytes(UTF_8))
        verifier.verify(signature)
      }.recover { case _: java.security.NoSuchAlgorithmException => true }.getOrElse(false)
    }
    if (verified.contains(true)) Right(()) else failed
  }
}
