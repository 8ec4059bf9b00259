#!/usr/bin/env bash
# Soak test: the real server under 100 bots for a long time, sampled every INTERVAL s.
# Reports, never asserts (a bench, not a test): RSS slope after warm-up (KiB/min), open file
# descriptors (min/max), tick duration p99 per interval and overall (from /metrics), and the
# bots' own report (snapshots, inter-arrival p99, close codes, errors).
#
#   bench/soak.sh [DURATION_S] [CONNECTIONS] [PLAYERS]     defaults: 600 100 20
#
# Environment: FLOCKSTEP_BUILD (default build/release: uses server/flockstep-server and
# tools/bot/flockstep-bot from it), SOAK_INTERVAL (sample period, s, default 10),
# SOAK_WARMUP (s excluded from the slope, default 60, at most a third of the run),
# SOAK_SCENARIO (default scenarios/arena.json), SOAK_OUT (CSV of samples, default
# build/soak-<date>.csv). Server flags can be added with SOAK_SERVER_ARGS.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DURATION="${1:-600}"
CONNECTIONS="${2:-100}"
PLAYERS="${3:-20}"
BUILD="${FLOCKSTEP_BUILD:-$ROOT/build/release}"
INTERVAL="${SOAK_INTERVAL:-10}"
WARMUP="${SOAK_WARMUP:-60}"
((WARMUP > DURATION / 3)) && WARMUP=$((DURATION / 3))
SCENARIO="${SOAK_SCENARIO:-$ROOT/scenarios/arena.json}"
OUT="${SOAK_OUT:-$ROOT/build/soak-$(date +%Y%m%d-%H%M%S).csv}"
SERVER="$BUILD/server/flockstep-server"
BOT="$BUILD/tools/bot/flockstep-bot"
say() { printf 'soak: %s\n' "$*"; }
for b in "$SERVER" "$BOT"; do [[ -x "$b" ]] || { say "ERROR: $b not built (cmake --build $BUILD --target flockstep-server flockstep-bot)"; exit 2; }; done
mkdir -p "$(dirname "$OUT")"

LOG="$(mktemp)"
# shellcheck disable=SC2086
"$SERVER" --port=0 --host=127.0.0.1 --scenario="$SCENARIO" --log-level=info --max-players=$((PLAYERS + 8)) \
  --max-sessions-per-address=0 \
  ${SOAK_SERVER_ARGS:-} 2>"$LOG" &
SERVER_PID=$!
BOT_PID=""
cleanup() {
  [[ -n "$BOT_PID" ]] && kill "$BOT_PID" 2>/dev/null || true
  kill "$SERVER_PID" 2>/dev/null || true
  wait "$SERVER_PID" 2>/dev/null || true
  rm -f "$LOG"
}
trap cleanup EXIT
# shellcheck source=bench/common.sh
source "$ROOT/bench/common.sh"
PORT="$(wait_for_port "$LOG" "$SERVER_PID" 100)" || { say "ERROR: server did not start"; exit 1; }
say "server pid $SERVER_PID port $PORT; $CONNECTIONS bots ($PLAYERS players) for $DURATION s; samples every $INTERVAL s -> $OUT"

BOT_OUT="$(mktemp)"
"$BOT" --port="$PORT" --connections="$CONNECTIONS" --players="$PLAYERS" --duration="$DURATION" >"$BOT_OUT" 2>&1 &
BOT_PID=$!

metrics() { python3 - "$PORT" <<'PY'
import sys, urllib.request
text = urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/metrics", timeout=5).read().decode()
buckets = []
for line in text.splitlines():
    if line.startswith('flockstep_tick_duration_seconds_bucket{le="'):
        le = line.split('le="')[1].split('"')[0]
        buckets.append((float('inf') if le == '+Inf' else float(le), int(float(line.rsplit(' ', 1)[1]))))
print(';'.join(f'{le}:{n}' for le, n in buckets))
PY
}

echo "t_s,rss_kib,fds,tick_buckets" >"$OUT"
start=$SECONDS
while kill -0 "$BOT_PID" 2>/dev/null; do
  t=$((SECONDS - start))
  rss="$(awk '/^VmRSS/ {print $2}' /proc/$SERVER_PID/status)"
  fds="$(ls /proc/$SERVER_PID/fd | wc -l)"
  echo "$t,$rss,$fds,$(metrics)" >>"$OUT"
  sleep "$INTERVAL"
done
wait "$BOT_PID" || true
BOT_PID=""

python3 - "$OUT" "$WARMUP" <<'PY'
import sys, csv
rows = list(csv.DictReader(open(sys.argv[1])))
warm = float(sys.argv[2])
def buckets(r):
    return [(float(a), int(b)) for a, b in (x.split(':') for x in r['tick_buckets'].split(';') if x)]
def p99(prev, cur):
    # Cumulative histograms: the interval's counts are differences; p99 = upper bound of its bucket.
    d = [(le, c - (prev[i][1] if prev else 0)) for i, (le, c) in enumerate(cur)]
    total = d[-1][1] if d else 0
    if total <= 0: return None, 0
    for le, c in d:
        if c >= 0.99 * total: return le, total
    return d[-1][0], total
xs = [float(r['t_s']) for r in rows]; rss = [int(r['rss_kib']) for r in rows]; fds = [int(r['fds']) for r in rows]
pts = [(x, y) for x, y in zip(xs, rss) if x >= warm]
slope = 0.0
if len(pts) >= 2:
    mx = sum(p[0] for p in pts) / len(pts); my = sum(p[1] for p in pts) / len(pts)
    den = sum((p[0] - mx) ** 2 for p in pts)
    slope = sum((p[0] - mx) * (p[1] - my) for p in pts) / den * 60 if den else 0.0
worst = 0.0
for i in range(1, len(rows)):
    v, n = p99(buckets(rows[i - 1]), buckets(rows[i]))
    if v is not None: worst = max(worst, v)
overall, ticks = p99(None, buckets(rows[-1])) if rows else (None, 0)
print(f"soak: samples {len(rows)} over {xs[-1] if xs else 0:.0f} s; ticks {ticks}")
print(f"soak: RSS {rss[0]} -> {rss[-1]} KiB (max {max(rss)}); slope after {warm:.0f} s warm-up: {slope:+.1f} KiB/min")
print(f"soak: open fds min {min(fds)} max {max(fds)} last {fds[-1]}")
print(f"soak: tick p99 overall <= {overall * 1000:.2f} ms; worst interval p99 <= {worst * 1000:.2f} ms (histogram bucket bounds)")
PY
say "bots: $(tr '\n' ' ' <"$BOT_OUT")"
rm -f "$BOT_OUT"
