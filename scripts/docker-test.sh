#!/usr/bin/env bash
# The container test: builds the image, runs docker-compose.yml, joins it with the bot as a player
# and a spectator, checks that snapshots flow and that the viewer is served, then tears down.
#
#   scripts/docker-test.sh             the whole test (ctest runs this: label `docker`)
#   scripts/docker-test.sh --prepare   only install the tools, start the daemon, make the base image
#
# Steps (each timed; the times are printed at the end):
#   1. Debian packages docker.io, docker-compose, debootstrap: installed with apt-get only when
#      dpkg-query says they are missing.
#   2. A Docker daemon: used if one answers, else `dockerd --iptables=false` started here (as root)
#      and stopped again at the end. No daemon possible (not root, no privileges, apt failed):
#      a loud SKIPPED line and exit 77, which ctest reports as skipped (SKIP_RETURN_CODE).
#   3. The base image `flockstep-base:bookworm`: Docker Hub may be out of reach, so it is made with
#      `debootstrap --variant=minbase bookworm` from the Debian mirror, once; the root file system
#      is kept as a tarball in $FLOCKSTEP_CACHE/docker/ and `docker import`ed when the daemon lacks it.
#   4. `docker build --network host --build-arg BASE_IMAGE=flockstep-base:bookworm` (the classic
#      builder: Debian's docker.io has no buildx). The build stage is tagged flockstep-build:cache
#      so its package/emscripten layers stay cached; older untagged build stages are pruned.
#   5. `docker-compose up -d` on a free host port, wait for the container's healthcheck to say
#      healthy, fetch the viewer, run the bot (1 player + 1 spectator), check both got snapshots,
#      check the effective configuration came from the mounted file and the environment.
#   6. Always (trap): `docker-compose down`, and stop the daemon if this script started it.
#
# Environment: FLOCKSTEP_CACHE (default $HOME/.cache/flockstep), FLOCKSTEP_BOT (host bot binary;
# default build/release/tools/bot/flockstep-bot, else the bot inside the image),
# FLOCKSTEP_DOCKER_KEEP=1 (leave the stack running for a look), FLOCKSTEP_JOBS (default 2).
# Exit codes: 0 passed, 1 failed, 77 skipped (no Docker daemon can run here).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 1

readonly SKIP_CODE=77                      # ctest SKIP_RETURN_CODE (tests/docker/CMakeLists.txt)
readonly BASE_IMAGE=flockstep-base:bookworm
readonly IMAGE=flockstep-server:local      # docker-compose.yml's image name
readonly BUILD_STAGE_IMAGE=flockstep-build:cache   # the Dockerfile's build stage, kept as cache
readonly PROJECT=flockstep-test            # compose project name: never touches a user's own stack
readonly DAEMON_WAIT_S=60                  # dockerd must answer within this
readonly HEALTHY_WAIT_S=90                 # container healthcheck must say healthy within this
readonly BOT_DURATION_S=4                  # bot run time after joining

if [[ -z "${FLOCKSTEP_CACHE:-}" ]]; then
  if [[ -n "${HOME:-}" ]]; then FLOCKSTEP_CACHE="$HOME/.cache/flockstep"; else FLOCKSTEP_CACHE="$ROOT/.cache/flockstep"; fi
fi
CACHE="$FLOCKSTEP_CACHE/docker"
BASE_TAR="$CACHE/debian-bookworm-minbase.tar"
LOGS="${FLOCKSTEP_DOCKER_LOGS:-$ROOT/build/test-logs/docker}"
mkdir -p "$CACHE" "$LOGS"

say() { printf 'docker-test: %s\n' "$*"; }
fail() { printf 'docker-test: FAILED: %s\n' "$*" >&2; exit 1; }
skip() {
  printf '\n%s\n' "################################################################################"
  printf 'docker-test: SKIPPED: %s\n' "$*"
  printf '%s\n\n' "################################################################################"
  exit "$SKIP_CODE"
}

T0=$SECONDS
TIMES=()
timed() { TIMES+=("$1: $2 s"); say "$1: $2 s"; }

SUDO=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO=(sudo -n); fi
fi

