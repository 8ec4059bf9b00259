#!/usr/bin/env bash
# Fuzzing with clang's libFuzzer + AddressSanitizer + UndefinedBehaviorSanitizer.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]
#
# Configures a clang build in build/fuzz (FLOCKSTEP_FUZZ=ON; every library instrumented with
# ASan/UBSan and coverage), builds the fuzz targets and runs each for SECONDS (default 60,
# libFuzzer's -max_total_time) on a working copy of its seed corpus, so the corpus kept in the
# repo (tests/fuzz/corpus/<target>/) is never rewritten by a run. Targets (default: all six):
#   fuzz_client_codec, fuzz_ws_session      SECONDS each (what the server reads from clients)
#   fuzz_snapshot_codec, fuzz_snapshot_receiver   SECONDS / 2 each (what a client decodes: the
#                                           agent records and the delta stream; they share one
#                                           target's time, so the test command's fuzz stage
#                                           grows by one SECONDS, not two)
#   fuzz_world_state                        SECONDS / 4 (saved worlds: read by operators' tools
#                                           and the server from its own store, not from clients)
#   fuzz_input_log                          SECONDS / 4 (input-log recordings: read by the viewer
#                                           and operators' tools from the server's own files)
# FLOCKSTEP_JOBS targets run at once (each libFuzzer process uses one core).
# Targets named on the command line get SECONDS each. Exits non-zero if any target finds a crash,
# a leak or a sanitizer report; the reproducer is left in build/fuzz/artifacts/<target>/.
#
# Environment: FLOCKSTEP_FUZZ_DIR (default build/fuzz), FLOCKSTEP_JOBS (build jobs, and targets run at once; default 2),
# FLOCKSTEP_FUZZ_ARGS (extra libFuzzer flags, e.g. "-jobs=2 -workers=2").
# Longer runs and how to add found inputs to the corpus: docs/reliability.md.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
say() { printf 'fuzz: %s\n' "$*"; }
SECONDS_PER_TARGET="${1:-60}"
[[ $# -gt 0 ]] && shift
TARGETS=("$@")
# Time share per target of a default run (divisor of SECONDS): the two client-side decoders are
# small, fast targets (thousands of runs per second) and split one budget.
declare -A DIVISOR=()
if ((${#TARGETS[@]} == 0)); then
  TARGETS=(fuzz_client_codec fuzz_ws_session fuzz_snapshot_codec fuzz_snapshot_receiver fuzz_world_state
    fuzz_input_log)
  DIVISOR=([fuzz_snapshot_codec]=2 [fuzz_snapshot_receiver]=2 [fuzz_world_state]=4 [fuzz_input_log]=4)
fi
DIR="${FLOCKSTEP_FUZZ_DIR:-$ROOT/build/fuzz}"
JOBS="${FLOCKSTEP_JOBS:-2}"
export CCACHE_DIR="${CCACHE_DIR:-${FLOCKSTEP_CACHE:-$HOME/.cache/flockstep}/ccache}"

command -v clang++ >/dev/null || { say "ERROR: clang++ not found (Debian: clang libclang-rt-14-dev; scripts/setup.sh installs them)"; exit 2; }
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)

t=$SECONDS
# fuzzer-no-link: coverage feedback from every library, the fuzzer main only in the targets.
# -fno-sanitize=function: clang 14's UBSan function-type check fails to assemble some of our
# translation units ("Cannot represent a difference across sections"); every other check stays on.
if ! cmake -S "$ROOT" -B "$DIR" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DFLOCKSTEP_FUZZ=ON -DFLOCKSTEP_BUILD_BENCH=OFF -DFLOCKSTEP_WERROR=OFF "${launcher[@]}" \
    -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined,fuzzer-no-link -fno-sanitize=function -fno-sanitize-recover=undefined -fno-omit-frame-pointer" \
    >"$DIR.configure.log" 2>&1; then
  tail -30 "$DIR.configure.log"; say "FAILED: configure (log $DIR.configure.log)"; exit 1
fi
if ! cmake --build "$DIR" -j"$JOBS" --target "${TARGETS[@]}" >"$DIR.build.log" 2>&1; then
  tail -40 "$DIR.build.log"; say "FAILED: build (log $DIR.build.log)"; exit 1
fi
say "built ${TARGETS[*]} ($((SECONDS - t)) s)"

# run_target TARGET: one libFuzzer run on a working copy of the target's seeds; its summary line
# goes to $DIR/TARGET.summary, its exit status is the run's.
run_target() {
  local target="$1" seeds work artifacts t=$SECONDS secs
  seeds="$ROOT/tests/fuzz/corpus/${target#fuzz_}"
  work="$DIR/corpus/$target"
  artifacts="$DIR/artifacts/$target"
  mkdir -p "$work" "$artifacts"
  cp -n "$seeds"/* "$work"/ 2>/dev/null || true
  secs=$((SECONDS_PER_TARGET / ${DIVISOR[$target]:-1}))
  ((secs < 1)) && secs=1
  say "$target: ${secs} s on $(ls "$work" | wc -l) inputs ..."
  # -rss_limit_mb: the targets are small; a blow-up is a finding. -timeout: one input, seconds.
  # shellcheck disable=SC2086
  if "$DIR/tests/fuzz/$target" "$work" -max_total_time="$secs" -rss_limit_mb=1024 -timeout=10 \
      -print_final_stats=1 -artifact_prefix="$artifacts/" ${FLOCKSTEP_FUZZ_ARGS:-} >"$DIR/$target.log" 2>&1; then
    say "$target: ok ($((SECONDS - t)) s): $(grep -aE '^stat::number_of_executed_units' "$DIR/$target.log" | awk '{print $2}') runs, corpus $(ls "$work" | wc -l)"
    return 0
  fi
  tail -40 "$DIR/$target.log"
  say "FAILED: $target found a problem (log $DIR/$target.log, reproducer in $artifacts/)"
  return 1
}

# Each libFuzzer process is single-threaded, so FLOCKSTEP_JOBS targets run at once (two on the
# CI's two cores): the stage takes half the wall time for the same seconds of fuzzing per target.
t=$SECONDS
failed=()
declare -A pid_of=()
for target in "${TARGETS[@]}"; do
  while (($(jobs -rp | wc -l) >= JOBS)); do wait -n; done
  run_target "$target" &
  pid_of[$target]=$!
done
for target in "${TARGETS[@]}"; do
  wait "${pid_of[$target]}" || failed+=("$target")
done
say "ran ${#TARGETS[@]} targets, $JOBS at a time ($((SECONDS - t)) s)"
((${#failed[@]} == 0)) || { say "FAILED: ${failed[*]}"; exit 1; }
say "all targets clean"
