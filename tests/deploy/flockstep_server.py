"""Start the real flockstep-server on an OS-chosen loopback port for the deploy and contract tests.

The server prints its bound port in its start-up log line (`port=NNNN`, or `"port":NNNN` with
--log-format=json); we read it from stderr
and keep draining stderr in a thread so the pipe never fills. LoggedPortProcess does the same
for any program that logs the port it bound (Prometheus: `msg="Listening on" address=H:P`).
"""
import os
import re
import signal
import subprocess
import threading
import time

START_TIMEOUT_S = 30  # a loaded CI machine builds the arena world in well under this
STOP_TIMEOUT_S = 15   # SIGTERM, then SIGKILL after this long


def stop(proc):
    """SIGTERM a child we started, SIGKILL it after STOP_TIMEOUT_S, and reap it."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class LoggedPortProcess:
    """Context manager: runs `args`, waits until a stderr line matches `port_pattern` (its first
    group that matched = a non-zero port), keeps stderr in `self.log`; SIGTERM (then SIGKILL) on
    exit."""

    def __init__(self, args, port_pattern, name, env=None):
        self.args = list(args)
        self.port_pattern = re.compile(port_pattern)
        self.name = name
        self.env = dict(os.environ, **(env or {}))
        self.port = None
        self.log = []

    def __enter__(self):
        self.proc = subprocess.Popen(self.args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     text=True, env=self.env)
        found = threading.Event()

        def drain():
            for line in self.proc.stderr:
                self.log.append(line)
                m = self.port_pattern.search(line)
                port = int(next((g for g in m.groups() if g), 0)) if m else 0
                if port and self.port is None:
                    self.port = port
                    found.set()

        threading.Thread(target=drain, daemon=True).start()
        deadline = time.monotonic() + START_TIMEOUT_S
        while not found.wait(0.1):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.__exit__(None, None, None)
                raise RuntimeError(f"{self.name} did not start:\n" + "".join(self.log))
        return self

    def __exit__(self, *exc):
        stop(self.proc)
        return False


class FlockstepServer(LoggedPortProcess):
    """Context manager: `with FlockstepServer(binary, source_dir) as s: s.port`."""

    def __init__(self, binary, source_dir, web_root=None, extra_args=(), env=None, scenario=None,
                 scenario_dir=None):
        args = [binary, "--host=127.0.0.1", "--port=0",
                f"--scenario={scenario or source_dir + '/scenarios/arena.json'}",
                f"--scenario-dir={scenario_dir or source_dir + '/scenarios'}"]
        if web_root:
            args.append(f"--web-root={web_root}")
        args += list(extra_args)
        super().__init__(args, r"\bport=(\d+)\b|\"port\":(\d+)\b", "flockstep-server", env)
