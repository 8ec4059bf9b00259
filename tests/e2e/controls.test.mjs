// Keyboard and touch in headless Chromium against the real server: the lobby works from the
// keyboard alone (Tab reaches the rooms, Enter picks, Enter again spectates), game keys leave
// focused buttons and fields alone, toggles are remembered across a reload (localStorage), the
// zoom buttons zoom, and on a touch screen one finger pans, two pinch-zoom and a tap inspects.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { checkBuilt, launchBrowser, screenshot, startServer, state, waitState } from './harness.mjs';

let server, browser;
const missing = checkBuilt();
const skip = missing.length ? missing.join('; ') : false;

before(async () => {
  if (missing.length) return;
  server = await startServer(['--bots', '0', '--scenario-dir', 'scenarios']);
  browser = await launchBrowser();
});
after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
});

async function page(options = {}) {
  const context = await browser.newContext({ viewport: { width: 640, height: 400 }, deviceScaleFactor: 1, ...options });
  const p = await context.newPage();
  p.logs = [];
  p.on('console', (m) => p.logs.push(`[${m.type()}] ${m.text()}`));
  p.on('pageerror', (e) => p.logs.push(`[pageerror] ${e.message}`));
  return p;
}

test('lobby by keyboard; keys do not steal focus; toggles remembered; zoom buttons', { skip }, async () => {
  const p = await page();
  try {
    const base = `http://127.0.0.1:${server.port}/`;
    await p.goto(base);
    await p.waitForFunction(() => window.__flockstep && window.__flockstep.loaded && document.querySelector('#rooms li[data-name="gallery"]'), null, { timeout: 20000 });
    // From the name field (focused on load), Shift+Tab walks back to the rooms.
    let onRoom = false;
    for (let i = 0; i < 10 && !onRoom; i++) {
      await p.keyboard.press('Shift+Tab');
      onRoom = await p.evaluate(() => !!document.activeElement.closest('#rooms li[data-name]'));
    }
    assert.ok(onRoom, 'Tab order reaches the rooms');
    let name = '';
    // Up to the top of the list, then down through every room (the lobby lists them all).
    const rooms = await p.$$eval('#rooms li[data-name]', (lis) => lis.length);
    for (let i = 0; i < 2 * rooms + 2 && name !== 'gallery'; i++) {
      name = await p.evaluate(() => document.activeElement.dataset.name || '');
      if (name !== 'gallery') await p.keyboard.press(i < rooms ? 'ArrowUp' : 'ArrowDown');
    }
    assert.equal(name, 'gallery', 'arrows move through the rooms');
    await p.keyboard.press('Enter');
    assert.equal(await p.$eval('#rooms li.selected', (li) => li.dataset.name), 'gallery');
    assert.equal(await p.evaluate(() => document.activeElement.dataset.name), 'gallery', 'focus stays on the room');
    await p.keyboard.press('Enter');
    await waitState(p, (s) => s.connected && s.room === 'gallery' && s.entities > 0, { what: 'spectating gallery by keyboard' });

    // A focused toolbar button keeps Space/Enter; the game does not take them.
    await p.focus('#stats-button');
    const before = await state(p);
    await p.keyboard.press('t');  // would toggle trails if the game had the key
    await p.waitForTimeout(150);
    assert.equal((await state(p)).trails, before.trails, 'a key on a focused button is not a game key');
    assert.equal(await p.evaluate(() => document.activeElement.id), 'stats-button');

    // Zoom buttons.
    const z0 = (await state(p)).camera.zoom;
    await p.click('#toolbar button[data-zoom="1.25"]');
    await waitState(p, (s) => Math.abs(s.camera.zoom - z0 * 1.25) < 1e-6, { what: 'zoom in by the button' });
    await p.click('#toolbar button[data-zoom="fit"]');
    await waitState(p, (s) => Math.abs(s.camera.zoom - z0) < 1e-6, { what: 'fit by the button' });

    // Toggles by key and by click are remembered across a reload.
    await p.locator('#canvas').focus();
    await p.keyboard.press('t');      // trails off
    await p.keyboard.press('o');      // paths layer off
    await waitState(p, (s) => s.trails === false && s.layer_on.paths === false, { what: 'trails and paths off' });
    await p.waitForTimeout(200);
    await p.goto(base + '?spectate=1#room=gallery');
    await waitState(p, (s) => s.connected && s.room === 'gallery' && s.entities > 0 && s.trails === false && s.layer_on.paths === false && s.layers.paths === 0,
      { what: 'toggles restored after a reload' });
  } finally {
    await p.context().close();
  }
});

