package subjxform.config

import subjxform.config.FilterTransforms.orFwc
import subjxform.engine.{GoQuote, InvalidTransformException, JsonWriter, ServerVersion, Subjects, SubjectTransform}

/** A `{src, dest}` object of a stream config (`subject_transform`, `subject_transforms[]`, `republish`). */
final case class TransformConfig(src: String, dest: String)

/** A `sources[]` entry or the `mirror` of a stream config (the fields that decide what is taken). */
final case class SourceConfig(
    name: String,
    filterSubject: String = "",
    subjectTransforms: Seq[TransformConfig] = Nil,
    externalApi: Option[String] = None,
    consumerName: Option[String] = None)

/**
 * The fields of a JetStream stream config (`nats stream info --json`, the stream create request)
 * that decide which messages a stream stores, under which subject, and what it republishes.
 */
final case class StreamConfig(
    name: String,
    subjects: Seq[String] = Nil,
    subjectTransform: Option[TransformConfig] = None,
    sources: Seq[SourceConfig] = Nil,
    mirror: Option[SourceConfig] = None,
    republish: Option[TransformConfig] = None,
    noAck: Boolean = false,
    replicas: Int = 1)

/**
 * Messages taken from stream `name` through the filter list `transforms` (empty: everything). When
 * `inactive` says why, nats-server accepts the config but takes nothing from that stream.
 */
final case class OriginPlan(name: String, field: String, transforms: Seq[TransformConfig],
    inactive: Option[String] = None)

/**
 * What a valid stream does with messages: direct publishes matching `subjects` and the messages
 * taken from each origin are stored under the ingress-transformed subject (unchanged when it does
 * not match), and each stored message whose subject matches the republish source is republished.
 */
final case class StreamPlan(
    subjects: Seq[String],
    ingress: Option[TransformConfig],
    origins: Seq[OriginPlan],
    republish: Option[TransformConfig],
    /**
     * For each field with transforms (`subject_transform`, `mirror`, `sources[i]`, `republish`): the server
     * version whose `subject_filter_transform` / `subject_transform` builds what the stream's line builds: the
     * line itself for what a stream stores, and for a republish see [[StreamConfig.appliedAs]]; None where none
     * does (white space in a literal token: never a valid subject, so nothing is republished). An entry whose
     * source has white space matches nothing ([[StreamConfig.matchesNoSubject]]) and decides no version.
     */
    appliedAs: Map[String, Option[String]] = Map.empty) {

  /** The plan as JSON, for the Python API (which reads it through the `stream_config_plan` SQL function). */
  def toJson: String = {
    def s(v: String) = JsonWriter.quote(v)
    def tr(t: TransformConfig) = s"""{"src":${s(t.src)},"dest":${s(t.dest)}}"""
    def opt(t: Option[TransformConfig]) = t.map(tr).getOrElse("null")
    val os = origins.map(o =>
      s"""{"name":${s(o.name)},"field":${s(o.field)},"subject_transforms":${o.transforms.map(tr).mkString("[", ",", "]")},""" +
        s""""inactive":${o.inactive.map(s).getOrElse("null")}}""")
    s"""{"subjects":${subjects.map(s).mkString("[", ",", "]")},"subject_transform":${opt(ingress)},""" +
      s""""origins":${os.mkString("[", ",", "]")},"republish":${opt(republish)}""" +
      (if (appliedAs.isEmpty) "}"
       else s""","applied_as":${appliedAs.toSeq.sorted.map { case (k, v) =>
           s"${s(k)}:${v.map(s).getOrElse("null")}"
         }.mkString("{", ",", "}")}}""")
  }
}

object StreamConfig {
  private final val InvalidConfig = 10052 // JSStreamInvalidConfigF: nats-server's generic config error
  private final val CreateError = 10049 // JSStreamCreateErrF: errors addStream returns after the checks

  private def fail(field: String, description: String, code: Int): Nothing =
    throw new InvalidStreamConfigException(field, description, code)

