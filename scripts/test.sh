#!/usr/bin/env bash
# THE test command (README, .ci/run): installs what is missing, builds, and runs every test.
#
#   scripts/test.sh                 everything, in this order: setup; native (ci preset: release,
#                                   -Werror); wasm (preset wasm-ci: -Werror, tests under node);
#                                   browser end-to-end (headless Chromium, needs both builds);
#                                   dev (the whole native suite again
#                                   under ASan+UBSan); fuzz (libFuzzer, FLOCKSTEP_FUZZ_SECONDS per
#                                   target, default 60); container (docker-compose, skips only
#                                   itself, loudly, where no Docker daemon can run)
#   scripts/test.sh native [ARGS]   setup + native only; ARGS go to ctest (e.g. -R Arrive)
#   scripts/test.sh wasm [ARGS]     setup + wasm only
#   scripts/test.sh dev [ARGS]      setup + Debug with ASan/UBSan only (preset sanitize)
#   scripts/test.sh quick           native + wasm + browser (the inner loop: about a third of the time)
#
# Prints one line per step and ends with `N passed, N failed` summed over every ctest run (a
# stage that fails before its tests run counts as one failure). Exits non-zero on any failure,
# but still runs the other stage first so one run shows everything that is broken.
#
# Environment: FLOCKSTEP_CACHE (default $HOME/.cache/flockstep: ccache, wasm protobuf),
# FLOCKSTEP_JOBS (default 2), FLOCKSTEP_SKIP_SETUP=1 (skip scripts/setup.sh).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 1
say() { printf 'test: %s\n' "$*"; }

MODE="${1:-all}"
[[ $# -gt 0 ]] && shift
CTEST_ARGS=("$@")
case "$MODE" in
  all|full) STAGES=(native wasm dev fuzz docker) ;;
  quick) STAGES=(native wasm) ;;
  native) STAGES=(native) ;;
  wasm) STAGES=(wasm) ;;
  dev) STAGES=(dev) ;;
  -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
  *) printf 'test: ERROR: unknown mode "%s" (use: all, quick, native, wasm, dev)\n' "$MODE" >&2; exit 2 ;;
esac

if [[ -z "${FLOCKSTEP_CACHE:-}" ]]; then
  if [[ -n "${HOME:-}" ]]; then FLOCKSTEP_CACHE="$HOME/.cache/flockstep"; else FLOCKSTEP_CACHE="$ROOT/.cache/flockstep"; fi
fi
export FLOCKSTEP_CACHE
JOBS="${FLOCKSTEP_JOBS:-2}"
export CMAKE_BUILD_PARALLEL_LEVEL="$JOBS"
export CCACHE_DIR="${CCACHE_DIR:-$FLOCKSTEP_CACHE/ccache}" CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-3G}"
# Paths relative to the checkout in ccache's hashes, so a fresh clone elsewhere (CI) reuses them.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$ROOT}"
# With -g (release and dev builds) ccache also hashes the working directory, which differs in every
# fresh clone: a CI run started from a clone got 0 hits of 135. Not hashing it lets clones share the
# cache; the price is that a cached object's debug info may name another clone's build directory.
export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
# emcc's JS optimizer needs Debian's acorn, which NodeSource's node does not find by itself.
export NODE_PATH="/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}"
LOGS="$ROOT/build/test-logs"
mkdir -p "$LOGS"

PASSED=0
FAILED=0
SKIPPED=0
FAILED_STEPS=()
T0=$SECONDS

# run_step NAME LOG CMD...: runs CMD with its output in LOG (and the tail on failure).
run_step() {
  local name="$1" log="$2" t=$SECONDS
  shift 2
  say "$name ..."
  if "$@" >"$log" 2>&1; then
    say "$name: ok ($((SECONDS - t)) s)"
    return 0
  fi
  printf '%s\n' "----- last 60 lines of $log -----" >&2
  tail -n 60 "$log" >&2
  printf '%s\n' "-----" >&2
  say "FAILED: $name ($((SECONDS - t)) s, full log: $log)"
  FAILED_STEPS+=("$name")
  return 1
}

