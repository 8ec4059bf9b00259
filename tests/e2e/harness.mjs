// Shared pieces of the browser tests: start the built server on a free port, a TCP proxy in
// front of it (so a test can drop every connection as a network failure would, while the server
// keeps the craft for a resume), and headless Debian Chromium through playwright-core.
//
// Environment:
//   FLOCKSTEP_SERVER     server binary (default build/release/server/flockstep-server)
//   FLOCKSTEP_WEB_ROOT   built viewer (default build/wasm/client/web)
//   FLOCKSTEP_CHROMIUM   browser (default /usr/bin/chromium)
//   FLOCKSTEP_ARTIFACTS  screenshots and logs (default test-artifacts/)
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const SERVER = process.env.FLOCKSTEP_SERVER || path.join(ROOT, 'build/release/server/flockstep-server');
export const WEB_ROOT = process.env.FLOCKSTEP_WEB_ROOT || path.join(ROOT, 'build/wasm/client/web');
export const CHROMIUM = process.env.FLOCKSTEP_CHROMIUM || '/usr/bin/chromium';
export const ARTIFACTS = process.env.FLOCKSTEP_ARTIFACTS || path.join(ROOT, 'test-artifacts');

// toolchain-notes.md: the flags that work for headless Chromium on this kind of machine.
export const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--enable-unsafe-swiftshader', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--disable-renderer-backgrounding', '--disable-background-timer-throttling',
  '--disable-backgrounding-occluded-windows',
];

/** Fail early with a message that says what to build. */
export function checkBuilt() {
  const missing = [];
  if (!fs.existsSync(SERVER)) missing.push(`server binary ${SERVER} (cmake --preset release && cmake --build --preset release --target flockstep-server)`);
  for (const f of ['index.html', 'viewer.js', 'viewer.wasm', 'viewer-glue.js'])
    if (!fs.existsSync(path.join(WEB_ROOT, f))) missing.push(`${path.join(WEB_ROOT, f)} (cmake --preset wasm && cmake --build --preset wasm)`);
  if (!fs.existsSync(CHROMIUM)) missing.push(`${CHROMIUM} (apt-get install chromium)`);
  return missing;
}

/**
 * Start the server on port 0 and wait for its "listening ... port=N" log line.
 * Returns { port, proc, log(), stop() }.
 */
export async function startServer(extraArgs = [], { timeoutMs = 20000 } = {}) {
  const args = ['--port', '0', '--host', '127.0.0.1', '--web-root', WEB_ROOT, ...extraArgs];
  const proc = spawn(SERVER, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not report its port within ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const onData = (chunk) => {
      output += chunk.toString();
      const m = output.match(/listening[^\n]*?\bport[=":\s]+(\d+)/);
      if (m && Number(m[1]) > 0) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${output}`));
    });
  });
  proc.removeAllListeners('exit');
  return {
    port,
    proc,
    log: () => output,
    async stop() {
      if (proc.exitCode !== null) return;
      proc.kill('SIGTERM');
      await new Promise((resolve) => {
        const t = setTimeout(() => { proc.kill('SIGKILL'); resolve(); }, 5000);
        proc.on('exit', () => { clearTimeout(t); resolve(); });
      });
    },
  };
}

/**
 * A TCP proxy on a free port in front of `targetPort`. dropAll() destroys every open
 * connection at once (both directions), like a network failure would.
 */
export async function startProxy(targetPort) {
  const pairs = new Set();
  let target = targetPort;
  const server = net.createServer((client) => {
    const upstream = net.connect(target, '127.0.0.1');
    const pair = { client, upstream };
    pairs.add(pair);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    client.pipe(upstream);
    upstream.pipe(client);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end);
    upstream.on('error', end);
    client.on('close', end);
    upstream.on('close', end);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    connections: () => pairs.size,
    /** New connections go to another port (a restarted server); open ones are left alone. */
    retarget(port) { target = port; },
    dropAll() {
      const n = pairs.size;
      for (const { client, upstream } of [...pairs]) {
        client.destroy();
        upstream.destroy();
      }
      pairs.clear();
      return n;
    },
    close: () => new Promise((resolve) => {
      for (const { client, upstream } of pairs) { client.destroy(); upstream.destroy(); }
      server.close(() => resolve());
    }),
  };
}

/** Launch headless Chromium. */
export async function launchBrowser() {
  const { chromium } = require('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

/** A page with a console log kept for failure messages. */
export async function newPage(browser, { width = 640, height = 400 } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  const logs = [];
  page.on('console', (m) => logs.push(`[${m.type()}] ${m.text()}`));
  page.on('pageerror', (e) => logs.push(`[pageerror] ${e.message}`));
  page.logs = logs;
  return page;
}

/** Poll window.__flockstep until `predicate(state)` is true. Returns that state. */
export async function waitState(page, predicate, { timeoutMs = 15000, what = 'state' } = {}) {
  const start = Date.now();
  let last = null;
  while (Date.now() - start < timeoutMs) {
    last = await page.evaluate(() => window.__flockstep);
    if (last && predicate(last)) return last;
    await page.waitForTimeout(50);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last window.__flockstep:\n` +
    JSON.stringify(last, null, 1).slice(0, 3000) + '\nconsole:\n' + page.logs.slice(-30).join('\n'));
}

export const state = (page) => page.evaluate(() => window.__flockstep);

/** Screenshot into the artifacts folder; returns the path. */
export async function screenshot(page, name) {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, name);
  await page.screenshot({ path: file });
  return file;
}

/** Angle difference b - a wrapped into (-pi, pi]. */
export function angleDelta(a, b) {
  let d = b - a;
  while (d > Math.PI) d -= 2 * Math.PI;
  while (d <= -Math.PI) d += 2 * Math.PI;
  return d;
}

/** A minimal static file server for WEB_ROOT (the offline benchmark needs no game server);
 *  `files` adds more by URL path ({'/rec/arena.fsrec': '/tmp/.../arena.fsrec'}: a recording). */
export async function startStatic(dir = WEB_ROOT, { files = {} } = {}) {
  const http = await import('node:http');
  const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm' };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    const file = files[url.pathname] || path.join(dir, path.normalize(url.pathname === '/' ? '/index.html' : url.pathname));
    if (!(files[url.pathname] || file.startsWith(dir)) || !fs.existsSync(file)) { res.writeHead(404); res.end(); return; }
    res.writeHead(200, { 'content-type': types[path.extname(file)] || 'application/octet-stream' });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    // Browsers keep connections alive: drop them, or close() waits for them to time out.
    close: () => new Promise((r) => { server.close(() => r()); server.closeAllConnections(); }),
  };
}
