#!/usr/bin/env python3
"""docs/openapi.yaml against the real server.

1. Every (route, method, status) the document lists is provoked on a real flockstep-server
   (loopback, OS-chosen port) with the request in PROBES, and the answer's status and
   Content-Type must be the documented ones, and its body must validate against the schema
   documented for that content type (python3-jsonschema; `$ref`s into the document resolved,
   a `$ref` to a separate schema file validated under that file's own `$schema`).
2. PROBES has no case the document lacks, and only the statuses in UNPROBED (each with its
   reason) go unprovoked.
3. Every route literal the server's router compares against (server/src/net/http_session.cpp)
   is a documented path, so a new route without documentation fails here.

Usage: check_openapi.py SERVER_BINARY SOURCE_DIR
"""
import base64
import http.client
import json
import os
import re
import socket
import sys
import tempfile
import urllib.parse
import urllib.request

import jsonschema
import yaml

from flockstep_server import FlockstepServer

TOKEN = "openapi-test-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
WS = {"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13",
      "Sec-WebSocket-Key": base64.b64encode(b"0123456789abcdef").decode()}

# A scenario file to publish (the lab's export has this shape).
PUBLISHED = json.dumps({"name": "lab", "width": 60, "height": 60,
                        "groups": [{"name": "boids", "technique": "flock", "count": 5}]}).encode()

