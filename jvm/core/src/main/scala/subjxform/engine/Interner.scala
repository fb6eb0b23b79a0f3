package subjxform.engine

import scala.collection.mutable

/**
 * One copy of each equal piece while a table is compiled: a table's rules repeat the same literal tokens
 * (`orders`, `central`), the same operation arrays and the same source filters (a rule's and each of its
 * destinations'), so sharing them keeps a compiled table's footprint proportional to what is different
 * in its text. Compile time only; the pieces are immutable once built.
 */
private[subjxform] final class Interner {
  private val byteArrays = mutable.HashMap.empty[java.nio.ByteBuffer, Array[Byte]]
  private val intArrays = mutable.HashMap.empty[java.nio.IntBuffer, Array[Int]]
  private val refArrays = mutable.HashMap.empty[(Class[_], java.util.List[AnyRef]), Array[AnyRef]]
  private val filters = mutable.HashMap.empty[(String, Boolean), SubjectFilter]

  def bytes(b: Array[Byte]): Array[Byte] =
    if (b == null) null else byteArrays.getOrElseUpdate(java.nio.ByteBuffer.wrap(b), b)

  def ints(a: Array[Int]): Array[Int] =
    if (a == null) null else intArrays.getOrElseUpdate(java.nio.IntBuffer.wrap(a), a)

  /** An array of already interned elements (compared by identity, which is equality once interned) of one type. */
  def refs[T <: AnyRef](a: Array[T]): Array[T] =
    refArrays.getOrElseUpdate((a.getClass, java.util.Arrays.asList(a.asInstanceOf[Array[AnyRef]]: _*)),
      a.asInstanceOf[Array[AnyRef]])
      .asInstanceOf[Array[T]]

  def filter(source: String, sourceQuirk: Boolean): SubjectFilter =
    filters.getOrElseUpdate((source, sourceQuirk), SubjectFilter.compile(source, sourceQuirk, this))
}
