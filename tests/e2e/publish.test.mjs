// End-to-end test of publishing from the lab: the lab, served by a real flockstep-server with
// published_dir and an admin token, composes a scenario in its JSON editor and publishes it
// (the Publish control asks for the token, kept in sessionStorage only; PUT
// /api/admin/published/<name>); a second page (another browser context, as another visitor)
// finds the room in the lobby marked as published and spectates it; its agents match the lab's
// (count per group, the number of live agents, and the scenario the server runs is the one the
// lab exported). Real headless Chromium; assertions read window.__flockstep and the DOM.
//
//   node --test tests/e2e/publish.test.mjs      (needs the server and the wasm viewer: harness.mjs)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { checkBuilt, launchBrowser, newPage, screenshot, startServer, state, waitState } from './harness.mjs';

const missing = checkBuilt();
const TOKEN = 'e2e-publish-token';
const ROOM = 'e2e-lab';

async function getJson(port, p, token) {
  const r = await fetch(`http://127.0.0.1:${port}${p}`, token ? { headers: { authorization: 'Bearer ' + token } } : {});
  assert.equal(r.status, 200, `GET ${p}: HTTP ${r.status}`);
  return r.json();
}

describe('publish from the lab, join from another page', { timeout: 240000 }, () => {
  let server, browser, base, dir;

  before(async () => {
    if (missing.length) throw new Error('not built yet:\n  ' + missing.join('\n  '));
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flockstep-e2e-published-'));
    server = await startServer(['--admin-token', TOKEN, '--published-dir', dir]);
    base = `http://127.0.0.1:${server.port}/`;
    browser = await launchBrowser();
  });

  after(async () => {
    if (browser) await browser.close();
    if (server) await server.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('compose, publish with the admin token, a second page spectates the room and its agents match', async () => {
    const lab = await newPage(browser, { width: 960, height: 640 });
    await lab.goto(base + '?lab=1');
    await waitState(lab, (x) => x.lab && x.lab.tick > 10 && x.labPage.current, { timeoutMs: 30000, what: 'lab running' });
    await lab.selectOption('#lab-scenario', 'flocking.json');
    await waitState(lab, (x) => x.labPage.current === 'flocking.json' && x.lab.tick > 5, { what: 'flocking loaded' });

    // Compose: the scenario as JSON, groups resized in the editor, applied to the page world.
    await lab.click('#lab-edit');
    const composed = JSON.parse(await lab.inputValue('#lab-json'));
    composed.groups.forEach((g, i) => { g.count = 7 + 3 * i; });
    composed.seed = 4242;
    await lab.fill('#lab-json', JSON.stringify(composed, null, 1));
    await lab.click('#lab-apply');
    const want = composed.groups.map((g) => g.count);
    const total = want.reduce((a, b) => a + b, 0);
    const composedState = await waitState(lab, (x) => x.lab.seed === 4242 && x.lab.agents === total,
      { what: `the composed world (${total} agents)` });
    const labCounts = composedState.legend.groups.map((g) => g.count);
    assert.deepEqual(labCounts, want, 'the lab runs the composition');

    // Publish: no token yet, so the control asks for one; a bad room name is refused first.
    assert.ok(await lab.isVisible('#lab-publish-token'), 'the Publish control asks for the admin token');
    await lab.fill('#lab-publish-name', 'Bad Name');
    await lab.fill('#lab-publish-token', TOKEN);
    await lab.click('#lab-publish');
    let s = await waitState(lab, (x) => x.labPage.published.status === 'error', { what: 'bad name refused' });
    assert.equal(s.labPage.published.key, 'name');
    await lab.fill('#lab-publish-name', ROOM);
    await lab.click('#lab-publish');
    s = await waitState(lab, (x) => x.labPage.published.status === 'published', { what: 'published' });
    assert.equal(s.labPage.published.name, ROOM);
    assert.equal(await lab.evaluate(() => sessionStorage.getItem('flockstep.adminToken')), TOKEN,
      'the token is kept in sessionStorage');
    assert.equal(await lab.evaluate(() => localStorage.getItem('flockstep.adminToken')), null, 'and nowhere else');
    assert.ok(!(await lab.isVisible('#lab-publish-token')), 'a stored token is not asked for again');
    assert.match(await lab.textContent('#lab-publish-status'), new RegExp(ROOM));
    await screenshot(lab, 'e2e-publish-lab.png');
    const exported = JSON.parse(await lab.evaluate(() => window.Module.ccall('fs_lab_export', 'string', [], [])));

    // The server keeps it: listed by the admin API and in the lobby, marked as published.
    const listed = await getJson(server.port, '/api/admin/published', TOKEN);
    assert.deepEqual(listed.published.map((p) => p.name), [ROOM]);
    assert.equal(listed.published[0].agents, total);
    assert.ok(fs.existsSync(path.join(dir, ROOM + '.json')), 'written into published_dir');
    assert.equal(fs.statSync(path.join(dir, ROOM + '.json')).mode & 0o777, 0o600);

    // A second visitor (its own browser context: no token, no lab) joins it from the lobby.
    const viewer = await newPage(browser, { width: 900, height: 640 });
    await viewer.goto(base + '#room=' + ROOM);
    await viewer.waitForFunction(() => window.__flockstep && window.__flockstep.loaded, null, { timeout: 20000 });
    await viewer.waitForSelector(`#rooms li[data-name="${ROOM}"] .pub-tag`, { timeout: 10000 });
    assert.match(await viewer.textContent(`#rooms li[data-name="${ROOM}"]`), /starts/);
    assert.equal(await viewer.$eval('#rooms li.selected', (li) => li.dataset.name), ROOM);
    await screenshot(viewer, 'e2e-publish-lobby.png');
    await viewer.click('#spectate');
    const v = await waitState(viewer, (x) => x.connected && x.room === ROOM && x.entities > 0,
      { what: `spectating ${ROOM}`, timeoutMs: 20000 });
    assert.equal(v.world.name, ROOM);
    assert.deepEqual(v.legend.groups.map((g) => g.count), labCounts, 'the same groups with the same counts');
    assert.deepEqual(v.legend.groups.map((g) => g.name), composedState.legend.groups.map((g) => g.name));
    // Every agent of the composition lives in the server's room (the lab has no craft placed).
    const rooms = await getJson(server.port, '/api/rooms');
    const entry = rooms.rooms.find((r) => r.name === ROOM);
    assert.equal(entry.published, true);
    assert.equal(entry.agents, (await state(lab)).lab.agents, 'as many live agents as in the lab');
    // The room runs exactly the scenario the lab exported (the room's name aside), so the same
    // seed gives the same world tick for tick (the lab and the server share shared/).
    // One field may differ: a room sizes max_agents for its players on top of the groups.
    const { max_agents: runningCapacity, ...running } = await getJson(server.port, `/api/rooms/${ROOM}/scenario`);
    const { max_agents: exportedCapacity, ...exportedRest } = exported;
    assert.deepEqual({ ...running, name: exported.name }, exportedRest, 'the scenario file the lab exported');
    assert.ok(runningCapacity >= Math.max(exportedCapacity, total + running.max_players),
      `room capacity ${runningCapacity} holds the groups and the players`);
    await viewer.waitForTimeout(500);
    await screenshot(viewer, 'e2e-publish-spectator.png');

    // Unpublish: the spectator is sent back to the lobby with the reason.
    const del = await fetch(`${base}api/admin/published/${ROOM}`, { method: 'DELETE', headers: { authorization: 'Bearer ' + TOKEN } });
    assert.equal(del.status, 200);
    await viewer.waitForFunction(() => {
      const e = document.getElementById('start-error');
      return !document.getElementById('start').classList.contains('hidden') && e && !e.classList.contains('hidden');
    }, null, { timeout: 15000 });
    assert.match(await viewer.textContent('#start-error'), /unpublished/);
    await lab.close();
    await viewer.close();
  });
});
