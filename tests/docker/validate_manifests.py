#!/usr/bin/env python3
"""Validates the deployment files without any cluster or daemon.

  python3 tests/docker/validate_manifests.py [REPO_ROOT]

Checks that deploy/agones/*.yaml and docker-compose.yml are well-formed YAML with the fields the
Agones CRDs and Compose require, that they agree with each other and with the rest of the repo
(fleet name, container port = Dockerfile EXPOSE, environment variables and config-file keys that
the server really has, health period inside the Agones health window), and that the Dockerfile
keeps its contract (BASE_IMAGE argument, non-root user, HEALTHCHECK through the binary).

Why Python + PyYAML: a real YAML parser (Debian's python3-yaml, installed by scripts/setup.sh)
in a few dozen lines; a C++ YAML library is not otherwise needed by the project, and a regex
"parser" would accept broken indentation. Before checking the repo's files the script runs its
checks on broken copies and fails if any of them is accepted, so the checks themselves can fail.
"""
import copy
import json
import os
import re
import sys

try:
    import yaml
except ImportError:  # pragma: no cover - a setup problem, reported as such
    print("validate_manifests: PyYAML missing: install the Debian package python3-yaml (scripts/setup.sh)")
    sys.exit(1)


class Problems:
    def __init__(self, where):
        self.where = where
        self.items = []

    def need(self, cond, what):
        if not cond:
            self.items.append(f"{self.where}: {what}")
        return bool(cond)


def dig(obj, *path):
    """obj[path0][path1]... or None when any step is missing or of the wrong type."""
    for p in path:
        if isinstance(p, int):
            if not isinstance(obj, list) or len(obj) <= p:
                return None
        elif not isinstance(obj, dict) or p not in obj:
            return None
        obj = obj[p]
    return obj


def config_keys(root):
    """The server's configuration keys, from the reference table in docs/server.md."""
    with open(os.path.join(root, "docs/server.md"), encoding="utf-8") as f:
        return set(re.findall(r"^\| `([a-z0-9_]+)` \| `--", f.read(), re.M))


def check_fleet(doc, keys, expose_port, p):
    p.need(doc.get("apiVersion") == "agones.dev/v1", "apiVersion must be agones.dev/v1")
    p.need(doc.get("kind") == "Fleet", "kind must be Fleet")
    p.need(isinstance(dig(doc, "metadata", "name"), str), "metadata.name missing")
    replicas = dig(doc, "spec", "replicas")
    p.need(isinstance(replicas, int) and replicas >= 0, "spec.replicas must be an integer >= 0")
    gs = dig(doc, "spec", "template", "spec")
    p.need(isinstance(gs, dict), "spec.template.spec (the GameServer spec) missing")
    ports = dig(gs, "ports") or []
    p.need(len(ports) >= 1, "spec.template.spec.ports must list the game port")
    for i, port in enumerate(ports):
        p.need(isinstance(dig(port, "name"), str), f"ports[{i}].name missing")
        p.need(dig(port, "containerPort") == expose_port,
               f"ports[{i}].containerPort must be {expose_port} (the Dockerfile's EXPOSE)")
        p.need(dig(port, "protocol") in ("TCP", "TCPUDP"), f"ports[{i}].protocol must carry TCP (WebSocket)")
    containers = dig(gs, "template", "spec", "containers") or []
    p.need(len(containers) >= 1, "spec.template.spec.template.spec.containers missing")
    health_period_s = dig(gs, "health", "periodSeconds")
    p.need(isinstance(health_period_s, int) and health_period_s > 0, "spec.template.spec.health.periodSeconds missing")
    for c in containers:
        p.need(isinstance(c.get("name"), str) and isinstance(c.get("image"), str) and c["image"],
               "every container needs a name and an image")
        env = {e.get("name"): e.get("value") for e in c.get("env") or []}
        for name, value in env.items():
            if name and name.startswith("FLOCKSTEP_"):
                key = name[len("FLOCKSTEP_"):].lower()
                p.need(key in keys, f"env {name}: the server has no key '{key}' (docs/server.md)")
                p.need(isinstance(value, str), f"env {name}: value must be a string (quote numbers)")
        hp = env.get("FLOCKSTEP_AGONES_HEALTH_PERIOD_MS")
        if isinstance(hp, str) and hp.isdigit() and isinstance(health_period_s, int):
            p.need(int(hp) < health_period_s * 1000,
                   f"FLOCKSTEP_AGONES_HEALTH_PERIOD_MS {hp} must be below health.periodSeconds ({health_period_s} s)")
    return dig(doc, "metadata", "name")


