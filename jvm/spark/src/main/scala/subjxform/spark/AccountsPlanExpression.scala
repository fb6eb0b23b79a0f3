package subjxform.spark

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult.TypeCheckSuccess
import org.apache.spark.sql.catalyst.expressions.{
  Expression, ExpressionDescription, ImplicitCastInputTypes, Literal, TernaryExpression
}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.catalyst.expressions.codegen.Block._
import org.apache.spark.sql.types.{DataType, StringType}
import org.apache.spark.unsafe.types.UTF8String

import subjxform.config.{AccountsPlanner, ConfSyntaxException, InvalidAccountsException}
import subjxform.engine.ServerVersion

@ExpressionDescription(
  usage = """
    _FUNC_(config [, file[, server_version]]) - Checks the accounts of a nats-server config (its `accounts` block: mappings,
      exports, imports; in operator mode the account JWTs of `resolver_preload`), or account JWTs or their
      claims (`nsc describe account --json`), the way nats-server does, and returns what decides where a
      message goes as JSON: `accounts` (each one's `name`, `id` (a JWT's public key) and mappings as written,
      a JSON mapping table, which `subject_map` loads as the server loads it from where it was written; the
      top-level mappings as account `$G`), `routes` (each import: `kind`, `importer`, `exporter` and their
      `importer_id`, `exporter_id`, the `filter` a message must match, and its new subject:
      `subject_transform(subject, src, dest)` or the fixed `literal`), `problems` (warnings and crashes; in JWT
      mode what nats-server leaves out of an account), `jwt` and `server` (its `server_name`,
      `cluster` and `gateway` names, leaf node remotes and listen, whether JetStream is on; NULL for JWTs). A config
      nats-server refuses is an error giving file:line, the entry and nats-server's words. `file` (the
      config's path) lets `include` and environment variables be read as nats-server reads them.
  """,
  arguments = """
    Arguments:
      * config - a nats-server config, account JWTs (separated by white space) or JWT claims (JSON).
      * file - optional: the config file's path, for `include` and `$VARIABLE`s from the environment.
      * server_version - the nats-server line whose checks apply, as for `subject_transform`.
  """,
  examples = """
    Examples:
      > SELECT _FUNC_('accounts { A: { exports: [{stream: "a.>"}] }, B: { imports: [{stream: {account: A, subject: "a.>"}, prefix: p}] } }');
       {"accounts":[{"name":"A","id":"A","mappings":null},{"name":"B","id":"B","mappings":null}],"routes":[{"kind":"stream","importer":"B","exporter":"A","importer_id":"B","exporter_id":"A","filter":"a.>","src":"a.>","dest":"p.a.>","literal":null,"field":"accounts.B.imports[0]"}],"problems":[],"jwt":false,"server":{"server_name":null,"cluster":null,"gateway":null,"leafnode_remotes":0,"leafnode_listen":false,"jetstream":false}}
  """,
  since = "0.1.0",
  group = "string_funcs")
case class AccountsPlanExpression(config: Expression, file: Expression, serverVersion: Expression)
  extends TernaryExpression with ImplicitCastInputTypes with FailsAnalysisInTypeCheck with ServerVersionArgument {

  def this(config: Expression) = this(config, Literal(null, StringType), ServerVersionArgument.newest)
  def this(config: Expression, file: Expression) = this(config, file, ServerVersionArgument.newest)

  override def first: Expression = config
  override def second: Expression = file
  override def third: Expression = serverVersion
  override def inputTypes = Seq(StringType, StringType, StringType)
  override def dataType: DataType = StringType
  override def prettyName: String = "accounts_plan"

  override def checkInputDataTypes(): TypeCheckResult = {
    val types = super.checkInputDataTypes()
    if (types.isFailure) return types
    checkServerVersion().foreach(failure => return failure)
    // A constant config is checked before any data is read.
    if (config.foldable && file.foldable) {
      Option(config.eval()).foreach { c =>
        try AccountsPlanner.planJson(c.toString, Option(file.eval()).map(_.toString).orNull, version)
        catch {
          case e: InvalidAccountsException => throw Errors.atAnalysis(prettyName, "config", e.getMessage)
          case e: ConfSyntaxException => throw Errors.atAnalysis(prettyName, "config", e.getMessage)
        }
      }
    }
    TypeCheckSuccess
  }

  // A NULL file is "no file", so only a NULL config gives NULL.
  override def eval(input: InternalRow): Any = {
    val c = config.eval(input)
    if (c == null) null
    else AccountsPlanExpression.plan(c.asInstanceOf[UTF8String], file.eval(input).asInstanceOf[UTF8String], version)
  }

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val obj = AccountsPlanExpression.getClass.getName.stripSuffix("$")
    val line = ctx.addReferenceObj("serverVersion", version, classOf[ServerVersion].getName)
    val c = config.genCode(ctx)
    val f = file.genCode(ctx)
    ev.copy(code = code"""
      ${c.code}
      ${f.code}
      boolean ${ev.isNull} = ${c.isNull};
      UTF8String ${ev.value} = null;
      if (!${ev.isNull}) {
        ${ev.value} = $obj.plan(${c.value}, ${f.isNull} ? null : ${f.value}, $line);
      }""")
  }

  /** The SQL as written: the version left out when the call did not give it. */
  override def sql: String = {
    val written = if (ServerVersionArgument.isDefault(serverVersion)) Seq(config, file) else children
    s"$prettyName(${written.map(_.sql).mkString(", ")})"
  }

  override protected def withNewChildrenInternal(
      newFirst: Expression, newSecond: Expression, newThird: Expression): AccountsPlanExpression =
    copy(config = newFirst, file = newSecond, serverVersion = newThird)
}

object AccountsPlanExpression {

  /** Per row (generated code calls it): a config nats-server refuses fails the task, naming the entry. */
  def plan(config: UTF8String, file: UTF8String, version: ServerVersion): UTF8String =
    try
      UTF8String.fromString(AccountsPlanner.planJson(config.toString, if (file == null) null else file.toString, version))
    catch {
      case e: InvalidAccountsException => throw Errors.atRuntime("accounts_plan", "config", e.getMessage)
      case e: ConfSyntaxException => throw Errors.atRuntime("accounts_plan", "config", e.getMessage)
    }
}
