// Share a moment end-to-end (client/web/link.js): a live-room link spectates the room following
// an agent with the inspector open; a recording's link (a snapshot recording and an input log)
// opens paused at its tick, following that agent, inspector open. The Link controls (inspector,
// replay bar) write a link that opens the same moment again (round trip), through the clipboard
// or, where the clipboard refuses, a field to copy by hand. A link with bad values says so and
// still opens what it can.
//
//   node --test tests/e2e/share.test.mjs      (needs the server and the wasm viewer: harness.mjs)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { checkBuilt, launchBrowser, screenshot, startServer, startStatic, waitState } from './harness.mjs';
import { PANELS, hudProblems, showProblems } from './hud_check.mjs';

const missing = checkBuilt();
const TOKEN = 'share-e2e-token';
const AUTH = { authorization: `Bearer ${TOKEN}` };

describe('links to a moment', { timeout: 300000 }, () => {
  let browser, server, dir, snapFile, logFile, web, agent = 0;
  let finished = null;

  before(async () => {
    if (missing.length) throw new Error('not built yet:\n  ' + missing.join('\n  '));
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flockstep-share-'));
    snapFile = path.join(dir, 'arena.fsrec');
    logFile = path.join(dir, 'arena.fslog');
    browser = await launchBrowser();
    // The default room recorded both ways while the live test runs: snapshots (--record) and an
    // input log (the admin API).
    server = await startServer(['--bots', '2', '--record', snapFile, '--record-keyframe-s', '1', '--tick-rate-hz', '60',
      '--snapshot-rate-hz', '20', '--admin-token', TOKEN, '--recordings-dir', dir, '--record-seek-s', '2']);
    const start = await fetch(`http://127.0.0.1:${server.port}/api/admin/rooms/arena/recording/start`, { method: 'POST', headers: AUTH });
    assert.equal(start.status, 200, await start.clone().text());
    server.logName = (await start.json()).file;
  });

  after(async () => {
    if (browser) await browser.close();
    if (server) await server.stop();
    if (web) await web.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A page of its own (a tab as someone opening the link would), clipboard allowed unless told;
   *  `phone`: 390x844, touch, 2 device px per CSS px. */
  async function open(url, { clipboard = true, phone = false } = {}) {
    const context = await browser.newContext({
      viewport: phone ? { width: 390, height: 844 } : { width: 900, height: 600 }, deviceScaleFactor: phone ? 2 : 1,
      hasTouch: phone, isMobile: phone, permissions: clipboard ? ['clipboard-read', 'clipboard-write'] : [] });
    const page = await context.newPage();
    page.logs = [];
    page.on('console', (m) => page.logs.push(`[${m.type()}] ${m.text()}`));
    page.on('pageerror', (e) => page.logs.push(`[pageerror] ${e.message}`));
    if (!clipboard) await page.addInitScript(() => { navigator.clipboard.writeText = () => Promise.reject(new Error('denied')); });
    await page.goto(url);
    return page;
  }

  /** Click a Link control; the link it made (window.__flockstep.share) and what the clipboard holds. */
  async function linkOf(page, selector) {
    await page.click(selector);
    const s = await waitState(page, (x) => x.share && x.share.link, { what: `a link from ${selector}` });
    const clip = s.share.copied ? await page.evaluate(() => navigator.clipboard.readText()) : null;
    return { link: s.share.link, copied: s.share.copied, clip };
  }

  /** Stop both recordings (once): the input log downloaded, the server stopped (the snapshot
   *  recording closed), both served by a plain static server as any web host would. */
  async function recordings() {
    if (!finished) {
      finished = (async () => {
        const base = `http://127.0.0.1:${server.port}`;
        const stop = await fetch(`${base}/api/admin/rooms/arena/recording/stop`, { method: 'POST', headers: AUTH });
        assert.equal(stop.status, 200, await stop.clone().text());
        const got = await fetch(`${base}/api/admin/recordings/${server.logName}`, { headers: AUTH });
        assert.equal(got.status, 200);
        fs.writeFileSync(logFile, Buffer.from(await got.arrayBuffer()));
        await server.stop();
        web = await startStatic(undefined, { files: { '/rec/arena.fsrec': snapFile, '/rec/arena.fslog': logFile } });
      })();
    }
    return finished;
  }

  test('a live-room link spectates the room following the agent, inspector open; its Link round-trips', async () => {
    const base = `http://127.0.0.1:${server.port}/`;
    // Someone watching picks an agent (not a player: bots may be caught and respawn).
    const watcher = await open(`${base}?spectate=1`);
    try {
      const s0 = await waitState(watcher, (x) => x.connected && x.sample.some((a) => a.kind !== 'player'), { what: 'agents in view', timeoutMs: 20000 });
      agent = s0.sample.find((a) => a.kind !== 'player').id;
      const page = await open(`${base}?room=arena&follow=${agent}&inspect=1`);
      try {
        let s = await waitState(page, (x) => x.screen === 'spectate' && x.connected && x.room === 'arena' && x.follow === agent &&
          x.inspector && x.inspector.id === agent && x.follow_pos, { what: `following #${agent} in arena`, timeoutMs: 20000 });
        assert.equal(s.role, 'spectator');
        await page.waitForSelector('#inspector:not(.hidden)');
        assert.ok(await page.isHidden('#start'), 'the link skips the lobby');
        // The camera is on the agent.
        await waitState(page, (x) => x.follow_pos && Math.hypot(x.camera.x - x.follow_pos.x, x.camera.y - x.follow_pos.y) < 2,
          { what: 'the camera on the followed agent' });
        await screenshot(page, 'share-live.png');

        const { link, copied, clip } = await linkOf(page, '#inspector-link');
        assert.ok(copied, 'copied to the clipboard');
        assert.equal(clip, link);
        const u = new URL(link);
        assert.deepEqual(Object.fromEntries(u.searchParams), { room: 'arena', follow: String(agent), inspect: '1' });
        const again = await open(link);
        try {
          s = await waitState(again, (x) => x.screen === 'spectate' && x.room === 'arena' && x.follow === agent &&
            x.inspector && x.inspector.id === agent, { what: 'the copied link opens the same moment', timeoutMs: 20000 });
        } finally {
          await again.context().close();
        }
      } finally {
        await page.context().close();
      }
      // Let the recordings run a few more seconds with the watcher in the room.
      await watcher.waitForTimeout(4000);
    } finally {
      await watcher.context().close();
    }
  });

  for (const kind of ['snapshots', 'input log']) {
    test(`a ${kind} recording's link opens at its tick, following the agent, inspector open; Link round-trips`, async () => {
      await recordings();
      assert.ok(agent, 'the live test picked an agent');
      const rec = kind === 'snapshots' ? '/rec/arena.fsrec' : '/rec/arena.fslog';
      const base = `http://127.0.0.1:${web.port}/`;
      // The recording's span, from the page itself.
      const probe = await open(`${base}?replay=${encodeURIComponent(rec)}`);
      let first, last;
      try {
        const s = await waitState(probe, (x) => x.screen === 'replay' && x.replay.active && x.replay.lastTick > 0, { what: 'the recording open', timeoutMs: 30000 });
        first = s.replay.firstTick;
        last = s.replay.lastTick;
      } finally {
        await probe.context().close();
      }
      assert.ok(last - first > 120, `recording spans ${first}..${last}`);
      const tick = first + Math.round((last - first) * 0.6);

      const page = await open(`${base}?replay=${encodeURIComponent(rec)}&tick=${tick}&follow=${agent}&inspect=1`);
      try {
        const s = await waitState(page, (x) => x.screen === 'replay' && x.replay.tick === tick && !x.replay.playing &&
          x.follow === agent && x.inspector && x.inspector.id === agent && x.follow_pos,
        { what: `tick ${tick}, following #${agent}`, timeoutMs: 30000 });
        assert.equal(s.replay.kind === 'inputlog', kind === 'input log', `replay kind ${s.replay.kind}`);
        await page.waitForSelector('#inspector:not(.hidden)');
        await page.waitForFunction((t) => document.getElementById('replay-tick').textContent.startsWith(`tick ${t} /`), tick, { timeout: 5000 });
        // Still there a moment later: the link opens paused.
        await page.waitForTimeout(500);
        const held = await waitState(page, (x) => x.follow_pos, { what: 'the moment held' });
        assert.equal(held.replay.tick, tick);
        await screenshot(page, `share-${kind === 'snapshots' ? 'replay' : 'inputlog'}.png`);

        const { link, copied, clip } = await linkOf(page, '#replay-link');
        assert.ok(copied);
        assert.equal(clip, link);
        assert.deepEqual(Object.fromEntries(new URL(link).searchParams),
          { replay: rec, tick: String(tick), follow: String(agent), inspect: '1' });
        const again = await open(link);
        try {
          const t = await waitState(again, (x) => x.screen === 'replay' && x.replay.tick === tick && !x.replay.playing &&
            x.follow === agent && x.inspector && x.inspector.id === agent && x.follow_pos,
          { what: 'the copied link opens the same moment', timeoutMs: 30000 });
          // The same moment: the followed agent is where it was in the first page.
          assert.ok(Math.hypot(t.follow_pos.x - held.follow_pos.x, t.follow_pos.y - held.follow_pos.y) < 1e-6,
            `#${agent} at ${JSON.stringify(t.follow_pos)} vs ${JSON.stringify(held.follow_pos)}`);
        } finally {
          await again.context().close();
        }
        if (kind !== 'snapshots') return;
        // The same moment on a phone: the replay bar, the inspector sheet, the toolbar and the
        // minimap clear of each other (the HUD checker of hud_layout.test.mjs).
        const phone = await open(link, { phone: true });
        try {
          await waitState(phone, (x) => x.screen === 'replay' && x.replay.tick === tick && x.inspector && x.inspector.id === agent &&
            x.minimap_box, { what: 'the moment on a phone', timeoutMs: 30000 });
          await phone.waitForTimeout(600);
          const problems = await phone.evaluate(hudProblems, { panels: PANELS, extra: [] });
          await screenshot(phone, 'share-replay-phone.png');
          assert.deepEqual(problems, [], showProblems(problems));
        } finally {
          await phone.context().close();
        }
      } finally {
        await page.context().close();
      }
    });
  }

  test('without a clipboard the link is shown to copy by hand; bad values are named and the rest opens', async () => {
    await recordings();
    const base = `http://127.0.0.1:${web.port}/`;
    const page = await open(`${base}?replay=${encodeURIComponent('/rec/arena.fsrec')}&tick=abc&follow=0`, { clipboard: false });
    try {
      const s = await waitState(page, (x) => x.screen === 'replay' && x.replay.active, { what: 'the recording open', timeoutMs: 30000 });
      assert.equal(s.moment.errors.length, 2, JSON.stringify(s.moment.errors));
      assert.match(s.moment.errors[0], /^tick:/);
      assert.match(s.moment.errors[1], /^follow:/);
      await page.waitForFunction(() => document.getElementById('toast').textContent.startsWith('Link: tick:'), null, { timeout: 5000 });
      await page.click('#replay-play');  // pause, so the link's tick is the one shown
      const paused = await waitState(page, (x) => !x.replay.playing, { what: 'paused' });
      await page.click('#replay-link');
      await page.waitForSelector('#share:not(.hidden)');
      const shown = await page.inputValue('#share-link');
      const st = await waitState(page, (x) => x.share && x.share.link, { what: 'the link made' });
      assert.equal(st.share.copied, false);
      assert.equal(shown, st.share.link);
      assert.equal(new URL(shown).searchParams.get('tick'), String(paused.replay.tick));
      await screenshot(page, 'share-no-clipboard.png');
    } finally {
      await page.context().close();
    }
  });
});
