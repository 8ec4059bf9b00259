// The npm tarball of @flockstep/client as a user gets it: a consumer project in a temporary
// directory outside the repository (so nothing resolves through the repository's node_modules)
// installs build/wasm/sdk/js/flockstep-client.tgz with npm, then runs the package's examples
// against the native server as an ES module, as CommonJS and as TypeScript compiled with
// "module": "nodenext" (CommonJS and ESM output), and a page that imports the browser build
// joins in headless Chromium and sees its craft move.
//
//   FLOCKSTEP_SERVER=build/release/server/flockstep-server node --test tests/sdk/package.test.mjs
//
// Environment: FLOCKSTEP_SERVER, FLOCKSTEP_SDK_TARBALL (default build/wasm/sdk/js/flockstep-client.tgz),
// FLOCKSTEP_CHROMIUM. npm needs the registry (or its cache) for the package's one dependency, ws.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { CHROMIUM, ROOT, SERVER, launchBrowser, newPage, startServer } from '../e2e/harness.mjs';

const TARBALL = process.env.FLOCKSTEP_SDK_TARBALL || path.join(ROOT, 'build/wasm/sdk/js/flockstep-client.tgz');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');

/** Run a command; resolves with stdout, rejects with everything it printed. */
function run(cmd, args, { cwd, env = {}, timeout = 60000 } = {}) {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { cwd, env: { ...process.env, ...env }, timeout, maxBuffer: 1 << 24 }, (err, stdout, stderr) =>
      (err ? reject(new Error(`${cmd} ${args.join(' ')} failed: ${err.message}\n${stdout}\n${stderr}`)) : resolve(stdout)));
  });
}

