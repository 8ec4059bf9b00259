// The admin Tune panel: one section per group of the room (from the WorldSpec the C++ side
// decoded), its count and every numeric parameter by its scenario-file name; a change is one
// POST /api/admin/rooms/<room>/groups/<index>. Kept in its own module because the group format
// grows (behaviour composition): new fields only touch this file.
import { $, escapeHtml } from './dom.js';

/**
 * deps: { canvas, apiBase(), currentRoom(), world() }
 * Returns { setGroups(groups), updateTuneButton(), isOpen(), state() }.
 */
export function createTune(deps) {
  const { canvas, apiBase } = deps;
  const world = () => deps.world();
  const currentRoomName = () => deps.currentRoom() || (window.__flockstep && window.__flockstep.room) || '';
  // ---- tuning (admin) -------------------------------------------------------------------------
  const TOKEN_KEY = 'flockstep.adminToken';
  const adminToken = () => { try { return sessionStorage.getItem(TOKEN_KEY) || ''; } catch (e) { return ''; } };
  let tuneOpen = false;
  let tuneGroups = [];
  let tuneLast = null;  // last POST: {group, key, status, tick|error}
  const tokenInput = $('admin-token');
  tokenInput.value = adminToken();
  if (tokenInput.value) $('admin').open = true;
  tokenInput.addEventListener('input', () => {
    try { sessionStorage.setItem(TOKEN_KEY, tokenInput.value.trim()); } catch (e) { /* ignore */ }
    updateTuneButton();
  });
  function updateTuneButton() {
    const replaying = window.__flockstep && window.__flockstep.screen === 'replay';
    $('tune-button').classList.toggle('hidden', !adminToken() || replaying);
    if ((!adminToken() || replaying) && tuneOpen) setTuneOpen(false);
  }
  function setTuneOpen(open) {
    tuneOpen = open;
    $('tune').classList.toggle('hidden', !open);
    $('tune-button').classList.toggle('on', open);
    $('board').classList.toggle('hidden', open || !$('start').classList.contains('hidden'));
    if (open) renderTune();
  }
  $('tune-button').addEventListener('click', () => setTuneOpen(!tuneOpen));
  $('tune-close').addEventListener('click', () => { setTuneOpen(false); canvas.focus(); });

  function fmt(v) {
    if (!isFinite(v)) return '0';
    return String(Math.abs(v) >= 1e-4 || v === 0 ? +v.toPrecision(6) : v);
  }
  // Build the panel once per group layout; later updates only rewrite values of fields not
  // being edited, so a GroupUpdate never steals what someone is typing.
  let tuneLayout = '';
  function renderTune() {
    if (!tuneOpen) return;
    const box = $('tune-groups');
    const layout = tuneGroups.map((g) => g.index + ':' + Object.keys(g.params).join(',')).join('|');
    if (layout !== tuneLayout) {
      tuneLayout = layout;
      box.innerHTML = tuneGroups.map((g) => `
        <details class="group" data-group="${g.index}"${g.index === 0 ? ' open' : ''}>
          <summary><b>${escapeHtml(g.name)}</b> <span class="muted">#${g.index} · ${escapeHtml(g.technique === 'composed' ? `${g.model} · ${g.combiner}` : g.technique)} · ${escapeHtml(g.kind)} ·
            <span class="count-label">${g.count}</span> agents</span></summary>
          <div class="group-msg"></div>
          <div class="grid">
            <label for="tune-${g.index}-count" title="agents in the group">count</label>
            <input id="tune-${g.index}-count" class="count" type="number" step="1" min="0" data-group="${g.index}" data-key="count">
            ${Object.keys(g.params).map((k) => `
              <label for="tune-${g.index}-${k}" title="${escapeHtml(k)}">${escapeHtml((g.labels && g.labels[k]) || k)}</label>
              <input id="tune-${g.index}-${k}" type="number" step="any" data-group="${g.index}" data-key="${escapeHtml(k)}">`).join('')}
          </div>
        </details>`).join('') || '<p class="muted">No groups.</p>';
    }
    for (const g of tuneGroups) {
      const d = box.querySelector(`details[data-group="${g.index}"]`);
      if (!d) continue;
      d.querySelector('.count-label').textContent = g.count;
      for (const input of d.querySelectorAll('input[data-key]')) {
        const key = input.dataset.key;
        const v = key === 'count' ? g.count : g.params[key];
        const text = fmt(v);
        if (document.activeElement !== input && input.value !== text) {
          const had = input.value !== '';
          input.value = text;
          if (had) { input.classList.add('flash'); setTimeout(() => input.classList.remove('flash'), 800); }
        }
        input.dataset.value = text;
      }
    }
  }

  async function postTune(group, key, value, input) {
    const room = currentRoomName();
    const msgBox = $('tune-groups').querySelector(`details[data-group="${group}"] .group-msg`);
    const say = (cls, text) => { if (msgBox) { msgBox.className = 'group-msg ' + cls; msgBox.textContent = text; } };
    const body = {};
    body[key] = value;
    say('muted', `sending ${key} = ${value}…`);
    try {
      const r = await fetch(`${apiBase()}/api/admin/rooms/${encodeURIComponent(room)}/groups/${group}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer ' + adminToken() },
        body: JSON.stringify(body),
      });
      const text = await r.text();
      let j = null;
      try { j = JSON.parse(text); } catch (e) { /* plain text */ }
      if (r.ok) {
        tuneLast = { group, key, value, status: r.status, tick: j && j.tick };
        input.classList.remove('bad');
        say('group-ok', `${key} = ${value} applied at tick ${j && j.tick !== undefined ? j.tick : '?'}`);
      } else {
        const why = (j && (j.error || j.message)) || text || r.statusText;
        tuneLast = { group, key, value, status: r.status, error: why };
        input.classList.add('bad');
        const hint = r.status === 401 || r.status === 403 ? ' (check the admin token)' : r.status === 409 ? ' (room not running)' : '';
        say('group-error', `${r.status}: ${why}${hint}`);
      }
    } catch (e) {
      tuneLast = { group, key, value, status: 0, error: e.message };
      input.classList.add('bad');
      say('group-error', 'request failed: ' + e.message);
    }
  }
  $('tune-groups').addEventListener('change', (e) => {
    const input = e.target;
    if (!input.dataset || input.dataset.key === undefined) return;
    const group = Number(input.dataset.group);
    const key = input.dataset.key;
    if (input.value.trim() === '' || !isFinite(Number(input.value))) {
      input.classList.add('bad');
      return;
    }
    let value = Number(input.value);
    const g = tuneGroups.find((x) => x.index === group);
    const w = world();
      const spec = w && w.groups.find((x) => x.index === group);
    const param = spec && spec.params.find((p) => p[0] === key);
    if (param && param[2]) value = value !== 0;  // boolean fields are JSON true/false
    if (key === 'count') value = Math.round(value);
    if (g) postTune(group, key, value, input);
  });
  $('tune-groups').addEventListener('keydown', (e) => {
    if (e.key === 'Enter') e.target.dispatchEvent(new Event('change', { bubbles: true }));
    if (e.key === 'Escape') { e.target.value = e.target.dataset.value || ''; e.target.blur(); }
  });
  $('tune-export').addEventListener('click', async () => {
    const room = currentRoomName();
    try {
      const r = await fetch(`${apiBase()}/api/rooms/${encodeURIComponent(room)}/scenario`, { cache: 'no-store' });
      if (!r.ok) throw new Error('HTTP ' + r.status);
      const blob = new Blob([await r.text()], { type: 'application/json' });
      const a = document.createElement('a');
      a.href = URL.createObjectURL(blob);
      a.download = `${room || 'scenario'}.json`;
      document.body.appendChild(a);
      a.click();
      setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
      $('tune-error').classList.add('hidden');
    } catch (e) {
      $('tune-error').textContent = 'export failed: ' + e.message;
      $('tune-error').classList.remove('hidden');
    }
  });


  return {
    setGroups(groups) { tuneGroups = groups; renderTune(); },
    updateTuneButton,
    isOpen: () => tuneOpen,
    setOpen: setTuneOpen,
    state: () => ({ open: tuneOpen, groups: tuneGroups, token: !!adminToken(), last: tuneLast }),
  };
}
