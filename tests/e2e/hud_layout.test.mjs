// The HUD fits every screen: at a phone's 390x844 and 844x390 (touch, 2 device px per CSS px) and
// a desktop's 1280x800, in live play, spectating (with the inspector open) and in the lobby, no
// HUD element overlaps another or the minimap, nothing runs off screen, the score is one line,
// the touch joystick comes up where a thumb goes down, clear of every panel, and every room's
// figures in the lobby are readable. The checks read bounding boxes in the page (the minimap's
// square from window.__flockstep.minimap_box, as the viewer draws it); screenshots are saved for
// people to look at. A control shows the checker itself reports a known overlap.
//
//   node --test tests/e2e/hud_layout.test.mjs    (needs the server and the wasm viewer: harness.mjs)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';

import { checkBuilt, launchBrowser, screenshot, startServer, waitState } from './harness.mjs';
import { PANELS, hudProblems, showProblems as show } from './hud_check.mjs';

const missing = checkBuilt();

const SIZES = [
  { name: 'phone', width: 390, height: 844, touch: true, scale: 2 },
  { name: 'landscape', width: 844, height: 390, touch: true, scale: 2 },
  { name: 'desktop', width: 1280, height: 800, touch: false, scale: 1 },
];

/** In the page: the lobby's problems: the card off screen or over the status pill, a room's
 *  figures or title cut off or overlapping. */
function lobbyProblems() {
  const W = window.innerWidth, H = window.innerHeight;
  const problems = [];
  const box = (el) => el.getBoundingClientRect();
  const card = box(document.querySelector('.card.lobby'));
  if (card.left < 0 || card.top < 0 || card.right > W || card.bottom > H) problems.push({ what: 'lobby card off screen', a: JSON.stringify(card) });
  const status = box(document.getElementById('status'));
  if (Math.min(status.bottom, card.bottom) - Math.max(status.top, card.top) > 0.5 &&
      Math.min(status.right, card.right) - Math.max(status.left, card.left) > 0.5)
    problems.push({ what: 'overlap', a: '#status', b: '.card.lobby' });
  const ul = document.getElementById('rooms');
  if (ul.scrollWidth > ul.clientWidth + 0.5) problems.push({ what: 'rooms scroll sideways', a: `${ul.scrollWidth} > ${ul.clientWidth}` });
  const list = box(ul);
  const rooms = [...ul.querySelectorAll('li[data-name]')];
  if (!rooms.length) problems.push({ what: 'no rooms listed' });
  for (const li of rooms) {
    const parts = [...li.querySelectorAll('.line1 > *')].filter((e) => e.getClientRects().length);
    for (const p of parts) {
      const r = box(p);
      // Readable: inside the list's visible width, and not cut short by its own box.
      if (r.left < list.left - 0.5 || r.right > list.left + ul.clientWidth + 0.5 || p.scrollWidth > p.clientWidth + 0.5 && p.clientWidth > 0)
        problems.push({ what: 'cut off', a: `${li.dataset.name} ${p.className}: "${p.textContent}"`, b: `${Math.round(r.left)}-${Math.round(r.right)} in ${Math.round(list.left)}-${Math.round(list.left + ul.clientWidth)}` });
    }
    for (let i = 0; i < parts.length; ++i) {
      for (let j = i + 1; j < parts.length; ++j) {
        const a = box(parts[i]), b = box(parts[j]);
        if (Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5)
          problems.push({ what: 'overlap', a: `${li.dataset.name} ${parts[i].className}`, b: parts[j].className });
      }
    }
    const stats = li.querySelector('.stats');
    if (!stats || !/players · \d+ spectators · \d+ agents/.test(stats.textContent)) problems.push({ what: 'no figures', a: li.dataset.name });
  }
  return problems;
}

