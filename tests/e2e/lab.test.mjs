// End-to-end test of the lab (?lab=1): the viewer runs a scenario file as a sim::World in the
// page, served by a plain static file server with no game server anywhere. Pause, step, a new
// seed, tuning through the Tune panel (with the server's rules), the JSON editor's errors, a
// click that moves the chasers' target, and the export, which the real flockstep-server then
// runs as a room. Real headless Chromium; assertions read window.__flockstep and the DOM.
//
//   node --test tests/e2e/lab.test.mjs      (needs the server and the wasm viewer: harness.mjs)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { checkBuilt, launchBrowser, newPage, screenshot, startServer, startStatic, state, waitState } from './harness.mjs';

const missing = checkBuilt();

describe('the lab, with no game server', { timeout: 240000 }, () => {
  let web, browser, page;

  before(async () => {
    if (missing.length) throw new Error('not built yet:\n  ' + missing.join('\n  '));
    web = await startStatic();
    browser = await launchBrowser();
    page = await newPage(browser, { width: 960, height: 640 });
  });

  after(async () => {
    if (browser) await browser.close();
    if (web) await web.close();
  });

  test('?lab=1 runs the default scenario in the page', async () => {
    await page.goto(`http://127.0.0.1:${web.port}/?lab=1`);
    const s = await waitState(page, (x) => x.lab && x.lab.tick > 30 && x.visible > 0, { timeoutMs: 30000, what: 'lab running' });
    assert.equal(s.labPage.files, 16, 'every shipped scenario file is offered');
    assert.equal(s.labPage.current, 'gallery.json');
    assert.equal(s.link, 'idle', 'no connection was ever opened');
    assert.equal(s.lab.agents, s.entities, 'every agent of the lab world is drawn');
    assert.ok(s.layers && Object.values(s.layers).some((n) => n > 0), 'the world layers are drawn');
    await screenshot(page, 'e2e-lab-gallery.png');
  });

  test('another file; pause holds the tick, step advances it by one, a new seed restarts', async () => {
    await page.selectOption('#lab-scenario', 'intercept.json');
    let s = await waitState(page, (x) => x.labPage.current === 'intercept.json' && x.lab.tick > 10, { what: 'intercept loaded' });
    assert.equal(s.room, 'intercept');
    await page.click('#lab-pause');
    s = await waitState(page, (x) => x.lab.paused, { what: 'paused' });
    const t0 = s.lab.tick;
    const h0 = s.lab.hash;
    await page.waitForTimeout(600);
    s = await state(page);
    assert.equal(s.lab.tick, t0, 'a paused lab does not tick');
    assert.equal(s.lab.hash, h0);
    await page.click('#lab-step');
    s = await waitState(page, (x) => x.lab.tick !== t0, { what: 'one step' });
    assert.equal(s.lab.tick, t0 + 1, 'Step runs exactly one tick');
    assert.notEqual(s.lab.hash, h0);
    const seed = s.lab.seed;
    await page.click('#lab-restart');
    s = await waitState(page, (x) => x.lab.seed === seed + 1, { what: 'new seed' });
    assert.ok(s.lab.tick <= 1, `restarted at tick ${s.lab.tick}`);
    await page.click('#lab-pause');  // run again
    await waitState(page, (x) => !x.lab.paused && x.lab.tick > 20, { what: 'running again' });
  });

  test('the same file and seed give the same world hash at the same tick (the lab is deterministic)', async () => {
    const hashAt = async () => page.evaluate(() => {
      const M = window.Module;
      M.ccall('fs_lab_control', null, ['string', 'number'], ['restart', 77]);
      M.ccall('fs_lab_control', null, ['string', 'number'], ['step', 4]);
      return null;
    });
    await hashAt();
    const a = await waitState(page, (x) => x.lab.seed === 77 && x.lab.tick === 4, { what: 'four ticks at seed 77' });
    await page.evaluate(() => window.Module.ccall('fs_lab_control', null, ['string', 'number'], ['restart', 78]));
    await page.evaluate(() => window.Module.ccall('fs_lab_control', null, ['string', 'number'], ['step', 4]));
    const b = await waitState(page, (x) => x.lab.seed === 78 && x.lab.tick === 4, { what: 'four ticks at seed 78' });
    await hashAt();
    const c = await waitState(page, (x) => x.lab.seed === 77 && x.lab.tick === 4, { what: 'seed 77 again' });
    assert.equal(c.lab.hash, a.lab.hash, 'same seed, same ticks, same bits');
    assert.notEqual(b.lab.hash, a.lab.hash, 'control: another seed gives another world');
    await page.click('#lab-pause');
  });

  test('Tune: a count and a parameter apply to the page world; a bad value is refused with the rule', async () => {
    await page.click('#lab-tune');
    await page.waitForSelector('#tune:not(.hidden) #tune-groups details');
    const s0 = await state(page);
    const g = s0.tune.groups[0];
    const before = s0.lab.agents;
    await page.fill('#tune-0-count', String(g.count + 5));
    await page.press('#tune-0-count', 'Enter');
    let s = await waitState(page, (x) => x.lab.agents === before + 5, { what: 'five more agents' });
    assert.equal(s.tune.last.status, 200);
    assert.ok(await page.$('#tune-groups input.slider'), 'sliders beside the numbers in the lab');
    await page.fill('#tune-0-max_speed', '-3');
    await page.press('#tune-0-max_speed', 'Enter');
    s = await waitState(page, (x) => x.tune.last && x.tune.last.key === 'max_speed', { what: 'max_speed answer' });
    assert.equal(s.tune.last.status, 400);
    assert.match(s.tune.last.error, /max_speed/);
    await page.fill('#tune-0-max_speed', '7.5');
    await page.press('#tune-0-max_speed', 'Enter');
    s = await waitState(page, (x) => x.tune.last && x.tune.last.status === 200 && x.tune.groups[0].params.max_speed === 7.5,
      { what: 'max_speed 7.5' });
    await page.click('#tune-close');
  });

  test('a click on open ground places the target; the JSON editor names the bad key', async () => {
    const box = await page.$eval('#canvas', (c) => { const r = c.getBoundingClientRect(); return [r.width, r.height]; });
    // Try a few spots until one is open ground (a click on an agent inspects it instead).
    let s = null;
    for (const [fx, fy] of [[0.6, 0.5], [0.7, 0.3], [0.8, 0.7], [0.55, 0.8]]) {
      await page.mouse.click(box[0] * fx, box[1] * fy);
      await page.waitForTimeout(300);
      s = await state(page);
      if (s.lab.target) break;
    }
    assert.ok(s.lab.target, 'the target craft was placed');
    assert.ok(s.lab.target_position.every(Number.isFinite));
    await screenshot(page, 'e2e-lab-intercept-target.png');

    await page.click('#lab-edit');
    await page.fill('#lab-json', '{"name": "x", "groups": [{"technique": "flock", "max_sped": 3}]}');
    await page.click('#lab-apply');
    const err = await page.textContent('#lab-error');
    assert.match(err, /groups\[0\]\.max_sped: unknown key/);
    s = await state(page);
    assert.ok(s.lab.agents > 0, 'the running world is kept after a bad edit');
    // A composition typed in the editor: one group of Millington's dynamic seek.
    await page.fill('#lab-json', JSON.stringify({
      name: 'composed', width: 80, height: 60, seed: 5,
      groups: [{ name: 'seekers', count: 6, model: 'steering', behaviors: [{ type: 'dynamic_wander', weight: 1 }] }],
    }));
    await page.click('#lab-apply');
    s = await waitState(page, (x) => x.room === 'composed' && x.lab.agents === 6, { what: 'composed scenario' });
    assert.equal(await page.textContent('#lab-error'), '');
    await page.click('#lab-edit');
  });

  test('the exported scenario runs as a room in flockstep-server', async () => {
    await page.selectOption('#lab-scenario', 'slides_hide.json');
    await waitState(page, (x) => x.labPage.current === 'slides_hide.json', { what: 'slides_hide loaded' });
    await page.click('#lab-tune');
    await page.waitForSelector('#tune:not(.hidden) #tune-groups details');
    const s0 = await state(page);
    const count = s0.tune.groups[0].count + 3;
    await page.fill('#tune-0-count', String(count));
    await page.press('#tune-0-count', 'Enter');
    await waitState(page, (x) => x.tune.groups[0].count === count, { what: 'tuned count' });
    const text = await page.evaluate(() => window.Module.ccall('fs_lab_export', 'string', [], []));
    const exported = JSON.parse(text);
    assert.equal(exported.groups[0].count, count, 'the export carries the tuned value');

    const file = path.join(os.tmpdir(), `flockstep-lab-export-${process.pid}.json`);
    fs.writeFileSync(file, text);
    const server = await startServer(['--scenario', file]);
    try {
      const r = await fetch(`http://127.0.0.1:${server.port}/api/rooms`);
      assert.equal(r.status, 200);
      const rooms = await r.json();
      const room = rooms.rooms.find((x) => x.name === exported.name);
      assert.ok(room, `the server runs a room "${exported.name}" from the exported file`);
      const sc = await (await fetch(`http://127.0.0.1:${server.port}/api/rooms/${encodeURIComponent(exported.name)}/scenario`)).json();
      assert.equal(sc.groups[0].count, count, 'the server read the tuned count');
    } finally {
      await server.stop();
      fs.rmSync(file, { force: true });
    }
  });
});