# (path, method, status) -> (server, target, headers, body). Servers: "main" (admin token, web
# root, allowed_origins set, echo off), "plain" (no admin token, echo on).
PROBES = {
    ("/", "get", "200"): ("main", "/", {}, None),
    ("/", "get", "404"): ("plain", "/", {}, None),
    ("/{file}", "get", "200"): ("main", "/viewer.wasm", {}, None),
    ("/{file}", "get", "400"): ("main", "/bad%zzname", {}, None),
    ("/{file}", "get", "403"): ("main", "/js/%2e%2e/%2e%2e/etc/passwd", {}, None),
    ("/{file}", "get", "404"): ("main", "/missing.txt", {}, None),
    ("/ws", "get", "101"): ("main", "/ws", WS, None),
    ("/ws", "get", "403"): ("main", "/ws", dict(WS, Origin="https://evil.example"), None),
    ("/ws", "get", "426"): ("main", "/ws", {}, None),
    ("/echo", "get", "101"): ("plain", "/echo", WS, None),
    ("/echo", "get", "404"): ("main", "/echo", WS, None),
    ("/healthz", "get", "200"): ("main", "/healthz", {}, None),
    ("/healthz", "get", "431"): ("main", "/healthz", {"X-Padding": "x" * 20000}, None),
    ("/readyz", "get", "200"): ("main", "/readyz", {}, None),
    ("/metrics", "get", "200"): ("main", "/metrics", {}, None),
    ("/api/rooms", "get", "200"): ("main", "/api/rooms", {}, None),
    ("/api/rooms/{name}/scenario", "get", "200"): ("main", "/api/rooms/gallery/scenario", {}, None),
    ("/api/rooms/{name}/scenario", "get", "404"): ("main", "/api/rooms/no-such-room/scenario", {}, None),
    ("/api/admin/clients", "get", "200"): ("main", "/api/admin/clients", AUTH, None),
    ("/api/admin/clients", "get", "401"): ("main", "/api/admin/clients", {"Authorization": "Bearer wrong"}, None),
    ("/api/admin/clients", "get", "404"): ("plain", "/api/admin/clients", AUTH, None),
    ("/api/admin/kick", "post", "200"): ("main", "/api/admin/kick?conn={ws_conn}", AUTH, b""),
    ("/api/admin/kick", "post", "400"): ("main", "/api/admin/kick?conn=x", AUTH, b""),
    ("/api/admin/kick", "post", "401"): ("main", "/api/admin/kick?conn=1", {}, b""),
    ("/api/admin/kick", "post", "404"): ("main", "/api/admin/kick?conn=999999", AUTH, b""),
    ("/api/admin/rooms/{name}/groups/{index}", "post", "200"):
        ("main", "/api/admin/rooms/arena/groups/0", AUTH, b'{"max_speed": 9}'),
    ("/api/admin/rooms/{name}/groups/{index}", "post", "400"):
        ("main", "/api/admin/rooms/arena/groups/0", AUTH, b'{"no_such_field": 1}'),
    ("/api/admin/rooms/{name}/groups/{index}", "post", "401"):
        ("main", "/api/admin/rooms/arena/groups/0", {}, b'{"max_speed": 9}'),
    ("/api/admin/rooms/{name}/groups/{index}", "post", "404"):
        ("main", "/api/admin/rooms/no-such-room/groups/0", AUTH, b'{"max_speed": 9}'),
    ("/api/admin/rooms/{name}/groups/{index}", "post", "409"):
        ("main", "/api/admin/rooms/gallery/groups/0", AUTH, b'{"max_speed": 9}'),
    ("/api/admin/rooms/{name}/groups/{index}", "post", "413"):
        ("main", "/api/admin/rooms/arena/groups/0", AUTH, b'{"max_speed": 9' + b" " * 17000 + b"}"),
    # Input-log recordings: the main server's recordings_dir holds a complete recording
    # ("seed.fslog", a fuzz seed) and one cut short ("cut.fslog"); probes run in sorted order, so
    # the start (200) comes before the second start (409).
    # Publishing: the main server's published_dir holds "probe" (a published room) at start-up;
    # the DELETE (200) comes before the PUTs in sorted order.
    ("/api/admin/published", "get", "200"): ("main", "/api/admin/published", AUTH, None),
    ("/api/admin/published", "get", "401"): ("main", "/api/admin/published", {}, None),
    ("/api/admin/published/{name}", "delete", "200"): ("main", "/api/admin/published/probe", AUTH, None),
    ("/api/admin/published/{name}", "delete", "401"): ("main", "/api/admin/published/probe", {}, None),
    ("/api/admin/published/{name}", "delete", "404"): ("main", "/api/admin/published/nothere", AUTH, None),
    ("/api/admin/published/{name}", "put", "200"): ("main", "/api/admin/published/lab-room", AUTH, PUBLISHED),
    ("/api/admin/published/{name}", "put", "400"):
        ("main", "/api/admin/published/lab-room", AUTH, b'{"groups": [{"count": "many"}]}'),
    ("/api/admin/published/{name}", "put", "401"): ("main", "/api/admin/published/lab-room", {}, PUBLISHED),
    ("/api/admin/published/{name}", "put", "409"): ("main", "/api/admin/published/arena", AUTH, PUBLISHED),
    ("/api/admin/published/{name}", "put", "413"):
        ("main", "/api/admin/published/lab-room", AUTH, b'{"description": "' + b"x" * 70000 + b'"}'),
    ("/api/admin/recordings", "get", "200"): ("main", "/api/admin/recordings", AUTH, None),
    ("/api/admin/recordings", "get", "401"): ("main", "/api/admin/recordings", {}, None),
    ("/api/admin/recordings/{file}", "get", "200"): ("main", "/api/admin/recordings/seed.fslog", AUTH, None),
    ("/api/admin/recordings/{file}", "get", "401"): ("main", "/api/admin/recordings/seed.fslog", {}, None),
    ("/api/admin/recordings/{file}", "get", "404"): ("main", "/api/admin/recordings/none.fslog", AUTH, None),
    ("/api/admin/recordings/{file}", "get", "409"): ("main", "/api/admin/recordings/cut.fslog", AUTH, None),
    ("/api/admin/rooms/{name}/recording/{action}", "post", "200"):
        ("main", "/api/admin/rooms/arena/recording/start", AUTH, b""),
    ("/api/admin/rooms/{name}/recording/{action}", "post", "401"):
        ("main", "/api/admin/rooms/arena/recording/start", {}, b""),
    ("/api/admin/rooms/{name}/recording/{action}", "post", "404"):
        ("main", "/api/admin/rooms/no-such-room/recording/start", AUTH, b""),
    ("/api/admin/rooms/{name}/recording/{action}", "post", "409"):
        ("main", "/api/admin/rooms/arena/recording/start", AUTH, b""),
}
# Documented but not provoked here, and why.
UNPROBED = {
    ("/readyz", "get", "503"): "only during a graceful shutdown (tests/server/net/shutdown_test.cpp)",
    ("/ws", "get", "429"): "needs more than max_sessions_per_address (64) connections from the probe's address "
                           "(tests/server/net/proxy_test.cpp provokes it)",
    ("/api/admin/clients", "get", "429"): "would lock the probe's address out of every admin probe for 60 s "
                                          "(tests/server/net/access_test.cpp provokes it)",
    ("/api/admin/rooms/{name}/groups/{index}", "post", "503"): "needs a game thread that stalls for 2 s",
    ("/api/admin/published/{name}", "put", "503"):
        "needs a server with an admin token but no published_dir (tests/server/net/publish_test.cpp provokes it)",
    ("/api/admin/rooms/{name}/recording/{action}", "post", "503"):
        "needs a server with an admin token but no recordings_dir (tests/server/net/rooms_test.cpp provokes it)",
}


