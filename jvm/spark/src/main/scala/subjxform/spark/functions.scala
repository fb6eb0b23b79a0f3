package subjxform.spark

import org.apache.spark.sql.{functions => F}
import org.apache.spark.sql.Column

/**
 * The SQL functions as Column functions for Scala and Java, used as Spark's own `functions` object:
 * {{{
 *   import subjxform.spark.functions._
 *   df.select(subject_transform(col("subject"), "orders.*.*", "shipments.$2.$1"))
 * }}}
 * Each calls the SQL function of the same name, so it works the same on every Spark line (and from a
 * Spark Connect Scala client); the session has the functions when the jar is on its classpath (the
 * extension registers them). A `String` argument is a constant, compiled once when the query is
 * analysed (an invalid one fails analysis); a `Column` argument varies per row.
 *
 * A `serverVersion` ('2.10', '2.11', '2.12', '2.14', '2.15' or a release such as '2.10.26') makes the
 * function follow that nats-server line; without one, the session conf `spark.subjxform.serverVersion`
 * (else the newest line) decides when the query is analysed; a null `serverVersion` is that default too.
 *
 * An `account` names the account a transform or table is installed for (a public key in operator mode): nats-server
 * 2.14.10 and 2.15.3 put the hash of its name where a destination says `{{account-hash()}}`. Without one such a
 * destination is refused, saying an account is needed.
 */
// scalastyle:off method.name (the SQL functions' names)
object functions {

  private def call(name: String, args: Column*): Column = F.call_function(name, args: _*)

  /**
   * The seed of a call that gives neither seed nor key, chosen once, when the column is built, as Spark's
   * `rand()` does: every task of a query using the column, a rerun included, then draws alike.
   */
  private def unseeded: Column = F.lit(java.util.concurrent.ThreadLocalRandom.current().nextLong())
  private def noCluster: Column = F.lit(null).cast("string")
  private def noKey: Column = F.lit(null).cast("long")

  /** `subject_transform(subject, src, dest)`: the transform `src` -> `dest`, NULL when it does not apply. */
  def subject_transform(subject: Column, src: String, dest: String): Column =
    subject_transform(subject, F.lit(src), F.lit(dest), strict = false)

  def subject_transform(subject: Column, src: Column, dest: Column): Column =
    subject_transform(subject, src, dest, strict = false)

  /** `strict`: only what an import/export mapping accepts (wildcards only, every `*` used). */
  def subject_transform(subject: Column, src: String, dest: String, strict: Boolean): Column =
    subject_transform(subject, F.lit(src), F.lit(dest), strict)

  def subject_transform(subject: Column, src: Column, dest: Column, strict: Boolean): Column =
    call("subject_transform", subject, src, dest, F.lit(strict), unseeded)

  /** As nats-server line `serverVersion` does (e.g. "2.10"). */
  def subject_transform(subject: Column, src: String, dest: String, strict: Boolean, serverVersion: String): Column =
    subject_transform(subject, F.lit(src), F.lit(dest), strict, serverVersion)

  def subject_transform(subject: Column, src: Column, dest: Column, strict: Boolean, serverVersion: String): Column =
    call("subject_transform", subject, src, dest, F.lit(strict), unseeded, noKey, F.lit(serverVersion))

  /** As installed for `account` (`{{account-hash()}}`), on nats-server line `serverVersion` (null: the default). */
  def subject_transform(subject: Column, src: String, dest: String, strict: Boolean, serverVersion: String,
      account: String): Column =
    call("subject_transform", subject, F.lit(src), F.lit(dest), F.lit(strict), unseeded, noKey, F.lit(serverVersion),
      F.lit(account))

  /** `{{random(n)}}` drawn as a pure function of (seed, key, token): the same for a key in every run. */
  def subject_transform(subject: Column, src: String, dest: String, seed: Long, key: Column): Column =
    call("subject_transform", subject, F.lit(src), F.lit(dest), F.lit(false), F.lit(seed), key)

  /** Like [[subject_transform]], but an invalid transform gives NULL instead of an error. */
  def try_subject_transform(subject: Column, src: String, dest: String): Column =
    try_subject_transform(subject, F.lit(src), F.lit(dest))

  def try_subject_transform(subject: Column, src: Column, dest: Column): Column =
    call("try_subject_transform", subject, src, dest, F.lit(false), unseeded)

  def try_subject_transform(subject: Column, src: Column, dest: Column, serverVersion: String): Column =
    call("try_subject_transform", subject, src, dest, F.lit(false), unseeded, noKey, F.lit(serverVersion))