  /** nats-server's `isValidAssetName`. */
  def isValidAssetName(name: String): Boolean =
    name != null && name.nonEmpty && !name.exists(c => " \t\r\n\f.*>\\/".indexOf(c) >= 0)

  /**
   * Checks the config as nats-server's `checkStreamCfg` (and `addStream`) do for these fields, in their
   * order, so the first error is the one nats-server gives; then applies its defaults: a stream with no
   * subjects, sources or mirror listens on its name; an empty republish source is `>`; a `>` -> `>`
   * republish of a stream whose only subject is the ingress transform's source republishes the
   * transformed subjects; an empty republish or ingress destination does nothing, and so does a republish or
   * 2.10 ingress source with white space, which nats-server accepts there ([[matchesNoSubject]]).
   *
   * @throws InvalidStreamConfigException naming the field, with nats-server's error
   */
  def plan(cfg: StreamConfig): StreamPlan = plan(cfg, ServerVersion.Newest)

  /** [[plan]] with the transforms checked as the given nats-server line checks them. */
  def plan(cfg: StreamConfig, version: ServerVersion): StreamPlan = {
    if (!isValidAssetName(cfg.name)) {
      fail("name", "stream name is required and can not contain '.', '*', '>', '\\', '/'", InvalidConfig)
    }
    if (cfg.name.length > 255) fail("name", "stream name is too long, maximum allowed is 255", InvalidConfig)
    val replicas = if (cfg.replicas == 0) 1 else cfg.replicas

    val mirrorOrigin = cfg.mirror.map { m =>
      if (cfg.subjects.nonEmpty) fail("subjects", "stream mirrors can not contain subjects", 10034)
      if (cfg.sources.nonEmpty) fail("sources", "stream mirrors can not also contain other sources", 10031)
      if (m.consumerName.isDefined && m.filterSubject.nonEmpty) {
        fail("mirror.consumer", "stream mirror consumer config is invalid", 10213)
      }
      if (m.filterSubject.nonEmpty && m.subjectTransforms.nonEmpty) {
        fail("mirror.filter_subject, mirror.subject_transforms",
          "mirror with multiple subject transforms cannot also have a single subject filter", 10150)
      }
      FilterTransforms.check(transformPairs(m), FilterTransforms.MirrorRule, "mirror.subject_transforms", version)
      if (m.externalApi.isEmpty && !isValidAssetName(m.name)) {
        fail("mirror.name", "mirrored stream name is invalid", 10142)
      }
      origin(m, "mirror", version)
    }

    val seen = scala.collection.mutable.HashMap.empty[String, Int]
    val sourceOrigins = cfg.sources.zipWithIndex.map { case (src, i) =>
      val field = s"sources[$i]"
      if (src == null || !isValidAssetName(src.name)) fail(s"$field.name", "sourced stream name is invalid", 10141)
      seen.put(indexName(src), i).foreach { first =>
        fail(s"sources[$first], $field", "duplicate source configuration detected", 10140)
      }
      if (src.filterSubject.nonEmpty && src.subjectTransforms.nonEmpty) {
        fail(s"$field.filter_subject, $field.subject_transforms",
          "source with multiple subject transforms cannot also have a single subject filter", 10144)
      }
      FilterTransforms.check(transformPairs(src), FilterTransforms.SourceRule, s"$field.subject_transforms", version)
      if (src.consumerName.isDefined && src.filterSubject.nonEmpty) {
        fail(s"$field.consumer", "stream source consumer config is invalid", 10215)
      }
      origin(src, field, version)
    }

    checkSelfCycle(cfg)

    val subjects =
      if (cfg.subjects.isEmpty) { if (cfg.mirror.isEmpty && cfg.sources.isEmpty) Seq(cfg.name) else Nil }
      else checkSubjects(cfg.subjects, cfg.noAck, replicas)

    // nats-server builds no transform for an empty destination.
    val ingress = cfg.subjectTransform.filter(_.dest.nonEmpty)

    // checkStreamCfg's check of the ingress transform (2.11 on).
    def checkIngress(): Unit = for (t <- cfg.subjectTransform) {
      if (t.src.nonEmpty && !Subjects.isValidSubject(t.src)) {
        fail("subject_transform.src", s"stream transform source: invalid subject ${t.src}", 10155)
      }
      if (t.dest.nonEmpty) {
        try SubjectTransform.compile(orFwc(t.src), t.dest, false, version)
        catch {
          case e: InvalidTransformException => fail("subject_transform", s"stream transform: ${e.reason}", 10156)
        }
      }
    }

    def checkRepublish(): Option[TransformConfig] = cfg.republish.flatMap { rp =>
      var src = if (rp.src.isEmpty) ">" else rp.src
      var dest = rp.dest
      // The implicit republish: everything, under the subject the ingress transform gives.
      if (version.implicitRepublish && dest == ">" && src == ">" && cfg.subjectTransform.isDefined &&
        subjects.length == 1 && cfg.subjectTransform.get.src == subjects.head) {
        src = cfg.subjectTransform.get.dest
        dest = src
      }
      if (subjects.exists(Subjects.collide(dest, _))) {
        fail("republish.dest", "stream configuration for republish destination forms a cycle", InvalidConfig)
      }
      if (dest.isEmpty) None // nats-server creates the stream, but builds no republish transform: nothing is republished
      else {
        // nats-server (every line) checks a republish only as a transform: white space in a literal passes, and
        // so does a function the line's parser reads though its mapping checks do not know it (2.10-2.14: left).
        try SubjectTransform.compileTransformOnly(src, dest, version)
        catch {
          case _: InvalidTransformException =>
            fail("republish", s"stream configuration for republish with transform from '$src' to '$dest' not valid",
              InvalidConfig)
        }
        Some(TransformConfig(src, dest))
      }
    }

    // From nats-server PR #7515 on, the ingress transform is checked before the republish; before, after it;
    // 2.10 checks it only when it builds it, below.
    val republish =
      if (!version.streamTransformsCheckedAsMappings) checkRepublish()
      else if (version.implicitRepublish) { checkIngress(); checkRepublish() }
      else { val r = checkRepublish(); checkIngress(); r }

    // addStream, after the checks: a plain filter must be a valid subject; the transforms are built (on 2.10 the
    // first time: its errors come after every other one).
    for (m <- cfg.mirror) {
      if (m.subjectTransforms.nonEmpty) {
        FilterTransforms.compile(transformPairs(m), FilterTransforms.MirrorRule, "mirror.subject_transforms", version)
      } else if (m.filterSubject.nonEmpty && !Subjects.isValidSubject(m.filterSubject)) {
        fail("mirror.filter_subject", s"subject filter '${m.filterSubject}' for the mirror invalid subject", CreateError)
      }
    }
    for ((s, i) <- cfg.sources.zipWithIndex) {
      if (s.subjectTransforms.nonEmpty) {
        FilterTransforms.compile(transformPairs(s), FilterTransforms.SourceRule, s"sources[$i].subject_transforms",
          version)
      } else if (s.filterSubject.nonEmpty && !Subjects.isValidSubject(s.filterSubject)) {
        fail(s"sources[$i].filter_subject", s"subject filter '${s.filterSubject}' for the source: invalid subject",
          CreateError)
      }
    }
    if (!version.streamTransformsCheckedAsMappings) for (t <- ingress) {
      try SubjectTransform.compileTransformOnly(orFwc(t.src), t.dest, version)
      catch {
        case e: InvalidTransformException =>
          fail("subject_transform", s"stream subject transform from '${t.src}' to '${t.dest}': ${e.reason}", CreateError)
      }
    }

    val origins = mirrorOrigin.toSeq ++ sourceOrigins
    // The ingress, source and mirror transforms are applied by `subject_filter_transform`, which builds a list as
    // the line's stream builds it (2.10: as transforms alone, white space in a literal token and left/right
    // included): the line itself. A republish is applied by `subject_transform`, which makes the mapping checks.
    val stored = (ingress.map(_ => "subject_transform") ++ origins.map(_.field)).map(_ -> Some(version.name))
    val republished = republish.map(t => "republish" -> appliedAs(Seq((t.src, t.dest)), version))
    StreamPlan(subjects, ingress, origins, republish, (stored ++ republished).toMap)
  }

