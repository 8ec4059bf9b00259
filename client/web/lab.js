// The lab (?lab=1, or Lab in the lobby): any scenario runs as a sim::World inside the page, with
// no game server: the shipped files (web/scenarios/, copied there by the build) or JSON edited
// here. Pause, step, restart with a new seed, tune every group's parameters (the Tune panel, in
// its local mode), click open ground to move the chasers' target (a player craft), and export
// the scenario file, which flockstep-server runs as a room (docs/viewer.md "Lab"). When the page
// comes from a flockstep-server, Publish sends that file to it as a room others join
// (PUT /api/admin/published/<name> with the admin token, which stays in sessionStorage).
// The C++ side is client/src/lab/lab.cpp; everything here is page plumbing.
import { $, escapeHtml } from './dom.js';

/**
 * deps: { ccall(name, ret, types, args), whenReady(fn), enter(mode), showLobby(), tune, canvas, apiBase() }
 * Returns { open(file?), close(), isOpen(), refresh(state), exportText(), tune(group, key, value) }.
 */
export function createLab(deps) {
  const { ccall, canvas } = deps;
  let isOpen = false;
  let files = [];
  let current = '';      // file name of the scenario loaded (or '(edited)')
  let lastError = '';
  let exported = '';     // the last export, for tests
  const panel = $('lab');

  function say(msg) {
    lastError = msg || '';
    $('lab-error').textContent = lastError;
    $('lab-error').classList.toggle('hidden', !lastError);
  }

  async function listFiles() {
    try {
      const r = await fetch('scenarios/index.json', { cache: 'no-store' });
      if (!r.ok) throw new Error('HTTP ' + r.status);
      files = await r.json();
    } catch (e) {
      files = [];
      say('cannot list the scenario files (scenarios/index.json): ' + e.message);
    }
    const sel = $('lab-scenario');
    sel.innerHTML = files.map((f) => `<option value="${escapeHtml(f)}">${escapeHtml(f.replace(/\.json$/, ''))}</option>`).join('');
    return files;
  }

  // Load JSON text into the C++ lab; "" or the error (key path first).
  function loadText(text, label) {
    const err = ccall('fs_lab_load', 'string', ['string'], [text]);
    if (err) { say(`${label}: ${err}`); return false; }
    say('');
    current = label;
    $('lab-json').value = text;
    return true;
  }

  async function loadFile(file) {
    try {
      const r = await fetch('scenarios/' + encodeURIComponent(file), { cache: 'no-store' });
      if (!r.ok) throw new Error('HTTP ' + r.status);
      const text = await r.text();
      if (loadText(text, file)) $('lab-scenario').value = file;
    } catch (e) {
      say(`${file}: ${e.message}`);
    }
  }

  async function open(file) {
    isOpen = true;
    document.body.classList.add('lab');
    deps.enter('spectate');
    panel.classList.remove('hidden');
    await listFiles();
    const pick = file && files.includes(file) ? file : (files.includes('gallery.json') ? 'gallery.json' : files[0]);
    if (pick) deps.whenReady(() => loadFile(pick));
  }

  function close() {
    isOpen = false;
    document.body.classList.remove('lab');
    panel.classList.add('hidden');
  }

  function exportText() {
    exported = ccall('fs_lab_export', 'string', [], []);
    return exported;
  }

  $('lab-scenario').addEventListener('change', (e) => { loadFile(e.target.value); canvas.focus(); });
  $('lab-pause').addEventListener('click', () => {
    const s = window.__flockstep;
    ccall('fs_lab_control', null, ['string', 'number'], ['paused', s.lab && s.lab.paused ? 0 : 1]);
    canvas.focus();
  });
  $('lab-step').addEventListener('click', () => { ccall('fs_lab_control', null, ['string', 'number'], ['step', 1]); });
  $('lab-restart').addEventListener('click', () => { ccall('fs_lab_control', null, ['string', 'number'], ['restart', 0]); canvas.focus(); });
  $('lab-speed').addEventListener('change', (e) => { ccall('fs_lab_control', null, ['string', 'number'], ['speed', Number(e.target.value)]); });
  $('lab-tune').addEventListener('click', () => deps.tune.setOpen(!deps.tune.isOpen()));
  $('lab-edit').addEventListener('click', () => {
    const box = $('lab-editor');
    box.classList.toggle('hidden');
    if (!box.classList.contains('hidden')) $('lab-json').value = exportText() || $('lab-json').value;
  });
  $('lab-apply').addEventListener('click', () => {
    if (loadText($('lab-json').value, '(edited)')) canvas.focus();
  });
  $('lab-export').addEventListener('click', () => {
    const text = exportText();
    if (!text) return;
    const blob = new Blob([text], { type: 'application/json' });
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = (current && current !== '(edited)' ? current.replace(/\.json$/, '') : 'lab') + '-lab.json';
    document.body.appendChild(a);
    a.click();
    setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
  });

  // ---- Publish: the controls are built here so the page's markup stays the lobby's and HUD's ----
  const TOKEN_KEY = 'flockstep.adminToken';  // the key the Admin panel (tune.js) keeps it under
  const storedToken = () => { try { return sessionStorage.getItem(TOKEN_KEY) || ''; } catch (e) { return ''; } };
  let published = { name: '', status: '', error: '', key: '' };
  const pubRow = document.createElement('div');
  pubRow.className = 'row';
  pubRow.innerHTML = `<input id="lab-publish-name" size="12" maxlength="32" placeholder="room name" aria-label="room name to publish as"
      title="a-z 0-9 _ - (at most 32)">
    <input id="lab-publish-token" type="password" size="10" autocomplete="off" placeholder="admin token" aria-label="admin token (kept for this tab only)">
    <button id="lab-publish" type="button" title="Publish this scenario as a room of the server others can join (admin token)">Publish</button>
    <span id="lab-publish-status" class="small" role="status"></span>`;
  $('lab-status').before(pubRow);
  const pubToken = $('lab-publish-token');
  const showToken = () => pubToken.classList.toggle('hidden', !!storedToken());
  showToken();

  function roomNameSuggestion() {
    const base = (current && current !== '(edited)' ? current.replace(/\.json$/, '') : 'lab').toLowerCase();
    return (base.replace(/[^a-z0-9_-]/g, '-').replace(/^-+/, '') + '-lab').slice(0, 32);
  }

  async function publish() {
    const name = ($('lab-publish-name').value.trim() || roomNameSuggestion());
    $('lab-publish-name').value = name;
    if (pubToken.value.trim()) {
      try { sessionStorage.setItem(TOKEN_KEY, pubToken.value.trim()); } catch (e) { /* private mode: ask again */ }
    }
    const token = storedToken() || pubToken.value.trim();
    const text = exportText();
    published = { name, status: 'publishing', error: '', key: '' };
    $('lab-publish-status').textContent = 'publishing…';
    if (!token) {
      published.status = 'error';
      published.error = 'the admin token is needed to publish';
      pubToken.classList.remove('hidden');
      $('lab-publish-status').textContent = published.error;
      return;
    }
    try {
      const r = await fetch(`${deps.apiBase()}/api/admin/published/${encodeURIComponent(name)}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', authorization: 'Bearer ' + token },
        body: text,
      });
      const body = await r.text();
      let j = {};
      try { j = JSON.parse(body); } catch (e) { j = { error: body.trim() }; }
      if (r.status === 401) {
        try { sessionStorage.removeItem(TOKEN_KEY); } catch (e) { /* ignore */ }
        pubToken.value = '';
        throw new Error('the admin token was refused');
      }
      if (!r.ok) {
        published.key = j.key || '';
        throw new Error(j.error || `HTTP ${r.status}`);
      }
      published.status = 'published';
      $('lab-publish-status').innerHTML = `published: <a href="#room=${encodeURIComponent(name)}">${escapeHtml(name)}</a>` +
        (j.closed ? ' (its running room restarted)' : '');
    } catch (e) {
      published.status = 'error';
      published.error = e.message;
      $('lab-publish-status').textContent = 'not published: ' + e.message;
    }
    showToken();
  }
  $('lab-publish').addEventListener('click', () => { publish(); });

  function refresh(s) {
    if (!isOpen || !s.lab) return;
    const l = s.lab;
    $('lab-pause').textContent = l.paused ? 'Run' : 'Pause';
    $('lab-pause').setAttribute('aria-pressed', l.paused ? 'true' : 'false');
    $('lab-status').textContent = `tick ${l.tick} · seed ${l.seed} · ${l.agents} agents · ${l.sim_ms.toFixed(2)} ms/tick` +
      (l.target ? ' · target placed' : '');
  }

  return {
    open,
    close,
    isOpen: () => isOpen,
    refresh,
    exportText,
    tune(group, key, value) { return ccall('fs_lab_tune', 'string', ['number', 'string', 'number'], [group, key, value]); },
    state: () => ({ open: isOpen, files: files.length, current, error: lastError, exported: exported.length, published: { ...published } }),
  };
}
