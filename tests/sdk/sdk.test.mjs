// @flockstep/client (sdk/js) against the real server: the package as the wasm build assembles it
// (build/wasm/sdk/js/package: index.mjs + the wasm core compiled from proto/codec and the client
// prediction), the native server of the ci preset on loopback port 0.
//
//   FLOCKSTEP_SERVER=build/release/server/flockstep-server node --test tests/sdk/sdk.test.mjs
//
// Environment: FLOCKSTEP_SERVER (server binary), FLOCKSTEP_SDK_DIR (the built package).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { ROOT, SERVER, startProxy, startServer } from '../e2e/harness.mjs';

const SDK_DIR = process.env.FLOCKSTEP_SDK_DIR || path.join(ROOT, 'build/wasm/sdk/js/package');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * The fields each `export interface` of index.d.ts declares: { Name: { field: optional } }.
 * (Interfaces there keep one field per line at two spaces of indent.)
 */
function declaredInterfaces() {
  const text = fs.readFileSync(path.join(SDK_DIR, 'index.d.ts'), 'utf8');
  const out = {};
  for (const m of text.matchAll(/^export interface (\w+)[^{]*\{\n([\s\S]*?)^\}/gm)) {
    const fields = {};
    for (const f of m[2].matchAll(/^ {2}(\w+)(\?)?:/gm)) fields[f[1]] = f[2] === '?';
    out[m[1]] = fields;
  }
  return out;
}

/** The object has exactly the fields index.d.ts declares for `name` (optional ones may be absent). */
function assertShape(types, name, obj) {
  const decl = types[name];
  assert.ok(decl, `index.d.ts declares ${name}`);
  for (const k of Object.keys(obj)) assert.ok(k in decl, `${name}.${k} is declared in index.d.ts`);
  for (const [k, optional] of Object.entries(decl)) if (!optional) assert.ok(k in obj, `${name}.${k} is present`);
}

async function waitFor(pred, ms, what) {
  const end = Date.now() + ms;
  for (;;) {
    const v = pred();
    if (v) return v;
    if (Date.now() > end) throw new Error(`no ${what} within ${ms} ms`);
    await sleep(10);
  }
}

describe('@flockstep/client against the server', { timeout: 90000 }, () => {
  let server, sdk, url;

  before(async () => {
    for (const f of ['index.mjs', 'index.cjs', 'browser.mjs', 'index.d.ts', 'flockstep_core.js', 'package.json', 'README.md', 'examples/quickstart.mjs'])
      if (!fs.existsSync(path.join(SDK_DIR, f))) throw new Error(`not built: ${path.join(SDK_DIR, f)} (cmake --preset wasm && cmake --build --preset wasm)`);
    if (!fs.existsSync(SERVER)) throw new Error(`not built: ${SERVER}`);
    sdk = await import(pathToFileURL(path.join(SDK_DIR, 'index.mjs')).href);
    server = await startServer(['--bots', '0']);
    url = `ws://127.0.0.1:${server.port}/ws`;
  });
  after(async () => { if (server) await server.stop(); });

  test('a player: welcome, decoded delta snapshots acknowledged inside, its craft moves and is predicted', async () => {
    const client = await sdk.connect(url);
    const snapshots = [];
    const events = [];
    client.on('snapshot', (s) => snapshots.push(s));
    client.on('events', (e) => events.push(e));
    const welcome = await client.join({ role: 'player', name: 'sdk-player' });
    assert.equal(welcome.protocolVersion, sdk.PROTOCOL_VERSION);
    assert.equal(welcome.role, 'player');
    assert.ok(welcome.entityId > 0, 'a player gets a craft');
    assert.equal(welcome.tickRateHz, 60);
    assert.equal(welcome.room, 'arena');
    assert.ok(welcome.world.width > 0 && welcome.world.groups.length > 0);

    const first = await waitFor(() => snapshots.find((s) => s.own), 5000, 'a snapshot with the own craft');
    assert.equal(first.own.id, welcome.entityId);
    assert.equal(first.own.kind, 'player');
    assert.ok(first.agents.length > 1, 'agents around the craft');
    assert.ok(first.agents.some((a) => a.kind === 'pursuer' || a.kind === 'flock'), 'AI agents decoded');
    for (const a of first.agents) {
      assert.ok(Number.isFinite(a.position.x) && Number.isFinite(a.velocity.y) && Number.isFinite(a.heading));
      assert.equal(typeof a.state, 'string');
    }
    const start = first.own.position;

    // 1.5 s of full throttle at the tick rate: every call sends the unacknowledged window.
    let seq = 0;
    for (let i = 0; i < 90; ++i) {
      seq = client.sendInput({ turn: 0, throttle: 1 });
      await sleep(1000 / welcome.tickRateHz);
    }
    assert.equal(seq, 90, 'one sequence per call');
    const last = await waitFor(() => snapshots.find((s) => s.lastInputSequence === seq), 3000, 'the last input applied');
    const moved = Math.hypot(last.own.position.x - start.x, last.own.position.y - start.y);
    assert.ok(moved > 1, `the craft moved ${moved.toFixed(2)} m`);

    assert.ok(snapshots.length >= 20, `snapshots at about 20 Hz (${snapshots.length})`);
    for (let i = 1; i < snapshots.length; ++i) assert.ok(snapshots[i].serverTick > snapshots[i - 1].serverTick, 'server_tick advances');
    const coded = snapshots.slice(3).filter((s) => s.baselineTick !== 0);
    assert.ok(coded.length >= snapshots.length - 6, `deltas against acknowledged snapshots (${coded.length} of ${snapshots.length - 3})`);
    const ticks = new Set(snapshots.map((s) => s.serverTick));
    for (const s of coded) assert.ok(ticks.has(s.baselineTick), 'every baseline is a snapshot this client decoded');
    for (const s of snapshots) assert.ok(s.agents.length > 0 && s.bytes > 0);

    // Prediction: the same shared craft step as the server, so on loopback every comparison is exact.
    const compared = snapshots.filter((s) => s.prediction?.compared);
    assert.ok(compared.length >= 10, `the prediction was compared ${compared.length} times`);
    assert.equal(last.prediction.corrections, 0, 'no misprediction on a clean loopback link');
    const p = client.prediction;
    assert.ok(p, 'a predicted craft');
    const gap = Math.hypot(p.position.x - last.own.position.x, p.position.y - last.own.position.y);
    assert.ok(gap < 5, `the prediction is near the server's craft (${gap.toFixed(2)} m)`);

    assert.ok(events.some((e) => e.presence.some((x) => x.playerId === welcome.playerId && x.joined)), 'presence event for this player');

    // What the core hands out is what index.d.ts declares, field for field.
    const types = declaredInterfaces();
    assertShape(types, 'Welcome', welcome);
    assertShape(types, 'WorldInfo', welcome.world);
    assertShape(types, 'Snapshot', last);
    assertShape(types, 'Agent', last.own);
    for (const a of last.agents) assertShape(types, 'Agent', a);
    assertShape(types, 'Vec2', last.own.position);
    assertShape(types, 'PredictionReport', last.prediction);
    assertShape(types, 'CraftState', p);
    for (const e of events) assertShape(types, 'Events', e);
    const pong = await client.ping();
    assert.ok(pong.rttMs >= 0 && pong.serverTick > 0);

    const closed = new Promise((resolve) => client.on('close', resolve));
    client.close();
    const info = await closed;
    assert.equal(info.wsCode, 1000);
    assertShape(types, 'CloseInfo', info);
    assert.equal(client.prediction, null, 'nothing after close');
    assert.equal(client.sendInput({ throttle: 1 }), 0);
  });

  test('players cannot set a view (their area is around the craft)', async () => {
    const client = await sdk.connect(url);
    await client.join({ role: 'player', name: 'viewer' });
    assert.throws(() => client.setView({ min: { x: 0, y: 0 }, max: { x: 10, y: 10 } }), /needs a spectator/);
    client.close();
  });

  test('a spectator: the whole world, no craft, no input', async () => {
    const client = await sdk.connect(url);
    const welcome = await client.join({ role: 'spectator', name: 'sdk-watcher' });
    assert.equal(welcome.entityId, 0);
    const snap = await new Promise((resolve) => client.once('snapshot', resolve));
    assert.equal(snap.own, null);
    assert.ok(snap.agents.length > 50, `the whole arena (${snap.agents.length} agents)`);
    const kinds = new Set(snap.agents.map((a) => a.kind));
    assert.ok(kinds.has('flock') && kinds.has('patrol'));
    for (const a of snap.agents) {
      assert.ok(a.position.x >= 0 && a.position.x <= welcome.world.width);
      assert.ok(a.position.y >= 0 && a.position.y <= welcome.world.height);
    }
    assert.equal(client.sendInput({ throttle: 1 }), 0, 'spectators send no input');
    assert.equal(client.prediction, null);

    // The inspector: a flock member's per-behaviour steering, the server's numbers by tick.
    const boid = snap.agents.find((a) => a.kind === 'flock');
    const traces = [];
    const offTrace = client.on('steeringTrace', (t) => traces.push(t));
    client.inspect(boid.id);
    await waitFor(() => traces.length >= 3, 5000, 'three steering traces');
    const t = traces.at(-1);
    assert.equal(t.agentId, boid.id);
    assert.ok(t.available);
    assert.equal(t.group, boid.group);
    assert.ok(t.behaviours.length >= 2, `the flock preset's behaviours: ${t.behaviours.map((b) => b.type)}`);
    assert.ok(t.behaviours.some((b) => b.type === 'flock'));
    assert.ok(traces[1].serverTick > traces[0].serverTick, 'one trace per snapshot tick');
    assert.ok(Number.isFinite(t.linear.x) && Number.isFinite(t.linear.y));
    assert.throws(() => client.inspect(-1), /uint32/);
    client.inspect(0);
    offTrace();

    // Area of interest: a quarter of the world; agents leave only 10 m (the hysteresis) outside it.
    const view = { min: { x: 0, y: 0 }, max: { x: welcome.world.width / 2, y: welcome.world.height / 2 } };
    client.setView(view);
    assert.throws(() => client.setView({ min: { x: 5, y: 0 }, max: { x: 1, y: 1 } }), /finite rectangle/);
    const after = [];
    client.on('snapshot', (s) => after.push(s));
    await waitFor(() => after.length >= 10, 5000, '10 snapshots after the view');
    const inView = after.at(-1);
    assert.ok(inView.agents.length > 0 && inView.agents.length < snap.agents.length,
      `fewer agents in a quarter of the world (${inView.agents.length} of ${snap.agents.length})`);
    for (const a of inView.agents.filter((x) => x.kind !== 'player')) {  // crafts are always in a spectator's view
      assert.ok(a.position.x <= view.max.x + 10.5 && a.position.y <= view.max.y + 10.5, `agent ${a.id} (${a.kind}) at ${a.position.x}, ${a.position.y} within the view`);
    }
    client.close();
  });

  test('a refused join rejects with the server\'s close reason', async () => {
    const client = await sdk.connect(url);
    const closes = [];
    client.on('close', (c) => closes.push(c));
    await assert.rejects(client.join({ role: 'player', name: 'lost', room: 'no-such-room' }), (err) => {
      assert.equal(err.close.code, 'unknown_room');
      assert.match(err.close.reason, /no-such-room/);
      assert.equal(err.close.wsCode, 1008);
      return true;
    });
    assert.equal(closes.length, 1);
    assert.equal(closes[0].code, 'unknown_room');

    const bad = await sdk.connect(url);
    await assert.rejects(bad.join({ role: 'player', name: '' }), (err) => err.close.code === 'malformed' && /display_name/.test(err.close.reason));
    const other = await sdk.connect(url);
    await assert.rejects(other.join({ role: 'pilot', name: 'x' }), /role must be 'player' or 'spectator'/);
    other.close();
  });

  test('a lost connection is reopened and resumed: same craft, same life, the state continues', async () => {
    const proxy = await startProxy(server.port);
    try {
      const client = await sdk.connect(`ws://127.0.0.1:${proxy.port}/ws`, { reconnect: { initialDelayMs: 50 } });
      const snapshots = [];
      const attempts = [];
      const closes = [];
      client.on('snapshot', (s) => snapshots.push(s));
      client.on('reconnecting', (a) => attempts.push(a));
      client.on('close', (c) => closes.push(c));
      const welcome = await client.join({ role: 'player', name: 'sdk-resume' });
      const timer = setInterval(() => client.sendInput({ turn: 0.3, throttle: 1 }), 1000 / welcome.tickRateHz);
      try {
        await waitFor(() => snapshots.filter((s) => s.own).length >= 10, 5000, '10 snapshots with the craft');
        const before = snapshots.filter((s) => s.own).at(-1);
        const pending = client.ping();
        const reconnected = new Promise((resolve) => client.once('reconnected', resolve));
        assert.equal(proxy.dropAll(), 1, 'the socket is cut mid-game (no close frame)');
        await assert.rejects(pending, /ping lost/, 'a pending ping is rejected when the connection goes');
        const again = await reconnected;
        assert.ok(attempts.length >= 1 && attempts[0].lost.code === 'connection_lost', JSON.stringify(attempts));
        assert.equal(again.entityId, welcome.entityId, 'the same craft');
        assert.equal(closes.length, 0, 'no close event: the client lived on');
        const n = snapshots.length;
        const after = await waitFor(() => snapshots.slice(n).find((s) => s.own), 5000, 'a snapshot on the new connection');
        assert.equal(after.baselineTick, 0, 'a new connection starts with a full snapshot');
        assert.equal(after.own.id, welcome.entityId);
        assert.equal(after.own.spawnTick, before.own.spawnTick, 'the same life, not a respawn');
        assert.ok(after.serverTick > before.serverTick);
        // The craft coasted while the client was away: it is where its last velocity took it.
        const dt = (after.serverTick - before.serverTick) / welcome.tickRateHz;
        const wrapped = (d, side) => (welcome.world.wrap ? Math.min(Math.abs(d), side - Math.abs(d)) : d);
        const jump = Math.hypot(wrapped(after.own.position.x - before.own.position.x, welcome.world.width),
          wrapped(after.own.position.y - before.own.position.y, welcome.world.height));
        const speed = Math.hypot(before.own.velocity.x, before.own.velocity.y);
        assert.ok(jump <= speed * dt + 2, `the craft continued (${jump.toFixed(2)} m in ${dt.toFixed(2)} s at ${speed.toFixed(2)} m/s)`);
        // Inputs flow again and are applied.
        const seq = client.sendInput({ throttle: 1 });
        assert.ok(seq > 0);
        await waitFor(() => snapshots.some((s) => s.lastInputSequence >= seq), 3000, 'inputs applied after the resume');

        // reconnect() on demand: a new connection now, the same craft.
        const manual = await client.reconnect();
        assert.equal(manual.entityId, welcome.entityId);
        assert.equal(client.closed, null);
      } finally {
        clearInterval(timer);
        client.close();
      }
    } finally {
      await proxy.close();
    }
  });

  test('without reconnection a lost connection closes the client; pings pending on close() are rejected', async () => {
    const proxy = await startProxy(server.port);
    try {
      const client = await sdk.connect(`ws://127.0.0.1:${proxy.port}/ws`, { reconnect: false });
      await client.join({ role: 'spectator', name: 'sdk-once' });
      await new Promise((resolve) => client.once('snapshot', resolve));
      const closed = new Promise((resolve) => client.once('close', resolve));
      const pending = client.ping();
      proxy.dropAll();
      await assert.rejects(pending, /ping lost/);
      const info = await closed;
      assert.equal(info.code, 'connection_lost');
      assert.equal(client.reconnecting, false);
      // reconnect() revives it (the server keeps no craft for spectators: a fresh spectator).
      const back = await client.reconnect();
      assert.equal(back.role, 'spectator');
      assert.equal(client.closed, null);
      const p = client.ping();
      client.close();
      await assert.rejects(p, /ping lost: closed by the client/);
      await assert.rejects(client.ping(), /closed/);
    } finally {
      await proxy.close();
    }
  });

  test('listRooms: the lobby API; a spectator joins another room with a view window', async () => {
    const list = await sdk.listRooms(url);
    assert.equal(list.defaultRoom, 'arena');
    assert.ok(list.maxRooms >= 1);
    const arena = list.rooms.find((r) => r.name === 'arena');
    assert.ok(arena && arena.running, JSON.stringify(list.rooms));
    const other = list.rooms.find((r) => r.name !== 'arena');
    assert.ok(other, 'the server has more than one room (scenarios/)');
    const types = declaredInterfaces();
    assertShape(types, 'RoomList', list);
    for (const r of list.rooms) assertShape(types, 'RoomInfo', r);
    await assert.rejects(sdk.listRooms('ftp://127.0.0.1/'), /not a server URL/);

    // The whole world first, then the same room through a view window from the first snapshot on.
    const whole = await sdk.connect(url);
    const w = await whole.join({ role: 'spectator', name: 'sdk-whole', room: other.name });
    assert.equal(w.room, other.name);
    const all = [];
    whole.on('snapshot', (s) => all.push(s));
    const windowed = await sdk.connect(url);
    const view = { min: { x: 0, y: 0 }, max: { x: w.world.width / 4, y: w.world.height / 4 } };
    await windowed.join({ role: 'spectator', name: 'sdk-window', room: other.name, view });
    const seen = [];
    windowed.on('snapshot', (s) => seen.push(s));
    await waitFor(() => seen.length >= 10 && all.length >= 10, 8000, '10 snapshots each');
    const inside = seen.at(-1).agents.filter((a) => a.kind !== 'player');
    assert.ok(inside.length < all.at(-1).agents.length, `the window streams fewer agents (${inside.length} of ${all.at(-1).agents.length})`);
    for (const a of inside) assert.ok(a.position.x <= view.max.x + 10.5 && a.position.y <= view.max.y + 10.5, `agent ${a.id} inside the window`);
    const rooms = await whole.listRooms();
    assert.ok(rooms.rooms.find((r) => r.name === other.name).spectators >= 2, 'the room counts its spectators');
    whole.close();
    windowed.close();
  });

  test('the README example is examples/quickstart.mjs, and it runs', async () => {
    const example = fs.readFileSync(path.join(SDK_DIR, 'examples/quickstart.mjs'), 'utf8');
    const readme = fs.readFileSync(path.join(SDK_DIR, 'README.md'), 'utf8');
    assert.ok(readme.includes('```js\n' + example + '```'), 'README.md shows examples/quickstart.mjs verbatim');
    assert.ok(example.trim().split('\n').length <= 10, 'ten lines');
    const { stdout } = await new Promise((resolve, reject) => {
      execFile(process.execPath, [path.join(SDK_DIR, 'examples/quickstart.mjs')], {
        cwd: SDK_DIR, env: { ...process.env, FLOCKSTEP_URL: url }, timeout: 20000,
      }, (err, out, errOut) => (err ? reject(new Error(`${err.message}\n${out}\n${errOut}`)) : resolve({ stdout: out })));
    });
    assert.match(stdout, /^craft \d+ in room arena$/m);
    assert.match(stdout, /^predicted \{ x: [\d.]+, y: [\d.]+ \}$/m);
  });
});
