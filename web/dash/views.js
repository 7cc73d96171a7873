// The dashboard's views: each renders one model (dash/*.js) into its part of index.html,
// updating keyed rows in place.

import { el, setText, setAttr, syncRows, age, clock, compact, num } from './dom.js';
import { drawLanes, chartHeight } from './plot.js';
import { WINDOW_MS } from './topics.js';
import { textOf } from './events.js';

function badge(text, cls) {
  return el('span', { class: `badge ${cls}` }, text);
}

function setBadge(node, text, cls) {
  setText(node, text);
  setAttr(node, 'class', `badge ${cls}`);
}

// ---- Peers ---------------------------------------------------------------------------------

function peerRow() {
  return el('tr', {},
    el('td', {}, el('div', { class: 'name' }), el('div', { class: 'sub mono' })),
    el('td', {}, badge('', 'kind')),
    el('td', {}, badge('', 'state')),
    el('td', { class: 'num mono rtt' }),
    el('td', {}, el('div', { class: 'tags' })));
}

export function renderPeers(tbody, peers, rtt) {
  const list = peers.list();
  const rows = syncRows(tbody, list.map((p) => p.id), peerRow);
  for (const p of list) {
    const row = rows.get(p.id);
    const [who, kind, state, ms, does] = row.children;
    const tags = does.firstChild;
    setAttr(row, 'data-name', p.name ?? '');
    setAttr(row, 'data-state', p.state);
    setText(who.firstChild, p.name ?? 'peer');
    setAttr(who.firstChild, 'class', p.name ? 'name' : 'name anon');
    setText(who.lastChild, `${p.id.slice(0, 8)}${p.fp ? ` · ${p.fp}` : ''}`);
    who.title = `id ${p.id}${p.fp ? `, identity (certificate) ${p.fp}` : ''}`;
    setBadge(kind.firstChild, p.kind ?? '?', p.kind === 'zq' ? 'zq' : p.kind ? 'zeroq' : 'unknown');
    const since = p.state === 'open' ? '' : ` ${age(Date.now() - p.since)}`;
    setBadge(state.firstChild, `${p.state}${since}`, p.state);
    state.firstChild.title = p.why ?? '';
    const r = p.state === 'open' ? rtt.of(p.id) : null;
    setText(ms, r === null ? '–' : `${r < 10 ? r.toFixed(1) : Math.round(r)} ms`);
    const text = p.does.join(' | ');
    if (tags.dataset.text !== text) {
      tags.dataset.text = text;
      tags.replaceChildren(...p.does.map((t) => el('span', { class: 'tag' }, t)));
    }
  }
  return list;
}

/** The request form's choice of responder: any, or one open peer (kept while it is open). The
 *  list is rebuilt when a peer opens or goes, and when one is named (its first message on a
 *  sensors. or actuators. topic can come after the list showed it as "peer"). */
export function renderPeerChoice(select, peers) {
  const open = peers.list().filter((p) => p.state === 'open');
  const label = (p) => `${p.name ?? 'peer'} (${p.id.slice(0, 8)})`;
  const want = ['', ...open.map((p) => `${p.id} ${label(p)}`)];
  const have = [...select.options].map((o) => (o.value ? `${o.value} ${o.text}` : ''));
  if (want.join('\n') !== have.join('\n')) {
    const keep = select.value;
    select.replaceChildren(select.options[0],
      ...open.map((p) => el('option', { value: p.id }, label(p))));
    select.value = open.some((p) => p.id === keep) ? keep : '';
  }
}

// ---- Topics --------------------------------------------------------------------------------

function topicRow(topic) {
  return el('div', { class: 'topic', dataset: { topic } },
    el('div', { class: 'topic-head' },
      el('code', { class: 'topic-name' }, topic),
      el('span', { class: 'from' }),
      el('span', { class: 'meta' })),
    el('div', { class: 'value mono', dataset: { field: 'value' } }),
    el('canvas', { class: 'plot', dataset: { points: '0' } }));
}

/** @p name(id) names a peer; @p redraw: the canvases too (the time axis moved). */
export function renderTopics(box, topics, name, colors, redraw) {
  const list = topics.list();
  const rows = syncRows(box, list.map((t) => t.topic), topicRow);
  const now = Date.now();
  for (const t of list) {
    const row = rows.get(t.topic);
    const [head, value, canvas] = row.children;
    setText(head.children[1], t.from === null ? 'this dashboard' : `from ${name(t.from)}`);
    const rate = t.count > 1 ? ` · ${t.count} msgs` : '';
    setText(head.children[2], `${t.lastValue ? 'last value · ' : ''}${age(now - t.at)}${rate}`);
    setText(value, compact(t.payload, 200));
    setAttr(row, 'data-version', t.version);
    canvas.hidden = t.series.size === 0;
    if (!canvas.hidden && (redraw || canvas.dataset.drawn !== String(t.version))) {
      canvas.style.height = `${chartHeight(t.series.size)}px`;
      drawLanes(canvas, t.series, { now, windowMs: WINDOW_MS, colors });
      canvas.dataset.drawn = String(t.version);
    }
  }
  return list;
}

// ---- Jobs and dead letters -----------------------------------------------------------------

function jobRow() {
  return el('tr', {},
    el('td', {}, el('div', { class: 'mono' }), el('div', { class: 'sub mono' })),
    el('td', {}, badge('', 'state')),
    el('td', { class: 'num' }),
    el('td', { class: 'sub' }));
}

export function renderJobs(tbody, jobs, name) {
  const rows = syncRows(tbody, jobs.list.map((j) => j.id), jobRow);
  for (const j of jobs.list) {
    const row = rows.get(j.id);
    const [what, state, tries, by] = row.children;
    setAttr(row, 'data-state', j.state);
    setText(what.firstChild, `${j.queue} · ${j.id.slice(2, 10)}`);
    setText(what.lastChild, compact(j.payload, 48));
    setBadge(state.firstChild, j.state, j.state);
    setText(tries, String(j.attempts));
    setText(by, j.by ? name(j.by) : '–');
  }
}

export function renderDeadLetters(list, letters, name) {
  list.replaceChildren(...letters.map((d) => el('li', {},
    el('span', { class: 'mono' }, d.id.slice(2, 10)),
    el('span', { class: 'mono sub' }, compact(d.payload, 40)),
    el('span', { class: 'sub' }, `${d.retryCount} attempts · ` +
      `${d.producer ? `held by ${name(d.producer)}` : 'held here'}`))));
}

// ---- Events --------------------------------------------------------------------------------

function logRow() {
  return el('li', {}, el('time', { class: 'mono sub' }), badge('', ''), el('span', {}));
}

export function renderLog(ol, log, name) {
  const rows = syncRows(ol, log.items.map((e) => String(e.n)), logRow);
  for (const e of log.items) {
    const [at, kind, text] = rows.get(String(e.n)).children;
    setText(at, clock(e.at));
    setBadge(kind, e.kind, e.level);
    setText(text, textOf(e, name));
  }
}

// ---- Header --------------------------------------------------------------------------------

export function renderFacts(nodes, f) {
  setText(nodes.peers, String(f.peers));
  setText(nodes.topics, String(f.topics));
  setText(nodes.rate, num(f.rate));
  setText(nodes.jobs, `${f.jobs.done} / ${f.jobs.dead}`);
}
