// A client that knows ONLY the .proto files (issue 3's "done when"): protobufjs loads
// proto/flockstep/v1/*.proto at run time, `ws` speaks WebSocket, and nothing of the project's C++
// (codec, bot, viewer) is involved. It joins the real server as a player and as a spectator with
// Join.plain_snapshots = true, flies the craft with Input messages and checks that the server
// moves it, that pursuers are in the world, and that the spectator sees the same world.
//
//   node --test tests/e2e/proto_client.test.mjs      (needs build/release/server/flockstep-server)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

import { ROOT, SERVER, startServer } from './harness.mjs';

const require = createRequire(import.meta.url);
const protobuf = require('protobufjs');
const WebSocket = require('ws');

function loadSchema() {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => path.join(ROOT, 'proto', target);
  root.loadSync(['flockstep/v1/messages.proto'], { keepCase: true });
  return {
    ClientMessage: root.lookupType('flockstep.v1.ClientMessage'),
    ServerMessage: root.lookupType('flockstep.v1.ServerMessage'),
    Role: root.lookupEnum('flockstep.v1.Role').values,
    AgentKind: root.lookupEnum('flockstep.v1.AgentKind').values,
  };
}

/** A WebSocket that decodes every binary frame as a ServerMessage into `messages`. */
async function connect(port, schema) {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`);
  ws.binaryType = 'nodebuffer';
  const c = { ws, messages: [], closed: null };
  ws.on('message', (data, isBinary) => {
    assert.ok(isBinary, 'the server sends binary frames only');
    c.messages.push(schema.ServerMessage.decode(data));
  });
  ws.on('close', (code, reason) => { c.closed = { code, reason: reason.toString() }; });
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
  c.send = (payload) => ws.send(schema.ClientMessage.encode(schema.ClientMessage.create(payload)).finish());
  c.waitFor = async (pred, ms, what) => {
    const end = Date.now() + ms;
    for (;;) {
      const m = c.messages.find(pred);
      if (m) return m;
      if (c.closed) throw new Error(`closed (${c.closed.code} ${c.closed.reason}) while waiting for ${what}`);
      if (Date.now() > end) throw new Error(`no ${what} within ${ms} ms`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  return c;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

describe('a client that knows only the .proto files', { timeout: 60000 }, () => {
  let server, schema;

  before(async () => {
    if (!fs.existsSync(SERVER)) throw new Error(`not built: ${SERVER}`);
    schema = loadSchema();
    server = await startServer(['--bots', '0']);
  });
  after(async () => { if (server) await server.stop(); });

  test('joins as a player, flies with Input, and the server moves its craft', async () => {
    const p = await connect(server.port, schema);
    p.send({ join: { role: schema.Role.ROLE_PLAYER, display_name: Buffer.from('proto-only'), plain_snapshots: true } });
    const welcome = (await p.waitFor((m) => m.welcome, 5000, 'Welcome')).welcome;
    const me = welcome.entity_id;
    assert.ok(me > 0, 'a player gets a craft');
    assert.equal(welcome.tick_rate_hz, 60);
    assert.ok(welcome.world.width > 0 && welcome.world.height > 0, 'the Welcome carries the world bounds');

    const first = (await p.waitFor((m) => m.snapshot && m.snapshot.agents.some((a) => a.id === me), 5000, 'a snapshot with the craft')).snapshot;
    const start = first.agents.find((a) => a.id === me);
    assert.ok(first.agents.some((a) => a.kind === schema.AgentKind.AGENT_KIND_PURSUER), 'pursuers are in the world');
    assert.ok(first.agents.some((a) => a.kind === schema.AgentKind.AGENT_KIND_FLOCK), 'flocks are in the world');

    // Full throttle for 1.5 s at 60 inputs per second, every unacknowledged input resent (the
    // protocol's sliding window), acknowledged through Snapshot.last_input_sequence.
    let seq = 0;
    let acked = 0;
    const frames = [];
    for (let i = 0; i < 90; ++i) {
      frames.push({ sequence: ++seq, turn: 0, throttle: 1 });
      const last = p.messages.filter((m) => m.snapshot).at(-1).snapshot;
      acked = Math.max(acked, last.last_input_sequence);
      while (frames.length && frames[0].sequence <= acked) frames.shift();
      p.send({ input: { frames: frames.slice(-welcome.max_input_frames) } });
      await sleep(1000 / 60);
    }
    const lastSnap = (await p.waitFor((m) => m.snapshot && m.snapshot.last_input_sequence === seq, 3000, 'the last input applied')).snapshot;
    const end = lastSnap.agents.find((a) => a.id === me);
    assert.ok(end, 'the craft is still in the world');
    const moved = Math.hypot(end.position.x - start.position.x, end.position.y - start.position.y);
    // Thrust 4 N on 1 kg with drag for 1.5 s covers metres, unless it was caught and respawned:
    // either way the server moved it.
    assert.ok(moved > 1, `the craft moved ${moved.toFixed(2)} m`);
    assert.ok(p.messages.filter((m) => m.snapshot).length >= 20, 'snapshots at about 20 Hz');
    assert.ok(!p.messages.some((m) => m.delta_snapshot), 'no delta snapshots for a plain client');
    assert.equal(p.closed, null);
    p.send({ close: {} });
    p.ws.close(1000);
  });

  test('joins as a spectator and sees the same world without a body', async () => {
    const s = await connect(server.port, schema);
    s.send({ join: { role: schema.Role.ROLE_SPECTATOR, display_name: Buffer.from('watcher'), plain_snapshots: true } });
    const welcome = (await s.waitFor((m) => m.welcome, 5000, 'Welcome')).welcome;
    assert.equal(welcome.entity_id, 0, 'spectators have no body');
    const snap = (await s.waitFor((m) => m.snapshot && m.snapshot.agents.length > 0, 5000, 'a snapshot')).snapshot;
    const kinds = new Set(snap.agents.map((a) => a.kind));
    assert.ok(kinds.has(schema.AgentKind.AGENT_KIND_FLOCK) && kinds.has(schema.AgentKind.AGENT_KIND_PATROL));
    for (const a of snap.agents) {
      assert.ok(a.position.x >= 0 && a.position.x <= welcome.world.width, `agent ${a.id} inside the world`);
      assert.ok(a.position.y >= 0 && a.position.y <= welcome.world.height, `agent ${a.id} inside the world`);
    }
    s.ws.close(1000);
  });
});
