// View toggles remembered between visits (localStorage; private mode just forgets them).
const KEY = 'flockstep.prefs';

export function loadPrefs() {
  try { return JSON.parse(localStorage.getItem(KEY) || '{}') || {}; } catch (e) { return {}; }
}

export function savePrefs(p) {
  try { localStorage.setItem(KEY, JSON.stringify(p)); } catch (e) { /* private mode */ }
}
