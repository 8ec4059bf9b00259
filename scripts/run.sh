#!/usr/bin/env bash
# Builds and starts Flockstep locally: the server (release preset) serving the wasm viewer.
#
#   scripts/run.sh [SERVER ARGS...]     e.g. scripts/run.sh --port 9000
#
# Then open http://localhost:8080/ (or the port you passed). Steps (docs/building.md has the
# measured time of each):
#   1. scripts/setup.sh with FLOCKSTEP_SETUP_PROFILE=run (build and serve packages only: no browser,
#      fuzzing compiler or test servers) and without its npm and wasm-protobuf parts;
#   2. two lanes side by side, each a chain of steps:
#        server: configure the `release` preset (build/release), build target flockstep-server;
#        viewer: scripts/build-protobuf-wasm.sh (cached after the first run), configure the `wasm`
#                preset (build/wasm), build target `viewer` (not the wasm tests or the SDK);
#   3. exec build/release/server/flockstep-server --web-root build/wasm/client/web --port 8080 [ARGS].
# The lanes overlap because neither fills two cores on its own: the server's critical path is a
# few long translation units and its link-time optimisation, the viewer's is the protobuf-wasm
# download and emcc's single-threaded link. Each step prints its time; a summary follows.
# --port/--web-root given on the command line replace the defaults.
# Environment: FLOCKSTEP_SKIP_SETUP=1, FLOCKSTEP_JOBS (compile jobs per lane, default 2),
# FLOCKSTEP_SERIAL=1 (one lane after the other, e.g. to time each alone or on a small-memory
# machine), FLOCKSTEP_CACHE, PORT.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
say() { printf 'run: %s\n' "$*"; }
die() { printf 'run: ERROR: %s\n' "$*" >&2; exit 1; }

if [[ -z "${FLOCKSTEP_CACHE:-}" ]]; then
  if [[ -n "${HOME:-}" ]]; then FLOCKSTEP_CACHE="$HOME/.cache/flockstep"; else FLOCKSTEP_CACHE="$ROOT/.cache/flockstep"; fi
fi
export FLOCKSTEP_CACHE
JOBS="${FLOCKSTEP_JOBS:-2}"
export FLOCKSTEP_JOBS="$JOBS"
export CMAKE_BUILD_PARALLEL_LEVEL="$JOBS"
export CCACHE_DIR="${CCACHE_DIR:-$FLOCKSTEP_CACHE/ccache}"
# As scripts/test.sh: paths relative to the checkout in ccache's hashes, so the objects one of
# the two scripts compiled (here or in another clone) are hits for the other.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$ROOT}"
export NODE_PATH="/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}"

SERVER="$ROOT/build/release/server/flockstep-server"
WEB_ROOT="$ROOT/build/wasm/client/web"
LOGS="$ROOT/build/run-logs"
T0=$SECONDS

step() {  # step NAME CMD...: quiet on success, the log's tail on failure; prints the step's time
  local name="$1" log t=$SECONDS
  log="$LOGS/$(tr ' /' '__' <<<"$1").log"
  shift
  say "$name ..."
  if ! "$@" >"$log" 2>&1; then
    tail -n 60 "$log" >&2
    say "ERROR: $name failed after $((SECONDS - t)) s (full log: $log)" >&2
    return 1
  fi
  say "$name: ok ($((SECONDS - t)) s)"
  printf '%s\t%s\n' "$name" "$((SECONDS - t))" >>"$LOGS/timings.tsv"
}

if [[ "${FLOCKSTEP_SKIP_SETUP:-0}" != 1 ]]; then
  t=$SECONDS
  # npm's packages drive the browser tests only; the wasm protobuf runtime is built in the viewer
  # lane below, where it overlaps the server build instead of delaying both.
  # Profile "run": the browser, fuzzing compiler and test servers are the test command's business.
  FLOCKSTEP_SETUP_PROFILE=run FLOCKSTEP_SKIP_NPM=1 FLOCKSTEP_SKIP_WASM_PROTOBUF=1 "$ROOT/scripts/setup.sh" \
    || die "scripts/setup.sh failed"
  say "setup: ok ($((SECONDS - t)) s)"
