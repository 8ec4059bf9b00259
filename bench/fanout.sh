#!/usr/bin/env bash
# Spectators at scale: the release server on the default arena (20 Hz snapshots) with N
# spectators + 50 players from flockstep-bot (--decode=0: acknowledge without decoding, so the
# load tool takes less of the two cores) for T seconds. Reports (never asserts; a bench, not a
# test) what the fan-out costs and what the spectators got:
#   - server CPU per delivered spectator snapshot: utime + stime of the server process from
#     /proc/<pid>/stat over the run, divided by the snapshots the spectators received;
#   - the bot's own CPU the same way (both share the machine);
#   - the spectators' inter-arrival median / p99, full-snapshot share, bytes per agent, and the
#     server's drops, paced snapshots and dropped clients (flockstep-bot --report);
#   - the server's peak RSS (VmHWM).
#
#   bench/fanout.sh [SPECTATORS] [DURATION_S] [PLAYERS]     defaults: 5000 20 50
#
# Environment: FLOCKSTEP_BUILD (default build/release), FANOUT_SERVER_ARGS (extra server flags,
# e.g. --threads=2), FANOUT_CONNECT_RATE (connections started per second, a join ramp before the
# DURATION_S; default 0: all at once, a join storm), FANOUT_ACK_DELAY_MS (the bots send each
# snapshot acknowledgement this much later: a longer round trip; default 0). The bots acknowledge
# as the viewer does, at the interval the server's Welcome gives (FANOUT_SERVER_ARGS=
# --ack-every-snapshots=1 for an ack per snapshot).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SPECTATORS="${1:-5000}"
DURATION="${2:-20}"
PLAYERS="${3:-50}"
BUILD="${FLOCKSTEP_BUILD:-$ROOT/build/release}"
SERVER="$BUILD/server/flockstep-server"
BOT="$BUILD/tools/bot/flockstep-bot"
say() { printf 'fanout: %s\n' "$*"; }
for b in "$SERVER" "$BOT"; do [[ -x "$b" ]] || { say "ERROR: $b not built"; exit 2; }; done
CLIENTS=$((SPECTATORS + PLAYERS))
# Every client is a file descriptor on both sides (the bot runs in this shell's limits too).
if (($(ulimit -n) < CLIENTS + 200)); then ulimit -n $((CLIENTS + 200)) || { say "ERROR: ulimit -n too low"; exit 2; }; fi

WORK="$(mktemp -d)"
LOG="$WORK/server.log"
# shellcheck disable=SC2086
# Every bot connects from 127.0.0.1: the per-address limit (64 by default) is off for the bench.
"$SERVER" --port=0 --host=127.0.0.1 --scenario="$ROOT/scenarios/arena.json" --log-level=info --snapshot-rate-hz=20 --max-connections=$((CLIENTS + 100)) \
  --max-sessions-per-address=0 \
  --max-players=$((PLAYERS + 8)) ${FANOUT_SERVER_ARGS:-} 2>"$LOG" &
SERVER_PID=$!
cleanup() {
  kill "$SERVER_PID" 2>/dev/null || true
  wait "$SERVER_PID" 2>/dev/null || true
  [[ -n "${FANOUT_KEEP_LOG:-}" ]] && cp "$LOG" "$FANOUT_KEEP_LOG"
  rm -rf "$WORK"
}
trap cleanup EXIT
# shellcheck source=bench/common.sh
source "$ROOT/bench/common.sh"
PORT="$(wait_for_port "$LOG" "$SERVER_PID" 300)" || { say "ERROR: the server did not start"; exit 1; }

# CPU ticks (utime + stime, fields 14 and 15 of /proc/<pid>/stat) of a process.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
HZ="$(getconf CLK_TCK)"
say "server pid $SERVER_PID on port $PORT: $SPECTATORS spectators + $PLAYERS players for ${DURATION} s"
before="$(cpu_ticks "$SERVER_PID")"
nice "$BOT" --port="$PORT" --connections="$CLIENTS" --players="$PLAYERS" --duration="$DURATION" --decode=0 --report \
  --connect-rate="${FANOUT_CONNECT_RATE:-0}" --ack-delay-ms="${FANOUT_ACK_DELAY_MS:-0}" \
  >"$WORK/bot.txt" 2>&1 &
BOT_PID=$!
bot_ticks=0
while kill -0 "$BOT_PID" 2>/dev/null; do
  t="$(cpu_ticks "$BOT_PID" 2>/dev/null || true)"
  [[ -n "$t" ]] && bot_ticks="$t"
  sleep 0.5
done
wait "$BOT_PID" || true
after="$(cpu_ticks "$SERVER_PID")"
sed 's/^/fanout: bot: /' "$WORK/bot.txt"
rss_kb="$(awk '/VmHWM/ {print $2}' "/proc/$SERVER_PID/status")"
# Spectators' snapshots and figures from the bot's summary.
spec_line="$(grep '^spectators: connected' "$WORK/bot.txt" || true)"
spec_snaps="$(sed -nE 's/.*snapshots ([0-9]+) \(.*/\1/p' <<<"$spec_line")"
full="$(grep '^spectators: per client' "$WORK/bot.txt" | sed -nE 's/.*full snapshots ([0-9]+),.*/\1/p')"
acks="$(grep '^spectators: per client' "$WORK/bot.txt" | sed -nE 's/.*acks per snapshot ([0-9.e+-]+),.*/\1/p')"
bpa="$(grep '^spectators: per client' "$WORK/bot.txt" | sed -nE 's/.* ([0-9.e+-]+) B\/agent.*/\1/p')"
median="$(sed -nE 's/.*inter-arrival ms median ([0-9.e+-]+) p99 ([0-9.e+-]+) .*/\1/p' <<<"$spec_line")"
p99="$(sed -nE 's/.*inter-arrival ms median ([0-9.e+-]+) p99 ([0-9.e+-]+) .*/\2/p' <<<"$spec_line")"
python3 - "$((after - before))" "$bot_ticks" "$HZ" "${spec_snaps:-0}" "${full:-0}" "${rss_kb:-0}" "${median:-0}" \
  "${p99:-0}" "${bpa:-0}" "$SPECTATORS" "$DURATION" "${acks:-0}" <<'PY'
import sys
server, bot, hz, snaps, full, rss, median, p99, bpa, n, secs, acks = sys.argv[1:]
server_s, bot_s, snaps = int(server) / int(hz), int(bot) / int(hz), int(snaps)
per = lambda s: f"{s / snaps * 1e6:.1f} us" if snaps else "n/a"
print(f"fanout: RESULT spectators {n}, {secs} s: spectator snapshots {snaps}, median {float(median):.1f} ms, "
      f"p99 {float(p99):.1f} ms, full {100 * int(full) / max(snaps, 1):.2f} %, {float(bpa):.2f} B/agent, "
      f"{float(acks):.3f} acks per snapshot, "
      f"server CPU {server_s:.1f} s = {per(server_s)} per spectator snapshot, bot CPU {bot_s:.1f} s = "
      f"{per(bot_s)}, server peak RSS {int(rss) / 1024:.0f} MB")
PY
