# Shared by the bench scripts (sourced, not run): waiting for a server started with --port=0.

# wait_for_port LOG PID TENTHS: prints the port the server logged ("listening ... port=N") into
# LOG, waiting up to TENTHS tenths of a second; returns 1 (with the log on stderr) if the
# process PID exits first or no port shows up in time.
wait_for_port() {
  local log="$1" pid="$2" tenths="$3" port=""
  for _ in $(seq "$tenths"); do
    port="$(grep -oE 'listening .*port=[0-9]+' "$log" | grep -oE 'port=[0-9]+' | head -1 | cut -d= -f2 || true)"
    [[ -n "$port" ]] && { echo "$port"; return 0; }
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  cat "$log" >&2
  return 1
}
