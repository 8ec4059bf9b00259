#!/usr/bin/env python3
"""deploy/ against the real server: `promtool check rules` accepts deploy/prometheus/alerts.yml,
and every metric (and every label value matched with `=`) that the rules and the Grafana
dashboard name exists in a real flockstep-server's /metrics scrape. A renamed metric or label
fails here instead of silently emptying a panel or an alert.

Usage: check_deploy.py SERVER_BINARY SOURCE_DIR
"""
import json
import re
import subprocess
import sys
import urllib.request

import yaml

from flockstep_server import FlockstepServer

# Series that Prometheus itself adds to every target; not in a scrape.
SYNTHETIC = {"up"}
# Labels that Prometheus attaches per target; not in a scrape.
TARGET_LABELS = {"job", "instance"}
# A PromQL selector: metric name, optional {matchers}.
SELECTOR = re.compile(r"\b([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\{[^}]*\})?")
MATCHER = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!=|!~|=)\s*"([^"]*)"')


def parse_scrape(text):
    """{sample name: [label dict, ...]} of a text-format scrape."""
    samples = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = re.match(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? \S+$", line)
        if not m:
            raise AssertionError(f"unparseable scrape line: {line!r}")
        labels = dict(re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"', m.group(3) or ""))
        samples.setdefault(m.group(1), []).append(labels)
    return samples


def referenced(expr):
    """(metric name, {label: value} for `=` matchers) for every flockstep_/process_/up selector."""
    out = []
    for name, braces in SELECTOR.findall(expr):
        if not (name.startswith("flockstep_") or name.startswith("process_") or name in SYNTHETIC):
            continue
        eq = {k: v for k, op, v in MATCHER.findall(braces or "") if op == "=" and k not in TARGET_LABELS
              and "$" not in v}
        out.append((name, eq))
    return out


def expressions(source_dir):
    rules = yaml.safe_load(open(f"{source_dir}/deploy/prometheus/alerts.yml"))
    exprs = [("alerts.yml " + r["alert"], r["expr"]) for g in rules["groups"] for r in g["rules"]]
    dash = json.load(open(f"{source_dir}/deploy/grafana/flockstep.json"))
    for p in dash["panels"]:
        for t in p.get("targets", []):
            exprs.append((f"flockstep.json panel '{p['title']}'", t["expr"]))
    for v in dash["templating"]["list"]:
        if v.get("type") == "query":
            exprs.append((f"flockstep.json variable '{v['name']}'", v["definition"]))
    return exprs


def main():
    binary, source_dir = sys.argv[1], sys.argv[2]
    failures = []
    r = subprocess.run(["promtool", "check", "rules", f"{source_dir}/deploy/prometheus/alerts.yml"],
                       capture_output=True, text=True)
    print(r.stdout + r.stderr, end="")
    if r.returncode != 0:
        failures.append("promtool check rules failed")

    with FlockstepServer(binary, source_dir) as s:
        scrape = urllib.request.urlopen(f"http://127.0.0.1:{s.port}/metrics", timeout=10).read().decode()
    samples = parse_scrape(scrape)

    exprs = expressions(source_dir)
    checked = 0
    for where, expr in exprs:
        refs = referenced(expr)
        if not refs:
            failures.append(f"{where}: names no flockstep metric: {expr}")
        for name, eq in refs:
            checked += 1
            if name in SYNTHETIC:
                continue
            if name not in samples:
                failures.append(f"{where}: metric {name} is not in the scrape")
                continue
            if eq and not any(all(l.get(k) == v for k, v in eq.items()) for l in samples[name]):
                failures.append(f"{where}: no {name} series with {eq}")
    for f in failures:
        print("FAIL:", f)
    print(f"{len(exprs)} expressions, {checked} metric references checked against "
          f"{len(samples)} scraped sample names: {len(failures)} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
