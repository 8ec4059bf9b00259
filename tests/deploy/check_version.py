#!/usr/bin/env python3
"""`--version` of flockstep-server and flockstep-bot: name and the project version on the first
line, then commit (hex or "unknown"), build type and compiler; exit code 0.

Usage: check_version.py PROJECT_VERSION SERVER_BINARY BOT_BINARY
"""
import re
import subprocess
import sys


def main():
    version, binaries = sys.argv[1], {"flockstep-server": sys.argv[2], "flockstep-bot": sys.argv[3]}
    failures = []
    for name, path in binaries.items():
        r = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30)
        lines = r.stdout.splitlines()
        print(r.stdout, end="")
        if r.returncode != 0:
            failures.append(f"{name} --version exited {r.returncode}: {r.stderr}")
        if not lines or lines[0] != f"{name} {version}":
            failures.append(f"{name}: first line {lines[:1]}, expected '{name} {version}'")
        fields = dict(l.split(": ", 1) for l in lines[1:] if ": " in l)
        if not re.fullmatch(r"[0-9a-f]{7,40}|unknown", fields.get("commit", "")):
            failures.append(f"{name}: commit line {fields.get('commit')!r}")
        if not fields.get("build type"):
            failures.append(f"{name}: no build type line")
        if not re.match(r"(GNU|Clang|AppleClang) \d+", fields.get("compiler", "")):
            failures.append(f"{name}: compiler line {fields.get('compiler')!r}")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
