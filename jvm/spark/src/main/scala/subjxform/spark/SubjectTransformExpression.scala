package subjxform.spark

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionDescription, Literal}
import org.apache.spark.sql.types.{BooleanType, DataType, LongType, StringType}
import org.apache.spark.unsafe.types.UTF8String

import subjxform.engine.{InvalidTransformException, ServerVersion, SubjectTransform, Workspace}

/**
 * `subject_transform(subject, src, dest [, strict])` on the [[PlanExpression]] shell, around a compiled
 * [[SubjectTransform]]. A `{{random(n)}}` destination (or one from a column, which may be one) makes it
 * a [[RandomSubjectTransformExpression]].
 */
abstract class SubjectTransformFunction extends PlanExpression[SubjectTransform]
  with AccountArgument[SubjectTransform] {
  // Not NullIntolerant: a NULL `seed` or `key` (their defaults) does not make the result NULL.
  def src: Expression
  def dest: Expression
  def strict: Expression
  def seed: Expression
  def key: Expression

  final override def children: Seq[Expression] = Seq(subject, src, dest, strict, seed, key, serverVersion, account)
  // (Spark's AbstractDataType is private to Spark: the element type is inferred.)
  override def inputTypes =
    Seq(StringType, StringType, StringType, BooleanType, LongType, LongType, StringType, StringType)
  override def dataType: DataType = StringType

  override protected def planArguments: Seq[Expression] = Seq(src, dest)
  override protected def constantArguments =
    Seq(("strict", "BOOLEAN", strict), ("seed", "BIGINT", seed), ("account", "STRING", account))
  override protected def seedArgument: Option[Expression] = Some(seed)
  override protected def keyArgument: Option[Expression] = Some(key)
  override protected def requiredArguments: Int = 3
  override protected def classOfPlan: Class[SubjectTransform] = classOf[SubjectTransform]

  private def strictValue: Option[Boolean] = Option(strict.eval()).map(_.asInstanceOf[Boolean])

  override protected def nullForConstants: Boolean = strictValue.isEmpty

  override protected def compile(arguments: Seq[AnyRef]): SubjectTransform =
    SubjectTransform.compileForAccount(arguments(0).toString, arguments(1).toString, strictValue.get, version, accounts)

  /** nats-server's reason says whether the source or the destination is bad. */
  override protected def blame(e: IllegalArgumentException): String = e match {
    case t: InvalidTransformException if t.sourceInvalid => "src"
    case t: InvalidTransformException if t.reason != "invalid subject" => "dest"
    case _ => "src, dest"
  }

  override def newCache(): ColumnPlans[SubjectTransform] = {
    val strictMode = strictValue.getOrElse(false)
    val (line, installedFor) = (version, accounts)
    planCache((s, d) => SubjectTransform.compileForAccount(s, d, strictMode, line, installedFor))
  }

  override protected def applyPlan(tr: SubjectTransform, ws: Workspace, subject: UTF8String, input: InternalRow,
      key: Long): Any =
    PerRow.transform(tr, ws, subject, keyed, seedForKeys, key, this)

  override protected def applyPlanCode(tr: String, ws: String, subject: String, key: String, rowValues: Seq[String],
      shell: String): String =
    s"${PerRow.name}.transform($tr, $ws, $subject, $keyed, ${seedForKeys}L, $key, $shell)"

  /** The `Nondeterministic` form of these arguments (see [[DeterministicForm]]). */
  override protected def randomForm: Option[Expression] =
    Some(RandomSubjectTransformExpression(subject, src, dest, strict, seed, key, serverVersion, account, failOnError))

  // Whether the destination draws does not depend on `strict`, which may not be a BOOLEAN yet when the
  // builder asks, nor on the server version (which may not be a constant yet: a line without `random` refuses
  // the transform, whichever form reports it) (an invalid transform is reported by `checkInputDataTypes`, whichever form it is).
  // Asked of the newest row of the release table, which knows every function (random and the account functions).
  override protected def constantsDrawAtRandom: Boolean = (Option(src.eval()), Option(dest.eval())) match {
    case (Some(s), Some(d)) =>
      try SubjectTransform.compileForAccount(s.toString, d.toString, false, ServerVersion.rows.last, accounts).isRandom
      catch { case _: InvalidTransformException => false }
    case _ => false
  }
}

/**
 * `subject_transform` / `try_subject_transform` whose destination draws at random (`{{random(n)}}`)
 * or comes from a column (so may): a Spark `Nondeterministic` expression, treated as `rand()` is.
 */
