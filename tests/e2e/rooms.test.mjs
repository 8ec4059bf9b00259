// End-to-end tests of rooms in the viewer: the lobby (GET /api/rooms), joining a room other than
// the default one (Join.room -> Welcome.room), an unknown room (Close CODE_UNKNOWN_ROOM -> back in the
// lobby with a message), and live tuning from the Tune panel (admin token -> POST
// /api/admin/rooms/<room>/groups/<i> -> GroupUpdate -> the viewer's group table, and the exported
// scenario). Real server, real headless Chromium; assertions read window.__flockstep and the DOM.
//
//   node --test tests/e2e/rooms.test.mjs      (needs the server and the wasm viewer: harness.mjs)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';

import { checkBuilt, launchBrowser, newPage, screenshot, startServer, state, waitState } from './harness.mjs';

const missing = checkBuilt();
const TOKEN = 'e2e-admin-token-6';

async function getJson(port, path) {
  const r = await fetch(`http://127.0.0.1:${port}${path}`);
  assert.equal(r.status, 200, `GET ${path}: HTTP ${r.status}`);
  return r.json();
}

describe('rooms, lobby and tuning end-to-end', { timeout: 240000 }, () => {
  let server, browser, base;

  before(async () => {
    if (missing.length) throw new Error('not built yet:\n  ' + missing.join('\n  '));
    server = await startServer(['--bots', '1', '--scenario-dir', 'scenarios', '--admin-token', TOKEN]);
    base = `http://127.0.0.1:${server.port}/`;
    browser = await launchBrowser();
  });

  after(async () => {
    if (browser) await browser.close();
    if (server) await server.stop();
  });

  test('lobby lists the scenarios; spectating a non-default room joins that room', async () => {
    const api = await getJson(server.port, '/api/rooms');
    assert.ok(api.rooms.length >= 2, `/api/rooms lists ${api.rooms.length} rooms`);
    const other = api.rooms.find((r) => r.name !== api.default);
    assert.ok(other, 'a room besides the default one');

    const page = await newPage(browser, { width: 900, height: 640 });
    await page.goto(base);
    await page.waitForFunction(() => window.__flockstep && window.__flockstep.loaded, null, { timeout: 20000 });
    await page.waitForFunction((n) => document.querySelectorAll('#rooms li[data-name]').length >= n, api.rooms.length,
      { timeout: 10000 });
    const listed = await page.$$eval('#rooms li[data-name]', (lis) => lis.map((li) => ({
      name: li.dataset.name, title: li.querySelector('.title').textContent, text: li.textContent,
    })));
    for (const r of api.rooms) {
      const li = listed.find((x) => x.name === r.name);
      assert.ok(li, `room ${r.name} is listed`);
      assert.equal(li.title, r.title || r.name);
      assert.match(li.text, /agents/);
    }
    // The default room is preselected.
    assert.equal(await page.$eval('#rooms li.selected', (li) => li.dataset.name), api.default);
    await screenshot(page, 'e2e-lobby.png');

    // Pick the other room, spectate it.
    await page.click(`#rooms li[data-name="${other.name}"]`);
    assert.equal(await page.$eval('#rooms li.selected', (li) => li.dataset.name), other.name);
    await page.click('#spectate');
    const s = await waitState(page, (x) => x.connected && x.room === other.name && x.entities > 0,
      { what: `spectating room ${other.name}`, timeoutMs: 20000 });
    assert.equal(s.world.name, other.name, 'the Welcome world is the room\'s scenario');
    assert.equal(s.roomTitle, other.title || other.name);
    assert.ok(await page.isVisible('#room-info'), 'title and description shown in the room');
    assert.equal(await page.textContent('#room-title'), other.title || other.name);
    // The server counts the spectator in that room.
    const during = await getJson(server.port, '/api/rooms');
    const entry = during.rooms.find((r) => r.name === other.name);
    assert.ok(entry.running, `${other.name} runs once someone joined`);
    assert.ok(entry.spectators >= 1, `spectators in ${other.name}: ${entry.spectators}`);
    await page.waitForTimeout(500);
    await screenshot(page, 'e2e-room.png');

    // The info panel toggles.
    await page.click('#info-button');
    assert.ok(!(await page.isVisible('#room-info')));
    await page.click('#info-button');
    assert.ok(await page.isVisible('#room-info'));

    // #room=NAME preselects; Leave goes back to the lobby.
    await page.click('#leave');
    await page.waitForSelector('#start:not(.hidden)');
    await page.goto(base + '#room=' + encodeURIComponent(api.default));
    await page.waitForFunction(() => window.__flockstep && window.__flockstep.loaded, null, { timeout: 20000 });
    await page.waitForSelector('#rooms li.selected');
    assert.equal(await page.$eval('#rooms li.selected', (li) => li.dataset.name), api.default);
    await page.fill('#name', 'e2e-room-pilot');
    await page.click('#play');
    const p = await waitState(page, (x) => x.connected && x.predicted && x.room === api.default,
      { what: 'playing in the default room', timeoutMs: 20000 });
    assert.equal(p.role, 'player');
    await page.close();
  });

  test('an unknown room brings the viewer back to the lobby with a message', async () => {
    const page = await newPage(browser);
    await page.goto(base + '#room=no-such-room');
    await page.waitForFunction(() => window.__flockstep && window.__flockstep.loaded, null, { timeout: 20000 });
    await page.click('#spectate');
    await page.waitForFunction(() => {
      const e = document.getElementById('start-error');
      return !document.getElementById('start').classList.contains('hidden') && e && !e.classList.contains('hidden');
    }, null, { timeout: 15000 });
    const msg = await page.textContent('#start-error');
    assert.match(msg, /no-such-room/);
    const s = await state(page);
    assert.equal(s.screen, 'start');
    assert.equal(s.connected, false);
    assert.equal(s.link, 'idle', 'no reconnect loop after CODE_UNKNOWN_ROOM');
    await screenshot(page, 'e2e-unknown-room.png');
    await page.close();
  });

  test('tuning: the admin token unlocks Tune; max_speed and count change live; export reflects them', async () => {
    const api = await getJson(server.port, '/api/rooms');
    const room = api.default;
    const page = await newPage(browser, { width: 1000, height: 700 });
    await page.goto(base + '#room=' + encodeURIComponent(room));
    await page.waitForFunction(() => window.__flockstep && window.__flockstep.loaded, null, { timeout: 20000 });
    // No token: no Tune button.
    await page.click('#spectate');
    await waitState(page, (x) => x.connected && x.entities > 0, { what: 'spectator', timeoutMs: 20000 });
    assert.ok(!(await page.isVisible('#tune-button')), 'Tune is hidden without a token');
    await page.click('#leave');
    await page.click('#admin summary');
    await page.fill('#admin-token', TOKEN);
    assert.equal(await page.evaluate(() => sessionStorage.getItem('flockstep.adminToken')), TOKEN);
    await page.click('#spectate');
    const s0 = await waitState(page, (x) => x.connected && x.entities > 0 && x.tune.groups.length > 0,
      { what: 'spectator with groups', timeoutMs: 20000 });
    await page.click('#tune-button');
    await waitState(page, (x) => x.tune.open, { what: 'tune panel open' });

    // A group with a max_speed and a few agents.
    const g = s0.tune.groups.find((x) => x.params.max_speed > 0 && x.count > 0);
    assert.ok(g, 'a group with max_speed');
    const speed = Math.round(g.params.max_speed * 0.5 * 100) / 100 || 1;
    await page.evaluate((i) => { document.querySelector(`details[data-group="${i}"]`).open = true; }, g.index);
    await page.fill(`#tune-${g.index}-max_speed`, String(speed));
    await page.press(`#tune-${g.index}-max_speed`, 'Enter');
    // Two things arrive in either order: the GroupUpdate broadcast over the WebSocket, and the
    // HTTP answer to the POST. Wait for both.
    const s1 = await waitState(page, (x) => x.tune.groups[g.index].params.max_speed === speed && x.tune.last,
      { what: `group ${g.index} max_speed ${speed} from the GroupUpdate, and the POST's answer`, timeoutMs: 10000 });
    assert.equal(s1.tune.last.status, 200, JSON.stringify(s1.tune.last));
    assert.equal(await page.inputValue(`#tune-${g.index}-max_speed`), String(speed));

    // Count: three more agents.
    const count = g.count + 3;
    await page.fill(`#tune-${g.index}-count`, String(count));
    await page.press(`#tune-${g.index}-count`, 'Enter');
    await waitState(page, (x) => x.tune.groups[g.index].count === count,
      { what: `group ${g.index} count ${count}`, timeoutMs: 10000 });

    // The exported scenario (HTTP and the Export button) has both.
    const scenario = await getJson(server.port, `/api/rooms/${encodeURIComponent(room)}/scenario`);
    const sg = scenario.groups[g.index];
    assert.equal(sg.max_speed, speed);
    assert.equal(sg.count, count);
    const download = page.waitForEvent('download');
    await page.click('#tune-export');
    const file = await (await download).path();
    const exported = JSON.parse(fs.readFileSync(file, 'utf8'));
    assert.equal(exported.groups[g.index].max_speed, speed);
    assert.equal(exported.groups[g.index].count, count);
    // The server counts the new agents.
    await waitState(page, () => true);
    const after1 = await getJson(server.port, '/api/rooms');
    const agents = after1.rooms.find((r) => r.name === room).agents;
    assert.ok(agents >= count, `agents ${agents}`);

    // An invalid value: 400 shown next to the group; the table keeps the old value.
    await page.fill(`#tune-${g.index}-max_speed`, '-5');
    await page.press(`#tune-${g.index}-max_speed`, 'Enter');
    const bad = await waitState(page, (x) => x.tune.last && x.tune.last.value === -5,
      { what: 'the refused tuning', timeoutMs: 10000 });
    assert.equal(bad.tune.last.status, 400, JSON.stringify(bad.tune.last));
    const err = await page.textContent(`details[data-group="${g.index}"] .group-msg`);
    assert.match(err, /400/);
    assert.equal((await state(page)).tune.groups[g.index].params.max_speed, speed);
    await screenshot(page, 'e2e-tune.png');
    await page.close();
  });
});