# run_ctest NAME PRESET [EXTRA...]: runs ctest with its output shown, and adds its counts to the
# totals.
run_ctest() {
  local name="$1" preset="$2" log="$LOGS/$1-ctest.log" t=$SECONDS rc line failed total
  shift 2
  say "$name: ctest --preset $preset $* ..."
  ctest --preset "$preset" -j"$JOBS" "$@" "${CTEST_ARGS[@]}" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  line="$(grep -E '[0-9]+ tests? failed out of [0-9]+' "$log" | tail -1)"
  if [[ -n "$line" ]]; then
    failed="$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/' <<<"$line")"
    total="$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\2/' <<<"$line")"
    # A test that exits with its SKIP_RETURN_CODE (docker_compose without a daemon) is neither.
    skipped="$(grep -cE '^[[:space:]]*[0-9]+ - .* \(Skipped\)$' "$log")"
    PASSED=$((PASSED + total - failed - skipped))
    FAILED=$((FAILED + failed))
    SKIPPED=$((SKIPPED + skipped))
  elif grep -q 'No tests were found' "$log"; then
    say "$name: WARNING: ctest found no tests"
  else
    FAILED=$((FAILED + 1))   # ctest itself broke: count it so the summary cannot read as green
  fi
  if [[ $rc -ne 0 ]]; then
    say "FAILED: $name tests ($((SECONDS - t)) s, log: $log)"
    FAILED_STEPS+=("$name tests")
    return 1
  fi
  say "$name tests: ok ($((SECONDS - t)) s)"
}

# stage NAME PRESET [EXTRA...]: configure + build + ctest one preset.
stage() {
  local name="$1" preset="$2"
  shift 2
  if ! run_step "$name: configure (preset $preset)" "$LOGS/$preset-configure.log" \
         cmake --preset "$preset" \
     || ! run_step "$name: build (preset $preset, -j$JOBS)" "$LOGS/$preset-build.log" \
         cmake --build --preset "$preset" -j"$JOBS"; then
    FAILED=$((FAILED + 1))
    return 1
  fi
  run_ctest "$name" "$preset" "$@"
}

if [[ "${FLOCKSTEP_SKIP_SETUP:-0}" == 1 ]]; then
  say "setup: skipped (FLOCKSTEP_SKIP_SETUP=1)"
else
  say "setup: scripts/setup.sh ..."
  t=$SECONDS
  if ! "$ROOT/scripts/setup.sh"; then
    say "FAILED: scripts/setup.sh: cannot install the toolchain, so nothing was built or tested"
    echo "0 passed, 1 failed"
    exit 1
  fi
  say "setup: ok ($((SECONDS - t)) s)"
fi
command -v ccache >/dev/null && ccache -z >/dev/null 2>&1

has() { [[ " ${STAGES[*]} " == *" $1 "* ]]; }
has native && stage native ci -LE 'e2e|docker'
has wasm && stage wasm wasm-ci

# The browser tests need the native server and the wasm viewer, so they run once both are built.
if has native && has wasm; then
  if [[ -f build/wasm/client/web/viewer.wasm && -x build/release/server/flockstep-server ]]; then
    run_ctest e2e ci -L e2e
  else
    say "FAILED: e2e: the server or the viewer did not build, so the browser tests cannot run"
    FAILED=$((FAILED + 1))
    FAILED_STEPS+=("e2e")
  fi
fi
# The whole native suite again under AddressSanitizer + UndefinedBehaviorSanitizer: the
# `sanitize` preset is `dev` with unity product libraries, flockstep_shared at -O1 (the simulation
# tests run three times faster under ASan) and no benchmarks (nothing runs them
# here), about half the compiler time of `dev`. Each source alone is still compiled: by the
# developers' `dev` preset and by the fuzz stage's build of the product libraries.
has dev && stage dev sanitize -LE 'e2e|docker'
# libFuzzer on the codec and the WebSocket message path, seeded from tests/fuzz/corpus.
if has fuzz; then
  if run_step "fuzz: scripts/fuzz.sh ${FLOCKSTEP_FUZZ_SECONDS:-60}" "$LOGS/fuzz.log" \
       "$ROOT/scripts/fuzz.sh" "${FLOCKSTEP_FUZZ_SECONDS:-60}"; then
    grep -E '^fuzz: ' "$LOGS/fuzz.log" | tail -4
    PASSED=$((PASSED + 1))
  else
    FAILED=$((FAILED + 1))
  fi
fi
# The container: builds the image, runs docker-compose.yml and plays it with the bot.
# Minutes; it starts dockerd itself and skips only itself, loudly, where no daemon can run.
has docker && has native && run_ctest docker ci -L docker

if command -v ccache >/dev/null && [[ " ${STAGES[*]} " != " wasm " ]]; then
  say "ccache: $(ccache -s 2>/dev/null | grep -iE '^ *hits:|^cache hit \(rate\)' | head -1 | tr -s ' ')"
fi
if ((${#FAILED_STEPS[@]} > 0)); then
  say "FAILED steps: $(IFS=';'; echo "${FAILED_STEPS[*]}")"
  say "total $((SECONDS - T0)) s"
  echo "$PASSED passed, $FAILED failed"
  exit 1
fi
say "all green: ${STAGES[*]} (total $((SECONDS - T0)) s)"
((SKIPPED > 0)) && say "$SKIPPED skipped (see the SKIPPED lines above)"
echo "$PASSED passed, $FAILED failed"
