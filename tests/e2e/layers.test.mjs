// Every shipped scenario, spectated in headless Chromium against the real server: every layer
// of its WorldSpec is drawn (window.__flockstep.layers equals the scenario file's item counts,
// 0 where it has none), the legend lists its groups, gallery-style rooms label their agents
// (no two labels overlap), a click opens the inspector with the agent's group, and in
// tile_patrols a blocked and a free tile centre differ on screen. One screenshot per scenario:
// $FLOCKSTEP_ARTIFACTS/<scenario>.png.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, before, test } from 'node:test';

import { ROOT, checkBuilt, launchBrowser, newPage, screenshot, startServer, state, waitState } from './harness.mjs';

const SCENARIOS = fs.readdirSync(path.join(ROOT, 'scenarios')).filter((f) => f.endsWith('.json')).sort();

/** What the viewer must draw for a scenario file (docs/server.md, Scenario files). */
function expectedLayers(sc) {
  let blocked = 0, free = 0;
  const t = sc.tiles;
  if (t && Array.isArray(t.rows_text)) {
    for (const row of t.rows_text) for (const ch of row) { if (ch === '#') blocked++; else free++; }
  } else if (t && Array.isArray(t.blocked)) {
    for (const v of t.blocked) { if (v) blocked++; else free++; }
  }
  const groups = sc.groups || [];
  return {
    tiles_blocked: blocked, tiles_free: free,
    tracks: (sc.tracks || []).length, tile_patterns: (sc.tile_patterns || []).length, paths: (sc.paths || []).length,
    patterns: groups.filter((g) => g.technique === 'pattern').length,
    walls: (sc.walls || []).length, obstacles: (sc.obstacles || []).length,
    spawn_areas: groups.filter((g) => Array.isArray(g.spawn_max) && (g.spawn_max[0] !== 0 || g.spawn_max[1] !== 0)).length,
  };
}

/** RGB of one CSS pixel of the page (a 1 x 1 PNG screenshot, decoded here). */
async function pixel(page, x, y) {
  const png = await page.screenshot({ clip: { x: Math.round(x), y: Math.round(y), width: 1, height: 1 } });
  let at = 8, idat = [];
  let colorType = 6;
  while (at < png.length) {
    const len = png.readUInt32BE(at), type = png.toString('ascii', at + 4, at + 8);
    if (type === 'IHDR') colorType = png[at + 8 + 9];
    if (type === 'IDAT') idat.push(png.subarray(at + 8, at + 8 + len));
    at += 12 + len;
  }
  const raw = zlib.inflateSync(Buffer.concat(idat));
  // One pixel: every PNG filter leaves it as is (its left and upper neighbours are zero).
  assert.ok(colorType === 2 || colorType === 6, `unexpected PNG colour type ${colorType}`);
  return [raw[1], raw[2], raw[3]];
}

/** World metres to page CSS px with the viewer's camera. */
function toCss(s, wx, wy) {
  const k = s.canvas.scale || 1;
  return { x: (wx - s.camera.x) * s.camera.zoom / k + s.canvas.css_w / 2, y: s.canvas.css_h / 2 - (wy - s.camera.y) * s.camera.zoom / k };
}

let server, browser;
const missing = checkBuilt();

before(async () => {
  if (missing.length) return;
  server = await startServer(['--bots', '0', '--scenario-dir', 'scenarios', '--max-rooms', String(SCENARIOS.length + 1)]);
  browser = await launchBrowser();
});
after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
});