fi
mkdir -p "$LOGS"
: >"$LOGS/timings.tsv"

server_lane() {
  # build/release is shared by the release and ci presets (scripts/test.sh builds it with -Werror);
  # configure only when it is new, so switching between the two does not rebuild everything.
  if [[ -f "$ROOT/build/release/CMakeCache.txt" ]]; then
    say "configure release: build/release exists (configured by $(grep -q 'FLOCKSTEP_WERROR:BOOL=ON' "$ROOT/build/release/CMakeCache.txt" && echo 'preset ci' || echo 'preset release'))"
  else
    step "configure release" cmake --preset release || return 1
  fi
  # Build only the server (and what it needs): tests, benchmarks and the bot are not needed to serve.
  cmake --build "$ROOT/build/release" --target help >"$LOGS/release-targets.log" 2>&1 \
    || { tail -n 40 "$LOGS/release-targets.log" >&2; say "ERROR: build/release does not configure (log: $LOGS/release-targets.log)" >&2; return 1; }
  grep -q '^flockstep-server:' "$LOGS/release-targets.log" \
    || { say "ERROR: the build has no target 'flockstep-server' (server/CMakeLists.txt does not define it yet)" >&2; return 1; }
  step "build server" cmake --build "$ROOT/build/release" -j"$JOBS" --target flockstep-server || return 1
  [[ -x "$SERVER" ]] || { say "ERROR: build finished but $SERVER does not exist (expected the server target's output there)" >&2; return 1; }
}

viewer_lane() {
  # Cached per machine: a few milliseconds once built (scripts/build-protobuf-wasm.sh).
  step "protobuf-wasm" "$ROOT/scripts/build-protobuf-wasm.sh" || return 1
  if [[ -f "$ROOT/build/wasm/CMakeCache.txt" ]]; then
    say "configure wasm: build/wasm exists"
  else
    step "configure wasm" cmake --preset wasm || return 1
  fi
  # Target `viewer` (its dependency viewer_web copies the page's static files): the wasm tests and
  # the SDK in the same build are scripts/test.sh's business.
  step "build wasm viewer" cmake --build "$ROOT/build/wasm" -j"$JOBS" --target viewer || return 1
  [[ -f "$WEB_ROOT/viewer.wasm" ]] || { say "ERROR: wasm build finished but $WEB_ROOT/viewer.wasm does not exist (the viewer's web root)" >&2; return 1; }
  [[ -f "$WEB_ROOT/index.html" ]] || say "warning: $WEB_ROOT/index.html is missing"
}

t=$SECONDS
if [[ "${FLOCKSTEP_SERIAL:-0}" == 1 ]]; then
  server_lane || die "the server build failed (logs: $LOGS)"
  viewer_lane || die "the viewer build failed (logs: $LOGS)"
else
  server_lane & server_pid=$!
  viewer_lane & viewer_pid=$!
  failed=()
  wait "$server_pid" || failed+=(server)
  wait "$viewer_pid" || failed+=(viewer)
  ((${#failed[@]} == 0)) || die "the ${failed[*]} build failed (logs: $LOGS)"
fi
say "builds: ok ($((SECONDS - t)) s; steps: $(awk -F'\t' '{printf "%s%s %s s", (NR > 1 ? ", " : ""), $1, $2}' "$LOGS/timings.tsv"))"
say "ready to serve $((SECONDS - T0)) s after start"

# Defaults only for what the caller did not pass, so each flag appears once in the command printed
# below and the URL shows the port really used (the server takes a repeated flag's last value).
PORT="${PORT:-8080}"
ARGS=()
have_web_root=0 have_port=0
for ((i = 1; i <= $#; i++)); do
  case "${!i}" in
    --web-root|--web-root=*) have_web_root=1 ;;
    --port) have_port=1; j=$((i + 1)); PORT="${!j:-$PORT}" ;;
    --port=*) have_port=1; PORT="${!i#--port=}" ;;
  esac
done
((have_web_root)) || ARGS+=(--web-root "$WEB_ROOT")
((have_port)) || ARGS+=(--port "$PORT")
say "starting: $SERVER ${ARGS[*]} $* (open http://localhost:$PORT/)"
exec "$SERVER" "${ARGS[@]}" "$@"