def check_autoscaler(doc, fleet_name, p):
    p.need(doc.get("apiVersion") == "autoscaling.agones.dev/v1", "apiVersion must be autoscaling.agones.dev/v1")
    p.need(doc.get("kind") == "FleetAutoscaler", "kind must be FleetAutoscaler")
    p.need(isinstance(dig(doc, "metadata", "name"), str), "metadata.name missing")
    p.need(dig(doc, "spec", "fleetName") == fleet_name, f"spec.fleetName must name the Fleet '{fleet_name}'")
    kind = dig(doc, "spec", "policy", "type")
    p.need(kind in ("Buffer", "Webhook", "Counter", "List"), "spec.policy.type must be Buffer, Webhook, Counter or List")
    if kind == "Buffer":
        b = dig(doc, "spec", "policy", "buffer") or {}
        p.need("bufferSize" in b, "spec.policy.buffer.bufferSize missing")
        lo, hi = b.get("minReplicas", 0), b.get("maxReplicas")
        p.need(isinstance(hi, int), "spec.policy.buffer.maxReplicas missing")
        if isinstance(hi, int) and isinstance(lo, int):
            p.need(0 <= lo <= hi, "minReplicas <= maxReplicas")
            size = b.get("bufferSize")
            if isinstance(size, int):
                p.need(size <= hi, "bufferSize <= maxReplicas")


def check_allocation(doc, fleet_name, p):
    p.need(doc.get("apiVersion") == "allocation.agones.dev/v1", "apiVersion must be allocation.agones.dev/v1")
    p.need(doc.get("kind") == "GameServerAllocation", "kind must be GameServerAllocation")
    selectors = dig(doc, "spec", "selectors") or []
    p.need(len(selectors) >= 1, "spec.selectors missing")
    for i, s in enumerate(selectors):
        p.need(dig(s, "matchLabels", "agones.dev/fleet") == fleet_name,
               f"selectors[{i}] must select the Fleet '{fleet_name}' (agones.dev/fleet)")
        state = s.get("gameServerState", "Ready") if isinstance(s, dict) else None
        p.need(state in ("Ready", "Allocated"), f"selectors[{i}].gameServerState must be Ready or Allocated")


def check_compose(doc, root, keys, expose_port, p):
    server = dig(doc, "services", "server")
    p.need(isinstance(server, dict), "services.server missing")
    if not isinstance(server, dict):
        return
    p.need(isinstance(server.get("image"), str), "services.server.image missing")
    p.need(dig(server, "build", "context") is not None, "services.server.build.context missing")
    p.need("BASE_IMAGE" in (dig(server, "build", "args") or {}), "build.args.BASE_IMAGE missing")
    ports = [str(x) for x in server.get("ports") or []]
    p.need(any(x.endswith(f":{expose_port}") for x in ports), f"ports must publish container port {expose_port}")
    p.need(server.get("restart") == "unless-stopped", "restart must be unless-stopped")
    test = dig(server, "healthcheck", "test") or []
    p.need(isinstance(test, list) and "--healthcheck" in test and test[:1] == ["CMD"],
           "healthcheck.test must be [CMD, flockstep-server, --healthcheck] (no shell, no curl)")
    env = server.get("environment") or {}
    p.need(isinstance(env, dict), "environment must be a mapping")
    for name in env if isinstance(env, dict) else []:
        if name.startswith("FLOCKSTEP_") and name != "FLOCKSTEP_CONFIG":
            key = name[len("FLOCKSTEP_"):].lower()
            p.need(key in keys, f"environment {name}: the server has no key '{key}'")
    config_in = env.get("FLOCKSTEP_CONFIG") if isinstance(env, dict) else None
    mounts = [str(v) for v in server.get("volumes") or []]
    mount = next((m for m in mounts if config_in and m.split(":")[1:2] == [config_in]), None)
    p.need(mount is not None, "the config file must be mounted at FLOCKSTEP_CONFIG")
    if mount:
        p.need(mount.endswith(":ro"), "the config file must be mounted read-only (:ro)")
        host = os.path.join(root, mount.split(":")[0])
        p.need(os.path.isfile(host), f"mounted config file {mount.split(':')[0]} does not exist")
        if os.path.isfile(host):
            with open(host, encoding="utf-8") as f:
                try:
                    cfg = json.load(f)
                except ValueError as e:
                    p.need(False, f"{host} is not JSON: {e}")
                    cfg = {}
            for key in cfg:
                p.need(key in keys, f"{mount.split(':')[0]}: unknown key '{key}'")
            p.need(cfg.get("port", 8080) == expose_port, f"config port must be {expose_port} (the published one)")


def check_dockerfile(text, p):
    p.need(re.search(r"^ARG BASE_IMAGE=debian:bookworm-slim$", text, re.M), "ARG BASE_IMAGE=debian:bookworm-slim missing")
    p.need(len(re.findall(r"^FROM \$\{BASE_IMAGE\}", text, re.M)) >= 2, "both stages must start FROM ${BASE_IMAGE}")
    p.need(re.search(r"cmake --preset release", text), "the build stage must use the release preset")
    p.need(re.search(r"cmake --preset wasm", text), "the build stage must build the wasm viewer")
    users = re.findall(r"^USER (\S+)", text, re.M)
    p.need(users and users[-1] not in ("root", "0"), "the runtime stage must switch to a non-root USER")
    p.need(re.search(r'^HEALTHCHECK .*\n?.*"--healthcheck"', text, re.M), "HEALTHCHECK must call the binary with --healthcheck")
    m = re.search(r"^EXPOSE (\d+)", text, re.M)
    p.need(m, "EXPOSE missing")
    return int(m.group(1)) if m else None


