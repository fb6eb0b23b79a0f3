package subjxform.spark

import java.util.concurrent.ThreadLocalRandom

import scala.util.control.NonFatal

import org.apache.spark.TaskContext
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult.TypeCheckSuccess
import org.apache.spark.sql.catalyst.expressions.{
  Alias, Cast, Expression, ImplicitCastInputTypes, LeafExpression, Literal, Nondeterministic, PrettyAttribute
}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, CodeGenerator, ExprCode}
import org.apache.spark.sql.catalyst.expressions.codegen.Block._
import org.apache.spark.sql.types.{DataType, LongType, StringType}
import org.apache.spark.unsafe.types.UTF8String

import subjxform.engine.{KeyedDraw, SubjectTooLongException, Workspace}

/**
 * The shell of every function that applies a compiled plan (a transform, a filter, a mapping table, a
 * stream source's list) to a subject. A function states only its arguments, how to compile its plan and
 * which argument to blame for a compile error; this class does the rest, the same way for all:
 *
 *  - plan arguments that are constants are compiled once, when the query is analysed: an invalid plan
 *    fails analysis (or gives NULL in the `try_` forms), and generated code holds a reference to it;
 *  - plan arguments from columns go through a per-task [[ColumnPlans]] cache;
 *  - the plan runs per row in a [[Workspace]] (scratch space and random source) that the expression
 *    owns: one for its life ([[DeterministicForm]]) or one per partition ([[RandomForm]], for plans
 *    that draw at random — see there why that takes two classes);
 *  - generated code stays a few lines that call [[PerRow]].
 *
 * @tparam P the compiled plan (immutable and thread-safe, from the Spark-free core)
 */
