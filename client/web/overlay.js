// What the viewer explains on top of the WebGL canvas: screen-space labels (laid out and culled
// in C++, drawn here in a 2D canvas so text is sharp at any zoom), the legend (agent kinds,
// groups, layers with their checkboxes) and the inspector of the clicked agent. Everything is
// drawn from window.__flockstep, the same state tests read.
import { $, escapeHtml } from './dom.js';

const LABEL_FONT = '12px ui-monospace, "DejaVu Sans Mono", monospace';  // C++ LabelStyle: 7.3 px advance

/**
 * call: ccall into the viewer; prefs / savePrefs: remembered toggles; canvas: the WebGL canvas;
 * canLink(state): whether the moment shown has a link; onLink(agentId): copy the link to the
 * moment following that agent (viewer-glue.js, link.js).
 */
export function createOverlay({ call, prefs, savePrefs, canvas, canLink = () => false, onLink = () => {} }) {
  const labelCanvas = $('labels');
  const ctx = labelCanvas.getContext('2d');
  let legendKey = '';

  function drawLabels(s) {
    const dpr = Math.min(window.devicePixelRatio || 1, 2);
    const w = Math.round(canvas.clientWidth * dpr), h = Math.round(canvas.clientHeight * dpr);
    if (labelCanvas.width !== w || labelCanvas.height !== h) { labelCanvas.width = w; labelCanvas.height = h; }
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    if (s.screen === 'start' || !s.labels) return;
    ctx.font = LABEL_FONT;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    for (const l of s.labels) {
      // A dark box behind the text keeps it readable over tiles, agents and bright layers.
      ctx.fillStyle = 'rgba(6, 10, 22, 0.78)';
      ctx.fillRect(l.x - l.w / 2, l.y - l.h / 2, l.w, l.h);
      ctx.fillStyle = l.color || '#fff';
      ctx.fillText(l.text, l.x, l.y + 0.5);
    }
  }

  function renderLegend(s) {
    const lg = s.legend;
    if (!lg) return;
    const key = JSON.stringify([lg, s.labels_on]);
    if (key === legendKey) return;
    legendKey = key;
    const sw = (c) => `<span class="sw" style="background:${c}"></span>`;
    const kinds = lg.kinds.map((k) => `<li>${sw(k.color)}${escapeHtml(k.kind)} <span class="muted">${escapeHtml(k.shape)}</span></li>`).join('');
    // The technique only where the group's name does not already say it (gallery: "seek").
    const groups = lg.groups.map((g) =>
      `<li>${sw(g.color)}<b>${escapeHtml(g.name)}</b> <span class="muted">${g.name === g.technique ? '' : escapeHtml(g.technique) + ' · '}${g.count}</span></li>`).join('');
    const layers = lg.layers.map((l) => {
      const sws = l.swatches ? l.swatches.map((x) => `${sw(x.color)}${escapeHtml(x.name)} `).join('') : sw(l.color);
      return `<li><label><input type="checkbox" data-layer="${escapeHtml(l.name)}"${l.on ? ' checked' : ''}>
        ${sws}${escapeHtml(l.name.replace('_', ' '))} <span class="muted">${l.count} · key ${escapeHtml(l.key)}</span></label></li>`;
    }).join('');
    $('legend-body').innerHTML =
      `<h4>kinds</h4><ul>${kinds}</ul>` +
      `<h4>groups</h4><ul class="groups">${groups}</ul>` +
      (layers ? `<h4>layers</h4><ul>${layers}</ul>` : '') +
      `<label class="labels-toggle"><input type="checkbox" id="labels-check"${s.labels_on ? ' checked' : ''}> labels <span class="muted">key L</span></label>`;
  }

  $('legend-body').addEventListener('change', (e) => {
    const t = e.target;
    if (t.dataset.layer) {
      call('fs_set_option', ['string', 'number'], ['layer_' + t.dataset.layer, t.checked ? 1 : 0]);
      prefs.layers = prefs.layers || {};
      prefs.layers[t.dataset.layer] = t.checked;
      savePrefs(prefs);
    } else if (t.id === 'labels-check') {
      call('fs_set_option', ['string', 'number'], ['labels', t.checked ? 1 : 0]);
      prefs.labels = t.checked ? 1 : 0;
      savePrefs(prefs);
    }
  });
  const legend = $('legend');
  // Open by default on large screens; on small ones it would cover the world.
  legend.open = prefs.legendOpen !== undefined ? prefs.legendOpen : window.innerWidth >= 900;
  legend.addEventListener('toggle', () => { prefs.legendOpen = legend.open; savePrefs(prefs); });

  // The behaviours with their weights and, once a trace arrived, this step's output of each
  // (the server's numbers, or the lab World's), drawn on the canvas as labelled arrows.
  function forcesHtml(a) {
    const comp = a.composition || [];
    if (!comp.length) return '';
    const f = a.behaviour_forces;
    const len = (x, y) => Math.hypot(x, y).toFixed(2);
    let head = '<tr><th>behaviour</th><th>weight</th><th>output</th></tr>';
    let body = '';
    comp.forEach((c, i) => {
      const r = f && f.available && f.behaviours ? f.behaviours[i] : null;
      const turn = r && Math.abs(r.angular) > 1e-9 ? ` ↻ ${r.angular.toFixed(2)} rad/s²` : '';
      const out = !f ? '…' : !f.available ? '—' : !r || !r.evaluated ? 'skipped' : `${len(r.x, r.y)} ${f.unit}${turn}`;
      body += `<tr class="force-row" data-behaviour="${escapeHtml(c.type)}"><td><span class="swatch" style="background:${c.color}"></span>${escapeHtml(c.type)}</td>` +
        `<td>${(+c.weight).toFixed(2)}</td><td>${out}</td></tr>`;
    });
    let foot = '';
    if (f && f.available && f.result) foot = `<tr class="force-row"><td><span class="swatch" style="background:#fff"></span>steering</td><td></td><td>${len(f.result.x, f.result.y)} ${f.unit}</td></tr>`;
    const note = !f ? 'waiting for the first trace' : !f.available ? 'the room traces 16 agents already' : `tick ${f.tick} · ${f.source}`;
    return `<table class="forces">${head}${body}${foot}</table><div class="forces-note">${escapeHtml(note)}</div>`;
  }

  function renderInspector(s) {
    const box = $('inspector');
    const a = s.inspector;
    box.classList.toggle('hidden', !a || s.screen === 'start');
    if (!a) return;
    const f2 = (v) => (v || 0).toFixed(2);
    const rows = [
      ['group', a.group || '—'], ['kind', a.kind], ['technique', a.technique || '—'], ['state', a.state],
      ['speed', `${f2(a.speed)} m/s` + (a.max_speed ? ` (max ${f2(a.max_speed)})` : '')],
      ['target', a.target ? `#${a.target.id}` + (a.target.group ? ` (${a.target.group})` : '') : '—'],
      ['aim', `${f2(a.aim.x)}, ${f2(a.aim.y)}`], ['position', `${f2(a.position.x)}, ${f2(a.position.y)}`],
    ];
    if (a.name) rows.unshift(['name', a.name]);
    if (a.model) rows.splice(rows.findIndex((r) => r[0] === 'technique') + 1, 0, ['model', a.model + (a.combiner ? ` · ${a.combiner}` : '')]);
    const link = canLink(s)
      ? '<button id="inspector-link" class="link" type="button" title="Copy a link to this moment, following this agent with the inspector open">Link</button>'
      : '';
    // The head (id, Link, close) is rebuilt only when it changes, the table at every refresh: a
    // button replaced 10 times a second would lose the clicks that land on it.
    const head = `<b>#${a.id}</b><span class="inspector-tools">${link}` +
      '<button id="inspector-close" type="button" title="Close (Esc)">×</button></span>';
    const body = `<table>${rows.map(([k, v]) => `<tr><th>${k}</th><td data-field="${k}">${escapeHtml(v)}</td></tr>`).join('')}</table>` +
      forcesHtml(a);
    if (!box.firstElementChild || !box.firstElementChild.classList.contains('inspector-head')) {
      box.innerHTML = '<div class="inspector-head"></div><div class="inspector-body"></div>';
    }
    const [headBox, bodyBox] = box.children;
    if (headBox.dataset.html !== head) { headBox.innerHTML = head; headBox.dataset.html = head; }
    if (bodyBox.dataset.html !== body) { bodyBox.innerHTML = body; bodyBox.dataset.html = body; }
  }
  $('inspector').addEventListener('click', (e) => {
    if (e.target.id === 'inspector-close') { call('fs_set_option', ['string', 'number'], ['inspect', 0]); canvas.focus(); }
    if (e.target.id === 'inspector-link' && window.__flockstep.inspector) onLink(window.__flockstep.inspector.id);
  });

  // The panels over the canvas, as boxes the C++ label layout keeps clear of (sent when they change).
  let lastBoxes = '';
  function sendOccluders() {
    const c = canvas.getBoundingClientRect();
    const boxes = [];
    for (const el of document.querySelectorAll('#status, #hud, #room-info, #lab, #board, #legend, #inspector, #toolbar, #score, #replay-bar, #tune')) {
      // Not offsetParent: it is null for every position: fixed panel (status, toolbar, score...).
      if (el.classList.contains('hidden') || el.getClientRects().length === 0) continue;
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.height > 0) boxes.push([r.left - c.left, r.top - c.top, r.width, r.height].map((v) => v.toFixed(0)).join(','));
    }
    const text = boxes.join(';');
    if (text !== lastBoxes && window.Module && window.Module.ccall) {
      lastBoxes = text;
      call('fs_set_occluders', ['string'], [text]);
    }
  }

  return {
    frame(s) { drawLabels(s); },
    refresh(s) { renderLegend(s); renderInspector(s); sendOccluders(); },
    /** Re-apply the remembered toggles after a join (the C++ side starts from its defaults). */
    applyPrefs() {
      for (const [name, on] of Object.entries(prefs.layers || {}))
        call('fs_set_option', ['string', 'number'], ['layer_' + name, on ? 1 : 0]);
      if (prefs.labels !== undefined) call('fs_set_option', ['string', 'number'], ['labels', prefs.labels]);
      for (const k of ['annotations', 'trails', 'minimap', 'extrapolate'])
        if (prefs[k] !== undefined) call('fs_set_option', ['string', 'number'], [k, prefs[k] ? 1 : 0]);
    },
    /** The C++ side toggled something by key: remember it. */
    remember(s) {
      prefs.layers = Object.assign({}, s.layer_on || {});
      if (s.labels_mode >= 0) prefs.labels = s.labels_mode;
      for (const k of ['annotations', 'trails', 'minimap', 'extrapolate']) prefs[k] = k === 'extrapolate' ? s.mode === 'extrapolate' : !!s[k];
      savePrefs(prefs);
    },
  };
}
