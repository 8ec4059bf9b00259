#!/usr/bin/env python3
"""schemas/scenario.schema.json against the scenarios, the loader and the server.

1. The schema is a valid JSON Schema (draft 2020-12).
2. Every shipped scenarios/*.json names the schema in "$schema" and validates.
3. Control cases: invalid scenarios (unknown key, wrong type, unknown group key, bad technique,
   bad tile text) are rejected by the schema, so the check can fail.
4. $defs/group lists exactly the group parameters of proto/codec/group_fields.cpp and the
   techniques of shared/src/sim/world.cpp, so the schema cannot drift from the loader.
5. The real server loads a scenario carrying "$schema" and refuses one with an unknown
   top-level key (exit code 2, the key named).
6. What the server exports (GET /api/rooms/<name>/scenario, every room) validates too.

Usage: check_contracts.py SERVER_BINARY SOURCE_DIR   (Debian python3-jsonschema)
"""
import copy
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import urllib.request

import jsonschema

from flockstep_server import FlockstepServer

SCHEMA_REF = "../schemas/scenario.schema.json"
# Keys of $defs/group that are structure, not rows of group_fields.cpp's parameter table. A new
# structural key of the group format (a behaviour list, a combiner...) is added here and to the
# schema; every other key must be a group field.
STRUCTURAL_KEYS = {"name", "kind", "technique", "count", "spawn_min", "spawn_max", "offset", "goal", "path",
                   "leader_group", "target_group", "tile_pattern", "track", "pattern",
                   # a composition (sim::Composition): its fields are checked against compose.cpp below
                   "model", "combiner", "behaviors", "filters", "filters.heading_samples", "filters.facing_fraction",
                   "sharpness", "epsilon", "max_angular", "max_rotation", "integration", "actuation"}