abstract class PlanExpression[P <: AnyRef] extends Expression with ImplicitCastInputTypes with FailsAnalysisInTypeCheck
  with ServerVersionArgument {

  def subject: Expression

  /** The one or two arguments the plan is compiled from, constants or columns. */
  protected def planArguments: Seq[Expression]

  /** Arguments that must be constants (`strict`, `seed`): name and SQL type, for Spark's error. */
  protected def constantArguments: Seq[(String, String, Expression)] = Nil

  /** Whether an invalid plan is an error or, in the `try_` forms, a NULL. */
  protected def failOnError: Boolean

  /** The class of the plan, for generated code. */
  protected def classOfPlan: Class[P]

  /**
   * The plan of the plan arguments' values (none NULL) for nats-server line [[version]]; an invalid plan is
   * an `IllegalArgumentException`.
   */
  protected def compile(arguments: Seq[AnyRef]): P

  /** The parameter(s) an invalid plan is blamed on, e.g. "dest" or "src, dest". */
  protected def blame(error: IllegalArgumentException): String

  /** A cache of plans compiled from column values for line [[version]]; public, since generated code creates it. */
  def newCache(): ColumnPlans[P]

  /** Whether a constant argument makes every result NULL (e.g. a NULL `strict`). */
  protected def nullForConstants: Boolean = false

  /**
   * The row's result for a plan, interpreted. `key` is the row's draw key when [[keyed]] (see
   * [[keyArgument]]); the draws then use [[seedForKeys]].
   */
  protected def applyPlan(plan: P, workspace: Workspace, subject: UTF8String, input: InternalRow, key: Long): Any

  /**
   * The same in generated code: a Java expression over the variables `plan`, `workspace`, `subject`
   * and `key` (a Java long), given the values of the other arguments ([[rowArguments]]) as nullable
   * Java values, and `shell`, this expression (for [[tooLong]]).
   */
  protected def applyPlanCode(plan: String, workspace: String, subject: String, key: String, rowValues: Seq[String],
      shell: String): String

  /**
   * Whether the generated result in `value` is NULL: `value == null`, never for a primitive result unless
   * the function says which values stand for NULL (see [[ConsumerGroupPartitionExpression]]).
   */
  protected def resultIsNullCode(value: String): String =
    if (CodeGenerator.isPrimitiveType(dataType)) "false" else s"$value == null"

  /** Other arguments read per row once the plan is known (`cluster`); NULL is passed as `null`. */
  protected def rowArguments: Seq[Expression] = Nil

  /**
   * For a function whose plans can draw at random (`{{random(n)}}`, weighted mappings): the constant
   * `seed` (BIGINT; NULL: unseeded) and the per-row `key` (BIGINT, the registry's `xxhash64` of the
   * user's key; a NULL literal: no key). With a key, every draw is a pure function of (seed, key, what is
   * drawn) (core KeyedDraw), so the function is deterministic; without one, the draws come from the
   * workspace's random source, seeded per partition when a seed is given.
   */
  protected def seedArgument: Option[Expression] = None
  protected def keyArgument: Option[Expression] = None

  /** Whether the draws are keyed: a key other than a NULL constant (the registry hashes a column's key, never NULL). */
  protected final def keyed: Boolean = keyArgument.exists(k => !(k.foldable && k.eval() == null))

  protected final def seedValue: Option[Long] = seedArgument.flatMap(s => Option(s.eval())).map(_.asInstanceOf[Long])

  /**
   * The seed of keyed draws: the given one, or 0; and 0 when the draws are not keyed, since they do not
   * use it. Generated code holds it as a literal, and an unseeded call's seed is chosen anew for every
   * query ([[RandomForm]]): code that held it would differ from query to query, and Spark, which reuses
   * a compiled class for the same code text, would compile and warm up every query's anew (a
   * `src`/`dest`-from-columns query cost ~60 ns more a row on 3 million rows).
   */
  protected final def seedForKeys: Long = if (keyed) seedValue.getOrElse(0L) else 0L

  /**
   * A partition's workspace. Public: generated code calls it. Seeded with `seed + partitionIndex`, as
   * `rand(seed)` is; in a Structured Streaming micro-batch the batch id is mixed in too, or every
   * micro-batch would repeat the first one's draws. An unseeded draw has its seed by now (chosen once,
   * see [[RandomForm]]), so that a rerun task draws what its first attempt drew: nothing here depends on
   * when or where a task runs. (An expression built directly, not by the registry, without a seed draws
   * as seed 0.)
   */
  def newWorkspace(partitionIndex: Int): Workspace = {
    val seed = seedValue.getOrElse(0L)
    val batch = Option(TaskContext.get()).flatMap(t => Option(t.getLocalProperty(PlanExpression.StreamingBatchId)))
    new Workspace(batch.fold(seed)(b => KeyedDraw.mix(seed ^ KeyedDraw.mix(b.toLong))) + partitionIndex)
  }

  /** The row's result, computed in `workspace`. */
  protected final def evalWith(workspace: Workspace, input: InternalRow): Any = {
    val s = subject.eval(input).asInstanceOf[UTF8String]
    if (s == null) return null
    val plan =
      if (constantPlan) constantOrNull
      else {
        val values = planArguments.map(_.eval(input).asInstanceOf[AnyRef])
        if (values.contains(null) || nullForConstants) return null
        cache.get(values.head, values.lift(1).orNull, failOnError)
      }
    if (plan == null) return null
    val key = if (keyed) Option(keyArgument.get.eval(input)).fold(0L)(_.asInstanceOf[Long]) else 0L
    applyPlan(plan, workspace, s, input, key)
  }

  /**
   * A result longer than a subject may be: the row's error, or NULL in the `try_` forms. Public: PerRow
   * calls it when the engine returns `Workspace.TooLong` (the engine reports it as a value: see there).
   */
  def tooLong(e: SubjectTooLongException): AnyRef =
    if (failOnError) throw Errors.atRuntime(prettyName, "subject", e.getMessage) else null

  /** The generated-code variable holding the workspace; `self` is this expression's reference object. */
  protected def workspaceFor(ctx: CodegenContext, self: String): String

  // ------------------------------------------------------------------------------------------------

  override def nullable: Boolean = true
  // A workspace and a cache of compiled plans live in each instance: never share one.
  override def stateful: Boolean = true

  protected final def constantPlan: Boolean = planArguments.forall(_.foldable)

  /** The plan of constant arguments; None when one of them is NULL (every result is NULL). */
  @transient private lazy val constant: Option[Either[IllegalArgumentException, P]] = {
    val values = planArguments.map(_.eval().asInstanceOf[AnyRef])
    if (values.contains(null) || nullForConstants) None
    else Some(try Right(compile(values))
      catch { case e: IllegalArgumentException => Left(e) })
  }

  @transient private lazy val cache = newCache()

  /** The argument types' check: Spark's implicit casts, unless a function checks its own. */
  protected def checkArgumentTypes(): TypeCheckResult = super.checkInputDataTypes()

  final override def checkInputDataTypes(): TypeCheckResult = {
    val types = checkArgumentTypes()
    if (types.isFailure) return types
    constantArguments.collectFirst { case (name, sqlType, e) if !e.foldable => Errors.notConstant(name, sqlType, e) }
      .orElse(checkServerVersion()) // (before the plan is compiled for it)
      .getOrElse {
        if (failOnError && constantPlan) {
          constant.foreach(_.left.foreach(e => throw Errors.atAnalysis(prettyName, blame(e), e.getMessage)))
        }
        TypeCheckSuccess
      }
  }

  /** A cache whose compile errors are this function's runtime error. */
  protected def planCache(compile: (String, String) => P): PlanCache[P] =
    PlanCache.of(prettyName, blame)(compile)

  private def constantOrNull: P = constant match {
    case Some(Right(plan)) => plan
    case Some(Left(e)) if failOnError => throw Errors.atRuntime(prettyName, blame(e), e.getMessage)
    case _ => null.asInstanceOf[P]
  }

  /**
   * The `Nondeterministic` twin of a [[DeterministicForm]] with the same arguments, for a function whose
   * plans can draw at random.
   */
  protected def randomForm: Option[Expression] = None

  /**
   * Whether the plan of the constant arguments draws at random: the one hook of the random form (none
   * draws, unless a function says otherwise). Spark's function builder asks (see [[DeterministicForm]])
   * before implicit casts, so an argument may not have its type yet: anything that does not compile does
   * not draw (its error is reported by `checkInputDataTypes`).
   */
  protected def constantsDrawAtRandom: Boolean = false

  /** For [[constantsDrawAtRandom]]: whether the constant arguments' plan, compiled, draws; false if invalid. */
  protected final def constantPlanDraws(draws: P => Boolean): Boolean =
    try constant.exists(_.exists(draws))
    catch { case NonFatal(_) => false }

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val javaType = CodeGenerator.javaType(dataType)
    val noValue = CodeGenerator.defaultValue(dataType)
    val planIsNull = if (constantPlan) constantOrNull == null else nullForConstants
    if (planIsNull) return ev.copy(code = code"boolean ${ev.isNull} = true; $javaType ${ev.value} = $noValue;")

    val planClass = classOfPlan.getName
    val self = ctx.addReferenceObj("planExpression", this, classOf[PlanExpression[_]].getName)
    val workspace = workspaceFor(ctx, self)
    val subj = subject.genCode(ctx)
    val plan = ctx.freshName("plan")
    val findPlan =
      if (constantPlan) {
        s"$planClass $plan = ${ctx.addReferenceObj("plan", constantOrNull, planClass)};"
      } else {
        val args = planArguments.map(_.genCode(ctx))
        val lookup =
          if (planArguments.forall(_.dataType.isInstanceOf[StringType])) {
            // STRING arguments (always a PlanCache) are passed as their bytes: the row's UTF8Strings
            // then stay inside this method, where the JIT can do without them (see PlanCache.get).
            val plans = ctx.addMutableState(classOf[PlanCache[_]].getName, "plans",
              v => s"$v = (${classOf[PlanCache[_]].getName}) $self.newCache();")
            def bytes(v: String) = s"$v.getBaseObject(), $v.getBaseOffset(), $v.numBytes()"
            val second = if (args.size > 1) bytes(args(1).value) else s"null, 0L, ${PlanCache.NoSecond}"
            s"$plans.get(${bytes(args.head.value)}, $second, $failOnError)"
          } else {
            val plans = ctx.addMutableState(classOf[ColumnPlans[_]].getName, "plans", v => s"$v = $self.newCache();")
            val second = if (args.size > 1) args(1).value else "null"
            s"$plans.get(${args.head.value}, $second, $failOnError)"
          }
        s"""${args.map(_.code).mkString("\n")}
           |$planClass $plan = null;
           |if (${args.map(a => s"!${a.isNull}").mkString(" && ")}) {
           |  $plan = ($planClass) $lookup;
           |}""".stripMargin
      }
    val row = rowArguments.map(_.genCode(ctx))
    val key = if (keyed) Some(keyArgument.get.genCode(ctx)) else None
    val keyValue = key.fold("0L")(k => s"(${k.isNull} ? 0L : ${k.value})")
    val result =
      applyPlanCode(plan, workspace, subj.value, keyValue, row.map(a => s"(${a.isNull} ? null : ${a.value})"), self)
    val resultIsNull = resultIsNullCode(ev.value)
    ev.copy(code = code"""
      |${subj.code}
      |boolean ${ev.isNull} = true;
      |$javaType ${ev.value} = $noValue;
      |if (!${subj.isNull}) {
      |  $findPlan
      |  if ($plan != null) {
      |    ${row.map(_.code).mkString("\n")}
      |    ${key.fold("")(_.code.toString)}
      |    ${ev.value} = $result;
      |    ${ev.isNull} = $resultIsNull;
      |  }
      |}""".stripMargin)
  }

  /** How many leading arguments are always written; the others are optional (NULL or false by default). */
  protected def requiredArguments: Int = children.length

  /**
   * The SQL as written: optional arguments at their defaults at the end are left out, and an argument
   * whose SQL is longer than [[FailsAnalysisInTypeCheck.MaxArgumentText]] (a mapping table) is shortened, as Spark
   * shortens long plans: this text names an unaliased column.
   */
  override def sql: String = {
    // A column's name is the SQL of the expression with its literals made "pretty" (a NULL constant
    // becomes a PrettyAttribute named NULL), so those count as defaults too.
    def atDefault(e: Expression): Boolean = e match {
      case _ if seedArgument.exists(_ eq e) && !seedShown => true
      case _ if ServerVersionArgument.isDefault(e) => true
      case c: Cast => atDefault(c.child)
      case p: PrettyAttribute => p.name == "NULL"
      case _ => e.foldable && (e.eval() == null || e.eval() == false)
    }
    var written = children.length
    while (written > requiredArguments && atDefault(children(written - 1))) written -= 1
    s"$prettyName(${children.take(written).map(a => FailsAnalysisInTypeCheck.shortened(a.sql)).mkString(", ")})"
  }

  /**
   * Whether the column's name shows the seed: not when it decides nothing (a plan that never draws) nor
   * when it was chosen for a call that gave none ([[ChosenSeed]]), as `rand()`'s name shows none.
   */
  protected def seedShown: Boolean = true

  /** `expr` as the analyzer will see it: constant or not. See [[DeterministicForm.mayDrawAtRandom]]. */
  protected final def constantOnceAnalysed(argument: Expression): Boolean =
    argument.transformUp { case a: Alias => a.child }.foldable
}