def documented(doc):
    """{(path, method, status): {content type: schema}}."""
    out = {}
    for path, ops in doc["paths"].items():
        for method, op in ops.items():
            for status, resp in op["responses"].items():
                if "$ref" in resp:
                    resp = doc["components"]["responses"][resp["$ref"].split("/")[-1]]
                out[(path, method, str(status))] = {t: c.get("schema") for t, c in resp.get("content", {}).items()}
    return out


class BodyValidator:
    """Response bodies against the document's schemas.

    OpenAPI 3.0 schemas are JSON Schema draft 4 plus a few annotations (example, format: binary)
    that draft 4 ignores, so Draft4Validator checks them, with `#/components/...` resolved
    against the whole document. A schema that is only a `$ref` to another file (the scenario
    schema) is validated with that file's own dialect. JSON bodies are parsed first; other
    bodies are the string their schema describes."""

    def __init__(self, doc, doc_path):
        self.doc = doc
        self.base = urllib.parse.urljoin("file:", urllib.request.pathname2url(os.path.abspath(doc_path)))
        self.resolver = jsonschema.RefResolver(self.base, doc)

    def errors(self, schema, ctype, body):
        """Why `body` does not match `schema` (a list of messages, empty if it matches)."""
        if schema is None:
            return [] if not body else [f"{len(body)} bytes of body but no schema documented"]
        if ctype == "application/json":
            try:
                instance = json.loads(body)
            except ValueError as e:
                return [f"not JSON: {e}"]
        elif schema.get("format") == "binary":
            instance = body.decode("latin-1")  # any bytes: the schema says only "a string"
        else:
            try:
                instance = body.decode("utf-8")
            except UnicodeDecodeError as e:
                return [f"not UTF-8 text: {e}"]
        ref = schema.get("$ref", "")
        if ref and not ref.startswith("#"):
            url = urllib.parse.urljoin(self.base, ref)
            external = json.load(urllib.request.urlopen(url))
            validator = jsonschema.validators.validator_for(external)(external)
        else:
            validator = jsonschema.Draft4Validator(schema, resolver=self.resolver)
        return [f"{'/'.join(map(str, e.absolute_path)) or '(body)'}: {e.message}"
                for e in validator.iter_errors(instance)]


