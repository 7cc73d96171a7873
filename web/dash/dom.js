// Small DOM and formatting helpers for the dashboard (web/dashboard.js). No framework: rows
// are keyed and updated in place, so canvases and focus survive a refresh.

/** A new element: el('td', {class: 'x', dataset: {k: 'v'}}, child, 'text', ...). */
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'dataset') Object.assign(e.dataset, v);
    else if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

/** Sets @p node's text only when it changed (no needless layout). */
export function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

/** Sets an attribute (or removes it for null) only when it changed. */
export function setAttr(node, name, value) {
  if (value === null || value === undefined) {
    if (node.hasAttribute(name)) node.removeAttribute(name);
  } else if (node.getAttribute(name) !== String(value)) {
    node.setAttribute(name, String(value));
  }
}

/** Keeps @p body's children in the order of @p keys, making rows with @p make(key) and
 *  reusing those made before (found by data-key). @returns Map key -> row. */
export function syncRows(body, keys, make) {
  const rows = new Map();
  for (const row of body.children) rows.set(row.dataset.key, row);
  const keep = new Map();
  let cursor = body.firstElementChild;
  for (const key of keys) {
    let row = rows.get(key);
    if (!row) {
      row = make(key);
      row.dataset.key = key;
    }
    keep.set(key, row);
    if (row !== cursor) body.insertBefore(row, cursor);
    else cursor = cursor.nextElementSibling;
  }
  for (const [key, row] of rows) if (!keep.has(key)) row.remove();
  return keep;
}

/** "3 s", "2 min", "1 h" ago. */
export function age(ms) {
  if (ms < 1000) return 'now';
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.round(s / 60)} min`;
  return `${Math.round(s / 3600)} h`;
}

/** HH:MM:SS of a wall-clock time. */
export function clock(wall) {
  const d = new Date(wall);
  return [d.getHours(), d.getMinutes(), d.getSeconds()]
    .map((n) => String(n).padStart(2, '0')).join(':');
}

/** A JSON value on one line, cut to @p max characters. */
export function compact(value, max = 120) {
  let s;
  try {
    s = JSON.stringify(value);
  } catch {
    s = String(value);
  }
  if (s === undefined) s = 'undefined';
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** A number as people read it: at most 2 decimals, no trailing zeros. */
export function num(v) {
  if (!Number.isFinite(v)) return String(v);
  if (Math.abs(v) >= 1000) return String(Math.round(v));
  return String(Math.round(v * 100) / 100);
}
