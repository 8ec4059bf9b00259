// Viewer frame time with N agents in headless Chromium (software WebGL2 via SwiftShader).
// Not part of the test run: a measuring tool for docs/performance.md.
//
//   node tests/e2e/perf.mjs [--offline|--server|--sim] [N ...]     (default: all three, 1000 10000)
//
// --offline: the page's own benchmark (?bench=N): N synthetic agents pushed through the same
//   snapshot buffer, interpolation/extrapolation and instanced drawing, no server, so the
//   numbers are the viewer's alone.
// --sim: ?bench=N&sim=1, a local sim::World (canonical flock) running in the page as well.
// --server: a copy of scenarios/arena.json whose big flock is resized to about N agents (world
//   side scaled to keep the density), served by flockstep-server; the page spectates it, so
//   protobuf parsing of real snapshots is included (and the server shares the machine's cores).
// Each run: 1280x720, the whole world in view (every agent drawn), 10 s per mode (interpolation,
// behaviour-aware extrapolation). One JSON line per run: medians of fps, frame CPU ms, snapshot
// handling ms. On a shared machine quote ratios measured side by side, not lone absolute times.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { ROOT, checkBuilt, startStatic, launchBrowser, newPage, screenshot, startServer, state, waitState } from './harness.mjs';

const argv = process.argv.slice(2);
const counts = argv.map(Number).filter((n) => n > 0);
if (counts.length === 0) counts.push(1000, 10000);
let kinds = argv.filter((a) => a.startsWith('--')).map((a) => a.slice(2));
if (kinds.length === 0) kinds = ['offline', 'sim', 'server'];

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : NaN;
};

function scenarioFor(n) {
  const base = JSON.parse(fs.readFileSync(path.join(ROOT, 'scenarios/arena.json'), 'utf8'));
  const groups = base.groups;
  const flock = groups.reduce((a, g) => ((g.count || 0) > (a.count || 0) ? g : a), groups[0]);
  const others = groups.reduce((s, g) => s + (g === flock ? 0 : g.count || 0), 0);
  const before = groups.reduce((s, g) => s + (g.count || 0), 0);
  flock.count = Math.max(1, n - others);
  delete flock.spawn_min;
  delete flock.spawn_max;
  const k = Math.sqrt(n / before);
  if (k > 1) {
    base.width = Math.round(base.width * k);
    base.height = Math.round(base.height * k);
  }
  base.max_agents = n + (base.max_players || 64) + 16;
  base.name = `arena-${n}`;
  const file = path.join(os.tmpdir(), `flockstep-perf-${n}-${process.pid}.json`);
  fs.writeFileSync(file, JSON.stringify(base, null, 1));
  return file;
}

const missing = checkBuilt();
if (missing.length) {
  console.error('not built yet:\n  ' + missing.join('\n  '));
  process.exit(2);
}

async function measure(page, label, n) {
  await page.evaluate(() => Module.ccall('fs_set_option', null, ['string', 'number'], ['fit', 1]));
  for (const mode of ['interpolate', 'extrapolate']) {
    await page.evaluate((m) => Module.ccall('fs_set_option', null, ['string', 'number'], ['extrapolate', m === 'extrapolate' ? 1 : 0]), mode);
    await page.waitForTimeout(2000);
    const samples = [];
    for (let i = 0; i < 20; ++i) {
      await page.waitForTimeout(500);
      samples.push(await state(page));
    }
    const last = samples[samples.length - 1];
    console.log(JSON.stringify({
      run: label,
      agents: last.entities,
      visible: last.visible,
      mode,
      fps: median(samples.map((s) => s.fps)),
      frame_ms: +median(samples.map((s) => s.frame_ms)).toFixed(3),
      snapshot_ms: +median(samples.map((s) => s.snapshot_ms)).toFixed(3),
      sim_ms: +median(samples.map((s) => s.bench_sim_ms)).toFixed(3),
      snapshot_rate: median(samples.map((s) => s.snapshot_rate)),
      kbps: Math.round(median(samples.map((s) => s.kbps))),
      draw_calls: last.draw_calls,
      extrap_error_m: +last.extrap_error.toFixed(3),
      dead_reckoning_error_m: +last.dead_reckoning_error.toFixed(3),
    }));
    await screenshot(page, `perf-${label}-${n}-${mode}.png`);
  }
}

const browser = await launchBrowser();
const web = await startStatic();
try {
  for (const n of counts) {
    for (const kind of kinds) {
      if (kind === 'offline' || kind === 'sim') {
        const page = await newPage(browser, { width: 1280, height: 720 });
        await page.goto(`http://127.0.0.1:${web.port}/?bench=${n}${kind === 'sim' ? '&sim=1' : ''}`);
        await waitState(page, (s) => s.bench > 0 && s.entities > 0, { what: 'benchmark', timeoutMs: 30000 });
        await measure(page, kind, n);
        await page.close();
        continue;
      }
      const file = scenarioFor(n);
      const server = await startServer(['--scenario', file]);
      try {
        const page = await newPage(browser, { width: 1280, height: 720 });
        await page.goto(`http://127.0.0.1:${server.port}/?spectate=1`);
        await waitState(page, (s) => s.connected && s.entities > 0, { what: 'spectator', timeoutMs: 30000 });
        await measure(page, 'server', n);
        await page.close();
      } finally {
        await server.stop();
        fs.rmSync(file, { force: true });
      }
    }
  }
} finally {
  await browser.close();
  await web.close();
}
