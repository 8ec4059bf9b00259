// End-to-end tests of the WebAssembly viewer in real headless Chromium (Debian's, driven by
// playwright-core): the built server serves the built viewer on a free port; the page is loaded
// through a TCP proxy so one test can drop the connection like a network failure would.
// Assertions read window.__flockstep (state, not pixels); screenshots go to test-artifacts/.
//
//   node --test tests/e2e/        or        node tests/e2e/viewer.test.mjs
//
// Needs: build/release/server/flockstep-server, build/wasm/client/web/ (see harness.mjs).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';

import {
  angleDelta, checkBuilt, launchBrowser, newPage, screenshot, startProxy, startServer, state, waitState,
} from './harness.mjs';

const missing = checkBuilt();

describe('viewer end-to-end', { skip: false, timeout: 180000 }, () => {
  let server, proxy, browser, base;

  before(async () => {
    if (missing.length) throw new Error('not built yet:\n  ' + missing.join('\n  '));
    // Two server-side bots so spectators have players to cycle through.
    server = await startServer(['--bots', '2', '--snapshot-rate-hz', '20', '--tick-rate-hz', '60']);
    proxy = await startProxy(server.port);
    base = `http://127.0.0.1:${proxy.port}/`;
    browser = await launchBrowser();
  });

  after(async () => {
    if (browser) await browser.close();
    if (proxy) await proxy.close();
    if (server) await server.stop();
  });

  test('start screen offers Play and Spectate; the page is served with the wasm', async () => {
    const page = await newPage(browser);
    const wasm = page.waitForResponse((r) => r.url().endsWith('/viewer.wasm'));
    await page.goto(base);
    const resp = await wasm;
    assert.equal(resp.status(), 200);
    assert.match(resp.headers()['content-type'] || '', /application\/wasm/);
    await page.waitForFunction(() => window.__flockstep && window.__flockstep.loaded, null, { timeout: 20000 });
    assert.ok(await page.isVisible('#play'));
    assert.ok(await page.isVisible('#spectate'));
    assert.ok(await page.isVisible('#status'));
    await screenshot(page, 'e2e-start.png');
    await page.close();
  });

  test('play: holding keys turns and moves the craft; prediction matches the server exactly', async () => {
    const page = await newPage(browser);
    await page.goto(base);
    await page.waitForFunction(() => window.__flockstep && window.__flockstep.loaded, null, { timeout: 20000 });
    await page.fill('#name', 'e2e-pilot');
    await page.click('#play');
    const s0 = await waitState(page, (s) => s.connected && s.predicted && s.server && s.compared > 3,
      { what: 'a live player with predicted and server state', timeoutMs: 20000 });
    assert.equal(s0.role, 'player');
    assert.ok(s0.entity_id > 0);

    // Thrust and turn right (clockwise: the heading decreases) for 1.5 s, then fly straight.
    // The default arena has pursuers: on a slow host they may catch the craft mid-flight, and a
    // respawn (at rest, elsewhere) says nothing about the controls. Such a flight is flown again,
    // up to three times; every check below is made on one flight without a capture.
    let flight = null;
    for (let attempt = 0; attempt < 3 && !flight; ++attempt) {
      const a0 = await state(page);
      await page.keyboard.down('ArrowUp');
      await page.keyboard.down('ArrowRight');
      const mid = await waitState(page, (s) => s.input.turn === 1 && s.input.throttle === 1, { what: 'keys held' });
      await page.waitForTimeout(1500);
      const turned = await state(page);
      await page.keyboard.up('ArrowRight');
      await page.waitForTimeout(1000);
      const a1 = await state(page);
      await screenshot(page, 'e2e-play.png');
      await page.keyboard.up('ArrowUp');
      if (a1.respawn_corrections === a0.respawn_corrections && a1.captures === a0.captures) {
        flight = { a0, mid, turned, a1 };
      } else {
        await page.waitForTimeout(500);  // caught: let the craft settle after the respawn
      }
    }
    assert.ok(flight, 'the craft was caught in three flights in a row');
    const { a0, mid, turned, a1: s1 } = flight;

    const moved = Math.hypot(s1.predicted.x - a0.predicted.x, s1.predicted.y - a0.predicted.y);
    assert.ok(moved > 3, `craft moved only ${moved.toFixed(2)} m`);
    const dh = angleDelta(mid.predicted.heading, turned.predicted.heading);
    assert.ok(dh < -0.5, `holding right should turn clockwise; heading changed by ${dh.toFixed(3)} rad`);
    assert.ok(s1.predicted.speed > 2, `speed ${s1.predicted.speed}`);

    // The server moved the same craft (authoritative state follows the prediction).
    const serverMoved = Math.hypot(s1.server.x - a0.server.x, s1.server.y - a0.server.y);
    assert.ok(serverMoved > 3, `server position moved only ${serverMoved.toFixed(2)} m`);
    // Predicted (a few ticks ahead) and server positions agree within what the lead explains.
    const gap = Math.hypot(s1.predicted.x - s1.server.x, s1.predicted.y - s1.server.y);
    assert.ok(gap < 3, `predicted and server positions ${gap.toFixed(2)} m apart`);
    // Exact prediction: every compared state equal bit for bit, no corrections on loopback.
    assert.ok(s1.compared > 20, `only ${s1.compared} predictions compared`);
    assert.equal(s1.pred_error_max, 0, `largest prediction error ${s1.pred_error_max} m`);
    assert.equal(s1.corrections, 0, `corrections: ${s1.corrections}`);
    // HUD figures are live.
    assert.ok(s1.fps > 5, `fps ${s1.fps}`);
    assert.ok(s1.rtt > 0 && s1.rtt < 200, `rtt ${s1.rtt}`);
    assert.ok(s1.tick > s0.tick);
    assert.ok(s1.snapshot_rate >= 10, `snapshot rate ${s1.snapshot_rate}`);
    assert.ok(s1.kbps > 0);
    assert.ok(s1.entities > 10, `entities ${s1.entities}`);
    await page.close();
  });

  test('spectate: agents drawn, click follows an agent, keys cycle players, annotations', async () => {
    const page = await newPage(browser);
    await page.goto(base);
    await page.waitForFunction(() => window.__flockstep && window.__flockstep.loaded, null, { timeout: 20000 });
    await page.click('#spectate');
    const s0 = await waitState(page, (s) => s.connected && s.entities > 0 && s.visible > 0 && s.sample.length > 0,
      { what: 'a spectator seeing agents', timeoutMs: 20000 });
    assert.equal(s0.role, 'spectator');
    assert.equal(s0.predicted, null);
    assert.ok(s0.draw_calls >= 3, `draw calls ${s0.draw_calls}`);

    // Click exactly on an agent: world -> CSS pixels with the camera the page reports. Only on
    // an agent the page's panels do not cover (a click there goes to the panel), and again with a
    // fresh sample if the agent moved out from under the cursor before the click landed.
    let followed = null;
    for (let attempt = 0; attempt < 5 && !followed; ++attempt) {
      const st = attempt === 0 ? s0 : await state(page);
      const toCss = (x) => ({
        x: (x.x - st.camera.x) * st.camera.zoom / st.canvas.scale + st.canvas.css_w / 2,
        y: st.canvas.css_h / 2 - (x.y - st.camera.y) * st.camera.zoom / st.canvas.scale,
      });
      const candidates = [...st.sample.filter((x) => x.kind !== 'player'), ...st.sample.filter((x) => x.kind === 'player')];
      let p = null;
      for (const c of candidates) {
        const q = toCss(c);
        if (await page.evaluate(([x, y]) => document.elementFromPoint(x, y)?.id === 'canvas', [q.x, q.y])) { p = q; break; }
      }
      if (!p) { await page.waitForTimeout(200); continue; }
      await page.mouse.click(p.x, p.y);
      followed = await waitState(page, (s) => s.follow !== 0, { what: 'follow after a click', timeoutMs: 3000 }).catch(() => null);
    }
    assert.ok(followed, 'a click on an agent follows it (5 attempts)');
    assert.ok(followed.follow_pos);
    // The camera glides onto the followed agent.
    const settled = await waitState(page, (s) => s.follow_pos &&
      Math.hypot(s.camera.x - s.follow_pos.x, s.camera.y - s.follow_pos.y) < 2, { what: 'camera on the followed agent' });
    assert.equal(settled.follow, followed.follow);

    // Keys cycle through players (the server runs two bots).
    await page.keyboard.press(']');
    const p1 = await waitState(page, (s) => s.follow !== 0 && s.follow !== followed.follow, { what: 'next player' });
    await page.keyboard.press(']');
    const p2 = await waitState(page, (s) => s.follow !== p1.follow, { what: 'another player' });
    assert.notEqual(p1.follow, p2.follow);

    // Annotations (A) and behaviour-aware extrapolation (E).
    await page.keyboard.press('a');
    await waitState(page, (s) => s.annotations === true, { what: 'annotations on' });
    await page.keyboard.press('Escape');
    await page.evaluate(() => Module.ccall('fs_set_option', null, ['string', 'number'], ['fit', 1]));
    await page.waitForTimeout(300);
    await screenshot(page, 'e2e-spectate.png');
    await page.keyboard.press('e');
    const ex = await waitState(page, (s) => s.mode === 'extrapolate' && s.extrap_error > 0, { what: 'extrapolation' });
    assert.ok(ex.extrap_error < 5, `extrapolation error ${ex.extrap_error} m`);
    await page.waitForTimeout(300);
    await screenshot(page, 'e2e-spectate-extrapolate.png');

    // Pause freezes the local view; N steps it one tick at a time.
    await page.keyboard.press('e');  // back to interpolation
    await page.keyboard.press('p');
    const frozen = await waitState(page, (s) => s.paused && s.sample.length > 0, { what: 'paused' });
    await page.waitForTimeout(400);
    const still = await state(page);
    const probe = frozen.sample[0];
    const same = still.sample.find((x) => x.id === probe.id);
    assert.ok(same && same.x === probe.x && same.y === probe.y, 'a paused view does not move');
    for (let i = 0; i < 6; ++i) await page.keyboard.press('n');
    await page.waitForTimeout(100);
    const stepped = (await state(page)).sample.find((x) => x.id === probe.id);
    assert.ok(stepped && (stepped.x !== probe.x || stepped.y !== probe.y), 'single steps move the view');
    await page.keyboard.press('p');
    await waitState(page, (s) => !s.paused, { what: 'unpaused' });

    // Drag pans (and stops following), the wheel zooms.
    const before = await state(page);
    await page.mouse.move(320, 200);
    await page.mouse.down();
    await page.mouse.move(220, 150, { steps: 5 });
    await page.mouse.up();
    const panned = await state(page);
    assert.equal(panned.follow, 0);
    assert.ok(panned.camera.x > before.camera.x, 'dragging left moves the view right');
    await page.mouse.wheel(0, -400);
    const zoomed = await waitState(page, (s) => s.camera.zoom > panned.camera.zoom, { what: 'zoom in' });
    assert.ok(zoomed.camera.zoom > panned.camera.zoom);
    await page.close();
  });

  // The extrapolation error against the server's truth, as the viewer measures it from what it
  // receives: every snapshot held back 100 ms and 250 ms is extrapolated (sim::Extrapolator) to
  // the newest snapshot's tick and compared with it, per group kind (RemoteAgents hold errors).
  // The figures are printed; the only assertion is a loose one that a broken extrapolator fails:
  // extrapolating beats drawing the held snapshot as it is (the control, "held"). No timing is
  // asserted: how many snapshots arrive depends on the machine.
  test('extrapolation of held-back snapshots beats holding them still (figures printed)', async () => {
    const page = await newPage(browser);
    await page.goto(base);
    await page.waitForFunction(() => window.__flockstep && window.__flockstep.loaded, null, { timeout: 20000 });
    await page.click('#spectate');
    await waitState(page, (s) => s.connected && s.entities > 0, { what: 'a spectator', timeoutMs: 20000 });
    const option = (name, value) => page.evaluate(([n, v]) =>
      window.Module.ccall('fs_set_option', null, ['string', 'number'], [n, v]), [name, value]);
    await option('fit', 1);  // the whole world in view: the server sends every agent
    await option('measure_holds', 1);
    const total = (kinds) => Object.values(kinds || {}).reduce((n, k) => n + k.samples, 0);
    await waitState(page, (s) => s.extrap_holds && total(s.extrap_holds['250']) > 0,
      { what: 'hold errors measured', timeoutMs: 20000 });
    await page.waitForTimeout(6000);  // a few seconds of the room
    const s = await state(page);
    for (const hold of ['100', '250']) {
      const kinds = s.extrap_holds[hold];
      const rows = Object.entries(kinds).sort(([a], [b]) => a.localeCompare(b));
      console.log(`extrapolation error, snapshots held back ${hold} ms (m, mean over samples):`);
      console.log('  kind                  samples  extrapolated  dead reckoned  held still  max');
      let n = 0, ex = 0, dr = 0, held = 0;
      for (const [kind, k] of rows) {
        console.log(`  ${kind.padEnd(20)} ${String(k.samples).padStart(8)}  ${k.mean.toFixed(3).padStart(12)}  ` +
          `${k.dead_reckoning.toFixed(3).padStart(13)}  ${k.held.toFixed(3).padStart(10)}  ${k.max.toFixed(3)}`);
        n += k.samples;
        ex += k.mean * k.samples;
        dr += k.dead_reckoning * k.samples;
        held += k.held * k.samples;
      }
      assert.ok(n > 0, `no samples for ${hold} ms`);
      console.log(`  all                  ${String(n).padStart(8)}  ${(ex / n).toFixed(3).padStart(12)}  ` +
        `${(dr / n).toFixed(3).padStart(13)}  ${(held / n).toFixed(3).padStart(10)}`);
      assert.ok(held / n > 0.05, `the agents moved in ${hold} ms (held still is off by ${held / n} m)`);
      assert.ok(ex < held / 2, `${hold} ms: extrapolated ${ex / n} m should beat held still ${held / n} m by far`);
    }
    await page.close();
  });

  test('reconnect: after the connection drops the player resumes the same craft', async () => {
    const page = await newPage(browser);
    await page.goto(base);
    await page.waitForFunction(() => window.__flockstep && window.__flockstep.loaded, null, { timeout: 20000 });
    await page.fill('#name', 'e2e-resume');
    await page.click('#play');
    const s0 = await waitState(page, (s) => s.connected && s.predicted && s.compared > 2,
      { what: 'live player', timeoutMs: 20000 });
    const dropped = proxy.dropAll();
    assert.ok(dropped >= 1, 'the proxy had the page connection');
    const down = await waitState(page, (s) => !s.connected, { what: 'the page noticing the drop', timeoutMs: 8000 });
    assert.equal(down.link, 'reconnecting');
    await screenshot(page, 'e2e-reconnecting.png');
    const s1 = await waitState(page, (s) => s.connected && s.resumes >= 1 && s.compared > s0.compared,
      { what: 'resumed player', timeoutMs: 15000 });
    assert.equal(s1.entity_id, s0.entity_id, 'same craft after the resume');
    assert.equal(s1.reconnects, 1);
    // Prediction runs again on the resumed craft.
    await page.keyboard.down('ArrowUp');
    await page.waitForTimeout(800);
    const s2 = await state(page);
    await page.keyboard.up('ArrowUp');
    assert.ok(s2.compared > s1.compared);
    assert.equal(s2.pred_error_max, 0, `prediction error after resume ${s2.pred_error_max} m`);
    await page.close();
  });

  test('server restart: the resume token is refused and the viewer joins again as a new player', async () => {
    const page = await newPage(browser);
    await page.goto(base);
    await page.waitForFunction(() => window.__flockstep && window.__flockstep.loaded, null, { timeout: 20000 });
    await page.fill('#name', 'e2e-restart');
    await page.click('#play');
    const s0 = await waitState(page, (s) => s.connected && s.predicted && s.compared > 2, { what: 'live player', timeoutMs: 20000 });
    // A new server process: it knows nothing of the old craft or its token.
    const old = server;
    server = await startServer(['--bots', '2']);
    proxy.retarget(server.port);
    await old.stop();
    proxy.dropAll();
    const s1 = await waitState(page, (s) => s.connected && s.reconnects >= 1 && s.predicted && s.compared > 2,
      { what: 'joined again on the new server', timeoutMs: 20000 });
    assert.equal(s1.resumes, s0.resumes, 'no resume on a server that never saw the token');
    assert.ok(s1.entity_id > 0);
    assert.equal(s1.pred_error_max, 0);
    await page.close();
  });
});