STARTED_DAEMON_PID=""
COMPOSE_UP=0
cleanup() {
  local rc=$?
  if ((COMPOSE_UP)) && [[ "${FLOCKSTEP_DOCKER_KEEP:-0}" != 1 ]]; then
    say "teardown: docker-compose down"
    compose down --volumes --remove-orphans --timeout 10 >"$LOGS/compose-down.log" 2>&1 \
      || say "warning: docker-compose down failed (log: $LOGS/compose-down.log)"
  fi
  if [[ -n "$STARTED_DAEMON_PID" ]]; then
    say "teardown: stopping the dockerd this script started (pid $STARTED_DAEMON_PID)"
    "${SUDO[@]}" kill "$STARTED_DAEMON_PID" 2>/dev/null
    for _ in $(seq 1 100); do "${SUDO[@]}" kill -0 "$STARTED_DAEMON_PID" 2>/dev/null || break; sleep 0.1; done
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

is_installed() { [[ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null)" == "ii "* ]]; }

# --- 1. packages --------------------------------------------------------------------------------
t=$SECONDS
if [[ -r /etc/debian_version ]] && command -v dpkg-query >/dev/null; then
  missing=()
  for p in docker.io docker-compose debootstrap; do is_installed "$p" || missing+=("$p"); done
  if ((${#missing[@]})); then
    if [[ $(id -u) -ne 0 && ${#SUDO[@]} -eq 0 ]]; then
      skip "missing ${missing[*]} and not root (no sudo): cannot install, so no Docker test here"
    fi
    say "installing ${missing[*]} (apt-get)"
    if ! { "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q \
           && "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
                "${missing[@]}"; } >"$LOGS/apt.log" 2>&1; then
      tail -n 20 "$LOGS/apt.log" >&2
      skip "apt-get could not install ${missing[*]} (log: $LOGS/apt.log)"
    fi
  fi
fi
command -v docker >/dev/null || skip "no docker CLI (install docker.io)"
command -v docker-compose >/dev/null || skip "no docker-compose (install docker-compose)"
timed "packages" $((SECONDS - t))

# --- 2. daemon ----------------------------------------------------------------------------------
t=$SECONDS
DOCKER=(docker)
if ! docker info >/dev/null 2>&1; then
  if ((${#SUDO[@]})) && sudo -n docker info >/dev/null 2>&1; then
    DOCKER=(sudo -n docker)
  elif [[ $(id -u) -ne 0 && ${#SUDO[@]} -eq 0 ]]; then
    skip "no Docker daemon answers and this user cannot start one (not root)"
  else
    command -v dockerd >/dev/null || skip "no dockerd binary"
    say "starting dockerd --iptables=false (log: $LOGS/dockerd.log)"
    # --iptables=false: this kind of machine has no iptables NAT; builds use the host network and
    # published ports go through docker-proxy on the host's loopback.
    "${SUDO[@]}" dockerd --iptables=false >"$LOGS/dockerd.log" 2>&1 &
    STARTED_DAEMON_PID=$!
    for _ in $(seq 1 $((DAEMON_WAIT_S * 5))); do
      docker info >/dev/null 2>&1 && break
      kill -0 "$STARTED_DAEMON_PID" 2>/dev/null || break
      sleep 0.2
    done
    if ! docker info >/dev/null 2>&1; then
      tail -n 20 "$LOGS/dockerd.log" >&2
      kill "$STARTED_DAEMON_PID" 2>/dev/null
      STARTED_DAEMON_PID=""
      skip "dockerd did not start here (log: $LOGS/dockerd.log)"
    fi
    [[ ${#SUDO[@]} -gt 0 ]] && DOCKER=(sudo -n docker)
  fi
fi
dk() { "${DOCKER[@]}" "$@"; }
compose() {
  "${SUDO[@]}" env FLOCKSTEP_HOST_PORT="${HOST_PORT:-8080}" docker-compose -p "$PROJECT" \
    -f "$ROOT/docker-compose.yml" "$@"
}
say "daemon: $(dk version -f '{{.Server.Version}}' 2>/dev/null) ($(dk info -f '{{.Driver}}' 2>/dev/null))"
timed "daemon" $((SECONDS - t))

# --- 3. base image ------------------------------------------------------------------------------
t=$SECONDS
if ! dk image inspect "$BASE_IMAGE" >/dev/null 2>&1; then
  if [[ ! -s "$BASE_TAR" ]]; then
    command -v debootstrap >/dev/null || skip "no debootstrap (install debootstrap)"
    mirror="http://deb.debian.org/debian"
    [[ -f /etc/apt/sources.list.d/debian.sources ]] && \
      mirror="$(awk '/^URIs:/ && $2 !~ /security/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)"
    root="$CACHE/rootfs.tmp"
    "${SUDO[@]}" rm -rf "$root"
    say "debootstrap --variant=minbase bookworm from $mirror (once; log: $LOGS/debootstrap.log)"
    "${SUDO[@]}" debootstrap --variant=minbase bookworm "$root" "$mirror" >"$LOGS/debootstrap.log" 2>&1 \
      || { tail -n 20 "$LOGS/debootstrap.log" >&2; fail "debootstrap failed (log: $LOGS/debootstrap.log)"; }
    # Same apt sources as debian:bookworm-slim (main, updates, security) and the same trimming.
    if [[ -f /etc/apt/sources.list.d/debian.sources ]]; then
      "${SUDO[@]}" cp /etc/apt/sources.list.d/debian.sources "$root/etc/apt/sources.list.d/debian.sources"
      "${SUDO[@]}" rm -f "$root/etc/apt/sources.list"
    fi
    "${SUDO[@]}" rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb
    "${SUDO[@]}" tar -C "$root" --numeric-owner -cf "$BASE_TAR.tmp" . && mv "$BASE_TAR.tmp" "$BASE_TAR" \
      || fail "could not write $BASE_TAR"
    "${SUDO[@]}" rm -rf "$root"
  fi
  say "docker import $BASE_TAR as $BASE_IMAGE"
  dk import "$BASE_TAR" "$BASE_IMAGE" >"$LOGS/import.log" 2>&1 || fail "docker import failed"
fi
timed "base image" $((SECONDS - t))

if [[ "${1:-}" == --prepare ]]; then
  say "prepared: daemon answers, $BASE_IMAGE exists (total $((SECONDS - T0)) s)"
  exit 0
fi

# --- 4. image -----------------------------------------------------------------------------------
t=$SECONDS
# BuildKit needs buildx in this docker CLI; Debian 12's docker.io has none, so the classic builder
# (the Dockerfile is written for both).
if docker buildx version >/dev/null 2>&1; then export DOCKER_BUILDKIT=1; else export DOCKER_BUILDKIT=0; fi
say "docker build $IMAGE (BASE_IMAGE=$BASE_IMAGE, DOCKER_BUILDKIT=$DOCKER_BUILDKIT; log: $LOGS/build.log)"
# The build stage is tagged too: its layers (packages, wasm protobuf, emscripten libraries) are the
# cache of the next run, and the previous run's build stage, now untagged, can be pruned (else
# every run would leave a 2.8 GB dangling image behind).
BUILD_ARGS=(--network host --build-arg BASE_IMAGE="$BASE_IMAGE" --build-arg JOBS="${FLOCKSTEP_JOBS:-2}")
if ! { dk build "${BUILD_ARGS[@]}" --target build -t "$BUILD_STAGE_IMAGE" "$ROOT" \
       && dk build "${BUILD_ARGS[@]}" -t "$IMAGE" "$ROOT"; } >"$LOGS/build.log" 2>&1; then
  tail -n 40 "$LOGS/build.log" >&2
  fail "docker build failed (log: $LOGS/build.log)"
fi
dk image prune -f >"$LOGS/prune.log" 2>&1 || say "warning: docker image prune failed (log: $LOGS/prune.log)"
cached_steps=$(awk -v t="Successfully tagged $BUILD_STAGE_IMAGE" 'index($0, t) {on = 1; next} on && /Using cache/ {n++} END {print n + 0}' "$LOGS/build.log")
image_mb=$(( $(dk image inspect -f '{{.Size}}' "$IMAGE") / 1000000 ))
timed "image build ($cached_steps of 32 steps from cache, image $image_mb MB)" $((SECONDS - t))

# --- 5. compose up and play ---------------------------------------------------------------------
HOST_PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null \
             || echo 18080)"
t=$SECONDS
compose down --volumes --remove-orphans --timeout 5 >/dev/null 2>&1   # a stack left by a killed run
say "docker-compose up -d (host port $HOST_PORT)"
COMPOSE_UP=1
compose up -d --no-build >"$LOGS/compose-up.log" 2>&1 || { cat "$LOGS/compose-up.log" >&2; fail "docker-compose up failed"; }
CID="$(compose ps -q server)"
[[ -n "$CID" ]] || fail "docker-compose started no 'server' container"
status=""
for _ in $(seq 1 $((HEALTHY_WAIT_S * 2))); do
  status="$(dk inspect -f '{{if .State.Health}}{{.State.Health.Status}}{{else}}none{{end}} {{.State.Status}}' "$CID" 2>/dev/null)"
  [[ "$status" == healthy* || "$status" == *exited* || "$status" == unhealthy* ]] && break
  sleep 0.5
done
if [[ "$status" != "healthy running" ]]; then
  compose logs --no-color >"$LOGS/server.log" 2>&1
  tail -n 30 "$LOGS/server.log" >&2
  fail "container not healthy within $HEALTHY_WAIT_S s (state: $status; log: $LOGS/server.log)"
fi
timed "up to healthy" $((SECONDS - t))
say "healthcheck said: $(dk inspect -f '{{with (index .State.Health.Log 0)}}{{.Output}}{{end}}' "$CID" | tr -d '\n')"

BASE_URL="http://127.0.0.1:$HOST_PORT"
checks=0
check() { checks=$((checks + 1)); say "ok: $*"; }
http_code() { curl -s -o /dev/null -w '%{http_code} %{content_type}' "$BASE_URL$1"; }
command -v curl >/dev/null || fail "curl is needed on the host to fetch the viewer"
[[ "$(curl -s "$BASE_URL/" | grep -ci '<canvas')" -ge 1 ]] || fail "GET / is not the viewer page (no <canvas>)"
check "GET / serves the viewer page"
wasm="$(http_code /viewer.wasm)"
[[ "$wasm" == "200 application/wasm"* ]] || fail "GET /viewer.wasm answered '$wasm', want 200 application/wasm"
check "GET /viewer.wasm: $wasm"
[[ "$(http_code /readyz)" == 200* ]] || fail "GET /readyz is not 200"
check "GET /readyz: 200"
user="$(dk inspect -f '{{.Config.User}}' "$CID")"
[[ -n "$user" && "$user" != root && "$user" != 0 ]] || fail "the container runs as '${user:-root}', want a non-root user"
check "runs as user '$user'"

t=$SECONDS
BOT="${FLOCKSTEP_BOT:-$ROOT/build/release/tools/bot/flockstep-bot}"
BOT_ARGS=(--host=127.0.0.1 --port="$HOST_PORT" --connections=2 --players=1 --duration="$BOT_DURATION_S" --name=docker)
if [[ -x "$BOT" ]]; then
  say "bot (host binary $BOT): 1 player + 1 spectator for $BOT_DURATION_S s"
  "$BOT" "${BOT_ARGS[@]}" >"$LOGS/bot.log" 2>&1
else
  say "bot (the image's flockstep-bot, host network): 1 player + 1 spectator for $BOT_DURATION_S s"
  dk run --rm --network host --entrypoint flockstep-bot "$IMAGE" "${BOT_ARGS[@]}" >"$LOGS/bot.log" 2>&1
fi
bot_rc=$?
cat "$LOGS/bot.log"
[[ $bot_rc -eq 0 ]] || fail "the bot exited $bot_rc (log: $LOGS/bot.log)"
min_snapshots=$((BOT_DURATION_S * 5))   # 20 Hz by default: demand a quarter, the rest is slack for load
for role in players spectators; do
  line="$(grep -E "^$role: " "$LOGS/bot.log")"
  welcomed="$(sed -nE 's/.* welcomed ([0-9]+),.*/\1/p' <<<"$line")"
  snaps="$(sed -nE 's/.* snapshots ([0-9]+) .*/\1/p' <<<"$line")"
  [[ "${welcomed:-0}" -eq 1 ]] || fail "$role: welcomed '${welcomed:-?}', want 1"
  [[ "${snaps:-0}" -ge $min_snapshots ]] || fail "$role: ${snaps:-0} snapshots in $BOT_DURATION_S s, want >= $min_snapshots"
  check "$role: welcomed, $snaps snapshots in $BOT_DURATION_S s"
done
timed "bot run" $((SECONDS - t))

compose logs --no-color >"$LOGS/server.log" 2>&1
# config/flockstep.json sets log_format json: the effective configuration is one `config` event
# (keys in alphabetical order: "config" {values}, "file", "sources" {where each came from}).
config_line="$(grep -E '"event":"config"' "$LOGS/server.log" | head -n 1)"
grep -qE '"file":"/etc/flockstep/flockstep.json"' <<<"$config_line" \
  || fail "the server did not read the mounted config file (log: $LOGS/server.log)"
grep -qE '"bots":2[,}].*"sources":\{.*"bots":"file"' <<<"$config_line" \
  || fail "bots = 2 from the mounted file not in the effective configuration"
grep -qE '"log_level":"info".*"sources":\{.*"log_level":"env"' <<<"$config_line" \
  || fail "log_level from the compose environment not in the effective configuration"
check "configuration: mounted file (bots = 2) and environment (log_level) applied"
grep -q '"event":"join"' "$LOGS/server.log" || fail "the server logged no join (log: $LOGS/server.log)"
check "server logged the joins"

say "PASSED: $checks checks; $(IFS=';'; echo "${TIMES[*]}" | sed 's/;/, /g'); total $((SECONDS - T0)) s"