for (const file of SCENARIOS) {
  const sc = JSON.parse(fs.readFileSync(path.join(ROOT, 'scenarios', file), 'utf8'));
  test(`scenario ${sc.name}: every layer drawn, legend, labels, screenshot`, { skip: missing.length ? missing.join('; ') : false }, async () => {
    const page = await newPage(browser, { width: 640, height: 400 });
    try {
      await page.goto(`http://127.0.0.1:${server.port}/?spectate=1#room=${encodeURIComponent(sc.name)}`);
      const want = expectedLayers(sc);
      const s = await waitState(page, (x) => x.connected && x.room === sc.name && x.world && x.entities > 0 && x.layers,
        { timeoutMs: 20000, what: `spectating ${sc.name}` });
      assert.deepEqual(s.layers, want, `${sc.name}: drawn items per layer`);
      assert.deepEqual(s.legend.groups.map((g) => g.name), (sc.groups || []).map((g) => g.name));
      for (const l of s.legend.layers) assert.ok(l.color.startsWith('#') && l.count > 0);
      // Labels: gallery-style rooms (few agents per group) label agents by group; never overlapping.
      const perGroup = (sc.groups || []).reduce((n, g) => n + (g.count || 0), 0) / Math.max(1, (sc.groups || []).filter((g) => g.count > 0).length);
      const labelled = await waitState(page, (x) => perGroup > 3 || x.labels.length > 0, { what: 'labels' });
      if (perGroup <= 3) {
        assert.ok(labelled.labels_on);
        const names = new Set((sc.groups || []).map((g) => g.name));
        assert.ok(labelled.labels.some((l) => names.has(l.text.split(' \u00b7 ')[0])), `${sc.name}: a group label: ${JSON.stringify(labelled.labels.slice(0, 5))}`);
      }
      const L = labelled.labels;
      for (let i = 0; i < L.length; i++) {
        for (let j = i + 1; j < L.length; j++) {
          const a = L[i], b = L[j];
          const overlap = Math.abs(a.x - b.x) * 2 < a.w + b.w && Math.abs(a.y - b.y) * 2 < a.h + b.h;
          assert.ok(!overlap, `labels overlap: ${a.text} / ${b.text}`);
        }
      }
      await page.waitForTimeout(300);
      await screenshot(page, `${sc.name}.png`);
      // No label under a panel of the page (HUD, room info, toolbar, legend...).
      const { labels, panels } = await page.evaluate(() => ({
        labels: window.__flockstep.labels,
        panels: [...document.querySelectorAll('#status, #hud, #room-info, #legend, #toolbar')]
          .filter((e) => e.offsetParent !== null).map((e) => { const r = e.getBoundingClientRect(); return { id: e.id, x: r.left, y: r.top, w: r.width, h: r.height }; }),
      }));
      for (const l of labels) {
        for (const b of panels) {
          const under = l.x - l.w / 2 < b.x + b.w - 1 && b.x < l.x + l.w / 2 - 1 && l.y - l.h / 2 < b.y + b.h - 1 && b.y < l.y + l.h / 2 - 1;
          assert.ok(!under, `label "${l.text}" under #${b.id}`);
        }
      }
      // The legend (collapsed on a small screen) opens with a click and names every group.
      if (!(await page.evaluate(() => document.getElementById('legend').open))) await page.locator('#legend summary').click();
      const legendText = await page.locator('#legend').innerText();
      assert.ok((sc.groups || []).every((g) => legendText.includes(g.name)), `every group is named in the legend: ${legendText}`);
    } finally {
      await page.context().close();
    }
  });
}

