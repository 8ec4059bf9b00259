// Small DOM helpers shared by the page's modules.
export const $ = (id) => document.getElementById(id);

export function escapeHtml(t) {
  return String(t).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
}

/** A focused control whose keys are its own (fields, buttons, checkboxes, links). */
export function typingTarget(el) {
  if (!el || el === document.body) return false;
  if (el.id === 'canvas') return false;
  return /^(INPUT|SELECT|TEXTAREA|BUTTON|A|SUMMARY)$/.test(el.tagName) || el.isContentEditable;
}