  /**
   * The server version whose `subject_transform` (which makes the mapping checks) builds the (src, dest) entries of
   * an accepted republish as `version`'s server builds them (it checks a republish only as a transform): `version`
   * itself when its mapping checks accept them; else the newest line when it builds them alike (a function the
   * parser reads that the line's list does not know, e.g. left on 2.10-2.14); else none (white space in a literal
   * token: never a valid subject, so nothing is republished).
   */
  private def appliedAs(pairs: Seq[(String, String)], version: ServerVersion): Option[String] = {
    // A source with white space (a republish's, 2.10's ingress transform's: checked only as a transform's source)
    // matches none of the subjects subjxform builds: that entry renames nothing and decides no version.
    val built = pairs.filter(p => p._2.nonEmpty && !matchesNoSubject(p._1)).map { case (src, dest) =>
      (src, dest, SubjectTransform.compileTransformOnly(src, dest, version))
    }
    def builtAlike(v: ServerVersion) = built.forall { case (src, dest, t) =>
      try SubjectTransform.compile(src, dest, false, v).tokensBuiltOtherwiseThan(t).isEmpty
      catch { case _: InvalidTransformException => false }
    }
    if (builtAlike(version)) Some(version.name)
    else if (builtAlike(ServerVersion.Newest)) Some(ServerVersion.Newest.name)
    else None
  }