test('tile_patrols: blocked and free tiles differ on screen and survive a lost WebGL context; L and G toggle', { skip: missing.length ? missing.join('; ') : false }, async () => {
  const page = await newPage(browser, { width: 640, height: 400 });
  try {
    await page.goto(`http://127.0.0.1:${server.port}/?spectate=1#room=tile_patrols`);
    await waitState(page, (x) => x.connected && x.room === 'tile_patrols' && x.layers && x.layers.tiles_blocked > 0, { what: 'tile_patrols' });
    // Only the tile layer, no labels, so nothing else sits on the sampled pixels.
    await page.evaluate(() => { window.Module.ccall('fs_set_option', null, ['string', 'number'], ['layers', 1]);
      window.Module.ccall('fs_set_option', null, ['string', 'number'], ['labels', 0]); });
    // The page's panels are not the world: hide them so the pixels are the WebGL canvas's.
    await page.evaluate(() => { for (const id of ['hud', 'legend', 'toolbar', 'board', 'status']) document.getElementById(id).style.visibility = 'hidden'; });
    const s = await waitState(page, (x) => x.layers.tracks === 0 && x.layers.tiles_free > 0 && x.labels.length === 0, { what: 'tiles only' });
    // rows_text row 6 from the top is the wall of 8 blocked tiles at columns 18-25 (row 17 from
    // the bottom); row 20 from the bottom, column 50 is open ground. Cells are 3 m.
    const blocked = toCss(s, 20.5 * 3, 17.5 * 3), free = toCss(s, 50.5 * 3, 20.5 * 3);
    const pb = await pixel(page, blocked.x, blocked.y), pf = await pixel(page, free.x, free.y);
    const diff = Math.abs(pb[0] - pf[0]) + Math.abs(pb[1] - pf[1]) + Math.abs(pb[2] - pf[2]);
    assert.ok(diff > 120, `blocked ${pb} and free ${pf} tiles must look clearly different`);
    // A lost WebGL context (GPU reset, driver update) comes back with every GL resource recreated.
    await page.evaluate(async () => {
      const ext = document.getElementById('canvas').getContext('webgl2').getExtension('WEBGL_lose_context');
      ext.loseContext();
      await new Promise((r) => setTimeout(r, 300));
      ext.restoreContext();
    });
    await page.waitForTimeout(800);
    const s2 = await state(page);
    const pb2 = await pixel(page, blocked.x, blocked.y), pf2 = await pixel(page, free.x, free.y);
    assert.deepEqual([pb2, pf2], [pb, pf], 'the same tiles are drawn after the context came back');
    assert.ok(s2.fps > 0 && s2.draw_calls > 0);
    // Layers by key: G hides the tiles.
    await page.locator('#canvas').focus();
    await page.keyboard.press('g');
    await waitState(page, (x) => x.layers.tiles_blocked === 0 && x.layer_on.tiles === false, { what: 'tiles hidden by G' });
    await page.keyboard.press('l');
    await waitState(page, (x) => x.labels_mode === 1 && x.labels.length > 0, { what: 'labels on by L' });
  } finally {
    await page.context().close();
  }
});

test('gallery: a click inspects an agent (group, technique, aim), Esc closes', { skip: missing.length ? missing.join('; ') : false }, async () => {
  const page = await newPage(browser, { width: 640, height: 400 });
  try {
    await page.goto(`http://127.0.0.1:${server.port}/?spectate=1#room=gallery`);
    const s = await waitState(page, (x) => x.connected && x.room === 'gallery' && x.sample.length > 0 && x.sample.some((a) => a.group), { what: 'gallery agents' });
    // Pause so the agent stays under the cursor.
    await page.evaluate(() => window.Module.ccall('fs_set_option', null, ['string', 'number'], ['paused', 1]));
    await page.waitForTimeout(200);
    const st = await state(page);
    const a = st.sample.find((x) => x.group);
    const p = toCss(st, a.x, a.y);
    await page.mouse.click(p.x, p.y);
    const ins = await waitState(page, (x) => x.inspector && x.inspector.group, { what: 'inspector' });
    assert.equal(typeof ins.inspector.technique, 'string');
    assert.ok(ins.inspector.technique.length > 0);
    assert.ok(Number.isFinite(ins.inspector.speed) && Number.isFinite(ins.inspector.aim.x));
    // The breakdown is null until the server's first trace of this agent arrives (inspector.test.mjs
    // checks its numbers); whatever is shown came from the server.
    const bf = ins.inspector.behaviour_forces;
    assert.ok(bf === null || (bf.source === 'server' && bf.tick > 0), `breakdown: ${JSON.stringify(bf)}`);
    // The panel follows the state at 10 Hz.
    await page.waitForFunction((g) => document.getElementById('inspector').innerText.includes(g), ins.inspector.group, { timeout: 3000 });
    const text = await page.locator('#inspector').innerText();
    assert.ok(text.includes(ins.inspector.group) && text.includes(ins.inspector.technique), `panel shows the group and technique: ${text}`);
    await screenshot(page, 'gallery-inspector.png');
    await page.keyboard.press('Escape');
    await waitState(page, (x) => x.inspector === null, { what: 'inspector closed' });
    void s;
  } finally {
    await page.context().close();
  }
});
