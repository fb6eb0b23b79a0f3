package subjxform.spark.nats

/** Java collections to and from Scala's, the same source on Scala 2.12 and 2.13 (whose converters differ). */
private[nats] object JavaCollections {
  def toJava[A](xs: Seq[A]): java.util.List[A] = {
    val list = new java.util.ArrayList[A](xs.size)
    xs.foreach(list.add)
    list
  }

  def toScala[A](xs: java.util.Collection[A]): Seq[A] = {
    val out = Vector.newBuilder[A]
    val it = xs.iterator()
    while (it.hasNext) out += it.next()
    out.result()
  }

  def toScala[K, V](m: java.util.Map[K, V]): Map[K, V] = toScala(m.entrySet()).map(e => e.getKey -> e.getValue).toMap
}