def main():
    binary, source_dir = sys.argv[1], sys.argv[2]
    failures = []
    schema = json.load(open(os.path.join(source_dir, "schemas/scenario.schema.json")))
    jsonschema.Draft202012Validator.check_schema(schema)
    v = jsonschema.Draft202012Validator(schema)

    files = sorted(glob.glob(os.path.join(source_dir, "scenarios/*.json")))
    if not files:
        failures.append("no scenarios/*.json found")
    for f in files:
        j = json.load(open(f))
        if j.get("$schema") != SCHEMA_REF:
            failures.append(f"{os.path.basename(f)}: \"$schema\" must be {SCHEMA_REF!r}")
        for e in v.iter_errors(j):
            failures.append(f"{os.path.basename(f)}: {'/'.join(map(str, e.path))}: {e.message}")
    print(f"{len(files)} scenarios validated")

    base = json.load(open(os.path.join(source_dir, "scenarios/gallery.json")))
    def mutated(fn):
        j = copy.deepcopy(base)
        fn(j)
        return j
    controls = {
        "unknown top-level key": mutated(lambda j: j.__setitem__("colour", "red")),
        "width of the wrong type": mutated(lambda j: j.__setitem__("width", "wide")),
        "missing name": mutated(lambda j: j.pop("name")),
        "unknown group key": mutated(lambda j: j["groups"][0].__setitem__("max_sped", 3)),
        "unknown technique": mutated(lambda j: j["groups"][0].__setitem__("technique", "teleport")),
        "group count negative": mutated(lambda j: j["groups"][0].__setitem__("count", -1)),
        "vec2 with three numbers": mutated(lambda j: j["groups"][0].__setitem__("spawn_min", [1, 2, 3])),
        "unknown key in a parameter section": mutated(lambda j: j["groups"][0].__setitem__("flock", {"w_nope": 1})),
        "tile text with a bad character": mutated(lambda j: j.__setitem__("tiles", {"cols": 2, "rows": 1, "rows_text": ["#x"]})),
    }
    for what, j in controls.items():
        if v.is_valid(j):
            failures.append(f"control case accepted by the schema: {what}")
    print(f"{len(controls)} invalid control scenarios rejected" if not any("control" in f for f in failures) else "")

    # Drift against the loader's tables.
    src = open(os.path.join(source_dir, "proto/codec/group_fields.cpp")).read()
    # \s*: clang-format may break a long row after the macro's parenthesis.
    fields = set(re.findall(r'FLOCKSTEP_(?:INT_|BOOL_)?FIELD\(\s*"([a-z_.]+)"', src))
    group = schema["$defs"]["group"]["properties"]
    params = {k for k in group if k not in STRUCTURAL_KEYS}
    sections = {k for k in params if group[k].get("type") == "object"}
    flat_params = params - sections
    if len(fields) < 20:
        failures.append(f"found only {len(fields)} fields in group_fields.cpp: the scan is out of date")
    for f in sorted(fields - flat_params):
        failures.append(f"group field {f!r} (group_fields.cpp) is missing from $defs/group")
    for f in sorted(flat_params - fields):
        failures.append(f"$defs/group key {f!r} is not a group field of group_fields.cpp")
    for sec in sections:
        for k in group[sec]["properties"]:
            if f"{sec}.{k}" not in fields:
                failures.append(f"$defs/group section {sec}.{k} is not a group field")
    world = open(os.path.join(source_dir, "shared/src/sim/scenario.cpp")).read()
    m = re.search(r"kTechniqueNames\[\]\s*=\s*\{(.*?)\};", world, re.S)
    if not m:
        failures.append("kTechniqueNames not found in shared/src/sim/scenario.cpp: the scan is out of date")
    else:
        techniques = set(re.findall(r'"([a-z_]+)"', m.group(1)))
        if techniques != set(group["technique"]["enum"]):
            failures.append(f"technique enum differs from kTechniqueNames: "
                            f"missing {sorted(techniques - set(group['technique']['enum']))}, "
                            f"extra {sorted(set(group['technique']['enum']) - techniques)}")

    # Compositions: behaviour names and fields against compose.cpp's tables.
    compose = open(os.path.join(source_dir, "shared/src/sim/compose.cpp")).read()
    names = set(re.findall(r'\{\s*B::k[A-Za-z]+,\s*"([a-z_]+)"', compose))
    bfields = set(re.findall(r'FLOCKSTEP_B(?:FIELD|INT)\(\s*"([a-z_.]+)"', compose))
    bprops = schema["$defs"]["behavior"]["properties"]
    if len(names) < 20 or names != set(bprops["type"]["enum"]):
        failures.append(f"behaviour type enum differs from compose.cpp: {sorted(names ^ set(bprops['type']['enum']))}")
    for f in sorted(bfields):
        if f.split(".")[0] not in bprops:
            failures.append(f"behaviour field {f!r} (compose.cpp) is missing from $defs/behavior")
    for k in bprops:
        if k != "type" and k not in bfields and not any(f.startswith(k + ".") for f in bfields) and k != "arrive":
            failures.append(f"$defs/behavior key {k!r} is not a behaviour field of compose.cpp")

    # The server's exports of every room.
    with FlockstepServer(binary, source_dir) as srv:
        base_url = f"http://127.0.0.1:{srv.port}"
        rooms = json.load(urllib.request.urlopen(base_url + "/api/rooms", timeout=10))["rooms"]
        for room in rooms:
            export = json.load(urllib.request.urlopen(f"{base_url}/api/rooms/{room['name']}/scenario", timeout=10))
            for e in v.iter_errors(export):
                failures.append(f"export of room {room['name']}: {'/'.join(map(str, e.path))}: {e.message}")
        if len(rooms) != len(files):
            failures.append(f"/api/rooms lists {len(rooms)} rooms for {len(files)} scenario files")
        print(f"{len(rooms)} room exports validated")

    # The server itself: "$schema" is accepted, an unknown key is refused with exit code 2.
    with tempfile.TemporaryDirectory(prefix="flockstep_contracts_") as d:
        good = os.path.join(d, "good.json")
        json.dump(base, open(good, "w"))
        try:
            with FlockstepServer(binary, source_dir, scenario=good, scenario_dir=d):
                print("server loads a scenario with \"$schema\"")
        except RuntimeError as e:
            failures.append(f"server refused a scenario with $schema: {e}")
        bad = os.path.join(d, "bad.json")
        json.dump(mutated(lambda j: j.__setitem__("$schemas", SCHEMA_REF)), open(bad, "w"))
        os.remove(good)
        r = subprocess.run([binary, "--port=0", f"--scenario={bad}", f"--scenario-dir={d}"],
                           capture_output=True, text=True, timeout=30)
        if r.returncode != 2 or "$schemas" not in r.stderr:
            failures.append(f"server with an unknown key: exit {r.returncode}, stderr {r.stderr[-300:]!r}")
        else:
            print("server refuses an unknown key: " + r.stderr.strip().splitlines()[-1])

    for f in failures:
        print("FAIL:", f)
    print(f"contracts: {len(failures)} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
