package subjxform.spark

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult.{DataTypeMismatch, TypeCheckSuccess}
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionDescription}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.catalyst.expressions.codegen.Block._
import org.apache.spark.sql.catalyst.util.ArrayData
import org.apache.spark.sql.types.{ArrayType, DataType, StringType, StructType}
import org.apache.spark.unsafe.types.UTF8String

import subjxform.core.{FilterTransforms, InvalidStreamConfigException, Workspace}

/**
 * `subject_filter_transform(subject, transforms)`: the filter-and-rename list of a stream source or
 * mirror, a thin Catalyst shell around a compiled [[FilterTransforms]]. A constant list is compiled
 * once (an invalid one fails analysis); a list from a column goes through a per-task
 * [[TransformListCache]]. A list with a `{{random(n)}}` destination (or one from a column, which may
 * have one) makes it a [[RandomSubjectFilterTransformExpression]].
 */
abstract class SubjectFilterTransformBase extends UsesWorkspace {
  def subject: Expression
  def transforms: Expression

  /** Whether an invalid list is an error (`subject_filter_transform`) or a NULL (the `try_` form). */
  protected def failOnError: Boolean

  final override def children: Seq[Expression] = Seq(subject, transforms)
  override def dataType: DataType = StringType
  override def nullable: Boolean = true
  override def nullIntolerant: Boolean = true
  // A workspace and a cache of compiled lists live in each instance: never share one.
  override def stateful: Boolean = true

  /** The ordinals of `src` and `dest` in the element struct, and its width. */
  @transient private lazy val layout: (Int, Int, Int) = transforms.dataType match {
    case ArrayType(st: StructType, _) => (st.fieldIndex("src"), st.fieldIndex("dest"), st.length)
  }

  protected def constantIsRandom: Boolean = constant.exists(_.exists(_.isRandom))

  @transient private lazy val constant: Option[Either[InvalidStreamConfigException, FilterTransforms]] =
    Option(transforms.eval()).map { a =>
      try Right(TransformListCache.compile(TransformListCache.pairs(a.asInstanceOf[ArrayData], layout)))
      catch { case e: InvalidStreamConfigException => Left(e) }
    }

  /** Whether `transforms` is an array of structs with STRING fields `src` and `dest` (others are ignored). */
  protected def transformsWellFormed: Boolean = transforms.dataType match {
    case ArrayType(st: StructType, _) =>
      Seq("src", "dest").forall(n => st.fields.exists(f => f.name == n && f.dataType.isInstanceOf[StringType]))
    case _ => false
  }

  private def error(e: InvalidStreamConfigException) = Errors.atRuntime(prettyName, "transforms", e.getMessage)

  override def checkInputDataTypes(): TypeCheckResult = {
    if (!subject.dataType.isInstanceOf[StringType]) {
      return DataTypeMismatch("UNEXPECTED_INPUT_TYPE", Map("paramIndex" -> "first", "requiredType" -> "\"STRING\"",
        "inputSql" -> s"\"${subject.sql}\"", "inputType" -> s"\"${subject.dataType.sql}\""))
    }
    if (!transformsWellFormed) {
      return DataTypeMismatch("UNEXPECTED_INPUT_TYPE", Map("paramIndex" -> "second",
        "requiredType" -> "\"ARRAY<STRUCT<src: STRING, dest: STRING>>\"",
        "inputSql" -> s"\"${transforms.sql}\"", "inputType" -> s"\"${transforms.dataType.sql}\""))
    }
    if (failOnError && transforms.foldable) {
      constant.foreach(_.left.foreach(e => throw Errors.atAnalysis(prettyName, "transforms", e.getMessage)))
    }
    TypeCheckSuccess
  }

  private[spark] def newCache(): TransformListCache = {
    val (s, d, n) = layout
    new TransformListCache(s, d, n, error)
  }

  // `{{random(n)}}` draws from the workspace's source; this function takes no seed.
  override def newWorkspace(partitionIndex: Int): Workspace = new Workspace

  @transient private lazy val cache = newCache()

  private def constantOrNull: FilterTransforms = constant match {
    case Some(Right(ft)) => ft
    case Some(Left(e)) if failOnError => throw error(e)
    case _ => null
  }

  override protected def evalWith(workspace: Workspace, input: InternalRow): Any = {
    val s = subject.eval(input).asInstanceOf[UTF8String]
    if (s == null) return null
    val ft =
      if (transforms.foldable) constantOrNull
      else {
        val a = transforms.eval(input).asInstanceOf[ArrayData]
        if (a == null) return null
        cache.get(a, failOnError)
      }
    if (ft == null) null else PerRow.filterTransform(ft, workspace, s)
  }

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val perRow = PerRow.getClass.getName.stripSuffix("$")
    val ftClass = classOf[FilterTransforms].getName
    val subj = subject.genCode(ctx)
    lazy val self = ctx.addReferenceObj("filterTransformExpr", this, classOf[SubjectFilterTransformBase].getName)
    lazy val ws = workspaceFor(ctx, self)
    def applyWith(ft: String) =
      s"""
         |${ev.value} = $perRow.filterTransform($ft, $ws, ${subj.value});
         |${ev.isNull} = ${ev.value} == null;
         |""".stripMargin

