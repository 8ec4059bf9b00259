// End-to-end test of input-log replays (docs/replays.md): a real server records the arena (with
// server bots) through the admin API for a few seconds; the page loads the recording from the
// admin API's download URL and re-simulates it in its own sim::World: it seeks to a logged
// second in the middle, the inspector shows an agent's per-behaviour forces of that very tick,
// and the page's world has the state hash the file logged for that second, with no divergence.
// The file is read here independently of the viewer (protobufjs and the .proto schema).
//
//   node --test tests/e2e/inputlog.test.mjs      (needs the server and the wasm viewer: harness.mjs)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

import { ROOT, checkBuilt, launchBrowser, newPage, screenshot, startServer, waitState } from './harness.mjs';

const require = createRequire(import.meta.url);
const protobuf = require('protobufjs');

const missing = checkBuilt();
const TOKEN = 'inputlog-e2e-token';
const AUTH = { authorization: `Bearer ${TOKEN}` };

function recordType() {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => path.join(ROOT, 'proto', target);
  root.loadSync(['flockstep/v1/input_log.proto'], { keepCase: true });
  return root.lookupType('flockstep.v1.InputLogRecord');
}

/** FNV-1a 64 of `bytes` (each record's checksum, docs/protocol.md). */
function fnv1a64(bytes) {
  let h = 0xcbf29ce484222325n;
  for (const b of bytes) h = BigInt.asUintN(64, (h ^ BigInt(b)) * 0x100000001b3n);
  return h;
}

/** The log with every set_input at or after `fromTick` changed by 0.25 turn, re-framed with
 *  valid checksums: a well-formed file whose re-simulation must diverge. Every one, not only the
 *  first: a single altered input can be one the world ignores (its bot is between lives, or a later
 *  input of the same tick replaces it), and then the re-simulation rightly matches. */
function alteredLog(bytes, fromTick) {
  const Record = recordType();
  const out = [bytes.subarray(0, 8)];
  let at = 8, altered = 0;
  while (at + 4 <= bytes.length) {
    const n = bytes.readUInt32LE(at);
    let body = bytes.subarray(at + 4, at + 4 + n);
    const r = Record.decode(body);
    if (r.commands && Number(r.commands.tick) >= fromTick) {
      const inputs = r.commands.commands.filter((x) => x.set_input);
      for (const c of inputs) {
        c.set_input.turn = c.set_input.turn > 0.5 ? c.set_input.turn - 0.25 : c.set_input.turn + 0.25;
      }
      if (inputs.length) {
        body = Buffer.from(Record.encode(r).finish());
        altered += inputs.length;
      }
    }
    const len = Buffer.alloc(4);
    len.writeUInt32LE(body.length);
    const sum = Buffer.alloc(8);
    sum.writeBigUInt64LE(fnv1a64(body));
    out.push(len, body, sum);
    at += 4 + n + 8;
  }
  assert.ok(altered > 0, 'no set_input to alter');
  return Buffer.concat(out);
}

/** The state hashes (tick -> 16 hex digits), seek points and end of an input log, read by hand. */
function readLog(bytes) {
  const Record = recordType();
  assert.equal(bytes.subarray(0, 8).toString('latin1'), 'FSLOG001', 'input-log magic');
  const hashes = new Map();
  const seeks = [];
  let header = null, end = null, at = 8;
  const hex = (v) => BigInt.asUintN(64, BigInt(v.toString())).toString(16).padStart(16, '0');
  while (at + 4 <= bytes.length) {
    const n = bytes.readUInt32LE(at);
    const r = Record.decode(bytes.subarray(at + 4, at + 4 + n));
    if (r.header) header = r.header;
    if (r.hash) hashes.set(Number(r.hash.tick), hex(r.hash.state_hash));
    if (r.seek) seeks.push(Number(r.seek.tick));
    if (r.end) end = { tick: Number(r.end.tick), reason: r.end.reason };
    at += 4 + n + 8;
  }
  return { header, hashes, seeks, end };
}

