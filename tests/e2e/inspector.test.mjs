// The inspector's force breakdown, end to end: the viewer (headless Chromium, real server) shows
// for an inspected agent each behaviour's output and the combined steering of one tick, and those
// numbers must equal what the server computed for that tick. The server's own numbers come from
// a second client that knows only the .proto files (protobufjs + ws), inspects the same agent and
// collects every SteeringTrace by tick. Also: the arrows are labelled on the canvas, the panel
// lists the behaviours, and the lab (no server) traces the agent in its own World.
//
//   node --test tests/e2e/inspector.test.mjs      (needs the server and the wasm viewer: harness.mjs)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { createRequire } from 'node:module';

import { ROOT, checkBuilt, launchBrowser, newPage, screenshot, startServer, startStatic, state, waitState } from './harness.mjs';

const require = createRequire(import.meta.url);
const WebSocket = require('ws');
const protobuf = require('protobufjs');

const missing = checkBuilt();
const ROOM = 'millington';
const GROUP = '3.3.13 separation: a mob chasing the rabbit keeps its spacing';  // steering model, a blend of three behaviours

function loadSchema() {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => path.join(ROOT, 'proto', target);
  root.loadSync(['flockstep/v1/messages.proto'], { keepCase: true });
  return { ClientMessage: root.lookupType('flockstep.v1.ClientMessage'), ServerMessage: root.lookupType('flockstep.v1.ServerMessage') };
}

const num = (v) => (v === undefined || v === null ? 0 : Number(v));  // uint64 may be a Long
const vec = (v) => ({ x: num(v && v.x), y: num(v && v.y) });