def load_yaml(path, p):
    try:
        with open(path, encoding="utf-8") as f:
            return [d for d in yaml.safe_load_all(f) if d is not None]
    except (OSError, yaml.YAMLError) as e:
        p.need(False, f"not well-formed YAML: {e}")
        return []


def validate(root, docs=None):
    """All problems found; `docs` overrides what is read from disk (the self-test)."""
    problems = []
    keys = config_keys(root)
    if docs is None:
        docs = {}
        with open(os.path.join(root, "Dockerfile"), encoding="utf-8") as f:
            docs["Dockerfile"] = f.read()
        for name in ("docker-compose.yml", "deploy/agones/fleet.yaml", "deploy/agones/fleetautoscaler.yaml",
                     "deploy/agones/gameserverallocation.yaml"):
            p = Problems(name)
            docs[name] = load_yaml(os.path.join(root, name), p)
            problems += p.items
    p = Problems("Dockerfile")
    expose = check_dockerfile(docs["Dockerfile"], p)
    problems += p.items
    p = Problems("deploy/agones/fleet.yaml")
    fleets = docs["deploy/agones/fleet.yaml"]
    fleet_name = check_fleet(fleets[0], keys, expose, p) if p.need(len(fleets) == 1, "one Fleet document") else None
    problems += p.items
    p = Problems("deploy/agones/fleetautoscaler.yaml")
    for d in docs["deploy/agones/fleetautoscaler.yaml"] or [{}]:
        check_autoscaler(d, fleet_name, p)
    problems += p.items
    p = Problems("deploy/agones/gameserverallocation.yaml")
    for d in docs["deploy/agones/gameserverallocation.yaml"] or [{}]:
        check_allocation(d, fleet_name, p)
    problems += p.items
    p = Problems("docker-compose.yml")
    for d in docs["docker-compose.yml"] or [{}]:
        check_compose(d, root, keys, expose, p)
    problems += p.items
    return problems, docs


def self_test(root, good):
    """Each mutation of the good documents must be reported; returns the mutations accepted."""
    def mutate(name, fn):
        docs = copy.deepcopy(good)
        fn(docs[name] if name != "Dockerfile" else docs, docs)
        return validate(root, docs)[0]

    fleet = "deploy/agones/fleet.yaml"
    gs = lambda d: d[0]["spec"]["template"]["spec"]
    env = lambda d: gs(d)["template"]["spec"]["containers"][0]["env"]
    cases = {
        "fleet without containerPort": (fleet, lambda d, _: gs(d)["ports"][0].pop("containerPort")),
        "fleet with an unknown env key": (fleet, lambda d, _: env(d).append({"name": "FLOCKSTEP_NO_SUCH_KEY", "value": "1"})),
        "fleet health slower than Agones' window": (fleet, lambda d, _: gs(d)["health"].update(periodSeconds=1)),
        "autoscaler for another fleet": ("deploy/agones/fleetautoscaler.yaml",
                                         lambda d, _: d[0]["spec"].update(fleetName="other")),
        "allocation without selectors": ("deploy/agones/gameserverallocation.yaml", lambda d, _: d[0]["spec"].pop("selectors")),
        "compose without restart": ("docker-compose.yml", lambda d, _: d[0]["services"]["server"].pop("restart")),
        "compose config mounted writable": ("docker-compose.yml", lambda d, _: d[0]["services"]["server"].update(
            volumes=[v.replace(":ro", "") for v in d[0]["services"]["server"]["volumes"]])),
        "compose healthcheck through a shell": ("docker-compose.yml", lambda d, _: d[0]["services"]["server"]["healthcheck"].update(
            test=["CMD-SHELL", "curl -f http://localhost:8080/healthz"])),
        "Dockerfile running as root": ("Dockerfile", lambda _, docs: docs.update(
            Dockerfile=re.sub(r"^USER .*$", "USER root", docs["Dockerfile"], flags=re.M))),
    }
    return [what for what, (name, fn) in cases.items() if not mutate(name, fn)]


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../.."))
    problems, docs = validate(root)
    for line in problems:
        print("FAIL", line)
    if problems:
        print(f"validate_manifests: {len(problems)} problem(s)")
        return 1
    accepted = self_test(root, docs)
    for what in accepted:
        print("FAIL self-test: a broken file was accepted:", what)
    if accepted:
        return 1
    print("validate_manifests: ok (Dockerfile, docker-compose.yml, 3 Agones manifests; 9 broken variants rejected)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
