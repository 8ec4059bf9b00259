// A client that knows ONLY the .proto files: protobufjs loads proto/flockstep/v1/*.proto at run
// time, `ws` speaks WebSocket, and nothing of the project's C++ (codec, bot, viewer) is involved.
// Run with BOTH protobufjs 7 (npm alias `protobufjs7`; what most projects pin) and protobufjs 8:
// protobufjs < 8 replaces a repeated embedded message instead of merging it, so a wire layout
// that relied on merging lost every agent with 7 while passing with 8 (the control test below
// shows that layout still breaks 7, so these tests can fail).
//
// Each version joins the real server (loopback, port 0) as a player with plain snapshots and with
// the delta stream, flies with Input and checks it sees its own craft move; and as a spectator.
//
//   node --test tests/e2e/proto_client.test.mjs      (needs build/release/server/flockstep-server)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

import { ROOT, SERVER, startServer } from './harness.mjs';

const require = createRequire(import.meta.url);
const WebSocket = require('ws');
const DECODERS = [
  { name: 'protobufjs 7', lib: require('protobufjs7'), version: require('protobufjs7/package.json').version, major: '7' },
  { name: 'protobufjs 8', lib: require('protobufjs'), version: require('protobufjs/package.json').version, major: '8' },
];
const PROTOCOL_VERSION = 3;

function loadSchema(protobuf) {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => path.join(ROOT, 'proto', target);
  root.loadSync(['flockstep/v1/messages.proto'], { keepCase: true });
  return {
    ClientMessage: root.lookupType('flockstep.v1.ClientMessage'),
    ServerMessage: root.lookupType('flockstep.v1.ServerMessage'),
    Role: root.lookupEnum('flockstep.v1.Role').values,
    AgentKind: root.lookupEnum('flockstep.v1.AgentKind').values,
    CloseCode: root.lookupEnum('flockstep.v1.Close.Code').values,
  };
}

const num = (v) => (v === undefined || v === null ? 0 : Number(v));  // uint64 may be a Long

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

/**
 * Fly at full throttle for `ticks` client ticks at 60 Hz, every unacknowledged input resent (the
 * protocol's sliding window), acknowledged through ServerMessage.player.last_input_sequence.
 * `onTick` runs first on every tick (the delta client acknowledges snapshots there).
 */
async function thrust(c, welcome, ticks, onTick = () => {}) {
  let seq = 0;
  let acked = 0;
  const frames = [];
  for (let i = 0; i < ticks; ++i) {
    onTick();
    frames.push({ sequence: ++seq, turn: 0, throttle: 1 });
    for (const m of c.messages) if (m.player) acked = Math.max(acked, m.player.last_input_sequence);
    while (frames.length && frames[0].sequence <= acked) frames.shift();
    c.send({ input: { frames: frames.slice(-welcome.max_input_frames) } });
    await sleep(1000 / 60);
  }
  return seq;
}

async function join(c, schema, fields) {
  c.send({ join: { protocol_version: PROTOCOL_VERSION, display_name: Buffer.from('proto-only'), ...fields } });
  const welcome = (await c.waitFor((m) => m.welcome, 5000, 'Welcome')).welcome;
  assert.equal(welcome.protocol_version, PROTOCOL_VERSION, 'the Welcome names the protocol');
  return welcome;
}

test('the decoders are the versions this test is about', () => {
  for (const d of DECODERS) assert.equal(d.version.split('.')[0], d.major, `${d.name} is ${d.version}`);
});

