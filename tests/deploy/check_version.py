#!/usr/bin/env python3
"""One version source: the file VERSION at the repository root.

1. VERSION is one line x.y.z, and it is the version CMake configured (project(... VERSION) reads
   it), so the build tree is not stale.
2. docs/openapi.yaml's info.version is the same.
3. CHANGELOG.md's newest version heading is `## [x.y.z] - YYYY-MM-DD` (released) or
   `## [x.y.z] - Unreleased` (under development) with the same x.y.z: a bare `## [Unreleased]`
   fails, because the build would then claim the previous release's number.
4. The packaging test's consumer (tests/packaging/consumer) asks find_package for a version
   the installed package accepts: the same major.minor (FlockstepConfigVersion is
   SameMinorVersion), so a release that is not compatible updates the consumer too.
5. `--version` of flockstep-server and flockstep-bot: name and the version on the first line,
   then commit (hex or "unknown"), build type and compiler; exit code 0.

Usage: check_version.py SOURCE_DIR PROJECT_VERSION SERVER_BINARY BOT_BINARY
"""
import os
import re
import subprocess
import sys

import yaml

SEMVER = re.compile(r"\d+\.\d+\.\d+")
# A second-level Markdown heading that names a version or Unreleased (Keep a Changelog).
HEADING = re.compile(r"^## \[([^\]]+)\](?: - (.+))?\s*$")


def changelog_version(path):
    """(version, date or "Unreleased") of the newest `## [...]` heading, or an error text."""
    for line in open(path, encoding="utf-8"):
        m = HEADING.match(line)
        if not m:
            continue
        version, when = m.group(1), (m.group(2) or "").strip()
        if not SEMVER.fullmatch(version):
            return None, f"newest heading {line.strip()!r}: name the version, e.g. '## [1.2.3] - Unreleased'"
        if when != "Unreleased" and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", when):
            return None, f"newest heading {line.strip()!r}: expected ' - YYYY-MM-DD' or ' - Unreleased'"
        return version, None
    return None, "no '## [x.y.z]' heading"


def check_binaries(version, binaries):
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
    return failures


def main():
    if len(sys.argv) != 5:
        print(__doc__)
        return 2
    source_dir, configured = sys.argv[1], sys.argv[2]
    binaries = {"flockstep-server": sys.argv[3], "flockstep-bot": sys.argv[4]}
    failures = []

    lines = open(os.path.join(source_dir, "VERSION"), encoding="utf-8").read().splitlines()
    version = lines[0].strip() if lines else ""
    if len(lines) != 1 or not SEMVER.fullmatch(version):
        failures.append(f"VERSION must be one line x.y.z, found {lines!r}")
    if version != configured:
        failures.append(f"VERSION says {version}, the build was configured with {configured}: re-run cmake")

    doc = yaml.safe_load(open(os.path.join(source_dir, "docs/openapi.yaml"), encoding="utf-8"))
    api_version = str(doc.get("info", {}).get("version"))
    if api_version != version:
        failures.append(f"docs/openapi.yaml info.version is {api_version}, VERSION is {version}")

    logged, problem = changelog_version(os.path.join(source_dir, "CHANGELOG.md"))
    if problem:
        failures.append(f"CHANGELOG.md: {problem}")
    elif logged != version:
        failures.append(f"CHANGELOG.md's newest version is {logged}, VERSION is {version}")

    consumer = open(os.path.join(source_dir, "tests/packaging/consumer/CMakeLists.txt"), encoding="utf-8").read()
    m = re.search(r"find_package\(Flockstep (\d+\.\d+)", consumer)
    if not m or m.group(1) != ".".join(version.split(".")[:2]):
        failures.append(f"tests/packaging/consumer asks for Flockstep {m and m.group(1)}, "
                        f"not compatible with VERSION {version} (same major.minor)")

    failures += check_binaries(version, binaries)
    for f in failures:
        print("FAIL:", f)
    print(f"VERSION {version}: openapi {api_version}, CHANGELOG {logged}, {len(binaries)} binaries: "
          f"{len(failures)} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
