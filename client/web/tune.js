// The admin Tune panel: one section per group of the room (from the WorldSpec the C++ side
// decoded), its count and every numeric parameter by its scenario-file name; a change is one
// POST /api/admin/rooms/<room>/groups/<index>. In the lab (lab.js) the same panel tunes the
// world in the page instead (deps.local), with a slider beside every number. Kept in its own module because the group format
// grows (behaviour composition): new fields only touch this file.
import { $, escapeHtml } from './dom.js';

/**
 * deps: { canvas, apiBase(), currentRoom(), world(), local() -> null | { tune(group, key, value) -> error, exportText() } }
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
  const local = () => (deps.local ? deps.local() : null);
  function updateTuneButton() {
    const replaying = window.__flockstep && window.__flockstep.screen === 'replay';
    const allowed = !!local() || (!!adminToken() && !replaying);
    $('tune-button').classList.toggle('hidden', !allowed);
    if (!allowed && tuneOpen) setTuneOpen(false);
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
  // Lab sliders: a range around the value it had when the panel was laid out (0 to 4x, or 0/1
  // for booleans); the number field beside it takes any value the rules allow.
  function sliderRange(v, isBool) {
    if (isBool) return { min: 0, max: 1, step: 1 };
    const a = Math.abs(v);
    if (a === 0) return { min: 0, max: 1, step: 0.01 };
    const max = +(4 * a).toPrecision(2);
    return { min: v < 0 ? -max : 0, max, step: max / 200 };
  }
  function renderTune() {
    if (!tuneOpen) return;
    const box = $('tune-groups');
    const sliders = !!local();
    const isBool = (g, k) => {
      const w = world();
      const spec = w && w.groups.find((x) => x.index === g.index);
      const p = spec && spec.params.find((q) => q[0] === k);
      return !!(p && p[2]);
    };
    const slider = (g, k, v) => {
      if (!sliders) return '';
      const r = sliderRange(v, isBool(g, k));
      return `<input class="slider" type="range" min="${r.min}" max="${r.max}" step="${r.step}" value="${v}" data-group="${g.index}" data-slider="${escapeHtml(k)}" aria-label="${escapeHtml(k)}">`;
    };
    const layout = (sliders ? 'local|' : '') + tuneGroups.map((g) => g.index + ':' + Object.keys(g.params).join(',')).join('|');
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
              <input id="tune-${g.index}-${k}" type="number" step="any" data-group="${g.index}" data-key="${escapeHtml(k)}">
              ${slider(g, k, g.params[k])}`).join('')}
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
      for (const sl of d.querySelectorAll('input[data-slider]')) {
        const v = g.params[sl.dataset.slider];
        if (document.activeElement !== sl && isFinite(v)) sl.value = String(v);
      }
    }
  }

  async function postTune(group, key, value, input) {
    const room = currentRoomName();
    const msgBox = $('tune-groups').querySelector(`details[data-group="${group}"] .group-msg`);
    const say = (cls, text) => { if (msgBox) { msgBox.className = 'group-msg ' + cls; msgBox.textContent = text; } };
    const lab = local();
    if (lab) {
      // The lab: the same parameter paths and rules, applied to the world in this page.
      const error = lab.tune(group, key, typeof value === 'boolean' ? (value ? 1 : 0) : value);
      const tick = window.__flockstep && window.__flockstep.lab ? window.__flockstep.lab.tick : undefined;
      tuneLast = error ? { group, key, value, status: 400, error } : { group, key, value, status: 200, tick };
      input.classList.toggle('bad', !!error);
      say(error ? 'group-error' : 'group-ok', error || `${key} = ${value} applied at tick ${tick}`);
      return;
    }
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
  // Lab sliders move the number beside them and apply it.
  $('tune-groups').addEventListener('input', (e) => {
    const sl = e.target;
    if (!sl.dataset || sl.dataset.slider === undefined) return;
    const input = $('tune-groups').querySelector(`input[data-group="${sl.dataset.group}"][data-key="${CSS.escape(sl.dataset.slider)}"]`);
    if (!input) return;
    input.value = sl.value;
    input.dispatchEvent(new Event('change', { bubbles: true }));
  });
  $('tune-groups').addEventListener('keydown', (e) => {
    if (e.key === 'Enter') e.target.dispatchEvent(new Event('change', { bubbles: true }));
    if (e.key === 'Escape') { e.target.value = e.target.dataset.value || ''; e.target.blur(); }
  });
  $('tune-export').addEventListener('click', async () => {
    const room = currentRoomName();
    try {
      let text;
      if (local()) text = local().exportText();
      else {
        const r = await fetch(`${apiBase()}/api/rooms/${encodeURIComponent(room)}/scenario`, { cache: 'no-store' });
        if (!r.ok) throw new Error('HTTP ' + r.status);
        text = await r.text();
      }
      const blob = new Blob([text], { type: 'application/json' });
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