// Control: the layout of protocol 1 (the player's part as a second ServerMessage{snapshot{...}}
// after the shared body) decodes with protobufjs 8 but loses the shared body with protobufjs 7.
// If this ever stops failing for 7, the live tests below no longer tell the layouts apart.
// The second occurrence is written as raw bytes: the fields protocol 1 put there (Snapshot 2,
// DeltaSnapshot 6) are reserved in the .proto files now, so the schema has nothing to encode or
// decode them with.
describe('control: the protocol 1 layout (merged snapshot) against each decoder', () => {
  for (const d of DECODERS) {
    test(`${d.name} ${d.major === '7' ? 'loses' : 'merges'} the shared body`, () => {
      const schema = loadSchema(d.lib);
      const enc = (m) => Buffer.from(schema.ServerMessage.encode(schema.ServerMessage.create(m)).finish());
      const agents = [1, 2, 3].map((id) => ({ id, kind: schema.AgentKind.AGENT_KIND_FLOCK, position: { x: id, y: 2 * id } }));
      const oldPlain = Buffer.from([0x12, 0x02, 0x10, 0x07]); // ServerMessage{snapshot(2){2: 7}}
      const oldDelta = Buffer.from([0x52, 0x02, 0x30, 0x07]); // ServerMessage{delta_snapshot(10){6: 7}}
      const plain = Buffer.concat([enc({ snapshot: { server_tick: 90, agents } }), oldPlain]);
      const delta = Buffer.concat([
        enc({ delta_snapshot: { server_tick: 93, baseline_tick: 90, agents: Buffer.from([1, 2, 3]), agent_count: 3 } }),
        oldDelta,
      ]);
      const p = schema.ServerMessage.decode(plain).snapshot;
      const q = schema.ServerMessage.decode(delta).delta_snapshot;
      assert.equal(p.last_input_sequence, undefined, 'reserved: no field a .proto-only client reads a zero from');
      assert.equal(q.last_input_sequence, undefined, 'reserved: no field a .proto-only client reads a zero from');
      if (d.major === '7') {
        assert.equal(p.agents.length, 0, 'protobufjs 7 keeps only the last occurrence: the agents are gone');
        assert.equal(num(p.server_tick), 0);
        assert.equal(num(q.baseline_tick), 0, 'and the delta loses its baseline (the client would ack tick 0)');
        assert.equal(num(q.agent_count), 0);
      } else {
        assert.equal(p.agents.length, 3);
        assert.equal(num(p.server_tick), 90);
        assert.equal(num(q.baseline_tick), 90);
        assert.equal(num(q.agent_count), 3);
      }
    });
  }
});

