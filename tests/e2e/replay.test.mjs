// End-to-end test of recording and replay: the server runs with --record FILE while a
// page spectates it; the file is then opened in the viewer ("Open recording", no game server
// needed) and played through the same decoder and renderer: pause/play, speed, and seeking
// backwards and forwards (decode from the last keyframe at or before the target, then forward).
//
//   node --test tests/e2e/replay.test.mjs      (needs the server and the wasm viewer: harness.mjs)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { checkBuilt, launchBrowser, newPage, screenshot, startServer, startStatic, state, waitState } from './harness.mjs';

const missing = checkBuilt();

/** Record count and snapshot ticks of a recording, read here independently of the viewer. */
function scanRecording(file) {
  const b = fs.readFileSync(file);
  assert.equal(b.subarray(0, 8).toString('latin1'), 'FSREC001', 'recording magic');
  let at = 8, records = 0;
  while (at + 4 <= b.length) {
    const n = b.readUInt32LE(at);
    if (at + 4 + n > b.length) break;
    at += 4 + n;
    ++records;
  }
  return { bytes: b.length, records };
}

/** Set the seek slider as a person dragging it would (input events, then change). */
async function seekTo(page, tick) {
  await page.$eval('#replay-seek', (el, v) => {
    el.value = String(v);
    el.dispatchEvent(new Event('input', { bubbles: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
  }, tick);
  const s = await waitState(page, (x) => x.replay.tick === tick && !x.replay.playing, { what: `replay at tick ${tick}` });
  // The bar's label follows the state (at the page's 10 Hz refresh).
  await page.waitForFunction((t) => document.getElementById('replay-tick').textContent.startsWith(`tick ${t} /`), tick,
    { timeout: 5000 });
  return s;
}

/** Positions of every agent the page reports (sample: up to 8 visible agents), keyed by id. */
const positions = (s) => Object.fromEntries(s.sample.map((a) => [a.id, [a.x, a.y]]));

describe('record and replay end-to-end', { timeout: 240000 }, () => {
  let browser, file, dir;

  before(async () => {
    if (missing.length) throw new Error('not built yet:\n  ' + missing.join('\n  '));
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flockstep-replay-'));
    file = path.join(dir, 'arena.fsrec');
    browser = await launchBrowser();
    // Record ~8 s of the default room with a keyframe every second, while a spectator watches.
    const server = await startServer(['--bots', '2', '--record', file, '--record-keyframe-s', '1',
      '--tick-rate-hz', '60', '--snapshot-rate-hz', '20']);
    try {
      const page = await newPage(browser);
      await page.goto(`http://127.0.0.1:${server.port}/?spectate=1`);
      await waitState(page, (s) => s.connected && s.entities > 0, { what: 'live spectator', timeoutMs: 20000 });
      await page.waitForTimeout(8000);
      await page.close();
    } finally {
      await server.stop();
    }
  });

  after(async () => {
    if (browser) await browser.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('a recording plays, pauses, changes speed and seeks back and forth', async () => {
    const scan = scanRecording(file);
    assert.ok(scan.records > 100, `only ${scan.records} records in ${scan.bytes} bytes`);

    // The page comes from a plain static server: replay needs no game server.
    const web = await startStatic();
    const page = await newPage(browser, { width: 900, height: 600 });
    try {
      await page.goto(`http://127.0.0.1:${web.port}/`);
      await page.waitForFunction(() => window.__flockstep && window.__flockstep.loaded, null, { timeout: 20000 });
      await page.setInputFiles('#replay-file', file);
      const s0 = await waitState(page, (s) => s.screen === 'replay' && s.replay.active && s.entities > 0,
        { what: 'replay running', timeoutMs: 15000 });
      const { firstTick, lastTick } = s0.replay;
      assert.ok(lastTick - firstTick > 60 * 5, `recording spans ticks ${firstTick}..${lastTick}`);
      assert.ok(s0.room, 'the recording names its room');
      assert.ok(await page.isVisible('#replay-bar'));

      // It plays on its own clock.
      const a = await waitState(page, (s) => s.replay.playing && s.replay.tick > firstTick + 30, { what: 'playing' });
      assert.ok(a.drawn > 0);
      await page.waitForTimeout(300);
      await screenshot(page, 'e2e-replay.png');

      // Pause holds the tick.
      await page.click('#replay-play');
      const p0 = await waitState(page, (s) => !s.replay.playing, { what: 'paused' });
      await page.waitForTimeout(400);
      assert.equal((await state(page)).replay.tick, p0.replay.tick, 'paused replay does not advance');

      // Seek forward, backward, forward again: the tick shown (state, slider label) matches, and
      // the same tick decodes to the same agents whichever way it was reached.
      const span = lastTick - firstTick;
      const t1 = firstTick + Math.round(span * 0.75);
      const t0 = firstTick + Math.round(span * 0.2);
      const s1 = await seekTo(page, t1);
      assert.ok(s1.replay.snapshot_tick >= t1 && s1.replay.snapshot_tick <= t1 + 3,
        `decoded snapshot ${s1.replay.snapshot_tick} for tick ${t1}`);
      await page.waitForTimeout(200);
      const first = positions(await state(page));
      assert.ok(Object.keys(first).length > 0, 'agents visible at the seek target');
      const s2 = await seekTo(page, t0);
      assert.ok(s2.replay.snapshot_tick >= t0 && s2.replay.snapshot_tick <= t0 + 3);
      const back = positions(await state(page));
      assert.notDeepEqual(back, first, 'a different moment shows different positions');
      await seekTo(page, t1);
      await page.waitForTimeout(200);
      const again = positions(await state(page));
      for (const [id, pos] of Object.entries(first)) {
        if (again[id]) assert.deepEqual(again[id], pos, `agent ${id} at tick ${t1} after seeking back and forth`);
      }
      assert.ok(Object.keys(again).some((id) => first[id]), 'the same agents are visible again');

      // Speed: 4x runs about 16 times faster than 0.25x.
      await seekTo(page, t0);
      const rate = async (speed) => {
        await page.selectOption('#replay-speed', String(speed));
        await waitState(page, (s) => s.replay.speed === speed, { what: `speed ${speed}` });
        if (!(await state(page)).replay.playing) await page.click('#replay-play');
        const b0 = await waitState(page, (s) => s.replay.playing, { what: 'playing again' });
        const t = Date.now();
        await page.waitForTimeout(1000);
        const b1 = await state(page);
        await page.click('#replay-play');
        return (b1.replay.tick_exact - b0.replay.tick_exact) / ((Date.now() - t) / 1000);
      };
      const slow = await rate(0.25);
      const fast = await rate(4);
      assert.ok(slow > 5 && slow < 30, `0.25x: ${slow.toFixed(1)} ticks/s`);
      assert.ok(fast > 120, `4x: ${fast.toFixed(1)} ticks/s`);

      // Playing to the end stops there.
      await seekTo(page, lastTick - 30);
      await page.click('#replay-play');
      const end = await waitState(page, (s) => !s.replay.playing && s.replay.tick === lastTick, { what: 'end of the recording' });
      assert.equal(end.replay.tick, lastTick);

      // Leave: back to the lobby.
      await page.click('#leave');
      await waitState(page, (s) => s.screen === 'start' && !s.replay.active, { what: 'lobby after the replay' });
    } finally {
      await page.close();
      await web.close();
    }
  });

  test('a file that is not a recording is refused with a message', async () => {
    const web = await startStatic();
    const page = await newPage(browser);
    try {
      const bogus = path.join(dir, 'bogus.fsrec');
      fs.writeFileSync(bogus, 'not a recording at all');
      await page.goto(`http://127.0.0.1:${web.port}/`);
      await page.waitForFunction(() => window.__flockstep && window.__flockstep.loaded, null, { timeout: 20000 });
      await page.setInputFiles('#replay-file', bogus);
      await page.waitForSelector('#start-error:not(.hidden)');
      assert.match(await page.textContent('#start-error'), /FSREC001/);
      assert.equal((await state(page)).screen, 'start');
    } finally {
      await page.close();
      await web.close();
    }
  });
});
