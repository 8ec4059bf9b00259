#!/usr/bin/env python3
"""Every PromQL expression of deploy/ evaluated by a real Prometheus scraping a real server.

flockstep-server runs on an OS-chosen loopback port with a bot player and a bot spectator in
its default room (flockstep-bot), so the per-room series exist. Debian's Prometheus runs on
another OS-chosen loopback port with its configuration and storage in a temporary folder,
scraping the server every second and loading deploy/prometheus/alerts.yml. Once it has scraped
a few times, each expression is evaluated through the HTTP query API and must return data:

- the dashboard's template variables (label_values(metric, label), as Grafana asks for them:
  /api/v1/label/<label>/values?match[]=<metric>) each name at least one value;
- every panel query of deploy/grafana/flockstep.json, with the template variables filled in as
  Grafana would: $instance and $room as the regex of all their values ("All"), $__rate_interval
  as RATE_INTERVAL;
- every alert rule's expression, with its top-level comparison turned into a `bool` comparison
  (`x > 0.05` becomes `x > bool 0.05`): a rule that is not firing returns nothing, but its
  `bool` form returns 0 or 1 for every series the left-hand side has, so an empty answer means
  the expression names series the server does not export;
- and Prometheus itself reports every loaded rule as healthy (evaluated without error).

A query naming a metric or label value the server does not export returns an empty result
and fails here (tests/deploy/check_deploy.py checks the names statically; this runs them).

Usage: check_promql_live.py SERVER_BINARY BOT_BINARY SOURCE_DIR
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

from check_deploy import expressions
from flockstep_server import FlockstepServer, LoggedPortProcess, stop

SCRAPE_INTERVAL_S = 1
# Grafana's $__rate_interval is at least four scrape intervals; ten leave two samples in the
# window even when a loaded CI machine delays a scrape or two.
RATE_INTERVAL = f"{10 * SCRAPE_INTERVAL_S}s"
# Scrapes of the server to wait for before querying: more than one rate window's worth.
MIN_SCRAPES = 6
# Everything (server, Prometheus, bots, scrapes, queries) normally takes ~15 s; the ctest
# TIMEOUT is above this.
DEADLINE_S = 90
# The comparison operators of PromQL's binary expressions (longest first for the scan).
COMPARISONS = ("==", "!=", ">=", "<=", ">", "<")


def with_bool(expr):
    """`expr` with its first top-level comparison (outside brackets and strings) followed by
    `bool`. Written by hand: neither Debian's promtool nor Python has a PromQL parser that
    prints the syntax tree; the alert expressions need only their nesting depth tracked."""
    depth, quote, i = 0, None, 0
    while i < len(expr):
        c = expr[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "\"'`":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0:
            op = next((o for o in COMPARISONS if expr.startswith(o, i)), None)
            if op:
                rest = expr[i + len(op):]
                if re.match(r"\s*bool\b", rest):
                    return expr
                return expr[:i + len(op)] + " bool" + rest
        i += 1
    return expr


class Prometheus(LoggedPortProcess):
    """Debian's prometheus scraping one target as job "flockstep", storage in `workdir`."""

    def __init__(self, workdir, target_port, rule_file):
        config = os.path.join(workdir, "prometheus.yml")
        with open(config, "w") as f:
            json.dump({  # JSON is YAML: no YAML writer needed
                "global": {"scrape_interval": f"{SCRAPE_INTERVAL_S}s",
                           "evaluation_interval": f"{SCRAPE_INTERVAL_S}s"},
                "rule_files": [rule_file],
                "scrape_configs": [{"job_name": "flockstep",
                                    "static_configs": [{"targets": [f"127.0.0.1:{target_port}"]}]}],
            }, f)
        super().__init__(["prometheus", f"--config.file={config}",
                          f"--storage.tsdb.path={os.path.join(workdir, 'data')}",
                          "--web.listen-address=127.0.0.1:0"],
                         r'msg="Listening on" address=[^ ]*:(\d+)', "prometheus")

    def api(self, path, **params):
        """GET /api/v1/<path>; returns `data` of a successful answer, raises otherwise."""
        query = urllib.parse.urlencode(params, doseq=True)
        url = f"http://127.0.0.1:{self.port}/api/v1/{path}?{query}"
        try:
            body = json.load(urllib.request.urlopen(url, timeout=10))
        except urllib.error.HTTPError as e:  # 400/422 say why in JSON; 503 while starting in text
            text = e.read().decode(errors="replace")
            try:
                body = json.loads(text)
            except ValueError:
                raise AssertionError(f"HTTP {e.code}: {text.strip()[:200]}") from None
        if body.get("status") != "success":
            raise AssertionError(f"{body.get('errorType')}: {body.get('error')}")
        return body["data"]

    def query(self, expr):
        return self.api("query", query=expr)["result"]