object PlanExpression {

  /** The defaults of the optional draw arguments: no seed, no key. */
  def NoSeed: Expression = Literal.create(null, LongType)
  def NoKey: Expression = Literal.create(null, LongType)

  /** The default `account` ([[AccountArgument]]): none. */
  def NoAccount: Expression = Literal.create(null, StringType)

  /** The local property Structured Streaming sets to the micro-batch's id (MicroBatchExecution.BATCH_ID_KEY). */
  final val StreamingBatchId = "streaming.sql.batchId"
}

/**
 * The form of a plan that does not draw at random: deterministic, one workspace for the life of the
 * instance (a task's copy of the plan). It knows its [[RandomForm]] twin: Spark calls a function's
 * builder once the arguments are resolved, so constant arguments can be read there; the registry
 * ([[SubjxformFunctions]]) builds this form and asks it for the right one.
 *
 * Why two classes: a plan that draws at random (`{{random(n)}}`, weighted mappings) must be a Spark
 * `Nondeterministic` expression, which is what Spark's analyzer and projections look for (to pull it out
 * of a GROUP BY, to initialize it per partition), and `Nondeterministic` makes an expression
 * nondeterministic always (its `deterministic` is final), while one that does not draw must stay
 * deterministic (so Spark may still push filters through it, dedupe it, cache it).
 */
