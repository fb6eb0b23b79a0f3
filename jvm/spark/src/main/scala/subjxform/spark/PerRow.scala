package subjxform.spark

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.unsafe.Platform
import org.apache.spark.unsafe.types.UTF8String

import subjxform.config.{ConsumerGroup, FilterTransforms, MappingExplanation, MappingTable}
import subjxform.engine.{SubjectFilter, SubjectTooLongException, SubjectTransform, Workspace}

/**
 * What generated code calls per row: a few lines each that hand a `UTF8String`'s bytes to the compiled
 * engine without copying them (a string on the heap is a window on a byte array; only an off-heap
 * one is copied, once). The engine's per-row entries report a result longer than a subject may be as
 * `Workspace.TooLong`, and `shell` (the calling expression) says what that is for the row: its error,
 * or NULL in a `try_` form. No exception handler here or in the generated code: one in the row loop
 * cost every row ~30 ns (bench/guard.py), thrown or not.
 */
object PerRow {

  /** This object's name in generated code. */
  val name: String = getClass.getName.stripSuffix("$")

  /** The bytes `s` is a window on, or a copy of them when `s` is off the heap. */
  private def bytesOf(s: UTF8String): Array[Byte] = s.getBaseObject match {
    case bytes: Array[Byte] => bytes
    case _ => s.getBytes
  }

  /** Where `s` starts in `bytesOf(s)`. */
  private def offsetIn(bytes: Array[Byte], s: UTF8String): Int =
    if (bytes eq s.getBaseObject) (s.getBaseOffset - Platform.BYTE_ARRAY_OFFSET).toInt else 0

  private def result(out: Array[Byte], ws: Workspace, shell: PlanExpression[_]): UTF8String =
    if (out == null) null
    else if (out eq Workspace.TooLong) shell.tooLong(ws.tooLong).asInstanceOf[UTF8String]
    else UTF8String.fromBytes(out)

  // `keyed` (a constant in generated code): draw as a pure function of (seed, key, what is drawn) (core
  // KeyedDraw), else from the workspace.

  def transform(tr: SubjectTransform, ws: Workspace, subject: UTF8String, keyed: Boolean, seed: Long, key: Long,
      shell: PlanExpression[_]): UTF8String = {
    val bytes = bytesOf(subject)
    result(tr.run(bytes, offsetIn(bytes, subject), subject.numBytes, ws, keyed, seed, key), ws, shell)
  }

  def filterTransform(ft: FilterTransforms, ws: Workspace, subject: UTF8String, keyed: Boolean, seed: Long, key: Long,
      shell: PlanExpression[_]): UTF8String = {
    val bytes = bytesOf(subject)
    result(ft.take(bytes, offsetIn(bytes, subject), subject.numBytes, ws, keyed, seed, key), ws, shell)
  }

  /** The message's partition in the group, or -1 when the group does not take it. */
  def groupPartition(group: ConsumerGroup, ws: Workspace, subject: UTF8String): Int = {
    val bytes = bytesOf(subject)
    group.partition(bytes, offsetIn(bytes, subject), subject.numBytes, ws)
  }

  /** The member that gets the message, or null. */
  def groupMember(group: ConsumerGroup, ws: Workspace, subject: UTF8String): UTF8String = {
    val member = group.memberBytes(groupPartition(group, ws, subject))
    if (member == null) null else UTF8String.fromBytes(member)
  }

  def matches(filter: SubjectFilter, ws: Workspace, subject: UTF8String): Boolean = {
    val bytes = bytesOf(subject)
    filter.matches(bytes, offsetIn(bytes, subject), subject.numBytes, ws)
  }

  /** `cluster` may be NULL (no cluster); a table that leaves the subject unchanged returns it as it is. */
  def map(table: MappingTable, ws: Workspace, subject: UTF8String, cluster: UTF8String,
      keyed: Boolean, seed: Long, key: Long, shell: PlanExpression[_]): UTF8String = {
    val in = bytesOf(subject)
    val off = offsetIn(in, subject)
    val c = if (cluster == null) null else bytesOf(cluster)
    val cOff = if (c == null) 0 else offsetIn(c, cluster)
    val cLen = if (c == null) 0 else cluster.numBytes
    val out = table.map(in, off, subject.numBytes, c, cOff, cLen, ws, keyed, seed, key)
    if (out eq MappingTable.Unchanged) subject else result(out, ws, shell)
  }

  private val Literal = UTF8String.fromString("literal")
  private val Wildcard = UTF8String.fromString("wildcard")
  private val Outcomes = MappingExplanation.OutcomeNames.map(UTF8String.fromString)

  /** [[map]]'s decision as subject_map_explain's struct (SubjectMapExplainFunction.Type); NULL as map's. */
  def explainMap(table: MappingTable, ws: Workspace, subject: UTF8String, cluster: UTF8String,
      keyed: Boolean, seed: Long, key: Long, shell: PlanExpression[_]): InternalRow = {
    val in = bytesOf(subject)
    val c = if (cluster == null) null else bytesOf(cluster)
    // (A handler costs little beside the struct this builds per row.)
    val x =
      try table.explain(in, offsetIn(in, subject), subject.numBytes,
          c, if (c == null) 0 else offsetIn(c, cluster), if (c == null) 0 else cluster.numBytes, ws, keyed, seed, key)
      catch { case e: SubjectTooLongException => return shell.tooLong(e).asInstanceOf[InternalRow] }
    if (x == null) return null
    val out = if (x.result eq MappingTable.Unchanged) subject else UTF8String.fromBytes(x.result)
    if (!x.matched)
      return new GenericInternalRow(Array[Any](null, null, null, null, null, null, null, null, Outcomes(x.outcome), out))
    new GenericInternalRow(Array[Any](
        UTF8String.fromBytes(x.rule.sourceBytes),
        x.ruleNumber,
        if (x.literal) Literal else Wildcard,
        if (x.clusterScope == null) null else UTF8String.fromBytes(x.clusterScope),
        if (x.destinationBytes == null) null else UTF8String.fromBytes(x.destinationBytes),
        if (x.entry < 0) null else x.entry,
        x.weight,
        x.remainder,
        Outcomes(x.outcome),
        out))
  }
}
