// Flockstep viewer (ES module entry): the JavaScript around the C++/wasm viewer (viewer.js).
// Modules: bridge.js (what C++ asks the page), overlay.js (labels, legend, inspector), tune.js
// (admin Tune panel), touch.js (joystick, pinch and pan), prefs.js (remembered toggles).
// It owns the DOM overlays (start screen, status, HUD, leaderboard, help, toasts, the touch
// joystick) and the canvas size; everything about the game runs in C++. The C++ side publishes
// its state every frame through window.__flockstepUpdate(json) -> window.__flockstep, which the
// HUD reads here and tests read directly. Calls into C++ go through the exported fs_* functions.
//
// The start screen is a lobby of the server's rooms (GET /api/rooms every 2 s); an admin
// token (sessionStorage) unlocks the Tune panel (POST /api/admin/rooms/<room>/groups/<i>, filled
// from the WorldSpec the C++ side decoded: flockstepUi.world(json)); "Open recording" and
// ?replay=URL hand a recording's bytes to C++ (fs_replay_buffer / fs_replay_open). A link to a
// moment (link.js: ?replay=URL&tick=N&follow=ID&inspect=1, ?room=NAME&follow=ID) opens there, and
// the Link controls of the replay bar and the inspector write one.
import { bridge } from './bridge.js';
import { $, escapeHtml } from './dom.js';
import { createOverlay } from './overlay.js';
import { loadPrefs, savePrefs } from './prefs.js';
import { installTouch } from './touch.js';
import { createLab } from './lab.js';
import { createTune } from './tune.js';
import { momentLink, parseMoment } from './link.js';

window.__flockstep = { ready: false, loaded: false, connected: false, screen: 'start' };