trait DeterministicForm[P <: AnyRef] extends PlanExpression[P] {
  @transient private lazy val workspace = newWorkspace(0)

  override def eval(input: InternalRow): Any = evalWith(workspace, input)

  override protected def workspaceFor(ctx: CodegenContext, self: String): String =
    ctx.addMutableState(classOf[Workspace].getName, "workspace", v => s"$v = $self.newWorkspace(0);")

  /**
   * Whether rows may draw at random: a constant plan that does, or a plan from a column (any row's
   * may). The builder runs before the analyzer drops aliases nested in an argument, and an alias is
   * never foldable: a DataFrame's `struct(lit("a").as("src"), ...)` would otherwise look like a column.
   */
  protected def mayDrawAtRandom: Boolean =
    randomForm.isDefined && !keyed && (!planArguments.forall(constantOnceAnalysed) || constantsDrawAtRandom)

  /**
   * This expression, or its `Nondeterministic` twin when it draws at random or may; the twin of an
   * unseeded call gets its seed here, once per call in the query (see [[RandomForm]]).
   */
  final def formForArguments: Expression =
    if (!mayDrawAtRandom) this
    else randomForm.get match {
      // (the builder runs before implicit casts: a seed written `5` is still an INT here)
      case r: RandomForm[_] if seedArgument.exists(s => s.foldable && s.eval() == null) =>
        r.withSeed(ChosenSeed(ThreadLocalRandom.current().nextLong()))
      case r => r
    }

