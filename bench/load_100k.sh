#!/usr/bin/env bash
# The 100,000-agent scale target, end to end: the real server ticking a 100k-boid wrapped
# flock (the density and obstacles of sim::canonical::flock) at 60 Hz on both cores, with bots
# connected as players and as spectators watching parts of the world, for a fixed time. Reports
# (never asserts; a bench, not a test) what flockstep-bot --report scrapes from /metrics: tick
# p50/p99, overruns, skipped ticks, and the clients' snapshot cadence and bandwidth.
#
#   bench/load_100k.sh [DURATION_S] [SPECTATORS] [PLAYERS] [AGENTS]    defaults: 30 20 5 100000
#
# Environment: FLOCKSTEP_BUILD (default build/release), LOAD_SERVER_ARGS (extra server flags),
# TICK_HZ (default 60) and SNAPSHOT_HZ (default 15), STEER_EVERY (Scenario::
# steering_interval_ticks, default 1: every boid steers every tick; 2 = every other tick), BOT_DECODE (1 = the bots decode every snapshot like a viewer; default 0,
# so the load tool, which shares the two cores with the server, takes less of them).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DURATION="${1:-30}"
SPECTATORS="${2:-20}"
PLAYERS="${3:-5}"
AGENTS="${4:-100000}"
STEER_EVERY="${STEER_EVERY:-1}"
TICK_HZ="${TICK_HZ:-60}"
SNAPSHOT_HZ="${SNAPSHOT_HZ:-15}"
BOT_DECODE="${BOT_DECODE:-0}"
BUILD="${FLOCKSTEP_BUILD:-$ROOT/build/release}"
SERVER="$BUILD/server/flockstep-server"
BOT="$BUILD/tools/bot/flockstep-bot"
say() { printf 'load_100k: %s\n' "$*"; }
for b in "$SERVER" "$BOT"; do [[ -x "$b" ]] || { say "ERROR: $b not built (cmake --build --preset release)"; exit 2; }; done

WORK="$(mktemp -d)"
SCENARIO="$WORK/flock_${AGENTS}.json"
# canonical::flock(n): side = sqrt(n / 0.12) m, wrapped, n/100 + 1 obstacles of radius 1.5-4 m,
# 6 m grid cells, boids at 6 m/s. (Obstacles placed by Python's RNG, not the sim's: the same
# density, not the same map.)
python3 - "$AGENTS" "$SCENARIO" "$STEER_EVERY" <<'PY'
import json, math, random, sys
n, path, steer_every = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
side = math.sqrt(n / 0.12)
rng = random.Random(1)
obstacles = [{"center": [round(rng.uniform(0, side), 3), round(rng.uniform(0, side), 3)],
              "radius": round(rng.uniform(1.5, 4), 3)} for _ in range(n // 100 + 1)]
json.dump({"name": f"flock_{n}", "description": f"{n} boids on a wrapped field (bench/load_100k.sh)",
           "width": side, "height": side, "wrap": True, "seed": 1, "max_agents": n + 64,
           "max_players": 32, "grid_cell": 6, "obstacles": obstacles, "steering_interval_ticks": steer_every,
           "groups": [{"name": "boids", "kind": "flock", "technique": "flock", "count": n,
                       "max_speed": 6, "max_force": 12, "radius": 0.4}]}, open(path, "w"))
PY

LOG="$WORK/server.log"
# shellcheck disable=SC2086
"$SERVER" --port=0 --host=127.0.0.1 --scenario="$SCENARIO" --scenario-dir= --tick-rate-hz="$TICK_HZ" \
  --max-sessions-per-address=0 \
  --snapshot-rate-hz="$SNAPSHOT_HZ" --sim-threads=2 --log-level=info --max-players=$((PLAYERS + 8)) \
  ${LOAD_SERVER_ARGS:-} 2>"$LOG" &
SERVER_PID=$!
cleanup() {
  kill "$SERVER_PID" 2>/dev/null || true
  wait "$SERVER_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
# shellcheck source=bench/common.sh
source "$ROOT/bench/common.sh"
PORT="$(wait_for_port "$LOG" "$SERVER_PID" 300)" || { say "ERROR: the server did not start"; exit 1; }
say "server on port $PORT: $AGENTS boids at $TICK_HZ Hz (steering every $STEER_EVERY ticks), snapshots at $SNAPSHOT_HZ Hz; $PLAYERS players + $SPECTATORS spectators for ${DURATION} s"

# Spectators watch a 200 m x 120 m window each (a viewer's screen at a middling zoom), spread
# over the world; players see the circle of aoi_radius_m around their craft.
"$BOT" --port="$PORT" --connections=$((PLAYERS + SPECTATORS)) --players="$PLAYERS" --duration="$DURATION" \
  --view=100,100,300,220 --decode="$BOT_DECODE" --report 2>&1 | sed 's/^/load_100k: bot: /'
say "server CPU time: $(ps -o times= -p "$SERVER_PID" | tr -d ' ') s over the run and the start-up"