for (const d of DECODERS) {
  describe(`a client that knows only the .proto files (${d.name} ${d.version})`, { timeout: 60000 }, () => {
    let server, schema;

    before(async () => {
      if (!fs.existsSync(SERVER)) throw new Error(`not built: ${SERVER}`);
      schema = loadSchema(d.lib);
      server = await startServer(['--bots', '0']);
    });
    after(async () => { if (server) await server.stop(); });

    test('plain snapshots: a player sees the world, its craft, and its craft move under thrust', async () => {
      const p = await connect(server.port, schema);
      const welcome = await join(p, schema, { role: schema.Role.ROLE_PLAYER, plain_snapshots: true });
      const me = welcome.entity_id;
      assert.ok(me > 0, 'a player gets a craft');
      assert.equal(welcome.tick_rate_hz, 60);
      assert.ok(welcome.world.width > 0 && welcome.world.height > 0, 'the Welcome carries the world bounds');

      const first = await p.waitFor((m) => m.snapshot && m.snapshot.agents.some((a) => a.id === me), 5000, 'a snapshot with the craft');
      assert.ok(first.player, 'a player frame carries ServerMessage.player');
      const start = first.snapshot.agents.find((a) => a.id === me);
      assert.ok(first.snapshot.agents.some((a) => a.kind === schema.AgentKind.AGENT_KIND_PURSUER), 'pursuers are in the world');
      assert.ok(first.snapshot.agents.some((a) => a.kind === schema.AgentKind.AGENT_KIND_FLOCK), 'flocks are in the world');

      const seq = await thrust(p, welcome, 90);
      const last = await p.waitFor((m) => m.player && m.player.last_input_sequence === seq, 3000, 'the last input applied');
      const end = last.snapshot.agents.find((a) => a.id === me);
      assert.ok(end, 'the craft is still in the world');
      const moved = Math.hypot(end.position.x - start.position.x, end.position.y - start.position.y);
      // Thrust 4 N on 1 kg with drag for 1.5 s covers metres, unless it was caught and respawned:
      // either way the server moved it.
      assert.ok(moved > 1, `the craft moved ${moved.toFixed(2)} m`);

      const snaps = p.messages.filter((m) => m.snapshot);
      assert.ok(snaps.length >= 20, 'snapshots at about 20 Hz');
      for (const m of snaps) {
        assert.ok(m.snapshot.agents.length > 0, 'every snapshot has its agents');
        assert.ok(m.player, 'and the player part');
      }
      const ticks = snaps.map((m) => num(m.snapshot.server_tick));
      for (let i = 1; i < ticks.length; ++i) assert.ok(ticks[i] > ticks[i - 1], `server_tick advances (${ticks[i - 1]} -> ${ticks[i]})`);
      assert.ok(!p.messages.some((m) => m.delta_snapshot), 'no delta snapshots for a plain client');
      assert.equal(p.closed, null);
      p.send({ close: {} });
      p.ws.close(1000);
    });

    test('delta stream: baselines follow the acks, the own craft is exact and moves under thrust', async () => {
      const p = await connect(server.port, schema);
      const welcome = await join(p, schema, { role: schema.Role.ROLE_PLAYER });
      const me = welcome.entity_id;
      const deltas = () => p.messages.filter((m) => m.delta_snapshot);
      // Acknowledge every snapshot by its tick. (This client cannot decode the bit-packed agents;
      // the server cannot tell, and the test only needs it to pick baselines from the acks.)
      let acked = 0;
      const ackNew = () => {
        for (const m of deltas()) {
          const t = num(m.delta_snapshot.server_tick);
          if (t > acked) {
            acked = t;
            p.send({ ack: { snapshot_tick: t } });
          }
        }
      };
      const first = await p.waitFor((m) => m.delta_snapshot && m.player && m.player.own, 5000, 'a delta snapshot with the own craft');
      assert.equal(num(first.delta_snapshot.baseline_tick), 0, 'the first snapshot is full');
      const start = first.player.own;
      assert.equal(start.id, me);
      ackNew();

      const seq = await thrust(p, welcome, 90, ackNew);
      const last = await p.waitFor((m) => m.delta_snapshot && m.player && m.player.last_input_sequence === seq, 3000, 'the last input applied');
      const moved = Math.hypot(last.player.own.position.x - start.position.x, last.player.own.position.y - start.position.y);
      assert.ok(moved > 1, `the craft moved ${moved.toFixed(2)} m`);

      const all = deltas();
      assert.ok(all.length >= 20, `delta snapshots at about 20 Hz (${all.length})`);
      for (const m of all) {
        assert.ok(num(m.delta_snapshot.server_tick) > 0, 'server_tick is set');
        assert.ok(num(m.delta_snapshot.agent_count) > 0, 'agents in view');
        assert.ok(m.player && m.player.own && m.player.own.id === me, 'the player part carries the own craft');
      }
      const ticks = all.map((m) => num(m.delta_snapshot.server_tick));
      for (let i = 1; i < ticks.length; ++i) assert.ok(ticks[i] > ticks[i - 1], 'server_tick advances');
      const sentTicks = new Set(ticks);
      const coded = all.slice(3).filter((m) => num(m.delta_snapshot.baseline_tick) !== 0);
      assert.ok(coded.length >= all.length - 6, `after the first acks snapshots are deltas (${coded.length} of ${all.length - 3})`);
      for (const m of coded) assert.ok(sentTicks.has(num(m.delta_snapshot.baseline_tick)), 'baselines are snapshots we acknowledged');
      assert.equal(p.closed, null);
      p.ws.close(1000);
    });

    test('joins as a spectator and sees the same world without a body', async () => {
      const s = await connect(server.port, schema);
      const welcome = await join(s, schema, { role: schema.Role.ROLE_SPECTATOR, plain_snapshots: true });
      assert.equal(welcome.entity_id, 0, 'spectators have no body');
      const snap = await s.waitFor((m) => m.snapshot && m.snapshot.agents.length > 0, 5000, 'a snapshot');
      assert.equal(snap.player, null, 'no player part for spectators');
      const kinds = new Set(snap.snapshot.agents.map((a) => a.kind));
      assert.ok(kinds.has(schema.AgentKind.AGENT_KIND_FLOCK) && kinds.has(schema.AgentKind.AGENT_KIND_PATROL));
      for (const a of snap.snapshot.agents) {
        assert.ok(a.position.x >= 0 && a.position.x <= welcome.world.width, `agent ${a.id} inside the world`);
        assert.ok(a.position.y >= 0 && a.position.y <= welcome.world.height, `agent ${a.id} inside the world`);
      }
      s.ws.close(1000);
    });

    test('a join of another protocol version is refused with a reason naming both', async () => {
      for (const version of [0, 1, 2, 4]) {
        const c = await connect(server.port, schema);
        c.send({ join: { protocol_version: version, role: schema.Role.ROLE_PLAYER, display_name: Buffer.from('old') } });
        const close = (await c.waitFor((m) => m.close, 5000, 'Close')).close;
        assert.equal(close.code, schema.CloseCode.CODE_MALFORMED);
        const reason = Buffer.from(close.reason).toString();
        assert.match(reason, new RegExp(`protocol_version ${version} is not supported`));
        assert.match(reason, /speaks protocol 3/);
        assert.ok(!c.messages.some((m) => m.welcome), 'no Welcome');
        const end = Date.now() + 5000;
        while (!c.closed && Date.now() < end) await sleep(10);
        assert.ok(c.closed, 'the server closes the WebSocket');
        assert.equal(c.closed.reason, reason, 'the close frame carries the same reason');
      }
    });
  });
}
