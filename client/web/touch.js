// Touch: in play, a finger down anywhere is a joystick (x turns, up thrusts); spectators pan
// with one finger, pinch to zoom with two, and tap to follow + inspect an agent.
import { $ } from './dom.js';

export function installTouch({ canvas, call }) {
  const stick = $('joystick');
  const knob = stick.querySelector('.knob');
  let stickId = null, cx = 0, cy = 0;
  const R = 50;
  // Spectators: the touches on the canvas by id, and whether the gesture moved (a tap does not).
  const fingers = new Map();
  let moved = false;
  const local = (t) => { const r = canvas.getBoundingClientRect(); return { x: t.clientX - r.left, y: t.clientY - r.top }; };
  const mode = () => window.__flockstep.screen;

  canvas.addEventListener('touchstart', (e) => {
    if (mode() === 'play') {
      if (stickId !== null) return;
      const t = e.changedTouches[0];
      stickId = t.identifier; cx = t.clientX; cy = t.clientY;
      stick.style.left = cx + 'px'; stick.style.top = cy + 'px';
      stick.classList.remove('hidden');
      knob.style.transform = 'translate(0px, 0px)';
      call('fs_set_touch', ['number', 'number', 'number'], [0, 0, 1]);
    } else if (mode() === 'spectate' || mode() === 'replay') {
      for (const t of e.changedTouches) fingers.set(t.identifier, local(t));
      if (fingers.size === 1) moved = false;
    }
    e.preventDefault();
  }, { passive: false });

  canvas.addEventListener('touchmove', (e) => {
    if (mode() === 'play') {
      for (const t of e.changedTouches) {
        if (t.identifier !== stickId) continue;
        let dx = t.clientX - cx, dy = t.clientY - cy;
        const len = Math.hypot(dx, dy);
        if (len > R) { dx *= R / len; dy *= R / len; }
        knob.style.transform = `translate(${dx}px, ${dy}px)`;
        call('fs_set_touch', ['number', 'number', 'number'], [dx / R, Math.max(0, -dy / R), 1]);
      }
    } else if (fingers.size > 0) {
      const before = [...fingers.values()];
      for (const t of e.changedTouches) if (fingers.has(t.identifier)) fingers.set(t.identifier, local(t));
      const after = [...fingers.values()];
      if (after.length >= 2) {
        // Pinch: zoom by the change of the finger distance about their midpoint, pan by its move.
        const d0 = Math.hypot(before[0].x - before[1].x, before[0].y - before[1].y);
        const d1 = Math.hypot(after[0].x - after[1].x, after[0].y - after[1].y);
        const m0 = { x: (before[0].x + before[1].x) / 2, y: (before[0].y + before[1].y) / 2 };
        const m1 = { x: (after[0].x + after[1].x) / 2, y: (after[0].y + after[1].y) / 2 };
        call('fs_pan_zoom', ['number', 'number', 'number', 'number', 'number'],
          [m1.x - m0.x, m1.y - m0.y, d0 > 0 ? d1 / d0 : 1, m1.x, m1.y]);
        moved = true;
      } else {
        const dx = after[0].x - before[0].x, dy = after[0].y - before[0].y;
        if (Math.abs(dx) + Math.abs(dy) > 0.5) {
          moved = true;
          call('fs_pan_zoom', ['number', 'number', 'number', 'number', 'number'], [dx, dy, 1, 0, 0]);
        }
      }
    }
    e.preventDefault();
  }, { passive: false });

  const end = (e) => {
    for (const t of e.changedTouches) {
      if (t.identifier === stickId) {
        stickId = null;
        stick.classList.add('hidden');
        call('fs_set_touch', ['number', 'number', 'number'], [0, 0, 0]);
      }
      if (fingers.has(t.identifier)) {
        const p = fingers.get(t.identifier);
        fingers.delete(t.identifier);
        if (!moved && fingers.size === 0) window.Module.ccall('fs_pick', 'number', ['number', 'number'], [p.x, p.y]);
      }
    }
  };
  canvas.addEventListener('touchend', end);
  canvas.addEventListener('touchcancel', end);
}