test('touch: one finger pans, two fingers pinch-zoom, a tap inspects', { skip }, async () => {
  const p = await page({ hasTouch: true, isMobile: false });
  try {
    await p.goto(`http://127.0.0.1:${server.port}/?spectate=1#room=gallery`);
    const s0 = await waitState(p, (s) => s.connected && s.room === 'gallery' && s.sample.length > 0, { what: 'gallery' });
    const cdp = await p.context().newCDPSession(p);
    const touch = (type, points) => cdp.send('Input.dispatchTouchEvent', { type, touchPoints: points.map(([x, y], id) => ({ x, y, id })) });
    // One finger: drag 100 px right pans the camera 100 px / zoom to the left.
    await touch('touchStart', [[300, 200]]);
    for (let k = 1; k <= 5; k++) await touch('touchMove', [[300 + 20 * k, 200]]);
    await touch('touchEnd', []);
    const s1 = await waitState(p, (s) => s.camera.x < s0.camera.x - 1, { what: 'pan by touch' });
    assert.ok(Math.abs((s0.camera.x - s1.camera.x) * s0.camera.zoom - 100) < 5, `panned ${(s0.camera.x - s1.camera.x) * s0.camera.zoom} px`);
    // Two fingers apart from 100 px to 200 px: twice the zoom.
    await touch('touchStart', [[270, 200], [370, 200]]);
    for (let k = 1; k <= 5; k++) await touch('touchMove', [[270 - 10 * k, 200], [370 + 10 * k, 200]]);
    await touch('touchEnd', []);
    const s2 = await waitState(p, (s) => s.camera.zoom > s1.camera.zoom * 1.5, { what: 'pinch zoom' });
    assert.ok(Math.abs(s2.camera.zoom / s1.camera.zoom - 2) < 0.05, `zoom ratio ${s2.camera.zoom / s1.camera.zoom}`);
    // Pause, then tap an agent: the inspector shows it.
    await p.evaluate(() => window.Module.ccall('fs_set_option', null, ['string', 'number'], ['fit', 1]));
    await p.evaluate(() => window.Module.ccall('fs_set_option', null, ['string', 'number'], ['paused', 1]));
    await p.waitForTimeout(200);
    const s3 = await state(p);
    const a = s3.sample.find((x) => x.group);
    const k = s3.canvas.scale || 1;
    const x = (a.x - s3.camera.x) * s3.camera.zoom / k + s3.canvas.css_w / 2, y = s3.canvas.css_h / 2 - (a.y - s3.camera.y) * s3.camera.zoom / k;
    await touch('touchStart', [[x, y]]);
    await touch('touchEnd', []);
    const s4 = await waitState(p, (s) => s.inspector && s.inspector.id === a.id, { what: 'tap inspects' });
    assert.equal(s4.inspector.group, a.group);
    await screenshot(p, 'e2e-touch-inspect.png');
  } finally {
    await p.context().close();
  }
});

test('play: Q inspects the nearest agent, Q again closes', { skip }, async () => {
  const p = await page();
  try {
    await p.goto(`http://127.0.0.1:${server.port}/?play=inspector#room=gallery`);
    await waitState(p, (s) => s.connected && s.room === 'gallery' && s.predicted && s.entities > 1, { what: 'playing in gallery' });
    await p.locator('#canvas').focus();
    await p.keyboard.press('q');
    const s = await waitState(p, (x) => x.inspector && x.inspector.group, { what: 'inspector in play' });
    assert.notEqual(s.inspector.id, s.entity_id, 'another agent, not the own craft');
    await p.waitForSelector('#inspector:not(.hidden)', { timeout: 3000 });  // the panels follow at 10 Hz
    await p.keyboard.press('q');
    await waitState(p, (x) => x.inspector === null, { what: 'inspector closed by Q' });
  } finally {
    await p.context().close();
  }
});
