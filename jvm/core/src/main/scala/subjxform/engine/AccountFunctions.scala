package subjxform.engine

import java.nio.charset.StandardCharsets.UTF_8
import java.security.MessageDigest
import java.util.regex.Pattern

/**
 * nats-server's account scoped mapping functions (issue #8631; 2.14.10 and 2.15.3 on: [[ServerVersion.accountFunctions]]):
 * `{{account-hash()}}`, `{{account-hash-import()}}`, `{{account-hash-leaf-remote()}}`. Unlike the other functions
 * they are not evaluated per message: a server resolves each one once, when it installs the subject that holds it (an
 * account's mappings, source and destination; an import's or export's subjects; a leaf node remote's), into the
 * server's 8-character hash of an account name. Everywhere else (a stream's transforms, a republish) a transform that
 * meets one refuses it. Used at compile time only.
 */
object AccountFunctions {

  /**
   * The accounts the functions hash where a subject is installed: `account` for `{{account-hash()}}` (the account the
   * subject belongs to), `importAccount` for `{{account-hash-import()}}` (an import's exporting account),
   * `leafRemote` for `{{account-hash-leaf-remote()}}`. An empty name: the function is not available there, as
   * nats-server says; null: the account is not known here (a function given no account), which is said so.
   */
  final case class Context(account: String, importAccount: String = "", leafRemote: String = "")

  /** No account at hand (a bare transform): the functions ask for one. */
  val NoAccount: Context = Context(null, null, null)

  final val NotAvailable = "invalid mapping destination: function is not available in this context"

  /** An account given as '' (no server has an account by that name), where a function or command takes one. */
  final val NoAccountName = "an account is named by its name (its public key in operator mode), not ''"

  // nats-server's patterns (subject_transform.go), in its order of trial: the import's and the leaf remote's
  // before the account's own, whose pattern would not match them anyway (`(` must follow `hash`).
  private def pattern(words: String): Pattern = {
    val body = words.split('-').map(w => s"[${w.head.toLower}${w.head.toUpper}]" + Pattern.quote(w.tail)).mkString("-")
    Pattern.compile("\\{\\{[\\t\\n\\f\\r ]*" + body + "[\\t\\n\\f\\r ]*\\((.*)\\)[\\t\\n\\f\\r ]*\\}\\}",
      Pattern.UNIX_LINES)
  }
  private val functions: Seq[(Pattern, Context => String, String)] = Seq(
    (pattern("account-hash-import"), _.importAccount, "account-hash-import"),
    (pattern("account-hash-leaf-remote"), _.leafRemote, "account-hash-leaf-remote"),
    (pattern("account-hash"), _.account, "account-hash"))
  private val argSeparator = Pattern.compile(",[\\t\\n\\f\\r ]*")

  /** Whether the token (canonical, `{{ }}`) holds one of the account functions' patterns. */
  def isAccountFunction(canonicalToken: String): Boolean =
    DestinationSyntax.looksLikeFunction(canonicalToken) && functions.exists(_._1.matcher(canonicalToken).find())

  private final val Digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

  /** nats-server's `getHash`: the first 8 bytes of the name's SHA-256, each as a base-62 digit. "A" -> "NUmM6cRx". */
  def hash(name: String): String = {
    val sum = MessageDigest.getInstance("SHA-256").digest(name.getBytes(UTF_8))
    (0 until 8).map(i => Digits.charAt((sum(i) & 0xff) % 62)).mkString
  }

  /**
   * The subject with each account function token replaced by its hash, as a server of `version` installs it
   * (`expandSubjectPlaceholders`); the subject itself on a release without the functions (its checks then call them
   * unknown). Other tokens, functions included, are left as they are.
   *
   * @throws DestinationSyntax.SyntaxError in nats-server's words: arguments given ("too many arguments"), a function
   *                                       not available where the subject is installed, or an account not known
   */
  def expand(subject: String, context: Context, version: ServerVersion): String = {
    if (!version.accountFunctions || subject == null || !(subject.contains("{{") || subject.contains("<<")))
      return subject
    val tokens = Subjects.tokens(subject)
    var changed = false
    for (i <- tokens.indices) {
      val t = DestinationSyntax.canonical(tokens(i))
      if (DestinationSyntax.looksLikeFunction(t)) {
        functions.find(_._1.matcher(t).find()).foreach { case (p, name, fn) =>
          val m = p.matcher(t)
          m.find()
          val args = argSeparator.split(m.group(1), -1)
          if (args.length > 1 || goTrimSpace(args(0)).nonEmpty)
            throw new DestinationSyntax.SyntaxError(DestinationSyntax.inToken(DestinationSyntax.TooManyArgs, tokens(i)))
          val account = name(context)
          if (account == null)
            throw new DestinationSyntax.SyntaxError(s"{{$fn()}} is the hash of an account's name, and no account " +
              "was given: it resolves only for a known account (its mappings in a server config or an account JWT; a " +
              "function's account => 'NAME', the command line's --account NAME)")
          if (account.isEmpty)
            throw new DestinationSyntax.SyntaxError(DestinationSyntax.inToken(NotAvailable, tokens(i)))
          tokens(i) = hash(account)
          changed = true
        }
      }
    }
    if (changed) tokens.mkString(".") else subject
  }

  /** Go's `strings.TrimSpace` (Unicode white space). */
  private def goTrimSpace(s: String): String = {
    def space(c: Char) = c == ' ' || (c >= '\t' && c <= '\r') || c == '\u0085' || c == '\u00a0' ||
      Character.isSpaceChar(c)
    var a = 0
    var b = s.length
    while (a < b && space(s.charAt(a))) a += 1
    while (b > a && space(s.charAt(b - 1))) b -= 1
    s.substring(a, b)
  }
}