(function () {
  const canvas = $('canvas');
  const prefs = loadPrefs();
  const params = new URLSearchParams(location.search);
  // The moment this page was opened at (link.js), applied once its mode runs.
  const moment = parseMoment(location.search);
  let pendingMoment = moment.follow || moment.tick !== null ? moment : null;
  let replayUrl = null;  // the address of the open recording (null: a local file, no link to share)
  let share = null;      // the last link the Link controls made: { link, copied }
  let momentErrorsShown = moment.errors.length === 0;
  let runtimeReady = false;
  let pendingAction = null;
  let toastTimer = 0;

  // ---- C++ -> JS -------------------------------------------------------------------------
  let lastRefresh = 0;
  window.__flockstepUpdate = function (json) {
    const s = JSON.parse(json);
    s.ready = true;
    s.loaded = true;
    // Page-side state: the room's title from the lobby list, the tuning panel.
    s.roomTitle = roomTitle();
    s.roomDescription = roomDescription();
    s.tune = tune.state();
    s.labPage = lab.state();
    s.lobby = { rooms: rooms.length, selected: selectedRoom, error: roomsError };
    s.share = share;
    s.moment = { pending: !!pendingMoment, errors: moment.errors };
    window.__flockstep = s;
    if (pendingMoment) applyMoment(s);
    // A link's bad values, said once its mode runs (after the mode's own "Recording: ..." toast).
    if (!momentErrorsShown && s.screen !== 'start') {
      momentErrorsShown = true;
      window.flockstepUi.toast('Link: ' + moment.errors.join('; '));
    }
    overlay.frame(s);
    // The overlays follow the state at 10 Hz (and at once when the link changes).
    const now = performance.now();
    if (now - lastRefresh > 100 || s.link !== lastLink) { lastRefresh = now; lastLink = s.link; refresh(); }
  };
  let lastLink = '';

  window.flockstepUi = {
    ...bridge,
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
      else if (what === 'prefs') setTimeout(() => overlay.remember(window.__flockstep), 50);  // after the next frame
    },
    fatal(msg) {
      setStatus('reconnecting', msg);
      $('start-error').textContent = msg;
      $('start-error').classList.remove('hidden');
    },
    // Close CODE_UNKNOWN_ROOM: back to the lobby with a clear message.
    refused(reason, room) {
      showLobby();
      showStartError(`Cannot join room "${room || '(default)'}": ${reason || 'no such room'}. Pick one of the rooms listed.`);
      fetchRooms();
    },
    // The world (Welcome, every GroupUpdate, replay seeks): room name, description, groups.
    world(json) {
      world = JSON.parse(json);
      tune.setGroups(world.groups.map((g) => ({
        index: g.index, name: g.name, kind: g.kind, technique: g.technique, count: g.count,
        model: g.model, combiner: g.combiner, labels: g.labels || {},
        params: Object.fromEntries(g.params.map(([k, v]) => [k, v])),
      })));
      updateRoomInfo();
    },
    replayError(msg) {
      showLobby();
      showStartError('Cannot play the recording: ' + msg);
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
  // The shared simulation is built for WebAssembly SIMD128 (its lane kernels; the same bits as the
  // server's). A browser without it (Safari before 16.4) gets a clear message instead of a
  // compile error. The probe is the smallest module using a v128 instruction (i8x16.popcnt).
  const kSimdProbe = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0,
    65, 0, 253, 15, 253, 98, 11]);
  if (!WebAssembly.validate(kSimdProbe)) {
    window.flockstepUi.fatal('this browser lacks WebAssembly SIMD (Chrome 91+, Firefox 89+, Safari 16.4+ have it)');
    return;
  }
  // The wasm runtime: loaded only now, so it finds window.Module (a module script runs deferred,
  // after an async classic script could already have started without it).
  const runtime = document.createElement('script');
  runtime.src = 'viewer.js';
  runtime.async = true;
  document.body.appendChild(runtime);

  // ---- canvas size: device pixels, capped so software GL stays fast ----------------------------
  function resize() {
    const dpr = Math.min(window.devicePixelRatio || 1, 2);
    const w = Math.max(1, Math.round(canvas.clientWidth * dpr));
    const h = Math.max(1, Math.round(canvas.clientHeight * dpr));
    if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; }
  }
  window.addEventListener('resize', resize);
  resize();

  // ---- rooms (lobby) -----------------------------------------------------------------------
  // HTTP API base: the page's own origin, or the ?server= WebSocket's host.
  function apiBase() {
    const srv = params.get('server');
    if (srv) {
      try {
        const u = new URL(srv);
        return (u.protocol === 'wss:' ? 'https://' : 'http://') + u.host;
      } catch (e) { /* fall through */ }
    }
    return location.protocol.startsWith('http') ? location.origin : 'http://localhost:8080';
  }
  const hashRoom = () => {
    const m = /(?:^#|&)room=([^&]*)/.exec(location.hash);
    return m ? decodeURIComponent(m[1]) : '';
  };
  let rooms = [];
  let defaultRoom = '';
  let maxRooms = 0;
  let roomsError = '';
  let selectedRoom = hashRoom();
  let currentRoom = '';
  let world = null;
  let infoOpen = prefs.infoOpen !== false;
  // The description is collapsed unless it was opened before: it must not cover the world.
  const details = $('room-details');
  details.open = prefs.descOpen === true;
  details.addEventListener('toggle', () => { prefs.descOpen = details.open; savePrefs(prefs); });
  // The HUD shows two lines unless the full statistics were asked for (Stats).
  let statsOpen = prefs.stats === true;
  $('stats-button').addEventListener('click', () => {
    statsOpen = !statsOpen;
    prefs.stats = statsOpen;
    savePrefs(prefs);
    refresh();
    canvas.focus();
  });

  async function fetchRooms() {
    try {
      const r = await fetch(apiBase() + '/api/rooms', { cache: 'no-store' });
      if (!r.ok) throw new Error('HTTP ' + r.status);
      const j = await r.json();
      rooms = Array.isArray(j.rooms) ? j.rooms : [];
      defaultRoom = j.default || (rooms[0] && rooms[0].name) || '';
      maxRooms = j.max_rooms || 0;
      roomsError = '';
      if (!selectedRoom) selectedRoom = defaultRoom;
    } catch (e) {
      roomsError = 'room list unavailable (' + e.message + ')';
    }
    renderRooms();
    updateRoomInfo();
  }

  // What a Join would do now (GET /api/rooms on_join): a room that is not running starts (an empty
  // room makes way when max_rooms run) unless every running room is in use.
  function joinBadge(r) {
    let out = r.published ? '<span class="default-tag pub-tag" title="published from the lab">published</span>' : '';
    if (r.missing || r.running) return out;
    if (r.on_join === 'full') return out + '<span class="default-tag join-tag" title="every running room is in use: try later">full</span>';
    return out + '<span class="default-tag join-tag" title="not running: starts when you join">starts</span>';
  }

  function renderRooms() {
    const ul = $('rooms');
    // The list is rebuilt every 2 s: keep the keyboard focus on the same room.
    const focused = document.activeElement && document.activeElement.closest && document.activeElement.closest('#rooms li[data-name]');
    const focusName = focused ? focused.dataset.name : null;
    queueMicrotask(() => {
      if (focusName === null) return;
      const li = ul.querySelector(`li[data-name="${CSS.escape(focusName)}"]`);
      if (li) li.focus();
    });
    const running = rooms.filter((r) => r.running).length;
    $('rooms-status').textContent = roomsError ||
      `${rooms.length} scenarios · ${running} running` + (maxRooms ? ` (max ${maxRooms})` : '');
    if (!rooms.length) {
      ul.innerHTML = `<li class="empty">${escapeHtml(roomsError || 'loading rooms…')}</li>`;
      return;
    }
    const list = rooms.slice();
    if (selectedRoom && !list.some((r) => r.name === selectedRoom))
      list.push({ name: selectedRoom, title: selectedRoom, description: 'not offered by this server', running: false, missing: true });
    ul.innerHTML = list.map((r) => {
      const stats = r.missing ? '' : `${r.players || 0} players · ${r.spectators || 0} spectators · ${r.agents || 0} agents`;
      return `<li class="room${r.name === selectedRoom ? ' selected' : ''}" role="option" tabindex="0" aria-selected="${r.name === selectedRoom}"
        data-name="${escapeHtml(r.name)}"><div class="line1"><span class="run${r.running ? ' on' : ''}" title="${r.running ? 'running' : 'starts when someone joins'}"></span>
        <span class="title">${escapeHtml(r.title || r.name)}</span><span class="name">${escapeHtml(r.name)}</span>
        ${r.name === defaultRoom ? '<span class="default-tag">default</span>' : ''}${joinBadge(r)}<span class="stats">${stats}</span></div>
        <div class="desc">${escapeHtml(r.description || '')}</div></li>`;
    }).join('');
  }

  $('rooms').addEventListener('click', (e) => {
    const li = e.target.closest('li[data-name]');
    if (!li) return;
    selectedRoom = li.dataset.name;
    setHashRoom(selectedRoom);
    renderRooms();
  });
  // Keyboard: Tab reaches each room, arrows move, Enter picks (and spectates a picked room).
  $('rooms').addEventListener('keydown', (e) => {
    const li = e.target.closest('li[data-name]');
    if (!li) return;
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      if (selectedRoom === li.dataset.name && e.key === 'Enter') { spectate(); return; }
      selectedRoom = li.dataset.name;
      setHashRoom(selectedRoom);
      renderRooms();
      const again = $('rooms').querySelector(`li[data-name="${CSS.escape(selectedRoom)}"]`);
      if (again) again.focus();
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const next = e.key === 'ArrowDown' ? li.nextElementSibling : li.previousElementSibling;
      if (next) next.focus();
    }
  });
  $('rooms').addEventListener('dblclick', (e) => {
    const li = e.target.closest('li[data-name]');
    if (li) { selectedRoom = li.dataset.name; spectate(); }
  });
  function setHashRoom(room) {
    try { history.replaceState(null, '', location.pathname + location.search + (room ? '#room=' + encodeURIComponent(room) : '')); } catch (e) { /* ignore */ }
  }
  window.addEventListener('hashchange', () => { const r = hashRoom(); if (r) { selectedRoom = r; renderRooms(); } });
  setInterval(() => { if (!$('start').classList.contains('hidden')) fetchRooms(); }, 2000);

  const roomEntry = (name) => rooms.find((r) => r.name === name);
  function roomTitle() {
    const name = window.__flockstep && window.__flockstep.room || currentRoom;
    const r = roomEntry(name);
    return (r && r.title) || (world && world.name) || name || '';
  }
  function roomDescription() {
    const name = window.__flockstep && window.__flockstep.room || currentRoom;
    const r = roomEntry(name);
    return (world && world.description) || (r && r.description) || '';
  }
  function updateRoomInfo() {
    if (world && world.room) currentRoom = world.room;
    $('room-title').textContent = roomTitle();
    $('room-name').textContent = currentRoom ? `(${currentRoom}${world && world.replay ? ', recording' : ''})` : '';
    $('room-description').textContent = roomDescription();
    $('tune-room').textContent = currentRoom;
  }
  function showRoomInfo(show) {
    const inRoom = $('start').classList.contains('hidden');
    $('room-info').classList.toggle('hidden', !(show && inRoom));
    $('info-button').classList.toggle('on', !!(show && inRoom));
  }
  $('info-button').addEventListener('click', () => {
    infoOpen = !infoOpen;
    prefs.infoOpen = infoOpen;
    savePrefs(prefs);
    showRoomInfo(infoOpen);
    canvas.focus();
  });

  const tune = createTune({
    canvas, apiBase, currentRoom: () => currentRoom, world: () => world,
    local: () => (lab && lab.isOpen() ? lab : null),
  });
  const lab = createLab({
    ccall: (name, ret, types, args) => window.Module.ccall(name, ret, types, args),
    whenReady: (fn) => whenReady(fn),
    enter: (mode) => enter(mode),
    tune,
    canvas,
    apiBase,
  });
  const updateTuneButton = () => tune.updateTuneButton();
  const overlay = createOverlay({ call, prefs, savePrefs, canvas, canLink: (s) => !!currentMoment(s, 0), onLink: (id) => copyMoment(id) });
  installTouch({ canvas, call });

  function showStartError(msg) {
    $('start-error').textContent = msg;
    $('start-error').classList.toggle('hidden', !msg);
  }

  // ---- replay -----------------------------------------------------------------------------------
  function openReplay(bytes, label, url = null) {
    whenReady(() => {
      const M = window.Module;
      const n = bytes.length;
      const ptr = M.ccall('fs_replay_buffer', 'number', ['number'], [n]);
      if (!ptr && n) { window.flockstepUi.replayError('out of memory'); return; }
      M.HEAPU8.set(bytes, ptr);
      const ok = M.ccall('fs_replay_open', 'number', [], []);
      if (ok) {
        replayUrl = url;
        showStartError('');
        enter('replay');
        window.flockstepUi.toast('Recording: ' + label);
      }
    });
  }
  $('replay-file').addEventListener('change', async (e) => {
    const f = e.target.files && e.target.files[0];
    if (!f) return;
    pendingMoment = null;  // a file chosen by hand is opened at its start
    openReplay(new Uint8Array(await f.arrayBuffer()), f.name);
    e.target.value = '';
  });
  async function fetchReplay(url) {
    try {
      // The admin API serves input logs (docs/replays.md) to the admin token the page holds
      // (the Admin panel keeps it in sessionStorage).
      const headers = {};
      let token = '';
      try { token = sessionStorage.getItem('flockstep.adminToken') || ''; } catch (e) { /* private mode */ }
      if (token && new URL(url, location.href).pathname.startsWith('/api/admin/')) headers.authorization = 'Bearer ' + token;
      const r = await fetch(url, { headers });
      if (!r.ok) throw new Error('HTTP ' + r.status);
      openReplay(new Uint8Array(await r.arrayBuffer()), url, url);
    } catch (e) {
      showStartError(`Cannot fetch the recording ${url}: ${e.message}`);
    }
  }
  const replayCall = (what, v) => call('fs_replay_control', ['string', 'number'], [what, v]);
  let seeking = false;
  const seek = $('replay-seek');
  seek.addEventListener('input', () => { seeking = true; replayCall('seek', Number(seek.value)); });
  seek.addEventListener('change', () => { seeking = false; replayCall('seek', Number(seek.value)); canvas.focus(); });
  $('replay-play').addEventListener('click', () => { replayCall('play', window.__flockstep.replay.playing ? 0 : 1); });
  $('replay-step').addEventListener('click', () => replayCall('step', 1));
  $('replay-back').addEventListener('click', () => replayCall('step', -1));
  $('replay-speed').addEventListener('change', (e) => { replayCall('speed', Number(e.target.value)); canvas.focus(); });
  $('replay-link').addEventListener('click', () => copyMoment(0));

  // ---- a moment: open at one, and link to one (link.js) ---------------------------------------
  // Once the mode of a link runs: the recording at its tick (paused there), then the agent
  // followed (and inspected). A live room's agent is followed once the room's world arrived.
  let momentSince = 0;
  function applyMoment(s) {
    const m = pendingMoment;
    const replaying = s.screen === 'replay' && s.replay && s.replay.active;
    if (m.replay ? !replaying : !(s.source === 'live' && s.link === 'live' && s.world && s.entities > 0)) return;
    pendingMoment = null;
    if (m.replay && m.tick !== null) {
      replayCall('play', 0);
      replayCall('seek', m.tick);
      if (m.tick < s.replay.firstTick || m.tick > s.replay.lastTick)
        window.flockstepUi.toast(`tick ${m.tick} is outside this recording (${s.replay.firstTick}-${s.replay.lastTick}): opened at the nearest end`);
    }
    if (m.follow) {
      if (m.inspect) call('fs_set_option', ['string', 'number'], ['follow', m.follow]);  // follow + inspect, as a click
      else call('fs_follow', ['number'], [m.follow]);
      momentSince = performance.now();
    }
  }
  // A followed agent the link named that is not in the room (left, captured): say so once.
  function checkMomentAgent(s) {
    if (!momentSince || performance.now() - momentSince < 3000) return;
    momentSince = 0;
    if (s.follow && !s.follow_pos) window.flockstepUi.toast(`agent #${s.follow} is not in this room now`);
  }
  /** The moment shown now, following `agentId` (0: the followed or inspected agent); null where
   *  there is nothing to link to (the lab, the benchmark, a recording opened from a file). */
  function currentMoment(s, agentId) {
    if (!s || s.lab || s.bench) return null;
    const follow = agentId || s.follow || (s.inspector ? s.inspector.id : 0);
    const inspect = !!(s.inspector && s.inspector.id === follow);
    if (s.screen === 'replay') return replayUrl ? { replay: replayUrl, tick: s.replay.tick, follow, inspect } : null;
    if (s.source === 'live' && (s.room || currentRoom)) return { room: s.room || currentRoom, follow, inspect };
    return null;
  }
  async function copyMoment(agentId) {
    const m = currentMoment(window.__flockstep, agentId);
    if (!m) { window.flockstepUi.toast('nothing to link to here (a recording opened from a file has no address)'); return; }
    const link = momentLink(location.href, m);
    share = { link, copied: false };
    try {
      await navigator.clipboard.writeText(link);
      share.copied = true;
      $('share').classList.add('hidden');
      window.flockstepUi.toast('Link copied');
    } catch (e) {
      // No clipboard (a page over plain http, or permission refused): the link in a field to copy.
      $('share-link').value = link;
      $('share').classList.remove('hidden');
      $('share-link').focus();
      $('share-link').select();
    }
  }
  $('share-close').addEventListener('click', () => { $('share').classList.add('hidden'); canvas.focus(); });

  function refreshReplayBar(s) {
    const r = s.replay;
    if (!r || !r.active) return;
    seek.min = r.firstTick;
    seek.max = r.lastTick;
    if (!seeking && document.activeElement !== seek) seek.value = r.tick;
    $('replay-play').textContent = r.playing ? 'Pause' : 'Play';
    $('replay-link').disabled = !replayUrl;
    const tr = s.tick_rate || 60;
    $('replay-tick').textContent = `tick ${r.tick} / ${r.lastTick} · ${((r.tick - r.firstTick) / tr).toFixed(1)} s · ${r.speed}×`;
    const sel = $('replay-speed');
    if (Number(sel.value) !== r.speed && document.activeElement !== sel) sel.value = String(r.speed);
    // An input log is re-simulated: its hash checks, and any divergence, stay on the bar.
    const log = s.inputlog;
    const check = $('replay-check');
    check.classList.toggle('hidden', !log);
    if (log) {
      const d = log.divergences && log.divergences[0];
      check.classList.toggle('diverged', !!d);
      check.textContent = d
        ? `DIVERGED at tick ${d.tick} (${d.what}): expected ${d.expected}, got ${d.got}` +
          (log.divergences.length > 1 ? ` (+${log.divergences.length - 1} more)` : '')
        : `hash ${log.hash} · ${log.hashes_checked}/${log.hashes_logged} checks ok`;
    }
  }

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
    $('legend').classList.remove('hidden');
    $('board').classList.toggle('hidden', tune.isOpen());
    $('score').classList.toggle('hidden', mode !== 'play');
    $('replay-bar').classList.toggle('hidden', mode !== 'replay');
    document.body.classList.toggle('spectating', mode === 'spectate' || mode === 'replay');
    document.body.classList.toggle('replaying', mode === 'replay');
    showStartError('');
    showRoomInfo(infoOpen);
    updateTuneButton();
    canvas.focus();
  }

  function joinRoom() {
    const room = selectedRoom || '';
    currentRoom = room || defaultRoom;
    world = null;
    updateRoomInfo();
    setHashRoom(room);
    call('fs_set_room', ['string'], [room]);
  }

  function play(name) {
    name = (name || '').trim().slice(0, 32) || 'pilot';
    try { localStorage.setItem('flockstep.name', name); } catch (e) { /* ignore */ }
    enter('play');
    whenReady(() => { joinRoom(); call('fs_play', ['string'], [name]); overlay.applyPrefs(); });
  }

  function spectate() {
    enter('spectate');
    whenReady(() => { joinRoom(); call('fs_spectate', [], []); overlay.applyPrefs(); });
  }

  function showLobby() {
    lab.close();
    $('start').classList.remove('hidden');
    ['hud', 'toolbar', 'board', 'score', 'replay-bar', 'room-info', 'tune', 'legend', 'inspector'].forEach((id) => $(id).classList.add('hidden'));
    tune.setOpen(false);
    document.body.classList.remove('replaying');
    fetchRooms();
  }

  $('play-form').addEventListener('submit', (e) => { e.preventDefault(); play(nameInput.value); });
  $('spectate').addEventListener('click', spectate);
  $('lab-open').addEventListener('click', () => openLab(''));
  function openLab(file) {
    const u = new URL(location.href);
    u.searchParams.set('lab', file || '1');
    history.replaceState(null, '', u);
    lab.open(file);
  }
  $('leave').addEventListener('click', () => {
    call('fs_leave', [], []);
    showLobby();
    nameInput.focus();
  });

  // ---- toolbar and help ------------------------------------------------------------------------
  document.querySelectorAll('#toolbar button[data-option]').forEach((b) => {
    b.addEventListener('click', () => {
      const key = b.dataset.option;
      const on = key === 'extrapolate' ? window.__flockstep.mode !== 'extrapolate' : !window.__flockstep[key];
      call('fs_set_option', ['string', 'number'], [key, on ? 1 : 0]);
      if (key !== 'paused') { prefs[key] = on; savePrefs(prefs); }
      canvas.focus();
    });
  });
  document.querySelectorAll('#toolbar button[data-zoom]').forEach((b) => {
    b.addEventListener('click', () => {
      const z = b.dataset.zoom;
      if (z === 'fit') call('fs_set_option', ['string', 'number'], ['fit', 1]);
      else call('fs_set_option', ['string', 'number'], ['zoom_by', Number(z)]);
    });
  });
  function toggleHelp() { $('help').classList.toggle('hidden'); }
  $('help-button').addEventListener('click', toggleHelp);
  $('help-close').addEventListener('click', () => { $('help').classList.add('hidden'); canvas.focus(); });
  document.addEventListener('keydown', (e) => {
    // The start screen's own shortcuts (C++ ignores keys there so the name field can be typed in).
    const a = document.activeElement;
    if (!$('start').classList.contains('hidden') && e.key === '?' && !(a && a.tagName === 'INPUT')) toggleHelp();
  });

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
    if (s.lab) setStatus('idle', `lab · ${s.lab.paused ? 'paused' : 'running'} · no server`);
    else if (s.bench) setStatus('idle', `offline benchmark · ${s.bench} agents` + (s.bench_sim_ms ? ` · sim ${s.bench_sim_ms.toFixed(2)} ms/tick` : ''));
    else if (s.screen === 'replay') setStatus('idle', `recording · ${s.room || '?'} · ${s.replay.playing ? 'playing' : 'paused'}`);
    else if (s.screen === 'start') setStatus('idle', 'not connected');
    else if (s.link === 'live') setStatus('live', `connected · ${s.role} · rtt ${f0(s.rtt)} ms`);
    else if (s.link === 'reconnecting')
      setStatus('reconnecting', `reconnecting in ${f1(s.retry_in_ms / 1000)} s (attempt ${s.attempt})` +
        (s.last_close ? ` · ${s.last_close}` : ''));
    else setStatus(s.link, s.link + '…');

    layoutVars(s);
    if (s.screen === 'start') return;
    updateTuneButton();
    checkMomentAgent(s);
    lab.refresh(s);
    if (s.screen === 'replay') refreshReplayBar(s);
    const others = s.mode === 'extrapolate'
      ? `extrapolate  err ${(100 * s.extrap_error).toFixed(1)} cm (dead reckoning ${(100 * s.dead_reckoning_error).toFixed(1)} cm)`
      : `interpolate  ${f0(s.interp_delay_ms)} ms behind`;
    const lines = [
      `room      ${s.room || '(default)'}`,
      `fps       ${f0(s.fps)}  (${s.frame_ms.toFixed(2)} ms cpu)`,
      `rtt       ${f1(s.rtt)} ms`,
      `tick      ${f0(s.tick)}  @ ${f0(s.tick_rate)} Hz`,
      // Below the nominal rate the server is pacing this client (its acks lag): say so.
      `snapshots ${f0(s.snapshot_rate)}/s${s.snapshot_rate < 0.8 * s.snapshot_rate_nominal ? ` of ${f0(s.snapshot_rate_nominal)} (lowered: acks lag)` : ''}`,
      `agents    ${f0(s.visible)} visible / ${f0(s.entities)}`,
      `received  ${f0(s.kbps)} kbit/s`,
      `others    ${others}`,
    ];
    if (s.screen === 'play') {
      lines.push(`corrections ${f0(s.corrections)} (${f0(s.corrections_per_min)}/min)  pred err ${s.pred_error.toFixed(3)} m`);
      lines.push(`inputs    seq ${f0(s.input_seq)}  acked ${f0(s.acked)}  unacked ${f0(s.unacked)}`);
    } else if (s.follow) {
      const a = s.inspector && s.inspector.id === s.follow ? s.inspector : null;
      lines.push(`following ${a ? (a.name || a.group || '') + ' ' : ''}#${s.follow}`);
    }
    if (s.screen === 'replay') {
      lines.splice(2, 5, `replay    tick ${f0(s.replay.tick)} (${f0(s.replay.firstTick)}-${f0(s.replay.lastTick)}) @ ${f0(s.tick_rate)} Hz`,
        `          ${s.replay.playing ? 'playing' : 'paused'} ${s.replay.speed}×  snapshot ${f0(s.replay.snapshot_tick)}`,
        `agents    ${f0(s.visible)} visible / ${f0(s.entities)}`);
    } else if (s.paused) lines.push('PAUSED (N: step)');
    const follow = lines.find((l) => l.startsWith('following'));
    const brief = [`${s.room || '(default)'} · ${f0(s.visible)}/${f0(s.entities)} agents · ${f0(s.fps)} fps`];
    if (s.screen === 'play') brief.push(lines[lines.length - 2]);
    if (follow) brief.push(follow);
    $('hud').textContent = (statsOpen ? lines : brief).join('\n');
    $('stats-button').classList.toggle('on', statsOpen);

    if (s.screen === 'play') {
      $('score').textContent = `alive ${f1(s.alive_s)} s · caught ${f0(s.captures)}×`;
    }
    const board = $('board');
    const rows = (s.scores || []).slice(0, 8).map((r) =>
      `<div class="${r.me ? 'me' : ''}">${escapeHtml(r.name)}${r.bot ? ' (bot)' : ''} — ${f1(Math.max(r.best, r.alive))} s</div>`);
    board.innerHTML = '<h3>survival (best)</h3>' + (rows.length ? rows.join('') : '<div>—</div>');
    // Spectating a room nobody plays in: an empty leaderboard only hides the world.
    board.classList.toggle('empty', !rows.length && s.screen !== 'play');

    document.querySelectorAll('#toolbar button[data-option]').forEach((b) => {
      const on = b.dataset.option === 'extrapolate' ? s.mode === 'extrapolate' : !!s[b.dataset.option];
      b.classList.toggle('on', on);
      b.setAttribute('aria-pressed', on ? 'true' : 'false');
    });
    overlay.refresh(s);
  }

  setInterval(refresh, 500);  // also while no frames run (hidden tab)

  // ---- layout: what CSS cannot know --------------------------------------------------------------
  // The minimap is drawn in the canvas, so CSS learns its extent from the viewer's state; and the
  // phone's inspector sheet sits above whatever is docked at the bottom (toolbar, score, replay
  // bar, minimap), whose heights depend on their contents. Everything else is style.css.
  let lastVars = '';
  function layoutVars(s) {
    const m = s.screen !== 'start' && s.minimap_box;
    const c = s.canvas || {};
    const mx = m ? Math.ceil(c.css_w - m.x) : 0, my = m ? Math.ceil(c.css_h - m.y) : 0;
    let dock = my;
    for (const id of ['toolbar', 'score', 'replay-bar']) {
      const el = $(id);
      if (el.classList.contains('hidden')) continue;
      const r = el.getBoundingClientRect();
      if (r.height > 0) dock = Math.max(dock, Math.ceil(window.innerHeight - r.top));
    }
    const vars = `${mx},${my},${dock}`;
    if (vars === lastVars) return;
    lastVars = vars;
    const root = document.documentElement.style;
    root.setProperty('--minimap-x', mx + 'px');
    root.setProperty('--minimap-y', my + 'px');
    root.setProperty('--dock-b', dock + 'px');
  }

  // ---- the toolbar's ⋯ menu (phones): open and close it ------------------------------------------
  const toolbar = $('toolbar');
  $('more-button').addEventListener('click', (e) => {
    e.stopPropagation();
    const open = toolbar.classList.toggle('more-open');
    $('more-button').setAttribute('aria-expanded', open ? 'true' : 'false');
  });
  document.addEventListener('pointerdown', (e) => {
    if (!toolbar.contains(e.target) && toolbar.classList.contains('more-open')) {
      toolbar.classList.remove('more-open');
      $('more-button').setAttribute('aria-expanded', 'false');
    }
  });

  // ---- deep links: ?play=NAME or ?spectate=1 skip the start screen ------------------------------
  if (params.has('bench')) {
    // Offline benchmark: ?bench=N[&sim=1] draws N agents without a server (docs/viewer.md).
    enter('spectate');
    whenReady(() => call('fs_bench', ['number', 'number'], [Number(params.get('bench')) || 1000, params.get('sim') === '1' ? 1 : 0]));
  } else if (params.has('lab')) {
    // ?lab=1 (the default scenario) or ?lab=FILE.json: the lab, no server needed.
    lab.open(params.get('lab') === '1' ? '' : params.get('lab'));
  } else {
    // A link to a moment (link.js): a recording, or a live room spectated (or played: ?play=NAME).
    if (moment.room) selectedRoom = moment.room;
    if (moment.replay) fetchReplay(moment.replay);
    else if (params.has('play')) play(params.get('play'));
    else if (params.has('spectate') || moment.room) spectate();
    else {
      // Nothing to open: the lobby says what was wrong with the link.
      if (moment.errors.length) showStartError('Link: ' + moment.errors.join('; '));
      nameInput.focus();
    }
  }
  fetchRooms();
})();