    if (transforms.foldable && constantOrNull == null) {
      ev.copy(code = code"boolean ${ev.isNull} = true; UTF8String ${ev.value} = null;")
    } else if (transforms.foldable) {
      val ft = ctx.addReferenceObj("filterTransforms", constantOrNull, ftClass)
      ev.copy(code = code"""
        |${subj.code}
        |boolean ${ev.isNull} = true;
        |UTF8String ${ev.value} = null;
        |if (!${subj.isNull}) {
        |  ${applyWith(ft)}
        |}""".stripMargin)
    } else {
      val cacheClass = classOf[TransformListCache].getName
      val cache = ctx.addMutableState(cacheClass, "filterTransformsCache", v => s"$v = $self.newCache();")
      val list = transforms.genCode(ctx)
      val ft = ctx.freshName("filterTransforms")
      ev.copy(code = code"""
        |${subj.code}
        |boolean ${ev.isNull} = true;
        |UTF8String ${ev.value} = null;
        |if (!${subj.isNull}) {
        |  ${list.code}
        |  if (!${list.isNull}) {
        |    $ftClass $ft = $cache.get(${list.value}, $failOnError);
        |    if ($ft != null) {
        |      ${applyWith(ft)}
        |    }
        |  }
        |}""".stripMargin)
    }
  }
}

/**
 * The forms the registry builds (`subject_filter_transform` and its `try_` form), deterministic when
 * the list is a constant one that does not draw at random.
 */
abstract class DeterministicSubjectFilterTransform extends SubjectFilterTransformBase with MayDrawAtRandom {
  // A list that is not a list of (src, dest) structs is left to `checkInputDataTypes` to report.
  override protected def mayDrawAtRandom: Boolean = transformsWellFormed && (!constantOnceAnalysed(transforms) || constantIsRandom)

  override protected def randomForm: Expression = RandomSubjectFilterTransformExpression(subject, transforms, failOnError)
}

/**
 * `subject_filter_transform` / `try_subject_filter_transform` over a list that draws at random or comes
 * from a column: a Spark `Nondeterministic` expression, treated as `rand()` is.
 */
case class RandomSubjectFilterTransformExpression(subject: Expression, transforms: Expression, failOnError: Boolean)
  extends SubjectFilterTransformBase with WorkspacePerPartition {

  override def prettyName: String = if (failOnError) "subject_filter_transform" else "try_subject_filter_transform"

  // Printed as the function it was written as: the flag is in the name.
  override protected def stringArgs: Iterator[Any] = children.iterator

  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): RandomSubjectFilterTransformExpression =
    copy(subject = c(0), transforms = c(1))
}

@ExpressionDescription(
  usage = """
    _FUNC_(subject, transforms) - Applies the `subject_transforms` list of a NATS stream source or
      mirror to `subject`, as nats-server 2.15 does: the message is taken when `subject` matches one
      of the `src` filters, and renamed by the first entry with a non-empty `dest` whose `src`
      matches (an empty `dest` keeps the subject). Returns NULL when the message is not taken (or
      `subject` is not a literal subject, or an argument is NULL). An empty list takes everything.
      An invalid list (a bad `src` or `dest`, or one `src` inside another, which nats-server rejects
      within one source) is an error, at analysis time when the list is a constant.
  """,
  arguments = """
    Arguments:
      * subject - a literal NATS subject.
      * transforms - ARRAY<STRUCT<src: STRING, dest: STRING>>, in order; `dest` as in
          `subject_transform` ('' = no transformation); a NULL `src`/`dest` is an absent one ('').
  """,
  examples = """
    Examples:
      > SELECT _FUNC_('foo', array(named_struct('src', 'foo', 'dest', 'foo-transformed'), named_struct('src', 'bar', 'dest', '')));
       foo-transformed
      > SELECT _FUNC_('bar', array(named_struct('src', 'foo', 'dest', 'foo-transformed'), named_struct('src', 'bar', 'dest', '')));
       bar
      > SELECT _FUNC_('baz', array(named_struct('src', 'foo', 'dest', 'foo-transformed'), named_struct('src', 'bar', 'dest', '')));
       NULL
      > SELECT _FUNC_('$KV.A.k1', array(named_struct('src', '$KV.A.>', 'dest', '$KV.B.>')));
       $KV.B.k1
  """,
  since = "0.1.0",
  group = "string_funcs")
case class SubjectFilterTransformExpression(subject: Expression, transforms: Expression)
  extends DeterministicSubjectFilterTransform {
  override protected def failOnError: Boolean = true
  override def prettyName: String = "subject_filter_transform"
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): SubjectFilterTransformExpression =
    copy(subject = c(0), transforms = c(1))
}