case class RandomSubjectTransformExpression(
    subject: Expression, src: Expression, dest: Expression, strict: Expression, seed: Expression, key: Expression,
    serverVersion: Expression, account: Expression, failOnError: Boolean)
  extends SubjectTransformFunction with RandomForm[SubjectTransform] {

  override def prettyName: String = if (failOnError) "subject_transform" else "try_subject_transform"

  // Printed as the function it was written as: the flag is in the name.
  override protected def stringArgs: Iterator[Any] = children.iterator

  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): RandomSubjectTransformExpression =
    copy(subject = c(0), src = c(1), dest = c(2), strict = c(3), seed = c(4), key = c(5), serverVersion = c(6),
      account = c(7))
}

@ExpressionDescription(
  usage = """
    _FUNC_(subject, src, dest[, strict[, seed[, key[, server_version[, account]]]]]) - Applies the NATS subject transform
      `src` -> `dest` to `subject`, exactly as nats-server (2.15 unless `server_version` says otherwise) does.
      Returns NULL when an argument is NULL, when
      `subject` is not a literal subject or does not match `src`, or when the built subject has an
      empty token. An invalid transform is an error (at analysis time when `src` and `dest` are
      constants).
  """,
  arguments = """
    Arguments:
      * subject - a literal NATS subject, e.g. 'orders.eu.42'.
      * src - the source filter: tokens, `*` (one token) and a trailing `>`; '' means '>'.
      * dest - the destination: tokens, `$N`, `{{wildcard(N)}}`, `{{partition(n,N,...)}}`,
          `{{split(N,sep)}}`, `{{splitfromleft(N,k)}}`, `{{splitfromright(N,k)}}`,
          `{{slicefromleft(N,k)}}`, `{{slicefromright(N,k)}}`, `{{left(N,k)}}`, `{{right(N,k)}}`,
          `{{random(n)}}` and a trailing `>`; `<<fn(...)>>` is the same as `{{fn(...)}}`.
          '' means no transformation. split, slice, left and right count bytes of the UTF-8 subject,
          as nats-server does: a cut may fall inside a character, and the result then holds those
          bytes (not valid UTF-8: `hex()` shows them).
      * strict - a constant BOOLEAN, default false: accept only what an import/export mapping
          accepts (only wildcards, each `*` of `src` used).
      * seed - a constant BIGINT (default NULL: unseeded) for `{{random(n)}}`: reproducible draws
          for the same input in the same partitioning, as `rand(seed)`.
      * key - a per-row key of any type (default: none), e.g. a message id: `{{random(n)}}` is then a
          pure function of (seed, xxhash64(key), the destination token), whatever the partitioning,
          and the function is deterministic. A MAP is hashed by its entries in key order. Arguments can be given by name: `key => id`.
      * server_version - a constant STRING, the nats-server line to follow: '2.10', '2.11', '2.12',
          '2.14' or '2.15' (a release like '2.10.26' names its line). Default: the session conf
          `spark.subjxform.serverVersion`, else '2.15'. E.g. `server_version => '2.10'`.
      * account - a constant STRING (default NULL: none), the account the transform is installed for, by
          name (a public key in operator mode): nats-server 2.14.10 and 2.15.3 put the hash of its name
          where the destination says `{{account-hash()}}`. Without one such a destination is refused.
          E.g. `account => 'A'`.
  """,
  examples = """
    Examples:
      > SELECT _FUNC_('orders.eu.42', 'orders.*.*', 'shipments.{{wildcard(2)}}.$1');
       shipments.42.eu
      > SELECT _FUNC_('neworders.customerid2', 'neworders.*', 'neworders.{{wildcard(1)}}.{{partition(3,1)}}');
       neworders.customerid2.2
      > SELECT _FUNC_('1234567890', '*', '<<SliceFromLeft(1,3)>>');
       123.456.789.0
      > SELECT _FUNC_('sensor.münchen01', 'sensor.*', '{{splitfromleft(1,3)}}');
       mü.nchen01
      > SELECT hex(_FUNC_('m.日本', 'm.*', '{{left(1,1)}}'));
       E6
      > SELECT _FUNC_('one.two.three', 'one.>', 'uno.>');
       uno.two.three
      > SELECT _FUNC_('billing.eu', 'orders.*', 'x.$1');
       NULL
      > SELECT _FUNC_('ab.c', '*.*', 'x.{{partition(0,1)}}.$2', server_version => '2.10');
       NULL
      > SELECT _FUNC_('orders.x', 'orders.*', 'orders.{{account-hash()}}.$1', server_version => '2.15.3', account => 'A');
       orders.NUmM6cRx.x
  """,
  since = "0.1.0",
  group = "string_funcs")