def request(port, method, target, headers, body):
    """(status, Content-Type, body bytes; empty for 101)."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.request(method.upper(), target, body=body, headers=headers)
    r = c.getresponse()
    status, ctype = r.status, r.getheader("Content-Type")
    data = r.read() if status != 101 else b""
    c.close()
    return status, ctype, data


def ws_connection_id(port):
    """Open a WebSocket (kept open) and find its connection id in /api/admin/clients."""
    before = set()
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(("GET /ws HTTP/1.1\r\nHost: x\r\n" + "".join(f"{k}: {v}\r\n" for k, v in WS.items()) + "\r\n").encode())
    assert s.recv(4096).startswith(b"HTTP/1.1 101"), "WebSocket for the kick probe not accepted"
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.request("GET", "/api/admin/clients", headers=AUTH)
    clients = json.loads(c.getresponse().read())["clients"]
    ids = [x["conn"] for x in clients if x["conn"] not in before]
    assert ids, f"the probe's WebSocket is not listed: {clients}"
    return s, ids[-1]


def main():
    binary, source_dir = sys.argv[1], sys.argv[2]
    doc_path = os.path.join(source_dir, "docs/openapi.yaml")
    doc = yaml.safe_load(open(doc_path))
    assert doc["openapi"].startswith("3."), "not an OpenAPI 3 document"
    docs = documented(doc)
    bodies = BodyValidator(doc, doc_path)
    validated = 0
    failures = []
    for key in docs:
        if key not in PROBES and key not in UNPROBED:
            failures.append(f"documented but never probed: {key}")
    for key in list(PROBES) + list(UNPROBED):
        if key not in docs:
            failures.append(f"the server answers {key} but docs/openapi.yaml does not document it")

    # 3. Route literals in the router.
    router = open(os.path.join(source_dir, "server/src/net/http_session.cpp")).read()
    literals = set(re.findall(r'path(?:\.substr\(0, \d+\))? == "(/[^"]*)"', router))
    patterns = [re.compile("^" + re.sub(r"\{[^}]+\}", "[^/]+", p) + "$") for p in doc["paths"] if p != "/{file}"]
    for lit in sorted(literals):
        if lit.endswith("/"):  # a prefix: some documented path must start with it
            ok = any(p.startswith(lit) for p in doc["paths"])
        else:
            ok = any(p.match(lit) for p in patterns)
        if not ok:
            failures.append(f"route {lit!r} in http_session.cpp is not documented")
    if len(literals) < 8:
        failures.append(f"found only {sorted(literals)} in http_session.cpp: the route scan is out of date")

    with tempfile.TemporaryDirectory(prefix="flockstep_openapi_") as web:
        open(os.path.join(web, "index.html"), "w").write("<!doctype html><title>t</title>")
        open(os.path.join(web, "viewer.wasm"), "wb").write(b"\0asm\1\0\0\0")
        os.mkdir(os.path.join(web, "js"))
        recordings = os.path.join(web, "recordings")
        os.mkdir(recordings)
        seed = open(os.path.join(source_dir, "tests/fuzz/corpus/input_log/pursuit.bin"), "rb").read()
        open(os.path.join(recordings, "seed.fslog"), "wb").write(seed)
        open(os.path.join(recordings, "cut.fslog"), "wb").write(seed[:-20])
        published = os.path.join(web, "published")
        os.mkdir(published)
        open(os.path.join(published, "probe.json"), "wb").write(PUBLISHED)
        main_srv = FlockstepServer(binary, source_dir, web_root=web,
                                   extra_args=["--allowed-origins=https://game.example",
                                               f"--recordings-dir={recordings}",
                                               f"--published-dir={published}"],
                                   env={"FLOCKSTEP_ADMIN_TOKEN": TOKEN})
        plain_srv = FlockstepServer(binary, source_dir, extra_args=["--echo-endpoint=on"])
        with main_srv as m, plain_srv as p:
            ports = {"main": m.port, "plain": p.port}
            ws_sock, conn = ws_connection_id(m.port)
            for key, (server, target, headers, body) in sorted(PROBES.items()):
                if key not in docs:
                    continue
                path, method, want = key
                target = target.replace("{ws_conn}", str(conn))
                status, ctype, data = request(ports[server], method, target, headers, body)
                types = docs[key]
                what = f"{method.upper()} {target[:60]} -> {status}"
                if str(status) != want:
                    failures.append(f"{method.upper()} {target}: status {status}, documented {want}")
                elif types and ctype not in types:
                    failures.append(f"{what}: Content-Type {ctype!r}, documented {sorted(types)}")
                elif not types and status != 101 and ctype:
                    failures.append(f"{what}: Content-Type {ctype!r} but none documented")
                else:
                    problems = bodies.errors(types.get(ctype), ctype, data)
                    validated += bool(types)
                    failures += [f"{what}: body against its schema: {p}" for p in problems]
                    if not problems:
                        print(f"ok  {method.upper():4} {target[:60]:60} {status} {ctype or ''}")
            ws_sock.close()
    for f in failures:
        print("FAIL:", f)
    print(f"{len(docs)} documented responses, {len(PROBES)} probed, {validated} bodies validated against their "
          f"schemas, {len(UNPROBED)} not probed (reasons in the test), {len(literals)} router literals: "
          f"{len(failures)} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