/** A spectator with plain snapshots in `room`; every ServerMessage lands in `messages`. */
async function spectator(port, schema, room) {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`);
  ws.binaryType = 'nodebuffer';
  const c = { ws, messages: [] };
  ws.on('message', (data) => c.messages.push(schema.ServerMessage.decode(data)));
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
  c.send = (payload) => ws.send(schema.ClientMessage.encode(schema.ClientMessage.create(payload)).finish());
  c.send({ join: { role: 2, display_name: Buffer.from('trace-check'), protocol_version: 3, plain_snapshots: true, room } });
  return c;
}

async function until(fn, ms, what) {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`no ${what} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('the inspector shows the server\'s steering breakdown', { timeout: 180000 }, () => {
  let server, browser, schema;

  before(async () => {
    if (missing.length) throw new Error('not built yet:\n  ' + missing.join('\n  '));
    schema = loadSchema();
    server = await startServer(['--bots', '0', '--scenario-dir', 'scenarios', '--max-rooms', '4']);
    browser = await launchBrowser();
  });

  after(async () => {
    if (browser) await browser.close();
    if (server) await server.stop();
  });

  test(`${ROOM}: every behaviour's output and the result equal the server's for the same tick; arrows labelled`, async () => {
    // The server's numbers: a proto-only client inspects an agent of the blended group.
    const c = await spectator(server.port, schema, ROOM);
    const welcome = (await until(() => c.messages.find((m) => m.welcome), 5000, 'Welcome')).welcome;
    const gi = welcome.world.groups.findIndex((g) => g.name === GROUP);
    assert.ok(gi >= 0, `the room has the group "${GROUP}"`);
    const snap = (await until(() => c.messages.find((m) => m.snapshot && m.snapshot.agents.some((a) => a.group === gi)), 5000, 'a snapshot')).snapshot;
    const id = snap.agents.find((a) => a.group === gi).id;
    c.send({ inspect: { agent_id: id } });
    const serverTraces = new Map();
    const collect = () => {
      for (const m of c.messages) if (m.steering_trace && m.steering_trace.agent_id === id) serverTraces.set(num(m.steering_trace.server_tick), m.steering_trace);
    };

    const page = await newPage(browser, { width: 900, height: 600 });
    try {
      await page.goto(`http://127.0.0.1:${server.port}/?spectate=1#room=${ROOM}`);
      await waitState(page, (x) => x.connected && x.room === ROOM && x.entities > 0, { what: `${ROOM} joined` });
      await page.evaluate((agent) => {
        window.Module.ccall('fs_set_option', null, ['string', 'number'], ['follow', agent]);
        window.Module.ccall('fs_set_option', null, ['string', 'number'], ['zoom', 14]);
      }, id);
      // A tick both clients have: the page's newest trace, once the proto client holds it too.
      let s = null;
      for (const end = Date.now() + 15000; ;) {
        s = await state(page);
        collect();
        const f = s && s.inspector && s.inspector.id === id ? s.inspector.behaviour_forces : null;
        if (f && f.available && f.tick > 0 && serverTraces.has(f.tick)) break;
        if (Date.now() > end) throw new Error(`no common trace tick; page: ${JSON.stringify(s && s.inspector)}; server ticks: ${[...serverTraces.keys()].slice(-5)}`);
        await page.waitForTimeout(50);
      }
      const ins = s.inspector;
      const f = ins.behaviour_forces;
      const t = serverTraces.get(f.tick);
      assert.equal(f.source, 'server');
      assert.equal(ins.model, 'steering');
      assert.equal(ins.combiner, 'blend');
      assert.equal(f.unit, 'm/s²');
      assert.equal(ins.composition.length, 3);
      assert.equal(f.behaviours.length, t.behaviours.length, 'one row per behaviour of the composition');
      assert.equal(f.behaviours.length, 3);
      const same = (a, b, what) => assert.ok(a === b, `${what}: viewer ${a}, server ${b} (tick ${f.tick})`);
      f.behaviours.forEach((r, i) => {
        const b = t.behaviours[i];
        same(r.type, b.type, `behaviour ${i} type`);
        same(r.weight, num(b.weight), `${r.type} weight`);
        same(r.evaluated, !!b.evaluated, `${r.type} evaluated`);
        same(r.x, vec(b.linear).x, `${r.type} x`);
        same(r.y, vec(b.linear).y, `${r.type} y`);
        same(r.angular, num(b.angular), `${r.type} angular`);
        same(r.wx, r.x * r.weight, `${r.type} weighted x`);
      });
      same(f.result.x, vec(t.linear).x, 'result x');
      same(f.result.y, vec(t.linear).y, 'result y');
      same(f.result.angular, num(t.angular), 'result angular');
      // The agent is steering: the equalities above compared real numbers, not zeros.
      assert.ok(Math.hypot(f.result.x, f.result.y) > 0 || f.behaviours.some((r) => r.x !== 0 || r.y !== 0), 'some output is non-zero');

      // On the canvas: an arrow per contributing behaviour and the result, each labelled.
      s = await waitState(page, (x) => x.labels.some((l) => l.text === 'steering'), { what: 'the steering arrow label' });
      const named = s.labels.filter((l) => ins.composition.some((b) => l.text.startsWith(`${b.type} ×`)));
      assert.ok(named.length >= 1, `behaviour arrows are labelled: ${JSON.stringify(s.labels.map((l) => l.text))}`);
      // In the panel: every behaviour with its weight, and the tick it came from.
      await page.waitForFunction(() => document.querySelectorAll('#inspector .force-row').length >= 4, null, { timeout: 3000 });
      const text = await page.locator('#inspector').innerText();
      for (const b of ins.composition) assert.ok(text.includes(b.type), `the panel lists ${b.type}: ${text}`);
      assert.match(text, /tick \d+ · server/);
      await screenshot(page, 'inspector-forces.png');

      // Closing the inspector stops the page's traces (the proto client's continue).
      await page.keyboard.press('Escape');
      await waitState(page, (x) => x.inspector === null, { what: 'inspector closed' });
    } finally {
      await page.context().close();
      c.ws.close(1000);
    }
  });

  test('the lab traces the inspected agent in its own World, tick by tick', async () => {
    const web = await startStatic();
    const page = await newPage(browser, { width: 900, height: 600 });
    try {
      await page.goto(`http://127.0.0.1:${web.port}/?lab=1`);
      await waitState(page, (x) => x.lab && x.lab.tick > 5, { timeoutMs: 30000, what: 'lab running' });
      await page.selectOption('#lab-scenario', `${ROOM}.json`);
      let s = await waitState(page, (x) => x.labPage.current === `${ROOM}.json` && x.lab.tick > 5 && x.sample.length > 0, { what: `${ROOM} in the lab` });
      const a = s.sample.find((x) => x.group && !x.group.startsWith('kinematic') && x.group !== 'post');
      assert.ok(a, 'a composed agent in the sample');
      await page.evaluate((agent) => window.Module.ccall('fs_set_option', null, ['string', 'number'], ['follow', agent]), a.id);
      s = await waitState(page, (x) => x.inspector && x.inspector.behaviour_forces && x.inspector.behaviour_forces.source === 'lab',
        { what: 'a lab trace' });
      assert.equal(s.inspector.behaviour_forces.behaviours.length, s.inspector.composition.length);
      await page.click('#lab-pause');
      s = await waitState(page, (x) => x.lab.paused, { what: 'paused' });
      const t0 = s.lab.tick;
      await page.click('#lab-step');
      s = await waitState(page, (x) => x.lab.tick === t0 + 1 && x.inspector && x.inspector.behaviour_forces.tick === t0 + 1,
        { what: 'the trace of the stepped tick' });
      assert.equal(s.inspector.behaviour_forces.tick, s.lab.tick, 'the breakdown is of the tick on screen');
      await screenshot(page, 'inspector-lab.png');
    } finally {
      await page.context().close();
      await web.close();
    }
  });
});