  def try_subject_transform(
      subject: Column, src: Column, dest: Column, serverVersion: String, account: String): Column =
    call("try_subject_transform", subject, src, dest, F.lit(false), unseeded, noKey, F.lit(serverVersion),
      F.lit(account))

  /** Whether subscription interest on `filter` receives `subject`. */
  def subject_matches(subject: Column, filter: String): Column = subject_matches(subject, F.lit(filter))

  def subject_matches(subject: Column, filter: Column): Column = call("subject_matches", subject, filter)

  /** Core NATS account mappings: `mappings` is a `mappings { }` block's content (config syntax or JSON). */
  def subject_map(subject: Column, mappings: String): Column = subject_map(subject, F.lit(mappings))

  def subject_map(subject: Column, mappings: Column): Column =
    call("subject_map", subject, mappings, noCluster, unseeded)

  /** `cluster`: the cluster the message entered, which picks a rule's cluster-scoped destinations. */
  def subject_map(subject: Column, mappings: String, cluster: Column): Column =
    call("subject_map", subject, F.lit(mappings), cluster, unseeded)

  /** As nats-server line `serverVersion` does; `cluster` may be a NULL column (no cluster). */
  def subject_map(subject: Column, mappings: Column, cluster: Column, serverVersion: String): Column =
    call("subject_map", subject, mappings, cluster, unseeded, noKey, F.lit(serverVersion))

  /** The mappings of `account` (`{{account-hash()}}`), on nats-server line `serverVersion` (null: the default). */
  def subject_map(subject: Column, mappings: Column, cluster: Column, serverVersion: String, account: String): Column =
    call("subject_map", subject, mappings, cluster, unseeded, noKey, F.lit(serverVersion), F.lit(account))

  /** `seed` makes the weighted draws reproducible, as `rand(seed)`. */
  def subject_map(subject: Column, mappings: String, cluster: Column, seed: Long): Column =
    call("subject_map", subject, F.lit(mappings), cluster, F.lit(seed))

  /** `key` (e.g. a message id): each draw a pure function of (seed, key, rule), whatever the partitioning. */
  def subject_map(subject: Column, mappings: String, cluster: Column, seed: Long, key: Column): Column =
    call("subject_map", subject, F.lit(mappings), cluster, F.lit(seed), key)

  /** Keyed draws as nats-server line `serverVersion` applies the table; `cluster` may be a NULL column. */
  def subject_map(subject: Column, mappings: String, cluster: Column, seed: Long, key: Column,
      serverVersion: String): Column =
    call("subject_map", subject, F.lit(mappings), cluster, F.lit(seed), key, F.lit(serverVersion))

  /** Keyed draws of the mappings of `account`, as nats-server line `serverVersion` (null: the default) applies them. */
  def subject_map(subject: Column, mappings: String, cluster: Column, seed: Long, key: Column, serverVersion: String,
      account: String): Column =
    call("subject_map", subject, F.lit(mappings), cluster, F.lit(seed), key, F.lit(serverVersion), F.lit(account))

  /** A stream source's or mirror's `subject_transforms` list, `(src, dest)` pairs in order. */
  def subject_filter_transform(subject: Column, transforms: Seq[(String, String)]): Column =
    subject_filter_transform(subject, transformList(transforms))

  /** `transforms`: an `ARRAY<STRUCT<src: STRING, dest: STRING>>` column. */
  def subject_filter_transform(subject: Column, transforms: Column): Column =
    call("subject_filter_transform", subject, transforms, unseeded)

  def subject_filter_transform(subject: Column, transforms: Column, serverVersion: String): Column =
    call("subject_filter_transform", subject, transforms, unseeded, noKey, F.lit(serverVersion))

  def try_subject_filter_transform(subject: Column, transforms: Seq[(String, String)]): Column =
    try_subject_filter_transform(subject, transformList(transforms))

  def try_subject_filter_transform(subject: Column, transforms: Column): Column =
    call("try_subject_filter_transform", subject, transforms, unseeded)

  def try_subject_filter_transform(subject: Column, transforms: Column, serverVersion: String): Column =
    call("try_subject_filter_transform", subject, transforms, unseeded, noKey, F.lit(serverVersion))

  /** What a JetStream stream config stores and republishes, as JSON (see the SQL function). */
  def stream_config_plan(config: Column): Column = call("stream_config_plan", config)

  def stream_config_plan(config: Column, serverVersion: String): Column =
    call("stream_config_plan", config, F.lit(serverVersion))

  private def transformList(transforms: Seq[(String, String)]): Column =
    F.array(transforms.map { case (src, dest) => F.struct(F.lit(src).as("src"), F.lit(dest).as("dest")) }: _*)
      .cast("array<struct<src:string,dest:string>>")
}
