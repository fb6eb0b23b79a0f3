addSbtPlugin("pl.project13.scala" % "sbt-jmh" % "0.4.8")

// The build's own code (project/Shading.scala) relocates the NATS client's classes inside each line's jar.
libraryDependencies += "org.ow2.asm" % "asm-commons" % "9.9"
