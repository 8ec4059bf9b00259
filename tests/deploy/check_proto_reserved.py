#!/usr/bin/env python3
"""The snapshot fields protocol 2 no longer sends stay reserved, and no client reads them.

1. protoc compiles proto/flockstep/v1/messages.proto into a descriptor set (python3-protobuf
   reads it): Snapshot reserves 2, 5, 6 and DeltaSnapshot 6-9 with their protocol 1 names, and
   declares no field with those numbers or names. A .proto-only client therefore has no field
   there that would read as zero, and nobody can reuse a number an old client would misread.
2. No tracked C++, JavaScript, TypeScript or Python source reads them from a snapshot body
   (`snapshot.last_input_sequence`, `delta_snapshot().own()`, ...): the C++ compiler catches
   that for C++, nothing does for the scripted clients (protobufjs returns undefined).

Usage: check_proto_reserved.py SOURCE_DIR
"""
import os
import re
import subprocess
import sys
import tempfile

from google.protobuf import descriptor_pb2

# message -> {number: protocol 1 name}; these travel in ServerMessage.player since protocol 2.
GONE = {
    "Snapshot": {2: "last_input_sequence", 5: "input_held_ticks", 6: "input_slips"},
    "DeltaSnapshot": {6: "last_input_sequence", 7: "own", 8: "input_held_ticks", 9: "input_slips"},
}
# A read of one of them through a snapshot body in any of the clients' languages.
BODY_READ = re.compile(r"\b(?:delta_snapshot|snapshot|deltaSnapshot)(?:\(\))?\s*\.\s*"
                       r"(?:last_input_sequence|input_held_ticks|input_slips|own|lastInputSequence|"
                       r"inputHeldTicks|inputSlips)\b")
SOURCES = (".cpp", ".hpp", ".h", ".cc", ".js", ".mjs", ".ts", ".py")


def descriptors(source_dir):
    with tempfile.TemporaryDirectory(prefix="flockstep_proto_") as tmp:
        out = os.path.join(tmp, "set.pb")
        subprocess.run(["protoc", f"--proto_path={source_dir}/proto", f"--descriptor_set_out={out}",
                        "flockstep/v1/messages.proto"], check=True)
        fds = descriptor_pb2.FileDescriptorSet()
        fds.ParseFromString(open(out, "rb").read())
    return {m.name: m for f in fds.file for m in f.message_type}


def check_reserved(messages):
    failures = []
    for name, gone in GONE.items():
        m = messages.get(name)
        if m is None:
            failures.append(f"messages.proto has no message {name}")
            continue
        reserved = {n for r in m.reserved_range for n in range(r.start, r.end)}  # end is exclusive
        declared = {f.number: f.name for f in m.field}
        for number, field in gone.items():
            if number not in reserved:
                failures.append(f"{name}: number {number} ({field}) is not reserved")
            if field not in m.reserved_name:
                failures.append(f"{name}: name {field} is not reserved")
            if number in declared or field in declared.values():
                failures.append(f"{name}: declares {field} = {number} again")
    return failures


def check_readers(source_dir):
    files = subprocess.run(["git", "-C", source_dir, "ls-files", "-z"], capture_output=True,
                           check=True).stdout.decode().split("\0")
    this = os.path.relpath(os.path.abspath(__file__), source_dir)
    failures, scanned = [], 0
    for rel in files:
        if not rel.endswith(SOURCES) or rel == this:
            continue
        path = os.path.join(source_dir, rel)
        if not os.path.isfile(path):
            continue
        scanned += 1
        for n, line in enumerate(open(path, encoding="utf-8", errors="replace"), start=1):
            if BODY_READ.search(line):
                failures.append(f"{rel}:{n}: reads a player field from the snapshot body: {line.strip()}")
    return failures, scanned


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    source_dir = os.path.abspath(sys.argv[1])
    failures = check_reserved(descriptors(source_dir))
    readers, scanned = check_readers(source_dir)
    failures += readers
    for f in failures:
        print("FAIL:", f)
    print(f"{sum(map(len, GONE.values()))} reserved snapshot fields checked in messages.proto, "
          f"{scanned} sources scanned for reads of them: {len(failures)} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
