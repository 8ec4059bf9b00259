#!/usr/bin/env python3
"""deploy/nginx/flockstep.conf in front of a real flockstep-server: nginx (Debian nginx-light)
terminates TLS with a throw-away self-signed certificate (openssl) on loopback, and we prove that
HTTPS serves the viewer's static files and /healthz, that a WSS upgrade of /ws reaches the server
(101 with the right Sec-WebSocket-Accept, then a ping answered by a pong through the tunnel), that
plain HTTP redirects to HTTPS, and that the server sees the real client behind nginx: the server
trusts the proxy (trusted_proxies=127.0.0.1), a WSS client connects from another loopback address
(127.0.0.2) claiming a spoofed X-Forwarded-For, and /api/admin/clients shows 127.0.0.2 as its
address (nginx appends the address it saw; the right-most untrusted one is the client).

Exit 0 pass, 1 fail, 77 skipped (ctest SKIP_RETURN_CODE): only when nginx cannot start at all
(binary missing, or it cannot launch here), and then with a loud message. A config that nginx
rejects (`nginx -t`) is a failure, not a skip.

Usage: tls_proxy_test.py SERVER_BINARY SOURCE_DIR
"""
import base64
import hashlib
import http.client
import json
import os
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import time

from flockstep_server import FlockstepServer

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
NGINX_START_TIMEOUT_S = 10
INDEX = "<!doctype html><title>flockstep behind nginx</title>\n"
ADMIN_TOKEN = "tls-proxy-test-token"
# The WSS test client's source address: loopback, but not nginx's own 127.0.0.1 towards the server.
CLIENT_ADDRESS = "127.0.0.2"


def skip(why):
    print(f"SKIPPED (loudly): nginx cannot start: {why}", flush=True)
    sys.exit(77)


def free_port():
    """A port the OS chose for us; nginx cannot report an OS-chosen port itself, so it gets this
    one (a tiny race with other processes; a bind failure is retried)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_cert(d):
    cert, key = os.path.join(d, "cert.pem"), os.path.join(d, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                    "-keyout", key, "-out", cert], check=True, capture_output=True)
    return cert, key


def nginx_conf(source_dir, d, upstream_port, tls_port, http_port, cert, key):
    """The checked-in server config with only its listen lines, upstream and certificate paths
    changed, inside a minimal main config that keeps every file in the temp dir."""
    site = open(os.path.join(source_dir, "deploy/nginx/flockstep.conf")).read()
    for old, new in [("listen 443 ssl;", f"listen 127.0.0.1:{tls_port} ssl;"),
                     ("listen 80;", f"listen 127.0.0.1:{http_port};"),
                     ("server 127.0.0.1:8080;", f"server 127.0.0.1:{upstream_port};"),
                     ("/etc/ssl/flockstep/fullchain.pem", cert),
                     ("/etc/ssl/flockstep/privkey.pem", key)]:
        assert old in site, f"deploy/nginx/flockstep.conf no longer contains {old!r}"
        site = site.replace(old, new)
    open(os.path.join(d, "flockstep.conf"), "w").write(site)
    user = "user root root;\n" if os.geteuid() == 0 else ""
    main = f"""{user}worker_processes 1;