describe('@flockstep/client tarball installed outside the repository', { timeout: 240000 }, () => {
  let server, url, dir, pkgDir;

  before(async () => {
    if (!fs.existsSync(TARBALL)) throw new Error(`not built: ${TARBALL} (cmake --preset wasm && cmake --build --preset wasm)`);
    if (!fs.existsSync(SERVER)) throw new Error(`not built: ${SERVER}`);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flockstep-consumer-'));
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
    // NODE_PATH would let node find the repository's packages: the consumer must not.
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', TARBALL],
      { cwd: dir, env: { NODE_PATH: '' }, timeout: 180000 });
    pkgDir = path.join(dir, 'node_modules/@flockstep/client');
    server = await startServer(['--bots', '0']);
    url = `ws://127.0.0.1:${server.port}/ws`;
  });
  after(async () => {
    if (server) await server.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('the package: MIT, not private, the project version, every build and its types', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
    assert.equal(manifest.license, 'MIT');
    assert.equal(manifest.private, undefined);
    assert.equal(manifest.version, fs.readFileSync(path.join(ROOT, 'VERSION'), 'utf8').trim());
    assert.equal(fs.readFileSync(path.join(pkgDir, 'LICENSE'), 'utf8'), fs.readFileSync(path.join(ROOT, 'LICENSE'), 'utf8'));
    const root = manifest.exports['.'];
    for (const cond of ['browser', 'import', 'require']) {
      for (const f of [root[cond].default, root[cond].types]) assert.ok(fs.existsSync(path.join(pkgDir, f)), `${cond}: ${f}`);
    }
    assert.ok(fs.statSync(path.join(pkgDir, 'browser.mjs')).size > 100000, 'the browser build carries the wasm core');
    assert.ok(!fs.existsSync(path.join(dir, 'node_modules/typescript')), 'nothing but the package and ws installed');
    assert.ok(fs.existsSync(path.join(dir, 'node_modules/ws')), 'ws came as a dependency');
  });

  const expectRan = (out) => {
    assert.match(out, /^craft \d+ in room arena$/m);
    assert.match(out, /^predicted \{ x: [\d.]+, y: [\d.]+ \}$/m);
  };

  test('ESM: the example as import', async () => {
    fs.copyFileSync(path.join(pkgDir, 'examples/quickstart.mjs'), path.join(dir, 'esm.mjs'));
    expectRan(await run(process.execPath, ['esm.mjs'], { cwd: dir, env: { FLOCKSTEP_URL: url, NODE_PATH: '' } }));
  });

  test('CommonJS: the example as require', async () => {
    fs.copyFileSync(path.join(pkgDir, 'examples/quickstart.cjs'), path.join(dir, 'cjs.cjs'));
    expectRan(await run(process.execPath, ['cjs.cjs'], { cwd: dir, env: { FLOCKSTEP_URL: url, NODE_PATH: '' } }));
  });

  test('TypeScript, module nodenext: type-checks and runs as CommonJS and as ESM', async () => {
    const ts = path.join(dir, 'ts');
    fs.mkdirSync(ts);
    fs.writeFileSync(path.join(ts, 'package.json'), JSON.stringify({ name: 'consumer-ts', private: true }));  // CommonJS
    fs.copyFileSync(path.join(pkgDir, 'examples/quickstart.ts'), path.join(ts, 'quickstart.ts'));
    fs.copyFileSync(path.join(pkgDir, 'examples/quickstart.ts'), path.join(ts, 'quickstart_esm.mts'));
    fs.writeFileSync(path.join(ts, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'nodenext', moduleResolution: 'nodenext', strict: true, outDir: 'dist',
        skipLibCheck: false, types: [] },
      files: ['quickstart.ts', 'quickstart_esm.mts'],
    }));
    await run(process.execPath, [TSC, '-p', ts], { cwd: ts });
    const cjs = fs.readFileSync(path.join(ts, 'dist/quickstart.js'), 'utf8');
    assert.match(cjs, /require\("@flockstep\/client"\)/, 'compiled to require: the package\'s require condition');
    expectRan(await run(process.execPath, ['dist/quickstart.js'], { cwd: ts, env: { FLOCKSTEP_URL: url, NODE_PATH: '' } }));
    expectRan(await run(process.execPath, ['dist/quickstart_esm.mjs'], { cwd: ts, env: { FLOCKSTEP_URL: url, NODE_PATH: '' } }));
  });

  test('browser: a page importing the browser build joins, lists rooms and sees its craft move', { skip: !fs.existsSync(CHROMIUM) && `no ${CHROMIUM}` }, async () => {
    // The page and the browser build, served by the game server itself (same origin as /ws and /api/rooms).
    const web = path.join(dir, 'web');
    fs.mkdirSync(web);
    fs.copyFileSync(path.join(pkgDir, 'browser.mjs'), path.join(web, 'flockstep-client.mjs'));
    // The script is a file of its own: the server's Content-Security-Policy allows no inline script.
    fs.writeFileSync(path.join(web, 'index.html'), `<!doctype html><meta charset="utf-8"><title>sdk</title>
<script type="module" src="main.mjs"></script>`);
    fs.writeFileSync(path.join(web, 'main.mjs'), `import { connect, listRooms } from './flockstep-client.mjs';
const out = (window.__sdk = { positions: [], rooms: null, error: null, welcome: null });
try {
  const client = await connect(\`ws://\${location.host}/ws\`);
  const welcome = await client.join({ role: 'player', name: 'browser' });
  out.welcome = { entityId: welcome.entityId, room: welcome.room };
  client.on('snapshot', (s) => { if (s.own) out.positions.push([s.serverTick, s.own.position.x, s.own.position.y, s.own.id]); });
  setInterval(() => client.sendInput({ turn: 0, throttle: 1 }), 1000 / welcome.tickRateHz);
  out.rooms = (await listRooms(location.href)).rooms.map((r) => r.name);
} catch (err) {
  out.error = String(err && err.stack || err);
}
`);
    const web_server = await startServer(['--bots', '0', '--web-root', web]);
    const browser = await launchBrowser();
    try {
      const page = await newPage(browser);
      await page.goto(`http://127.0.0.1:${web_server.port}/index.html`);
      let s = null;
      const end = Date.now() + 20000;
      while (Date.now() < end) {
        s = await page.evaluate(() => window.__sdk);
        if (s?.error || (s?.positions.length >= 40 && s.rooms)) break;
        await page.waitForTimeout(100);
      }
      assert.equal(s?.error ?? null, null, `page error; console:\n${page.logs.join('\n')}`);
      assert.ok(s.welcome.entityId > 0 && s.welcome.room === 'arena', JSON.stringify(s.welcome));
      assert.ok(s.rooms.includes('arena'), JSON.stringify(s.rooms));
      assert.ok(s.positions.length >= 40, `snapshots with the craft: ${s.positions.length}; console:\n${page.logs.join('\n')}`);
      const [t0, x0, y0] = s.positions[0];
      const [t1, x1, y1, id] = s.positions.at(-1);
      assert.equal(id, s.welcome.entityId);
      assert.ok(t1 > t0);
      const moved = Math.hypot(x1 - x0, y1 - y0);
      assert.ok(moved > 1, `the craft moved ${moved.toFixed(2)} m`);
    } finally {
      await browser.close();
      await web_server.stop();
    }
  });
});