@ExpressionDescription(
  usage = """
    _FUNC_(subject, transforms) - The same as `subject_filter_transform`, but an invalid list gives
      NULL instead of an error.
  """,
  arguments = """
    Arguments:
      * subject - a literal NATS subject.
      * transforms - ARRAY<STRUCT<src: STRING, dest: STRING>> (see `subject_filter_transform`).
  """,
  examples = """
    Examples:
      > SELECT _FUNC_('a.b', array(named_struct('src', 'a.>', 'dest', ''), named_struct('src', 'a.b', 'dest', 'x')));
       NULL
      > SELECT _FUNC_('a.b', array(named_struct('src', 'a.*', 'dest', 'x.$1')));
       x.b
  """,
  since = "0.1.0",
  group = "string_funcs")
case class TrySubjectFilterTransformExpression(subject: Expression, transforms: Expression)
  extends DeterministicSubjectFilterTransform {
  override protected def failOnError: Boolean = false
  override def prettyName: String = "try_subject_filter_transform"
  override protected def withNewChildrenInternal(c: IndexedSeq[Expression]): TrySubjectFilterTransformExpression =
    copy(subject = c(0), transforms = c(1))
}

/**
 * Compiled lists for a `transforms` argument that comes from a column: the last one used (rows
 * usually repeat it), compared element by element without building anything, then a bounded LRU
 * map keyed by the list's strings. Failures are cached too. One per task, so no locking.
 */
final class TransformListCache(
    srcOrdinal: Int,
    destOrdinal: Int,
    numFields: Int,
    onError: InvalidStreamConfigException => Exception,
    capacity: Int = PlanCache.DefaultCapacity) {
  private final class Entry(val plan: FilterTransforms, val error: Exception)

  // The last list: null src and dest stand for a NULL element, "" for a NULL field.
  private var lastSrc: Array[UTF8String] = _
  private var lastDest: Array[UTF8String] = _
  private var last: Entry = _

  private val lru = new java.util.LinkedHashMap[IndexedSeq[(String, String)], Entry](64, 0.75f, true) {
    override def removeEldestEntry(e: java.util.Map.Entry[IndexedSeq[(String, String)], Entry]): Boolean =
      this.size() > capacity
  }

  def size: Int = lru.size()

  private def field(row: InternalRow, ordinal: Int): UTF8String =
    if (row.isNullAt(ordinal)) UTF8String.EMPTY_UTF8 else row.getUTF8String(ordinal)

  private def sameAsLast(a: ArrayData): Boolean = {
    if (last == null || a.numElements() != lastSrc.length) return false
    var i = 0
    while (i < lastSrc.length) {
      if (a.isNullAt(i)) { if (lastSrc(i) != null) return false }
      else {
        val row = a.getStruct(i, numFields)
        if (lastSrc(i) == null || field(row, srcOrdinal) != lastSrc(i) || field(row, destOrdinal) != lastDest(i)) return false
      }
      i += 1
    }
    true
  }

  /** The compiled list; throws the compile error when `failOnError`, else returns null for it. */
  def get(a: ArrayData, failOnError: Boolean): FilterTransforms = {
    if (!sameAsLast(a)) {
      val key = TransformListCache.pairs(a, (srcOrdinal, destOrdinal, numFields))
      var found = lru.get(key)
      if (found == null) {
        found =
          try new Entry(TransformListCache.compile(key), null)
          catch { case e: InvalidStreamConfigException => new Entry(null, onError(e)) }
        lru.put(key, found)
      }
      lastSrc = key.map(p => if (p == null) null else UTF8String.fromString(p._1)).toArray
      lastDest = key.map(p => if (p == null) null else UTF8String.fromString(p._2)).toArray
      last = found
    }
    if (last.error != null && failOnError) throw last.error
    last.plan
  }
}

object TransformListCache {
  /** The (src, dest) pairs of a list; a NULL element is a null pair, a NULL field an absent one (""). */
  def pairs(a: ArrayData, layout: (Int, Int, Int)): IndexedSeq[(String, String)] = {
    val (s, d, n) = layout
    (0 until a.numElements()).map { i =>
      if (a.isNullAt(i)) null
      else {
        val row = a.getStruct(i, n)
        def get(o: Int) = if (row.isNullAt(o)) "" else row.getUTF8String(o).toString
        (get(s), get(d))
      }
    }
  }

  /** Compiles with nats-server's rules for one source (the stricter mirror rule is the stream API's). */
  def compile(pairs: IndexedSeq[(String, String)]): FilterTransforms = {
    val missing = pairs.indexOf(null)
    if (missing >= 0) throw new InvalidStreamConfigException(s"transforms[$missing]", "is NULL", 0)
    FilterTransforms.compile(pairs, FilterTransforms.SourceRule, "transforms")
  }
}