case class SubjectTransformExpression(
    subject: Expression, src: Expression, dest: Expression, strict: Expression, seed: Expression, key: Expression,
    serverVersion: Expression, account: Expression)
  extends SubjectTransformFunction with DeterministicForm[SubjectTransform] {

  def this(subject: Expression, src: Expression, dest: Expression) =
    this(subject, src, dest, Literal.FalseLiteral, PlanExpression.NoSeed, PlanExpression.NoKey,
      ServerVersionArgument.newest, PlanExpression.NoAccount)

  def this(subject: Expression, src: Expression, dest: Expression, strict: Expression) =
    this(subject, src, dest, strict, PlanExpression.NoSeed, PlanExpression.NoKey, ServerVersionArgument.newest,
      PlanExpression.NoAccount)

  def this(subject: Expression, src: Expression, dest: Expression, strict: Expression, seed: Expression) =
    this(subject, src, dest, strict, seed, PlanExpression.NoKey, ServerVersionArgument.newest, PlanExpression.NoAccount)

  def this(subject: Expression, src: Expression, dest: Expression, strict: Expression, seed: Expression,
      key: Expression) =
    this(subject, src, dest, strict, seed, key, ServerVersionArgument.newest, PlanExpression.NoAccount)

  def this(subject: Expression, src: Expression, dest: Expression, strict: Expression, seed: Expression,
      key: Expression, serverVersion: Expression) =
    this(subject, src, dest, strict, seed, key, serverVersion, PlanExpression.NoAccount)

  override protected def failOnError: Boolean = true
  override def prettyName: String = "subject_transform"

  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): SubjectTransformExpression =
    copy(subject = c(0), src = c(1), dest = c(2), strict = c(3), seed = c(4), key = c(5), serverVersion = c(6),
      account = c(7))
}

@ExpressionDescription(
  usage = """
    _FUNC_(subject, src, dest[, strict[, seed[, key[, server_version[, account]]]]]) - The same as `subject_transform`, but an invalid transform
      gives NULL instead of an error.
  """,
  arguments = """
    Arguments:
      * subject - a literal NATS subject.
      * src - the source filter.
      * dest - the destination (see `subject_transform`).
      * strict - a constant BOOLEAN, default false: import/export rules.
      * seed, key, server_version, account - as in `subject_transform`.
  """,
  examples = """
    Examples:
      > SELECT _FUNC_('a.b', 'a.*', 'x.{{wildcard(2)}}');
       NULL
      > SELECT _FUNC_('a.b', 'a.*', 'x.{{wildcard(1)}}');
       x.b
  """,
  since = "0.1.0",
  group = "string_funcs")
case class TrySubjectTransformExpression(
    subject: Expression, src: Expression, dest: Expression, strict: Expression, seed: Expression, key: Expression,
    serverVersion: Expression, account: Expression)
  extends SubjectTransformFunction with DeterministicForm[SubjectTransform] {

  def this(subject: Expression, src: Expression, dest: Expression) =
    this(subject, src, dest, Literal.FalseLiteral, PlanExpression.NoSeed, PlanExpression.NoKey,
      ServerVersionArgument.newest, PlanExpression.NoAccount)

  def this(subject: Expression, src: Expression, dest: Expression, strict: Expression) =
    this(subject, src, dest, strict, PlanExpression.NoSeed, PlanExpression.NoKey, ServerVersionArgument.newest,
      PlanExpression.NoAccount)

  def this(subject: Expression, src: Expression, dest: Expression, strict: Expression, seed: Expression) =
    this(subject, src, dest, strict, seed, PlanExpression.NoKey, ServerVersionArgument.newest, PlanExpression.NoAccount)

  def this(subject: Expression, src: Expression, dest: Expression, strict: Expression, seed: Expression,
      key: Expression) =
    this(subject, src, dest, strict, seed, key, ServerVersionArgument.newest, PlanExpression.NoAccount)

  def this(subject: Expression, src: Expression, dest: Expression, strict: Expression, seed: Expression,
      key: Expression, serverVersion: Expression) =
    this(subject, src, dest, strict, seed, key, serverVersion, PlanExpression.NoAccount)

  override protected def failOnError: Boolean = false
  override def prettyName: String = "try_subject_transform"

  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): TrySubjectTransformExpression =
    copy(subject = c(0), src = c(1), dest = c(2), strict = c(3), seed = c(4), key = c(5), serverVersion = c(6),
      account = c(7))
}