  /**
   * What the plan's republish does with the subjects it builds when they have white space (a literal token
   * with it): `version` suppresses them (nats-server PR #8127: nothing is republished), or sends them as
   * built, a hazard (white space breaks a subscriber's protocol line, CR LF injects one into its stream).
   * `stream_messages` gives no republished subject for them either way. (A subject with an empty token,
   * which `split` can build, is suppressed too from PR #8127 on; before, no subscriber receives it.)
   */
  def invalidRepublish(plan: StreamPlan, version: ServerVersion): Option[String] =
    plan.republish.filter(rp =>
      !matchesNoSubject(rp.src) && SubjectTransform.compileTransformOnly(rp.src, rp.dest, version).buildsWhiteSpace)
      .map { rp =>
        val what =
          s"republish ${GoQuote(rp.src)} -> ${GoQuote(rp.dest)} builds subjects with white space, not valid subjects"
        if (version.suppressesInvalidRepublish)
          s"$what: nats-server $version suppresses such a message (not republished)"
        else
          s"$what: nats-server $version sends such a message as built, a hazard (white space breaks a subscriber's " +
            "protocol line, CR LF injects one into its stream); 2.14.1 and later suppress it"
      }

  /**
   * Whether a transform's source has white space in a token: nats-server accepts it where it checks the source
   * only as a transform's (a republish on every line, 2.10's ingress transform), and it matches no valid subject,
   * so nothing is renamed or republished through it.
   */
  def matchesNoSubject(src: String): Boolean = src.exists(Subjects.isNatsSpace)

  /**
   * nats-server's source cycle check, for the one stream a config names: a stream that mirrors itself,
   * or sources itself with no `filter_subject` (`subject_transforms` leave it empty) or one that
   * collides with one of its own `subjects` as written (a stream without subjects has none yet). Cycles
   * through other streams need their configs, which a single config does not have.
   */
  private def checkSelfCycle(cfg: StreamConfig): Unit = {
    for ((src, i) <- cfg.sources.zipWithIndex if src.externalApi.isEmpty && src.name == cfg.name) {
      if (src.filterSubject.isEmpty || cfg.subjects.exists(s => s != null && Subjects.collide(s, src.filterSubject))) {
        fail(s"sources[$i]", "detected cycle", InvalidConfig)
      }
    }
    for (m <- cfg.mirror if m.externalApi.isEmpty && m.name == cfg.name) fail("mirror", "detected cycle", InvalidConfig)
  }

  /** The `subject_transforms` checked first; a single `filter_subject` is checked later, as nats-server does. */
  private def transformPairs(s: SourceConfig): Seq[(String, String)] = s.subjectTransforms.map(t => (t.src, t.dest))

