"""Start the real flockstep-server on an OS-chosen loopback port for the deploy and contract tests.

The server prints its bound port in its start-up log line (`port=NNNN`, or `"port":NNNN` with
--log-format=json); we read it from stderr
and keep draining stderr in a thread so the pipe never fills.
"""
import os
import re
import signal
import subprocess
import threading
import time

START_TIMEOUT_S = 30  # a loaded CI machine builds the arena world in well under this


class FlockstepServer:
    """Context manager: `with FlockstepServer(binary, source_dir) as s: s.port`."""

    def __init__(self, binary, source_dir, web_root=None, extra_args=(), env=None, scenario=None,
                 scenario_dir=None):
        self.args = [binary, "--host=127.0.0.1", "--port=0",
                     f"--scenario={scenario or source_dir + '/scenarios/arena.json'}",
                     f"--scenario-dir={scenario_dir or source_dir + '/scenarios'}"]
        if web_root:
            self.args.append(f"--web-root={web_root}")
        self.args += list(extra_args)
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
                m = re.search(r"\bport=(\d+)\b|\"port\":(\d+)\b", line)
                port = int(m.group(1) or m.group(2)) if m else 0
                if port and self.port is None:
                    self.port = port
                    found.set()

        threading.Thread(target=drain, daemon=True).start()
        deadline = time.monotonic() + START_TIMEOUT_S
        while not found.wait(0.1):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.__exit__(None, None, None)
                raise RuntimeError("flockstep-server did not start:\n" + "".join(self.log))
        return self

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return False
