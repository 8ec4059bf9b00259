// Cost of the SDK's decode path: the wasm core turning one delta snapshot frame into JS objects
// (codec::SnapshotReceiver + embind), measured as a spectator of the whole default arena on a
// local server. Never part of the test run.
//
//   FLOCKSTEP_SERVER=build/release/server/flockstep-server node sdk/js/bench/decode_bench.mjs [seconds]
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const PACKAGE = process.env.FLOCKSTEP_SDK_DIR || path.join(ROOT, 'build/wasm/sdk/js/package');
process.env.FLOCKSTEP_WEB_ROOT ||= path.join(ROOT, 'client/web');
const { startServer } = await import(pathToFileURL(path.join(ROOT, 'tests/e2e/harness.mjs')).href);
const require = createRequire(path.join(ROOT, 'package.json'));
const WebSocket = require('ws');
const Module = await require(path.join(PACKAGE, 'flockstep_core.js'))();

const seconds = Number(process.argv[2] ?? 6);
const server = await startServer(['--bots', '0']);
const core = new Module.Core();
const ws = new WebSocket(`ws://127.0.0.1:${server.port}/ws`);
await new Promise((r) => ws.once('open', r));
const WARMUP = 5;  // the first snapshots are full ones and the JIT is cold
let n = 0, ms = 0, agents = 0, bytes = 0;
ws.on('message', (data) => {
  const t = performance.now();
  const r = core.receive(data);
  const dt = performance.now() - t;
  if (r.reply) ws.send(r.reply);
  if (r.type === 'snapshot' && ++n > WARMUP) {
    ms += dt;
    agents += r.snapshot.agents.length;
    bytes += data.length;
  }
});
ws.send(core.join('spectator', 'bench', ''));
await new Promise((r) => setTimeout(r, seconds * 1000));
const k = n - WARMUP;
console.log(`${k} snapshots, ${(agents / k).toFixed(0)} agents, ${(bytes / k).toFixed(0)} B each: ` +
  `${(ms / k).toFixed(3)} ms per snapshot (${((ms / agents) * 1000).toFixed(2)} us per agent), node ${process.version}`);
ws.close();
core.delete();
await server.stop();
