// The HUD's layout checker, shared by the browser tests (hud_layout.test.mjs at three screen
// sizes, share.test.mjs on a phone in a replay): every visible HUD panel's box against every other
// and the minimap's square, on screen, the toolbar's buttons inside it, the score on one line.

// Every panel of the HUD that may show over the world (the toast is left out: it comes and goes).
export const PANELS = ['#status', '#hud', '#room-info', '#lab', '#board', '#legend', '#inspector', '#score', '#toolbar',
  '#replay-bar', '#tune', '#share'];

/**
 * In the page: the visible HUD boxes, and what is wrong with them: [{what, a, b}]. `extra` are
 * more boxes to check against the rest (the joystick). Runs in the browser (page.evaluate).
 */
export function hudProblems({ panels, extra }) {
  const W = window.innerWidth, H = window.innerHeight;
  const boxes = [];
  for (const sel of panels) {
    const el = document.querySelector(sel);
    if (!el || el.getClientRects().length === 0 || getComputedStyle(el).visibility === 'hidden') continue;
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.height > 0) boxes.push({ name: sel, x: r.left, y: r.top, w: r.width, h: r.height });
  }
  const s = window.__flockstep;
  if (s && s.screen !== 'start' && s.minimap_box) boxes.push({ name: 'minimap', ...s.minimap_box });
  for (const b of extra || []) boxes.push(b);
  const problems = [];
  const round = (b) => `${b.name} [${Math.round(b.x)},${Math.round(b.y)} ${Math.round(b.w)}x${Math.round(b.h)}]`;
  for (const b of boxes) {
    if (b.x < -0.5 || b.y < -0.5 || b.x + b.w > W + 0.5 || b.y + b.h > H + 0.5)
      problems.push({ what: 'off screen', a: round(b), b: `${W}x${H}` });
  }
  for (let i = 0; i < boxes.length; ++i) {
    for (let j = i + 1; j < boxes.length; ++j) {
      const a = boxes[i], b = boxes[j];
      const ox = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
      const oy = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
      if (ox > 0.5 && oy > 0.5) problems.push({ what: 'overlap', a: round(a), b: round(b) });
    }
  }
  // Every toolbar button is on screen and inside the toolbar (none clipped by a wrap or the edge).
  const bar = document.getElementById('toolbar');
  if (bar && bar.getClientRects().length) {
    const t = bar.getBoundingClientRect();
    for (const btn of bar.querySelectorAll('button')) {
      if (btn.getClientRects().length === 0) continue;
      const r = btn.getBoundingClientRect();
      if (r.left < t.left - 0.5 || r.right > t.right + 0.5 || r.top < t.top - 0.5 || r.bottom > t.bottom + 0.5 || r.right > W)
        problems.push({ what: 'toolbar button outside the toolbar', a: btn.textContent, b: round({ name: '#toolbar', x: t.left, y: t.top, w: t.width, h: t.height }) });
    }
  }
  // The score: one line, all of it shown.
  const score = document.getElementById('score');
  if (score && score.getClientRects().length) {
    const range = document.createRange();
    range.selectNodeContents(score);
    const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
    if (lines > 1) problems.push({ what: 'score wraps', a: `${lines} lines`, b: score.textContent });
    if (score.scrollWidth > score.clientWidth + 0.5) problems.push({ what: 'score cut off', a: score.textContent, b: `${score.scrollWidth} > ${score.clientWidth}` });
  }
  return problems;
}

/** The checker's findings, one per line, for an assertion message. */
export const showProblems = (problems) => problems.map((p) => `${p.what}: ${p.a || ''} ${p.b ? '/ ' + p.b : ''}`).join('\n');