def regex_of(values):
    """Grafana's "All" of a multi-value variable: the values as one regex alternation, written
    for a PromQL string literal (whose own escapes need each regex backslash doubled)."""
    return "(" + "|".join(re.escape(v).replace("\\", "\\\\") for v in values) + ")"


def wait_for_scrapes(prom, deadline):
    while time.monotonic() < deadline:
        try:
            r = prom.query('count_over_time(up{job="flockstep"}[1m])')
            if r and float(r[0]["value"][1]) >= MIN_SCRAPES:
                return True
        except (AssertionError, OSError):
            pass  # Prometheus is still starting
        time.sleep(0.5)
    return False


def evaluate(prom, source_dir):
    """([(where, expression, result count)], failures)."""
    failures, done = [], []
    variables = {}
    dash = json.load(open(os.path.join(source_dir, "deploy/grafana/flockstep.json")))
    for v in dash["templating"]["list"]:
        if v.get("type") != "query":
            continue
        m = re.fullmatch(r"\s*label_values\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\s*,\s*(\w+)\s*\)\s*", v["definition"])
        if not m:
            failures.append(f"variable {v['name']}: not label_values(metric, label): {v['definition']}")
            continue
        values = prom.api(f"label/{m.group(2)}/values", **{"match[]": m.group(1)})
        done.append((f"variable ${v['name']}", v["definition"], len(values)))
        if not values:
            failures.append(f"variable ${v['name']} ({v['definition']}) has no values")
        variables[v["name"]] = regex_of(values) if values else "^$"

    for where, expr in expressions(source_dir):
        if where.startswith("flockstep.json variable"):
            continue  # evaluated above through the label API, as Grafana does
        q = expr.replace("$__rate_interval", RATE_INTERVAL)
        for name, value in variables.items():
            q = q.replace("${" + name + "}", value).replace("$" + name, value)
        if where.startswith("alerts.yml"):
            q = with_bool(q)
        if "$" in q:
            failures.append(f"{where}: unknown template variable left in {q}")
            continue
        try:
            result = prom.query(q)
        except AssertionError as e:
            failures.append(f"{where}: Prometheus rejected {q}: {e}")
            continue
        done.append((where, q, len(result)))
        if not result:
            failures.append(f"{where}: no data for {q}")
    return done, failures


def rule_health(prom, expected):
    """Prometheus loaded `expected` rules and evaluated each without error."""
    failures, count = [], 0
    for group in prom.api("rules")["groups"]:
        for rule in group["rules"]:
            count += 1
            if rule.get("health") != "ok":
                failures.append(f"rule {rule['name']}: health {rule.get('health')} {rule.get('lastError', '')}")
    if count != expected:
        failures.append(f"Prometheus loaded {count} rules from alerts.yml, the file has {expected}")
    return failures


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    server_bin, bot_bin, source_dir = sys.argv[1:]
    rules = os.path.abspath(os.path.join(source_dir, "deploy/prometheus/alerts.yml"))
    deadline = time.monotonic() + DEADLINE_S
    failures = []
    with tempfile.TemporaryDirectory(prefix="flockstep_promql_") as work, \
            FlockstepServer(server_bin, source_dir) as server:
        # One player and one spectator for as long as the test can run; stopped below.
        bots = subprocess.Popen([bot_bin, f"--port={server.port}", "--connections=2", "--players=1",
                                 f"--duration={DEADLINE_S}", "--script=random"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            with Prometheus(work, server.port, rules) as prom:
                if not wait_for_scrapes(prom, deadline):
                    failures.append(f"Prometheus did not scrape the server {MIN_SCRAPES} times in {DEADLINE_S} s:\n"
                                    + "".join(prom.log[-20:]))
                else:
                    # Rules are evaluated every scrape interval: wait one so each has run.
                    time.sleep(SCRAPE_INTERVAL_S * 2)
                    done, more = evaluate(prom, source_dir)
                    expected = sum(w.startswith("alerts.yml") for w, _ in expressions(source_dir))
                    failures += more + rule_health(prom, expected)
                    for where, q, n in done:
                        print(f"{n:3} series  {where}: {' '.join(q.split())}")
        finally:
            stop(bots)
    for f in failures:
        print("FAIL:", f)
    print(f"PromQL evaluated by Prometheus against a live server: {len(failures)} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
