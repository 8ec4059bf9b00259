#!/usr/bin/env bash
# Draws docs/scaling.png from the CSV files under bench/results/: tick time and bytes per client
# against agent count. Regenerate the CSVs first (commands in docs/performance.md):
#   build/release/bench/flockstep_bench_snapshot --csv=bench/results/snapshot_bytes.csv
#   bench/results/sim_tick.csv: medians of flockstep_bench_sim (BM_FlockTick rows, 1 and 2 threads;
#   the last two columns, where present, the same benchmark built from the commit before the change
#   the section of docs/performance.md that measured them describes, run side by side)
# Needs gnuplot (Debian gnuplot-nox; installed here if missing). Not part of the test run.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
R="$ROOT/bench/results"
OUT="${1:-$ROOT/docs/scaling.png}"
if ! command -v gnuplot >/dev/null; then
  echo "plot: installing gnuplot-nox" >&2
  SUDO=""; [[ $(id -u) -eq 0 ]] || SUDO=sudo
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q gnuplot-nox >/dev/null
fi
gnuplot <<GP
set terminal pngcairo size 1100,440 font "sans,10"
set output "$OUT"
set datafile separator ","
set multiplot layout 1,2 title "Flockstep scaling (2-core machine; commands in docs/performance.md)"
set logscale xy
set grid
set key top left
set xlabel "agents"
set title "flock tick, wall ms per tick (median)"
set ylabel "ms"
set xrange [700:140000]
plot "$R/sim_tick.csv" skip 1 using 1:2 with linespoints lw 2 lc 1 title "1 thread", \
     "" skip 1 using 1:3 with linespoints lw 2 lc 2 title "2 threads", \
     "" skip 1 using 1:4 with linespoints lw 1 dt 2 lc 1 title "1 thread, before", \
     "" skip 1 using 1:5 with linespoints lw 1 dt 2 lc 2 title "2 threads, before", \
     33.3 with lines dt 2 lc rgb "#aa0000" title "30 Hz budget (33.3 ms)", \
     16.7 with lines dt 3 lc rgb "#cc6600" title "60 Hz budget (16.7 ms)"
set title "snapshot bandwidth per client at 20 Hz (all agents in view, moving)"
set ylabel "kbit/s"
set xrange [70:14000]
plot "< grep plain_protobuf $R/snapshot_bytes.csv" using 1:5 with linespoints lw 2 title "plain protobuf (doubles)", \
     "< grep quantised_full $R/snapshot_bytes.csv" using 1:5 with linespoints lw 2 title "quantised full", \
     "< grep quantised_delta $R/snapshot_bytes.csv" using 1:5 with linespoints lw 2 title "quantised delta vs acked baseline", \
     256 with lines dt 2 lc rgb "#aa0000" title "target 256 kbit/s"
unset multiplot
GP
echo "plot: wrote $OUT"
