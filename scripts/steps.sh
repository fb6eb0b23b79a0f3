# Sourced by the set-up and test scripts: steps that print how long they took, and lanes that run side by
# side. On two cores a step that waits (a download, a JVM starting, a single-threaded Spark analysis, a
# server answering) leaves a core idle: two lanes fill it.
#   timed LABEL CMD...        run CMD; print "time: LABEL: N s" and append it to target/test-times.txt.
#                             A failure is printed at once; with SUBJXFORM_KEEP_GOING=1 it is recorded in
#                             target/test-failed.txt and the next steps still run (one run shows every
#                             failure: failed_steps ends the run), else the script stops there.
#   lane NAME CMD...          run CMD in the background, each output line prefixed "[NAME] ", also kept
#                             in target/logs/NAME.log
#   wait_lanes NAME...        wait for those lanes; if one failed, say which (its log's last lines) and exit 1
#   failed_steps              exit 1, listing them, if a step failed

mkdir -p "$ROOT/target/logs"

timed() {
  local label="$1" start=$SECONDS status=0 errexit=0
  shift
  # In a subshell with errexit on, outside any `||`: there a function's first failing command ends it (after
  # `||`, bash would ignore errexit inside the function and go on).
  [[ $- == *e* ]] && errexit=1
  set +e
  (set -e; "$@")
  status=$?
  [[ $errexit == 1 ]] && set -e
  if [[ $status -eq 0 ]]; then
    echo "time: $label: $((SECONDS - start)) s" | tee -a "$ROOT/target/test-times.txt"
    return 0
  fi
  echo "time: $label: $((SECONDS - start)) s: FAILED (exit $status)" | tee -a "$ROOT/target/test-times.txt"
  echo "$label" >>"$ROOT/target/test-failed.txt"
  [[ "${SUBJXFORM_KEEP_GOING:-}" == 1 ]] || return "$status"
}

declare -A LANE_PIDS=()
lane() {
  local name="$1"
  shift
  # pipefail inside the lane: its status is the command's, not sed's
  ( set -o pipefail; "$@" 2>&1 | tee "$ROOT/target/logs/$name.log" | sed -u "s/^/[$name] /" ) &
  LANE_PIDS[$name]=$!
}

wait_lanes() {
  local failed=() name
  for name in "$@"; do
    wait "${LANE_PIDS[$name]}" || failed+=("$name")
  done
  if [[ ${#failed[@]} -gt 0 ]]; then
    for name in "${failed[@]}"; do
      echo "FAILED: lane $name (its whole output: target/logs/$name.log); its last lines:" >&2
      tail -n 40 "$ROOT/target/logs/$name.log" | sed "s/^/[$name] /" >&2
    done
    exit 1
  fi
}

failed_steps() {
  [[ -s "$ROOT/target/test-failed.txt" ]] || return 0
  echo "FAILED steps (their output is above, and in target/logs/):" >&2
  sed 's/^/  /' "$ROOT/target/test-failed.txt" >&2
  exit 1
}
