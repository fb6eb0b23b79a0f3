package subjxform.spark

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Alias, Expression, Nondeterministic}
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenContext

import subjxform.core.Workspace

/**
 * An expression whose compiled plan runs in a [[Workspace]] (scratch space and random source) that it
 * owns. Each function comes in two forms, because a plan may draw at random (`{{random(n)}}`,
 * weighted mappings): such an expression must be a Spark `Nondeterministic` one, which is what Spark's
 * analyzer and projections look for (to pull it out of a GROUP BY, to initialize it per partition), and
 * `Nondeterministic` makes an expression nondeterministic always (its `deterministic` is final), while
 * one that does not draw must stay deterministic (so Spark may still push filters through it, dedupe
 * it, cache it). The deterministic form is [[OneWorkspace]], the other [[WorkspacePerPartition]]; the
 * registry picks one through [[MayDrawAtRandom]].
 */
trait UsesWorkspace extends Expression {
  /** The workspace of a partition (a seeded one, where the function takes a seed). Public: generated code calls it. */
  def newWorkspace(partitionIndex: Int): Workspace

  /** The row's result, computed in `workspace`. */
  protected def evalWith(workspace: Workspace, input: InternalRow): Any

  /** The generated-code variable holding the workspace; `self` is this expression's reference object. */
  protected def workspaceFor(ctx: CodegenContext, self: String): String
}

/** The deterministic form: one workspace for the life of the instance (a task's copy of the plan). */
trait OneWorkspace extends UsesWorkspace {
  @transient private lazy val workspace = newWorkspace(0)

  override def eval(input: InternalRow): Any = evalWith(workspace, input)

  override protected def workspaceFor(ctx: CodegenContext, self: String): String =
    ctx.addMutableState(classOf[Workspace].getName, "subjectWorkspace", v => s"$v = $self.newWorkspace(0);")
}

/** The form that draws at random: a workspace per partition, created when Spark initializes it, like `rand(seed)`. */
trait WorkspacePerPartition extends UsesWorkspace with Nondeterministic {
  @transient private var workspace: Workspace = _

  override protected def initializeInternal(partitionIndex: Int): Unit = workspace = newWorkspace(partitionIndex)

  override protected def evalInternal(input: InternalRow): Any = evalWith(workspace, input)

  override protected def workspaceFor(ctx: CodegenContext, self: String): String = {
    val ws = ctx.addMutableState(classOf[Workspace].getName, "subjectWorkspace")
    ctx.addPartitionInitializationStatement(s"$ws = $self.newWorkspace(partitionIndex);")
    ws
  }
}

/**
 * A deterministic form that knows its [[WorkspacePerPartition]] twin. Spark calls a function's builder
 * once the arguments are resolved, so constant arguments can be read there; the registry
 * ([[SubjxformFunctions]]) builds this form and asks it for the right one.
 */
trait MayDrawAtRandom extends OneWorkspace {
  /**
   * Whether rows may draw at random: a constant plan that does, or a plan from a column (any row's
   * may). The builder asks before implicit casts, so this must not depend on them.
   */
  protected def mayDrawAtRandom: Boolean

  /**
   * Whether `argument` is a constant as the analyzer will see it. The builder runs before the analyzer
   * drops aliases nested in an argument, and an alias is never foldable: a DataFrame's
   * `struct(lit("a").as("src"), ...)` would otherwise look like a column here and get the random form.
   */
  protected def constantOnceAnalysed(argument: Expression): Boolean =
    argument.transformUp { case a: Alias => a.child }.foldable

  /** The `Nondeterministic` twin, with the same arguments. */
  protected def randomForm: Expression

  /** This expression, or its `Nondeterministic` twin when it draws at random or may. */
  final def formForArguments: Expression = if (mayDrawAtRandom) randomForm else this

  // Only for an expression built directly: the registry gives the others their random form.
  override lazy val deterministic: Boolean = children.forall(_.deterministic) && !mayDrawAtRandom
}
