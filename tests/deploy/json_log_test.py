#!/usr/bin/env python3
"""--log-format=json writes nothing but JSON lines on stderr: the real flockstep-server is started
on an OS-chosen loopback port, made to log a variety of events (the effective configuration,
listening, a player joining and leaving through flockstep-bot, a raw WebSocket session, a refused
admin request, a forbidden path, a 431 for an oversized header, a corrupt saved-room file set
aside, SIGTERM, the drain and the room's save), and every
stderr line must parse as a JSON object with ts, level and event. A start-up error in JSON mode
(an unreadable scenario) must be a JSON line too.

Usage: json_log_test.py SERVER_BINARY BOT_BINARY SOURCE_DIR
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

from flockstep_server import FlockstepServer

# Events this run must produce (each proves a different code path wrote JSON).
EXPECTED_EVENTS = {"config", "listening", "join", "leave", "ws_open", "admin_denied", "http_forbidden",
                   "http_header_too_large", "signal", "shutdown_started", "shutdown_complete",
                   "room_state_rejected", "room_saved"}


def http(port, request, read_all=True):
    """Send raw bytes, return what came back until the server closed (or 5 s)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(request)
        got = b""
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            try:
                chunk = s.recv(65536)
            except (ConnectionResetError, socket.timeout):
                break
            if not chunk:
                break
            got += chunk
            if not read_all and b"\r\n\r\n" in got:
                break
        return got


def parse_lines(text, where):
    """Every line a JSON object with ts/level/event; the list of objects."""
    events = []
    for n, line in enumerate(text.splitlines(), 1):
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise AssertionError(f"{where}: stderr line {n} is not JSON ({e}): {line!r}")
        assert isinstance(obj, dict), f"{where}: line {n} is not an object: {line!r}"
        for key in ("ts", "level", "event"):
            assert key in obj, f"{where}: line {n} has no {key!r}: {line!r}"
        events.append(obj)
    return events


def main():
    binary, bot, source_dir = sys.argv[1], sys.argv[2], sys.argv[3]
    # Saved rooms: a corrupt state file of the default room is reported (room_state_rejected) and
    # the room starts fresh; at SIGTERM the room is saved (room_saved).
    state_dir = tempfile.mkdtemp(prefix="flockstep-json-log-")
    corrupt = os.path.join(state_dir, "arena.room")
    with open(corrupt, "wb") as f:
        f.write(b"\x08\x01 not a room state \xff\xff")
    try:
        run(binary, bot, source_dir, state_dir, corrupt)
    finally:
        shutil.rmtree(state_dir, ignore_errors=True)


def run(binary, bot, source_dir, state_dir, corrupt):
    with FlockstepServer(binary, source_dir, extra_args=["--log-format=json", "--log-level=info",
                                                         f"--state-dir={state_dir}"],
                         env={"FLOCKSTEP_ADMIN_TOKEN": "json-log-test"}) as server:
        port = server.port
        # A player joins, plays a second and leaves.
        subprocess.run([bot, f"--port={port}", "--connections=1", "--players=1", "--duration=1"],
                       check=True, capture_output=True, timeout=60)
        # A raw WebSocket session (ws_open), closed by us.
        reply = http(port, b"GET /ws HTTP/1.1\r\nHost: t\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                           b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
                     read_all=False)
        assert reply.startswith(b"HTTP/1.1 101"), reply[:100]
        # Bad requests: a wrong admin token, a path outside the web root, an oversized header.
        reply = http(port, b"GET /api/admin/clients HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer no\r\n"
                           b"Connection: close\r\n\r\n")
        assert reply.startswith(b"HTTP/1.1 401"), reply[:100]
        http(port, b"GET /%2e%2e/etc/passwd HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        reply = http(port, b"GET / HTTP/1.1\r\nHost: t\r\nX-Pad: " + b"a" * 20000 + b"\r\n\r\n")
        assert reply.startswith(b"HTTP/1.1 431"), reply[:100]
        time.sleep(0.5)  # the leave of the bot's player is logged on the next game tick
    # __exit__ sent SIGTERM and waited: the log is complete.
    text = "".join(server.log)
    events = parse_lines(text, "run")
    seen = {e["event"] for e in events}
    missing = EXPECTED_EVENTS - seen
    assert not missing, f"events never logged: {sorted(missing)}; seen: {sorted(seen)}\n{text[-3000:]}"
    config = [e for e in events if e["event"] == "config"]
    assert len(config) == 1 and events[0]["event"] == "config", "the configuration is the first and only config event"
    assert config[0]["config"]["log_format"] == "json" and config[0]["sources"]["log_format"] == "flag", config[0]
    assert config[0]["config"]["admin_token"] == "(set)" and "json-log-test" not in text, "admin token leaked"
    assert isinstance(config[0]["config"]["port"], int), config[0]["config"]["port"]
    rejected = [e for e in events if e["event"] == "room_state_rejected"]
    assert rejected[0]["file"] == corrupt and rejected[0]["level"] == "error" and rejected[0]["error"], rejected
    assert os.path.exists(corrupt + ".bad"), "the rejected file is kept aside"
    saved = [e for e in events if e["event"] == "room_saved"]
    assert saved[0]["room"] == "arena" and isinstance(saved[0]["tick"], int) and saved[0]["tick"] > 0, saved
    print(f"run: {len(events)} stderr lines, all JSON; events: {', '.join(sorted(seen))}")

    # A start-up error after the configuration was read: still JSON.
    p = subprocess.run([binary, "--log-format=json", "--port=0", "--scenario=/nonexistent/flockstep.json"],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 2, f"exit {p.returncode}: {p.stderr}"
    errors = parse_lines(p.stderr, "scenario error")
    assert len(errors) == 1 and errors[0]["event"] == "fatal" and errors[0]["level"] == "error", p.stderr
    assert "nonexistent" in errors[0]["error"], errors[0]
    print(f"start-up error: {p.stderr.strip()}")
    print("json log: all checks passed")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (AssertionError, subprocess.SubprocessError, OSError) as e:
        print(f"FAIL: {e}")
        sys.exit(1)
