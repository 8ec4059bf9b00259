// Flockstep viewer: the small amount of JavaScript around the C++/wasm viewer (viewer.js).
// It owns the DOM overlays (start screen, status, HUD, leaderboard, help, toasts, the touch
// joystick) and the canvas size; everything about the game runs in C++. The C++ side publishes
// its state every frame through window.__flockstepUpdate(json) -> window.__flockstep, which the
// HUD reads here and tests read directly. Calls into C++ go through the exported fs_* functions.
'use strict';

window.__flockstep = { ready: false, loaded: false, connected: false, screen: 'start' };

(function () {
  const $ = (id) => document.getElementById(id);
  const canvas = $('canvas');
  const params = new URLSearchParams(location.search);
  let runtimeReady = false;
  let pendingAction = null;
  let toastTimer = 0;

  // ---- C++ -> JS -------------------------------------------------------------------------
  let lastRefresh = 0;
  window.__flockstepUpdate = function (json) {
    const s = JSON.parse(json);
    s.ready = true;
    s.loaded = true;
    window.__flockstep = s;
    // The overlays follow the state at 10 Hz (and at once when the link changes).
    const now = performance.now();
    if (now - lastRefresh > 100 || s.link !== lastLink) { lastRefresh = now; lastLink = s.link; refresh(); }
  };
  let lastLink = '';

  window.flockstepUi = {
    ready() {
      runtimeReady = true;
      window.__flockstep.loaded = true;
      setStatus('idle', 'ready');
      if (pendingAction) { const a = pendingAction; pendingAction = null; a(); }
    },
    toast(msg) {
      const t = $('toast');
      t.textContent = msg;
      t.classList.remove('hidden');
      clearTimeout(toastTimer);
      toastTimer = setTimeout(() => t.classList.add('hidden'), 3000);
    },
    command(what) {
      if (what === 'help') toggleHelp();
      else if (what === 'escape') $('help').classList.add('hidden');
    },
    fatal(msg) {
      setStatus('reconnecting', msg);
      $('start-error').textContent = msg;
      $('start-error').classList.remove('hidden');
    },
  };

  // ---- the Emscripten module -----------------------------------------------------------------
  window.Module = {
    canvas: canvas,
    print: (t) => console.log(t),
    printErr: (t) => console.warn(t),
    onAbort: (what) => window.flockstepUi.fatal('viewer crashed: ' + what),
  };

  function call(name, types, args) {
    return window.Module.ccall(name, null, types, args);
  }

  // ---- canvas size: device pixels, capped so software GL stays fast ----------------------------
  function resize() {
    const dpr = Math.min(window.devicePixelRatio || 1, 2);
    const w = Math.max(1, Math.round(canvas.clientWidth * dpr));
    const h = Math.max(1, Math.round(canvas.clientHeight * dpr));
    if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; }
  }
  window.addEventListener('resize', resize);
  resize();

  // ---- start screen --------------------------------------------------------------------------
  const nameInput = $('name');
  try { nameInput.value = localStorage.getItem('flockstep.name') || ''; } catch (e) { /* private mode */ }

  function whenReady(action) {
    if (runtimeReady) action(); else pendingAction = action;
  }

  function enter(mode) {
    $('start').classList.add('hidden');
    $('hud').classList.remove('hidden');
    $('toolbar').classList.remove('hidden');
    $('board').classList.remove('hidden');
    $('score').classList.toggle('hidden', mode !== 'play');
    document.body.classList.toggle('spectating', mode === 'spectate');
    canvas.focus();
  }

  function play(name) {
    name = (name || '').trim().slice(0, 32) || 'pilot';
    try { localStorage.setItem('flockstep.name', name); } catch (e) { /* ignore */ }
    enter('play');
    whenReady(() => call('fs_play', ['string'], [name]));
  }

  function spectate() {
    enter('spectate');
    whenReady(() => call('fs_spectate', [], []));
  }

  $('play-form').addEventListener('submit', (e) => { e.preventDefault(); play(nameInput.value); });
  $('spectate').addEventListener('click', spectate);
  $('leave').addEventListener('click', () => {
    call('fs_leave', [], []);
    $('start').classList.remove('hidden');
    ['hud', 'toolbar', 'board', 'score'].forEach((id) => $(id).classList.add('hidden'));
    nameInput.focus();
  });

  // ---- toolbar and help ------------------------------------------------------------------------
  document.querySelectorAll('#toolbar button[data-option]').forEach((b) => {
    b.addEventListener('click', () => {
      const key = b.dataset.option;
      const on = !window.__flockstep[key];
      call('fs_set_option', ['string', 'number'], [key, on ? 1 : 0]);
      canvas.focus();
    });
  });
  function toggleHelp() { $('help').classList.toggle('hidden'); }
  $('help-button').addEventListener('click', toggleHelp);
  $('help-close').addEventListener('click', () => { $('help').classList.add('hidden'); canvas.focus(); });
  document.addEventListener('keydown', (e) => {
    // The start screen's own shortcuts (C++ ignores keys there so the name field can be typed in).
    if (!$('start').classList.contains('hidden') && e.key === '?' && document.activeElement !== nameInput) toggleHelp();
  });

  // ---- touch joystick (play): put a finger down anywhere, drag: x turns, up thrusts -------------
  const stick = $('joystick');
  const knob = stick.querySelector('.knob');
  let stickId = null, cx = 0, cy = 0;
  const R = 50;
  canvas.addEventListener('touchstart', (e) => {
    if (window.__flockstep.screen !== 'play' || stickId !== null) return;
    const t = e.changedTouches[0];
    stickId = t.identifier; cx = t.clientX; cy = t.clientY;
    stick.style.left = cx + 'px'; stick.style.top = cy + 'px';
    stick.classList.remove('hidden');
    knob.style.transform = 'translate(0px, 0px)';
    call('fs_set_touch', ['number', 'number', 'number'], [0, 0, 1]);
    e.preventDefault();
  }, { passive: false });
  canvas.addEventListener('touchmove', (e) => {
    for (const t of e.changedTouches) {
      if (t.identifier !== stickId) continue;
      let dx = t.clientX - cx, dy = t.clientY - cy;
      const len = Math.hypot(dx, dy);
      if (len > R) { dx *= R / len; dy *= R / len; }
      knob.style.transform = `translate(${dx}px, ${dy}px)`;
      call('fs_set_touch', ['number', 'number', 'number'], [dx / R, Math.max(0, -dy / R), 1]);
      e.preventDefault();
    }
  }, { passive: false });
  const endTouch = (e) => {
    for (const t of e.changedTouches) {
      if (t.identifier !== stickId) continue;
      stickId = null;
      stick.classList.add('hidden');
      call('fs_set_touch', ['number', 'number', 'number'], [0, 0, 0]);
    }
  };
  canvas.addEventListener('touchend', endTouch);
  canvas.addEventListener('touchcancel', endTouch);

  // ---- status line, HUD, leaderboard: 4 times a second from window.__flockstep ----------------
  function setStatus(state, text) {
    $('status').dataset.state = state;
    $('status-text').textContent = text;
  }
  const f1 = (v) => (v || 0).toFixed(1);
  const f0 = (v) => Math.round(v || 0).toString();

  function refresh() {
    const s = window.__flockstep;
    if (!s.ready) return;
    // Status: always visible.
    if (s.bench) setStatus('idle', `offline benchmark · ${s.bench} agents` + (s.bench_sim_ms ? ` · sim ${s.bench_sim_ms.toFixed(2)} ms/tick` : ''));
    else if (s.screen === 'start') setStatus('idle', 'not connected');
    else if (s.link === 'live') setStatus('live', `connected · ${s.role} · rtt ${f0(s.rtt)} ms`);
    else if (s.link === 'reconnecting')
      setStatus('reconnecting', `reconnecting in ${f1(s.retry_in_ms / 1000)} s (attempt ${s.attempt})` +
        (s.last_close ? ` · ${s.last_close}` : ''));
    else setStatus(s.link, s.link + '…');

    if (s.screen === 'start') return;
    const others = s.mode === 'extrapolate'
      ? `extrapolate  err ${(100 * s.extrap_error).toFixed(1)} cm (dead reckoning ${(100 * s.dead_reckoning_error).toFixed(1)} cm)`
      : `interpolate  ${f0(s.interp_delay_ms)} ms behind`;
    const lines = [
      `fps       ${f0(s.fps)}  (${s.frame_ms.toFixed(2)} ms cpu)`,
      `rtt       ${f1(s.rtt)} ms`,
      `tick      ${f0(s.tick)}  @ ${f0(s.tick_rate)} Hz`,
      `snapshots ${f0(s.snapshot_rate)}/s`,
      `agents    ${f0(s.visible)} visible / ${f0(s.entities)}`,
      `received  ${f0(s.kbps)} kbit/s`,
      `others    ${others}`,
    ];
    if (s.screen === 'play') {
      lines.push(`corrections ${f0(s.corrections)} (${f0(s.corrections_per_min)}/min)  pred err ${s.pred_error.toFixed(3)} m`);
      lines.push(`inputs    seq ${f0(s.input_seq)}  acked ${f0(s.acked)}  unacked ${f0(s.unacked)}`);
    } else if (s.follow) {
      lines.push(`following #${s.follow}`);
    }
    if (s.paused) lines.push('PAUSED (N: step)');
    $('hud').textContent = lines.join('\n');

    if (s.screen === 'play') {
      $('score').textContent = `alive ${f1(s.alive_s)} s · caught ${f0(s.captures)}×`;
    }
    const board = $('board');
    const rows = (s.scores || []).slice(0, 8).map((r) =>
      `<div class="${r.me ? 'me' : ''}">${escapeHtml(r.name)}${r.bot ? ' (bot)' : ''} — ${f1(Math.max(r.best, r.alive))} s</div>`);
    board.innerHTML = '<h3>survival (best)</h3>' + (rows.length ? rows.join('') : '<div>—</div>');

    document.querySelectorAll('#toolbar button[data-option]').forEach((b) => {
      b.classList.toggle('on', !!s[b.dataset.option]);
    });
  }
  function escapeHtml(t) {
    return String(t).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
  }
  setInterval(refresh, 500);  // also while no frames run (hidden tab)

  // ---- deep links: ?play=NAME or ?spectate=1 skip the start screen ------------------------------
  if (params.has('bench')) {
    // Offline benchmark: ?bench=N[&sim=1] draws N agents without a server (docs/viewer.md).
    enter('spectate');
    whenReady(() => call('fs_bench', ['number', 'number'], [Number(params.get('bench')) || 1000, params.get('sim') === '1' ? 1 : 0]));
  } else if (params.has('play')) play(params.get('play'));
  else if (params.has('spectate')) spectate();
  else nameInput.focus();
})();