daemon off;
pid {d}/nginx.pid;
error_log {d}/error.log info;
events {{ worker_connections 64; }}
http {{
  access_log {d}/access.log;
  client_body_temp_path {d}/body;
  proxy_temp_path {d}/proxy;
  fastcgi_temp_path {d}/fastcgi;
  uwsgi_temp_path {d}/uwsgi;
  scgi_temp_path {d}/scgi;
  include {d}/flockstep.conf;
}}
"""
    path = os.path.join(d, "nginx.conf")
    open(path, "w").write(main)
    return path


def wait_port(port, proc, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.05)
    return False


def wss_open(port, ctx, source="127.0.0.1", extra_headers=""):
    """Upgrade /ws over TLS from `source`, check the handshake; the socket and bytes after it."""
    key = base64.b64encode(os.urandom(16)).decode()
    raw = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
    s = ctx.wrap_socket(raw, server_hostname="localhost")
    s.sendall((f"GET /ws HTTP/1.1\r\nHost: localhost:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n{extra_headers}\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(4096)
        assert chunk, f"connection closed during the handshake: {head!r}"
        head += chunk
    head, rest = head.split(b"\r\n\r\n", 1)
    lines = head.decode().split("\r\n")
    assert lines[0].startswith("HTTP/1.1 101"), f"expected 101 Switching Protocols, got {lines[0]!r}"
    headers = {l.split(":", 1)[0].strip().lower(): l.split(":", 1)[1].strip() for l in lines[1:]}
    want = base64.b64encode(hashlib.sha1((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest()).decode()
    assert headers.get("sec-websocket-accept") == want, f"bad Sec-WebSocket-Accept: {headers}"
    return s, rest


def wss_ping(port, ctx):
    """Upgrade /ws over TLS, send a masked ping, expect its pong."""
    s, rest = wss_open(port, ctx)
    payload, mask = b"flockstep-tls", os.urandom(4)
    s.sendall(bytes([0x89, 0x80 | len(payload)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
    buf = rest
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:  # skip any frames the server sends first
        while len(buf) >= 2:
            op, n = buf[0] & 0x0F, buf[1] & 0x7F
            off = 2
            if n == 126:
                if len(buf) < 4:
                    break
                n, off = int.from_bytes(buf[2:4], "big"), 4
            elif n == 127:
                if len(buf) < 10:
                    break
                n, off = int.from_bytes(buf[2:10], "big"), 10
            if len(buf) < off + n:
                break
            body, buf = buf[off:off + n], buf[off + n:]
            if op == 0xA:
                assert body == payload, f"pong carries {body!r}"
                s.close()
                return
            assert op != 0x8, f"server closed the WebSocket: {body!r}"
        chunk = s.recv(65536)
        assert chunk, "connection closed before the pong"
        buf += chunk
    raise AssertionError("no pong within 10 s")


def check_forwarded_cleared(source_dir):
    """Every proxy_set_header list of the checked-in config clears the client's Forwarded header
    (nginx replaces the whole inherited list in a location that sets its own, so each list needs
    it): a server configured with forwarded_header=Forwarded then never reads a client's claim."""
    site = open(os.path.join(source_dir, "deploy/nginx/flockstep.conf")).read()
    lists = site.count("proxy_set_header X-Forwarded-For")
    cleared = site.count('proxy_set_header Forwarded         "";')
    assert lists >= 2 and cleared == lists, \
        f"deploy/nginx/flockstep.conf: {lists} header lists but Forwarded cleared in {cleared}"


