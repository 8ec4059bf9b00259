#!/usr/bin/env bash
# Builds and starts Flockstep locally: the server (release preset) serving the wasm viewer.
#
#   scripts/run.sh [SERVER ARGS...]     e.g. scripts/run.sh --port 9000
#
# Then open http://localhost:8080/ (or the port you passed). Steps: scripts/setup.sh, configure +
# build the `release` preset (build/release) and the `wasm` preset (build/wasm), then exec
# build/release/server/flockstep-server --web-root build/wasm/client/web --port 8080 [ARGS].
# --port/--web-root given on the command line replace the defaults.
# Environment: FLOCKSTEP_SKIP_SETUP=1, FLOCKSTEP_JOBS (default 2), FLOCKSTEP_CACHE, PORT.
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
export CMAKE_BUILD_PARALLEL_LEVEL="$JOBS"
export CCACHE_DIR="${CCACHE_DIR:-$FLOCKSTEP_CACHE/ccache}"
export NODE_PATH="/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}"

SERVER="$ROOT/build/release/server/flockstep-server"
WEB_ROOT="$ROOT/build/wasm/client/web"
LOGS="$ROOT/build/run-logs"

step() {  # step NAME CMD...: quiet on success, the log's tail on failure
  local name="$1" log t=$SECONDS
  log="$LOGS/$(tr ' /' '__' <<<"$1").log"
  shift
  say "$name ..."
  if ! "$@" >"$log" 2>&1; then
    tail -n 60 "$log" >&2
    die "$name failed (full log: $log)"
  fi
  say "$name: ok ($((SECONDS - t)) s)"
}

if [[ "${FLOCKSTEP_SKIP_SETUP:-0}" != 1 ]]; then
  "$ROOT/scripts/setup.sh" || die "scripts/setup.sh failed"
fi
mkdir -p "$LOGS"

# build/release is shared by the release and ci presets (scripts/test.sh builds it with -Werror);
# configure only when it is new, so switching between the two does not rebuild everything.
if [[ -f "$ROOT/build/release/CMakeCache.txt" ]]; then
  say "configure release: build/release exists (configured by $(grep -q 'FLOCKSTEP_WERROR:BOOL=ON' "$ROOT/build/release/CMakeCache.txt" && echo 'preset ci' || echo 'preset release'))"
else
  step "configure release" cmake --preset release
fi
# Build only the server (and what it needs): tests are scripts/test.sh's business.
mkdir -p "$LOGS"
cmake --build "$ROOT/build/release" --target help >"$LOGS/release-targets.log" 2>&1 \
  || { tail -n 40 "$LOGS/release-targets.log" >&2; die "build/release does not configure (log: $LOGS/release-targets.log)"; }
grep -q '^flockstep-server:' "$LOGS/release-targets.log" \
  || die "the build has no target 'flockstep-server' (server/CMakeLists.txt does not define it yet)"
step "build server" cmake --build "$ROOT/build/release" -j"$JOBS" --target flockstep-server
[[ -x "$SERVER" ]] || die "build finished but $SERVER does not exist (expected the server target's output there)"

if [[ -f "$ROOT/build/wasm/CMakeCache.txt" ]]; then
  say "configure wasm: build/wasm exists"
else
  step "configure wasm" cmake --preset wasm
fi
# The viewer is every non-test target of the wasm build; building all also refreshes web/.
step "build wasm viewer" cmake --build --preset wasm -j"$JOBS"
[[ -d "$WEB_ROOT" ]] || die "wasm build finished but $WEB_ROOT does not exist (the viewer's web root)"
[[ -f "$WEB_ROOT/index.html" ]] || say "warning: $WEB_ROOT/index.html is missing"

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