  override protected def seedShown: Boolean = keyed || mayDrawAtRandom

  // Only for an expression built directly: the registry gives the others their random form.
  override lazy val deterministic: Boolean = children.forall(_.deterministic) && !mayDrawAtRandom
}

/**
 * The form of a plan that draws at random: `Nondeterministic`, a workspace per partition, created when
 * Spark initializes it, like `rand(seed)`'s.
 *
 * Its seed is chosen once when the call gives none, when Spark's function registry builds the
 * expression (as it builds `rand()` with its seed): while a query is analysed, or when its column is
 * built by the Python or Scala API. Every task of the query, a rerun, a recomputed shuffle map output or
 * a speculative copy then draws what the first attempt drew: a seed per task from the clock made a
 * rerun map task route rows elsewhere than the output that reduce tasks had already read (rows lost and
 * rows written twice).
 */
trait RandomForm[P <: AnyRef] extends PlanExpression[P] with Nondeterministic {
  @transient private var workspace: Workspace = _

  override protected def initializeInternal(partitionIndex: Int): Unit = workspace = newWorkspace(partitionIndex)

  override protected def evalInternal(input: InternalRow): Any = evalWith(workspace, input)

  override protected def workspaceFor(ctx: CodegenContext, self: String): String = {
    val ws = ctx.addMutableState(classOf[Workspace].getName, "workspace")
    ctx.addPartitionInitializationStatement(s"$ws = $self.newWorkspace(partitionIndex);")
    ws
  }

  /** This expression with `seed` as its seed argument. */
  final def withSeed(seed: Expression): Expression = {
    val current = seedArgument.get
    withNewChildren(children.map(c => if (c eq current) seed else c))
  }

  override protected def seedShown: Boolean = !seedArgument.get.isInstanceOf[ChosenSeed]
}

/**
 * The seed chosen for a call that gave none: a constant, left out of the column's name as `rand()`'s is.
 *
 * Equal to every other chosen seed, whatever its value (its canonical form too): one call written in
 * two places of a plan is built twice, each with its own seed (a DataFrame's `groupBy(expr(...).as("k"))`
 * puts it in the grouping and in the output, and so does SQL that repeats a grouping expression), and
 * Spark's analyzer finds the grouping expression in the output by equality (Spark 4.2: by canonical
 * form). So, as with two calls given the same seed, Spark may take two identically written unseeded
 * calls over the same input for one (the grouping one's draws are then what the output shows; a cached
 * DataFrame's draws may serve another DataFrame that writes the same call).
 */
case class ChosenSeed(seed: Long) extends LeafExpression {
  override def dataType: DataType = LongType
  override def nullable: Boolean = false
  override def foldable: Boolean = true
  override def eval(input: InternalRow): Any = seed
  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = Literal(seed).genCode(ctx)
  override def sql: String = s"${seed}L"

  override def equals(other: Any): Boolean = other.isInstanceOf[ChosenSeed]
  override def hashCode(): Int = classOf[ChosenSeed].getName.hashCode
}
