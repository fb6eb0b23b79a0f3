package subjxform.spark

import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.expressions.Expression

import subjxform.engine.AccountFunctions

/**
 * The `account` argument of the functions that compile mapping destinations (`subject_transform`, `subject_map`,
 * `subject_map_explain`): the account the transform or table is installed for, by its name (a public key in
 * operator mode), whose hash nats-server 2.14.10 and 2.15.3 put where a destination says `{{account-hash()}}`. A
 * constant STRING. NULL (the default): no account, as a bare transform has none, and a destination that uses
 * the account functions is refused, saying an account is needed.
 */
trait AccountArgument[P <: AnyRef] extends PlanExpression[P] {
  def account: Expression

  /**
   * The account functions' context: the named account, `-import()` and `-leaf-remote()` not available. An account
   * from a column is none here: the type check refuses it (NON_FOLDABLE_INPUT), but the registry's builder asks
   * whether the constants draw before that.
   */
  @transient protected final lazy val accounts: AccountFunctions.Context =
    Option(account).filter(_.foldable).flatMap(a => Option(a.eval())).fold(AccountFunctions.NoAccount)(a =>
      AccountFunctions.Context(a.toString))

  /** The account's name, or null when none was given (what the mapping table's compile takes). */
  protected final def accountName: String = accounts.account

  // '' names no account (a server has none by that name): refused before the plan is compiled for it.
  override protected def checkArgumentTypes(): TypeCheckResult = {
    if (account.foldable && Option(account.eval()).exists(_.toString.isEmpty))
      throw Errors.atAnalysis(prettyName, "account", AccountFunctions.NoAccountName)
    super.checkArgumentTypes()
  }
}
