package subjxform.config

/**
 * Whether a text is a public nkey of a kind, as nats-io/nkeys' `IsValidPublicUserKey` and the like decide it
 * (strkey.go's Decode): base32 (no padding) of a prefix byte, the 32-byte Ed25519 key and a little-endian CRC-16
 * (XMODEM) of what comes before it; the prefix byte's top five bits name the kind.
 */
private[config] object NKeys {

  /** The prefix bytes of the public kinds nats-server's config checks (nkeys' PrefixByteUser and the others). */
  val User: Int = 20 << 3 // 'U'
  val Account: Int = 0 // 'A'
  val Curve: Int = 23 << 3 // 'X'
  val Operator: Int = 14 << 3 // 'O'

  def isValidPublic(key: String, prefix: Int): Boolean =
    decode(key).exists(raw => (raw(0) & 0xf8) == prefix)

  /** nkeys' IsValidPublicKey: a public key of any kind (operator, server, cluster, account, user, curve). */
  def isValidPublicAny(key: String): Boolean =
    decode(key).exists(raw => Set(Operator, 13 << 3, 2 << 3, Account, User, Curve)(raw(0) & 0xff))

  private val Seed = 18 << 3 // 'S'

  /** A seed of a kind (nkeys' DecodeSeed, which reads its two prefixes and no length, then the kind it names). */
  def isValidSeed(seed: String, kind: Int): Boolean = decode(seed).exists { raw =>
    (raw(0) & 0xf8) == Seed && (((raw(0) & 7) << 5) | ((raw(1) & 0xf8) >> 3)) == kind
  }

  /** The bytes before the CRC, when the text is base32 whose last two bytes are the CRC of the rest. */
  def decode(text: String): Option[Array[Byte]] = {
    val alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
    // a last group of 1, 3 or 6 characters holds no whole byte: Go's decoder calls the input corrupt
    if (Set(1, 3, 6)(text.length % 8) || text.exists(c => alphabet.indexOf(c) < 0)) return None
    val out = new java.io.ByteArrayOutputStream
    var (buffer, bits) = (0, 0)
    for (c <- text) {
      buffer = ((buffer << 5) | alphabet.indexOf(c)) & 0xffff
      bits += 5
      if (bits >= 8) { out.write((buffer >> (bits - 8)) & 0xff); bits -= 8 }
    }
    val raw = out.toByteArray
    if (raw.length < 4) return None
    val body = raw.take(raw.length - 2)
    val crc = (raw(raw.length - 2) & 0xff) | (raw(raw.length - 1) & 0xff) << 8
    if (crc16(body) == crc) Some(body) else None
  }

  private def crc16(data: Array[Byte]): Int = {
    var crc = 0
    for (b <- data) {
      crc ^= (b & 0xff) << 8
      for (_ <- 0 until 8) crc = if ((crc & 0x8000) != 0) ((crc << 1) ^ 0x1021) & 0xffff else (crc << 1) & 0xffff
    }
    crc
  }
}