def main():
    binary, source_dir = sys.argv[1], sys.argv[2]
    try:
        check_forwarded_cleared(source_dir)
    except AssertionError as e:
        print(f"FAIL: {e}")
        return 1
    if not os.path.exists(NGINX):
        skip(f"{NGINX} not found (install the Debian package nginx-light; scripts/setup.sh does)")
    with tempfile.TemporaryDirectory(prefix="flockstep_tls_") as d:
        os.chmod(d, 0o755)
        web = os.path.join(d, "web")
        os.mkdir(web)
        open(os.path.join(web, "index.html"), "w").write(INDEX)
        cert, key = make_cert(d)
        with FlockstepServer(binary, source_dir, web_root=web, extra_args=["--trusted-proxies=127.0.0.1"],
                             env={"FLOCKSTEP_ADMIN_TOKEN": ADMIN_TOKEN}) as server:
            proc = None
            for attempt in range(3):
                tls_port, http_port = free_port(), free_port()
                conf = nginx_conf(source_dir, d, server.port, tls_port, http_port, cert, key)
                t = subprocess.run([NGINX, "-t", "-p", d, "-e", f"{d}/error.log", "-c", conf],
                                   capture_output=True, text=True)
                if t.returncode != 0:
                    if "emerg" in t.stderr and ("bind()" in t.stderr or "Permission denied" in t.stderr
                                                or "Operation not permitted" in t.stderr):
                        skip(t.stderr.strip())
                    print("FAIL: nginx rejects deploy/nginx/flockstep.conf:\n" + t.stderr)
                    return 1
                try:
                    proc = subprocess.Popen([NGINX, "-p", d, "-e", f"{d}/error.log", "-c", conf],
                                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                except OSError as e:
                    skip(str(e))
                if wait_port(tls_port, proc, NGINX_START_TIMEOUT_S) and wait_port(http_port, proc, 2):
                    break
                err = proc.stderr.read() if proc.poll() is not None else ""
                proc.kill()
                proc.wait()
                proc = None
                if "Address already in use" not in err:
                    skip(err.strip() or "did not listen within the start timeout")
            if proc is None:
                skip("ports kept being taken by other processes")
            try:
                ctx = ssl.create_default_context(cafile=cert)
                c = http.client.HTTPSConnection("localhost", tls_port, context=ctx, timeout=10)
                c.request("GET", "/")
                r = c.getresponse()
                body = r.read().decode()
                assert r.status == 200 and body == INDEX, f"GET / over HTTPS: {r.status} {body!r}"
                assert r.getheader("Content-Type", "").startswith("text/html"), r.getheader("Content-Type")
                c.request("GET", "/healthz")
                r = c.getresponse()
                assert (r.status, r.read()) == (200, b"ok\n"), "GET /healthz over HTTPS"
                c.request("GET", "/api/rooms")
                r = c.getresponse()
                assert r.status == 200 and b"arena" in r.read(), "GET /api/rooms over HTTPS"
                c.close()
                print(f"HTTPS: static index, /healthz and /api/rooms through nginx on 127.0.0.1:{tls_port}")
                wss_ping(tls_port, ctx)
                print("WSS: /ws upgraded through nginx (101, Sec-WebSocket-Accept), ping answered by pong")
                h = http.client.HTTPConnection("127.0.0.1", http_port, timeout=10)
                h.request("GET", "/index.html", headers={"Host": "example.test"})
                r = h.getresponse()
                assert r.status == 301 and r.getheader("Location") == "https://example.test/index.html", \
                    f"plain HTTP: {r.status} {r.getheader('Location')}"
                print("HTTP: redirected to HTTPS")
                # Both forwarding headers spoofed: nginx appends to X-Forwarded-For and clears Forwarded.
                ws, _ = wss_open(tls_port, ctx, source=CLIENT_ADDRESS,
                                 extra_headers="X-Forwarded-For: 203.0.113.66\r\nForwarded: for=198.51.100.66\r\n")
                try:
                    c = http.client.HTTPSConnection("localhost", tls_port, context=ctx, timeout=10)
                    c.request("GET", "/api/admin/clients", headers={"Authorization": f"Bearer {ADMIN_TOKEN}"})
                    r = c.getresponse()
                    body = r.read().decode()
                    assert r.status == 200, f"GET /api/admin/clients over HTTPS: {r.status} {body}"
                    clients = json.loads(body)["clients"]
                    # (The ping session above may still be listed until its close is processed.)
                    mine = [cl for cl in clients if cl["address"] == CLIENT_ADDRESS]
                    assert len(mine) == 1, f"admin API should show the client behind nginx as {CLIENT_ADDRESS}: {clients}"
                    assert all(cl["address"] not in ("203.0.113.66", "198.51.100.66") for cl in clients), \
                        f"spoofed address believed: {clients}"
                    assert mine[0]["remote"].startswith("127.0.0.1:"), f"the TCP peer is nginx: {clients}"
                    c.close()
                finally:
                    ws.close()
                print(f"real client address: the admin API shows {CLIENT_ADDRESS} (TCP peer {mine[0]['remote']}, "
                      "spoofed X-Forwarded-For and Forwarded ignored)")
            except (AssertionError, OSError, ssl.SSLError) as e:
                print(f"FAIL: {e}\n--- nginx error.log ---\n" + open(f"{d}/error.log").read()[-3000:])
                return 1
            finally:
                proc.terminate()
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
    print("tls proxy: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
