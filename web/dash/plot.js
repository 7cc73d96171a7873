// A small line chart on a canvas, no library: one lane per numeric field of a topic, each
// scaled to its own range (temperature, humidity and uptime share no axis), all sharing the
// time axis. The lane's left gutter says the field and its last value, the right edge the
// range shown. The canvas gets data-points: how many points it drew (what tests look at).

import { num } from './dom.js';

const LANE = 38;          /* css px per field */
const GUTTER = 112;       /* field name and last value */
const RANGE = 56;         /* min-max on the right */
const MIN_SPAN_MS = 10000;
const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "Liberation Sans", sans-serif';

/** The theme colours, from the page's CSS variables (light or dark). */
export function theme(node) {
  const cs = getComputedStyle(node);
  const v = (name) => cs.getPropertyValue(name).trim();
  return {
    fg: v('--fg'), muted: v('--muted'), line: v('--line'),
    series: [1, 2, 3, 4, 5, 6].map((i) => v(`--plot-${i}`)),
  };
}

/** Height in css px of a chart of @p lanes fields. */
export function chartHeight(lanes) {
  return Math.max(1, lanes) * LANE;
}

/**
 * Draws @p series (Map field -> [{t, v}] in time order) between max(now - windowMs, the oldest
 * point) and now. @returns the number of points drawn.
 */
export function drawLanes(canvas, series, { now, windowMs, colors }) {
  const dpr = globalThis.devicePixelRatio || 1;
  const lanes = [...series];
  const w = Math.max(canvas.clientWidth, GUTTER + RANGE + 40);
  const h = chartHeight(lanes.length);
  if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
    canvas.style.height = `${h}px`;
  }
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, w, h);
  const oldest = Math.min(...lanes.map(([, s]) => (s.length ? s[0].t : now)));
  const t0 = Math.min(Math.max(now - windowMs, oldest), now - MIN_SPAN_MS);
  const x = (t) => GUTTER + ((t - t0) / (now - t0)) * (w - GUTTER - RANGE - 8);
  let drawn = 0;
  lanes.forEach(([field, pts], i) => {
    const color = colors.series[i % colors.series.length];
    drawn += drawLane(ctx, { field, pts, color, colors, top: i * LANE, w, t0, x });
  });
  canvas.dataset.points = String(drawn);
  return drawn;
}

function drawLane(ctx, { field, pts, color, colors, top, w, t0, x }) {
  const visible = pts.filter((p) => p.t >= t0);
  const last = pts.length ? pts[pts.length - 1].v : null;
  if (top > 0) { /* the lanes' separator */
    ctx.strokeStyle = colors.line;
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(0, top + 0.5);
    ctx.lineTo(w, top + 0.5);
    ctx.stroke();
  }
  ctx.textBaseline = 'alphabetic';
  ctx.textAlign = 'left';
  ctx.fillStyle = colors.muted;
  ctx.font = `11px ${FONT}`;
  ctx.fillText(field, 0, top + 15);
  ctx.fillStyle = color;
  ctx.font = `600 14px ${FONT}`;
  ctx.fillText(last === null ? '–' : num(last), 0, top + 31);
  if (visible.length === 0) return 0;
  let min = Math.min(...visible.map((p) => p.v));
  let max = Math.max(...visible.map((p) => p.v));
  ctx.textAlign = 'right';
  ctx.fillStyle = colors.muted;
  ctx.font = `10px ${FONT}`;
  ctx.fillText(num(max), w, top + 14);
  ctx.fillText(num(min), w, top + LANE - 6);
  if (max - min < 1e-9) { /* flat: a line through the middle */
    min -= 1;
    max += 1;
  }
  const y = (v) => top + LANE - 6 - ((v - min) / (max - min)) * (LANE - 14);
  ctx.beginPath();
  visible.forEach((p, k) => (k === 0 ? ctx.moveTo(x(p.t), y(p.v)) : ctx.lineTo(x(p.t), y(p.v))));
  ctx.strokeStyle = color;
  ctx.lineWidth = 1.75;
  ctx.lineJoin = 'round';
  ctx.stroke();
  const end = visible[visible.length - 1];
  ctx.lineTo(x(end.t), top + LANE - 4);
  ctx.lineTo(x(visible[0].t), top + LANE - 4);
  ctx.closePath();
  ctx.globalAlpha = 0.1;
  ctx.fillStyle = color;
  ctx.fill();
  ctx.globalAlpha = 1;
  ctx.beginPath();
  ctx.arc(x(end.t), y(end.v), 2.5, 0, 2 * Math.PI);
  ctx.fill();
  return visible.length;
}