  /** The filter list a source or mirror applies: its transforms, or its one filter, or none (everything). */
  private def pairs(s: SourceConfig): Seq[(String, String)] =
    if (s.subjectTransforms.nonEmpty) s.subjectTransforms.map(t => (t.src, t.dest))
    else if (s.filterSubject.nonEmpty) Seq((s.filterSubject, ""))
    else Nil

  private def origin(s: SourceConfig, field: String, version: ServerVersion) = {
    // The source/mirror consumer filters on the transforms' sources: nats-server rejects an empty one
    // when building that consumer, after accepting the config, except a mirror's only one (no filter);
    // before 2.12.5, also two that collide (the config check only refuses nested ones).
    val emptySource = s.subjectTransforms.exists(_.src.isEmpty) && (field != "mirror" || s.subjectTransforms.length > 1)
    val srcs = s.subjectTransforms.map(_.src).filter(_.nonEmpty)
    val colliding = !version.consumerFiltersMayCollide &&
      srcs.indices.exists(i => srcs.indices.exists(j => i < j && Subjects.collide(srcs(i), srcs(j))))
    val inactive =
      if (emptySource) Some(s"$field.subject_transforms: an empty src makes nats-server's consumer for it fail " +
        "(consumer filter in FilterSubjects cannot be empty, 10139): nothing is taken from " + s.name)
      else if (colliding)
        Some(s"$field.subject_transforms: filters that overlap make nats-server $version's consumer " +
          "for it fail (consumer subject filters cannot overlap, 10138; 2.12.5 and later take them): nothing is taken from " + s.name)
      else None
    OriginPlan(s.name, field, pairs(s).map { case (a, b) => TransformConfig(a, b) }, inactive)
  }

  /** nats-server's `composeIName`: two sources with the same one are duplicates. */
  private def indexName(s: SourceConfig): String = {
    val base = s.name + s.externalApi.map(":" + _).getOrElse("") + s.consumerName.map(":C=" + _).getOrElse("")
    val (src, dest) =
      if (s.subjectTransforms.isEmpty) (if (s.filterSubject.isEmpty) ">" else s.filterSubject, ">")
      else {
        (s.subjectTransforms.map(t => orFwc(t.src)).mkString("\f"),
          s.subjectTransforms.map(t => orFwc(t.dest)).mkString("\f"))
      }
    Seq(base, src, dest).mkString(" ")
  }

  private def checkSubjects(subjects: Seq[String], noAck: Boolean, replicas: Int): Seq[String] = {
    val seen = scala.collection.mutable.HashSet.empty[String]
    for ((subj, i) <- subjects.zipWithIndex) {
      val field = s"subjects[$i]"
      if (subj == null || !Subjects.isValidSubject(subj)) fail(field, "invalid subject", InvalidConfig)
      if (seen.contains(subj)) fail(field, "duplicate subjects detected", InvalidConfig)
      if (subj == ">") {
        if (!noAck) fail(field, "capturing all subjects requires no-ack to be true", InvalidConfig)
        if (replicas != 1) fail(field, "capturing all subjects requires replicas of 1", InvalidConfig)
      }
      if (!noAck) {
        if (Seq("$JS.>", "$JSC.>", "$NRG.>").exists(Subjects.collide(subj, _)) && !Subjects.isSubsetMatch(subj,
            "$JS.EVENT.>")) {
          fail(field, "subjects that overlap with jetstream api require no-ack to be true", InvalidConfig)
        }
        if (Subjects.collide(subj, "$SYS.>") && !Subjects.isSubsetMatch(subj, "$SYS.ACCOUNT.>")) {
          fail(field, "subjects that overlap with system api require no-ack to be true", InvalidConfig)
        }
      }
      for (later <- subjects.drop(i + 1) if later != null && Subjects.collide(later, subj)) {
        fail(field, s"subject ${GoQuote(subj)} overlaps with ${GoQuote(later)}", InvalidConfig)
      }
      seen += subj
    }
    subjects
  }
}