describe('input-log replay end-to-end', { timeout: 240000 }, () => {
  let browser, server, dir, file, log, bytes;

  before(async () => {
    if (missing.length) throw new Error('not built yet:\n  ' + missing.join('\n  '));
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flockstep-inputlog-'));
    browser = await launchBrowser();
    server = await startServer(['--bots', '2', '--admin-token', TOKEN, '--recordings-dir', dir,
      '--record-seek-s', '2', '--tick-rate-hz', '60']);
    const base = `http://127.0.0.1:${server.port}`;
    const start = await fetch(`${base}/api/admin/rooms/arena/recording/start`, { method: 'POST', headers: AUTH });
    assert.equal(start.status, 200, await start.clone().text());
    file = (await start.json()).file;
    await new Promise((r) => setTimeout(r, 6000));
    const stop = await fetch(`${base}/api/admin/rooms/arena/recording/stop`, { method: 'POST', headers: AUTH });
    assert.equal(stop.status, 200, await stop.clone().text());
    const got = await fetch(`${base}/api/admin/recordings/${file}`, { headers: AUTH });
    assert.equal(got.status, 200);
    assert.equal(got.headers.get('content-type'), 'application/octet-stream');
    bytes = Buffer.from(await got.arrayBuffer());
    log = readLog(bytes);
  });

  after(async () => {
    if (browser) await browser.close();
    if (server) await server.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('the page re-simulates the recording, seeks, inspects, and matches the logged hash', async () => {
    assert.equal(log.header.room, 'arena');
    assert.ok(log.end && log.end.reason === 'admin stop', JSON.stringify(log.end));
    const ticks = [...log.hashes.keys()].sort((a, b) => a - b);
    assert.ok(ticks.length >= 4, `only ${ticks.length} logged seconds`);
    assert.ok(log.seeks.length >= 3, `only ${log.seeks.length} seek points`);
    // A logged second in the middle that is not itself a seek point (so the page re-steps to it).
    const mid = ticks.filter((t) => !log.seeks.includes(t))[Math.floor(ticks.length / 2)] ?? ticks[Math.floor(ticks.length / 2)];

    const page = await newPage(browser, { width: 900, height: 600 });
    try {
      // The page holds the admin token as the Admin panel keeps it (sessionStorage), then opens
      // the admin API's download URL as a replay.
      await page.goto(`http://127.0.0.1:${server.port}/`);
      await page.evaluate((t) => sessionStorage.setItem('flockstep.adminToken', t), TOKEN);
      await page.goto(`http://127.0.0.1:${server.port}/?replay=${encodeURIComponent('/api/admin/recordings/' + file)}`);
      let s = await waitState(page, (x) => x.screen === 'replay' && x.inputlog && x.replay.kind === 'inputlog' && x.sample.length > 0,
        { what: 'the input log playing', timeoutMs: 30000 });
      assert.equal(s.replay.firstTick, log.seeks[0]);
      assert.equal(s.replay.lastTick, log.end.tick);
      assert.equal(s.inputlog.room, 'arena');

      // Pause, then seek to the middle second as a person dragging the slider would.
      if (s.replay.playing) await page.click('#replay-play');
      await waitState(page, (x) => !x.replay.playing, { what: 'paused' });
      await page.$eval('#replay-seek', (el, v) => {
        el.value = String(v);
        el.dispatchEvent(new Event('input', { bubbles: true }));
        el.dispatchEvent(new Event('change', { bubbles: true }));
      }, mid);
      s = await waitState(page, (x) => x.inputlog.tick === mid && x.replay.tick === mid, { what: `the world at tick ${mid}` });
      assert.equal(s.inputlog.hash, log.hashes.get(mid), 'the page\'s world has the hash the log holds for that second');
      assert.equal(s.inputlog.logged_hash, log.hashes.get(mid));

      // Inspect a flocking agent: the forces of this very tick, from the page's own World.
      const a = s.sample.find((x) => x.kind === 'flock') || s.sample.find((x) => x.kind !== 'player');
      assert.ok(a, `an agent to inspect in ${JSON.stringify(s.sample.slice(0, 3))}`);
      await page.evaluate((agent) => {
        window.Module.ccall('fs_set_option', null, ['string', 'number'], ['follow', agent]);
        window.Module.ccall('fs_set_option', null, ['string', 'number'], ['zoom', 10]);
      }, a.id);
      s = await waitState(page, (x) => x.inspector && x.inspector.id === a.id && x.inspector.behaviour_forces &&
        x.inspector.behaviour_forces.tick === mid, { what: `the forces of agent ${a.id} at tick ${mid}` });
      const f = s.inspector.behaviour_forces;
      assert.equal(f.source, 'replay');
      assert.ok(f.behaviours.length > 0, JSON.stringify(f));
      assert.ok(f.behaviours.some((b) => Math.hypot(b.x, b.y) > 0), 'some behaviour pushed');
      // Still at the same tick with the same hash (inspecting re-stepped the tick, it did not move).
      assert.equal(s.inputlog.tick, mid);
      assert.equal(s.inputlog.hash, log.hashes.get(mid));
      assert.equal(s.inputlog.diverged, false, JSON.stringify(s.inputlog.divergences));
      assert.deepEqual(s.inputlog.divergences, []);
      await page.waitForFunction(() => !document.getElementById('replay-check').classList.contains('hidden') &&
        document.getElementById('replay-check').textContent.includes('checks ok'), null, { timeout: 5000 });
      await screenshot(page, 'inputlog-inspector.png');

      // Play the rest at 8x: every logged second checked on the way, no divergence, the end reached.
      await page.selectOption('#replay-speed', '8');
      await page.click('#replay-play');
      s = await waitState(page, (x) => x.replay.tick === log.end.tick && !x.replay.playing,
        { what: 'the end at 8x', timeoutMs: 30000 });
      assert.equal(s.replay.speed, 8);
      assert.equal(s.inputlog.diverged, false, JSON.stringify(s.inputlog.divergences));
      assert.ok(s.inputlog.hashes_checked >= ticks.filter((t) => t >= mid).length, JSON.stringify(s.inputlog));
    } finally {
      await page.context().close();
    }
  });

  // The control: the page's hash check can fail. One input altered (and the file re-framed so it
  // is well formed) must be reported on the page, never hidden.
  test('an altered input log is shown as diverged', async () => {
    const altered = alteredLog(bytes, log.seeks[0] + 30);
    const page = await newPage(browser, { width: 900, height: 600 });
    try {
      await page.goto(`http://127.0.0.1:${server.port}/`);
      await page.setInputFiles('#replay-file', { name: 'altered.fslog', mimeType: 'application/octet-stream', buffer: altered });
      let s = await waitState(page, (x) => x.screen === 'replay' && x.inputlog, { what: 'the altered log open', timeoutMs: 30000 });
      await page.selectOption('#replay-speed', '8');
      s = await waitState(page, (x) => x.inputlog.diverged, { what: 'a divergence', timeoutMs: 30000 });
      const d = s.inputlog.divergences[0];
      assert.notEqual(d.expected, d.got);
      assert.ok(d.tick > log.seeks[0] + 30, JSON.stringify(d));
      await page.waitForFunction(() => document.getElementById('replay-check').classList.contains('diverged') &&
        document.getElementById('replay-check').textContent.startsWith('DIVERGED at tick'), null, { timeout: 5000 });
      await screenshot(page, 'inputlog-diverged.png');
    } finally {
      await page.context().close();
    }
  });
});