describe('the HUD at a phone\'s and a desktop\'s size', { timeout: 400000 }, () => {
  let browser, server;

  before(async () => {
    if (missing.length) throw new Error('not built yet:\n  ' + missing.join('\n  '));
    browser = await launchBrowser();
    // Bots fill the leaderboard, as in a room people play in.
    server = await startServer(['--bots', '2']);
  });

  after(async () => {
    if (browser) await browser.close();
    if (server) await server.stop();
  });

  async function open(size, query) {
    const context = await browser.newContext({
      viewport: { width: size.width, height: size.height }, deviceScaleFactor: size.scale,
      hasTouch: size.touch, isMobile: size.touch,
    });
    const page = await context.newPage();
    page.logs = [];
    page.on('console', (m) => page.logs.push(`[${m.type()}] ${m.text()}`));
    page.on('pageerror', (e) => page.logs.push(`[pageerror] ${e.message}`));
    await page.goto(`http://127.0.0.1:${server.port}/${query}`);
    return page;
  }

  /** The checker's verdict once the layout has settled (the page refreshes its panels at 10 Hz). */
  async function settled(page, extra = []) {
    await page.waitForTimeout(600);
    return page.evaluate(hudProblems, { panels: PANELS, extra });
  }

  for (const size of SIZES) {
    test(`${size.name} ${size.width}x${size.height}: the lobby's rooms and figures are readable`, async () => {
      const page = await open(size, '');
      try {
        await page.waitForFunction(() => window.__flockstep && window.__flockstep.loaded &&
          document.querySelectorAll('#rooms li[data-name]').length > 3, null, { timeout: 20000 });
        await page.waitForTimeout(300);
        await screenshot(page, `hud-${size.name}-lobby.png`);
        const problems = await page.evaluate(lobbyProblems);
        assert.deepEqual(problems, [], show(problems));
      } finally {
        await page.context().close();
      }
    });

    test(`${size.name} ${size.width}x${size.height}: live play, the score on one line, the joystick clear`, async () => {
      const page = await open(size, '?play=hud');
      try {
        await waitState(page, (s) => s.connected && s.screen === 'play' && s.entities > 0 && s.minimap_box && s.scores.length > 0,
          { what: 'playing', timeoutMs: 20000 });
        await page.waitForFunction(() => document.getElementById('score').textContent.startsWith('alive'), null, { timeout: 5000 });
        let problems = await settled(page);
        await screenshot(page, `hud-${size.name}-play.png`);
        assert.deepEqual(problems, [], show(problems));
        if (!size.touch) return;
        // A thumb goes down in the lower left quarter: the joystick comes up there, on the canvas,
        // clear of every panel.
        const x = Math.round(size.width * 0.25), y = Math.round(size.height * 0.72);
        assert.equal(await page.evaluate(([px, py]) => document.elementFromPoint(px, py).id, [x, y]), 'canvas',
          'the thumb lands on the world');
        const cdp = await page.context().newCDPSession(page);
        await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x, y }] });
        await page.waitForSelector('#joystick:not(.hidden)', { timeout: 3000 });
        const stick = await page.$eval('#joystick', (el) => { const r = el.getBoundingClientRect(); return { name: '#joystick', x: r.left, y: r.top, w: r.width, h: r.height }; });
        problems = await settled(page, [stick]);
        await screenshot(page, `hud-${size.name}-play-joystick.png`);
        await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
        assert.deepEqual(problems, [], show(problems));
      } finally {
        await page.context().close();
      }
    });

    test(`${size.name} ${size.width}x${size.height}: spectating with the inspector open`, async () => {
      const page = await open(size, '?spectate=1');
      try {
        const s = await waitState(page, (x) => x.connected && x.screen === 'spectate' && x.sample.length > 0 && x.minimap_box,
          { what: 'spectating', timeoutMs: 20000 });
        const agent = s.sample.find((a) => a.kind !== 'player') || s.sample[0];
        await page.evaluate((id) => window.Module.ccall('fs_set_option', null, ['string', 'number'], ['follow', id]), agent.id);
        await waitState(page, (x) => x.inspector && x.inspector.id === agent.id, { what: `inspector on #${agent.id}` });
        await page.waitForSelector('#inspector:not(.hidden)');
        const problems = await settled(page);
        await screenshot(page, `hud-${size.name}-spectate.png`);
        assert.deepEqual(problems, [], show(problems));
        // On a phone the toolbar keeps the view's controls; the rest are one tap away in its menu.
        if (size.width <= 600) {
          assert.ok(await page.isVisible('#toolbar button[data-zoom="fit"]'));
          assert.ok(!(await page.isVisible('#stats-button')), 'Stats folds into the menu');
          await page.click('#more-button');
          assert.ok(await page.isVisible('#stats-button'), 'the menu shows Stats');
          await screenshot(page, `hud-${size.name}-spectate-menu.png`);
        }
      } finally {
        await page.context().close();
      }
    });
  }

  // The control: the checker is not vacuous. The score moved onto the toolbar must be reported.
  test('control: a score moved over the toolbar is reported', async () => {
    const page = await open(SIZES[2], '?play=control');
    try {
      await waitState(page, (s) => s.connected && s.screen === 'play' && s.entities > 0, { what: 'playing', timeoutMs: 20000 });
      assert.deepEqual(await settled(page), [], 'the layout is clean before the control');
      await page.addStyleTag({ content: '#score { top: auto !important; bottom: 10px !important; left: 10px !important; transform: none !important; }' });
      const problems = await settled(page);
      await screenshot(page, 'hud-control-overlap.png');
      assert.ok(problems.some((p) => p.what === 'overlap' && /#score/.test(p.a + p.b) && /#toolbar/.test(p.a + p.b)),
        'the overlap of the score and the toolbar is found:\n' + show(problems));
      // ... and a score squeezed until it wraps.
      await page.addStyleTag({ content: '#score { white-space: normal !important; width: 90px !important; top: 300px !important; bottom: auto !important; }' });
      const wrapped = await settled(page);
      assert.ok(wrapped.some((p) => p.what === 'score wraps'), 'a wrapping score is found:\n' + show(wrapped));
    } finally {
      await page.context().close();
    }
  });
});
