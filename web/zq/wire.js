// The broker's frames (broker/PROTOCOL.md, broker/frame_*.c): ZeroQ's envelope and heartbeat,
// zq's hello, sub, ack, lost, ready, done, dlq, dlq_jobs and rep. Pure: no browser globals.
//
// Writers produce compact JSON in exactly the member order of the C writers (frame_*.c), so a
// frame written here is byte for byte the frame the C broker writes for the same values
// (tests/web/fixtures/ hold the bytes both sides are tested against). JSON.stringify escapes
// strings as the C writer does (core/json_write.c: the short forms \b \f \n \r \t, \u00xx
// lowercase for the other controls, nothing else).
//
// Readers take a parsed object and return a plain object, or null when the frame is refused
// (malformed): nothing half-filled. They follow the C readers rule for rule: ZeroQ's members
// are read as leniently as ZeroQ's receiver reads them, zq's must have their types and ranges.

import { ZQError } from './errors.js';

export const PROTOCOL_VERSION = 1;
/** Resume points a hello carries at most (PROTOCOL.md §2). */
export const HELLO_MAX_RESUME = 8;
/** Patterns and services one sub frame carries at most; more set tooMany. */
export const SUB_MAX_ITEMS = 32;
/** The smallest "max" a hello may announce. */
export const HELLO_MIN_MAX = 256;
/** Features, in the C writer's bit order (BRK_FEAT_*). */
export const FEATURES = ['sub', 'qos1', 'queue', 'rpc', 'chunk', 'replay'];

const UINT32_MAX = 4294967295;
/** Sequence numbers and counts: a browser counts exactly up to 2^53 (frame_internal.h). */
export const SEQ_MAX = 2 ** 53;
const INT64_LIMIT = 2 ** 63;

export const TYPES = {
  ping: '__ping__',
  pong: '__pong__',
  gossip: '__gossip__',
  hello: '__zq_hello__',
  sub: '__zq_sub__',
  ack: '__zq_ack__',
  ready: '__zq_ready__',
  done: '__zq_done__',
  dlq: '__zq_dlq__',
  dlqJobs: '__zq_dlq_jobs__',
  rep: '__zq_rep__',
  lost: '__zq_lost__',
};
const TYPE_BY_NAME = new Map(Object.entries(TYPES).map(([k, v]) => [v, k]));

// ---- Parsing --------------------------------------------------------------------------------

const LONG_DIGITS = /\d{16}/;
const TOKENS = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/**
 * Whether a number literal of @p text names an integer above 2^53 that JSON.parse rounded down
 * to 2^53 or below. Only such literals make a JavaScript reader see a value the C reader
 * refuses (9007199254740993 parses as 9007199254740992); frames flagged so refuse 2^53 in the
 * members capped at 2^53. Scanned only when the text has a run of 16 digits.
 */
function hasRoundedBigInteger(text) {
  if (!LONG_DIGITS.test(text)) return false;
  for (const m of text.matchAll(TOKENS)) {
    const t = m[0];
    if (t[0] === '"' || !/^-?\d{16,}$/.test(t)) continue;
    const exact = BigInt(t);
    if (exact > BigInt(SEQ_MAX) && Number(t) <= SEQ_MAX) return true;
  }
  return false;
}

/**
 * A received text as a frame: {obj, inexact}, or null if it is not a JSON object.
 * @param {string} text
 */
export function parseFrame(text) {
  let obj;
  try {
    obj = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isObject(obj)) return null;
  return { obj, inexact: hasRoundedBigInteger(text) };
}

function isObject(v) {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function has(obj, key) {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

/**
 * Which frame a parsed object is (brk_frame_type): an object with a "type" member, of any JSON
 * kind, is a control frame (known or 'unknown'); one without is an envelope candidate.
 * @returns {'envelope'|'ping'|'pong'|'gossip'|'hello'|'sub'|'ack'|'ready'|'done'|'dlq'|
 *           'dlqJobs'|'rep'|'lost'|'unknown'}
 */
export function frameType(obj) {
  if (!has(obj, 'type')) return 'envelope';
  return (typeof obj.type === 'string' && TYPE_BY_NAME.get(obj.type)) || 'unknown';
}

// ---- Member readers (frame_type.c): undefined = absent, null = malformed ----------------------

const ABSENT = undefined;
const BAD = null;

function getWhole(obj, key, min, max, inexact) {
  if (!has(obj, key)) return ABSENT;
  const v = obj[key];
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) return BAD;
  if (inexact && max === SEQ_MAX && v === SEQ_MAX) return BAD;
  return v;
}

function getString(obj, key, nonEmpty) {
  if (!has(obj, key)) return ABSENT;
  const v = obj[key];
  return typeof v === 'string' && !(nonEmpty && v.length === 0) ? v : BAD;
}

function getBool(obj, key) {
  if (!has(obj, key)) return ABSENT;
  return typeof obj[key] === 'boolean' ? obj[key] : BAD;
}

const HEX = /^[0-9a-fA-F]*$/;

function hexOf(v, digits) {
  return typeof v === 'string' && v.length === digits && HEX.test(v) ? v.toLowerCase() : BAD;
}

function getEpoch(obj, key) {
  return has(obj, key) ? hexOf(obj[key], 8) : ABSENT;
}

function required(v) {
  return v === ABSENT ? BAD : v;
}

function int64OrZero(v) {
  return typeof v === 'number' && Number.isInteger(v) && v >= -INT64_LIMIT && v < INT64_LIMIT
    ? v : 0;
}

// ---- Writing helpers --------------------------------------------------------------------------

const q = JSON.stringify;

/** An epoch or identity as lowercase hex of @p digits digits (numbers or strings). */
export function toHex(v, digits) {
  const s = typeof v === 'number' ? (v >>> 0).toString(16).padStart(digits, '0') : String(v);
  if (s.length !== digits || !HEX.test(s)) {
    throw new ZQError('INVALID_ARG', `not ${digits} hex digits: ${s}`);
  }
  return s.toLowerCase();
}

function need(cond, what) {
  if (!cond) throw new ZQError('INVALID_ARG', what);
}

function begin(type) {
  return `{"type":${q(TYPES[type])}`;
}

/** A JSON value's text; undefined, functions and symbols are refused (never sent as "null"). */
export function jsonText(value) {
  let text;
  try {
    text = JSON.stringify(value);
  } catch (e) {
    throw new ZQError('MALFORMED', `payload is not JSON: ${e.message}`);
  }
  if (text === undefined) throw new ZQError('MALFORMED', 'payload is not a JSON value');
  return text;
}

function wholeText(v, min, max, what) {
  need(Number.isInteger(v) && v >= min && v <= max, `${what} must be a whole number in ` +
    `[${min}, ${max}]`);
  return String(v);
}

// ---- The envelope (frame_envelope.c; PROTOCOL.md §1, §4, §6) ---------------------------------

/**
 * Reads an envelope as ZeroQ's receiver does for ZeroQ's members and strictly for zq's.
 * @returns {Envelope|null}
 *
 * Envelope: {id, topic, hasPayload, payload, timestamp, seq, retryCount, priority?,
 *            kind: 'message'|'job'|'req', ep?, q: 0|1, lvc, lease, corr?, timeout, replyTo?}
 */
export function readEnvelope(obj, inexact = false) {
  if (!isObject(obj)) return null;
  const id = getString(obj, 'id', true);
  const topic = getString(obj, 'topic', false);
  if (id == null || topic == null) return null;
  const e = {
    id, topic, hasPayload: has(obj, 'payload'), payload: undefined,
    timestamp: int64OrZero(obj.timestamp), seq: 0, retryCount: readRetryCount(obj),
    priority: undefined, kind: 'message', ep: undefined, q: 0, lvc: false, lease: 0,
    corr: undefined, timeout: 0, replyTo: undefined,
  };
  if (e.hasPayload) {
    e.payload = obj.payload;
    const r = isObject(e.payload) ? getString(e.payload, 'replyTo', true) : ABSENT;
    if (typeof r === 'string') e.replyTo = r;
  }
  if (has(obj, 'priority') && typeof obj.priority === 'number' &&
      int64OrZero(obj.priority) === obj.priority) {
    e.priority = obj.priority;
  }
  return readZqMembers(obj, e, inexact) ? e : null;
}

// ZeroQ resets a retryCount that is not a finite number > 0 to 0; a fraction is floored and a
// count beyond UINT32_MAX held there (frame_envelope.c read_retry_count).
function readRetryCount(obj) {
  const d = obj.retryCount;
  if (typeof d !== 'number' || !Number.isFinite(d) || !(d > 0)) return 0;
  return d >= UINT32_MAX ? UINT32_MAX : Math.floor(d);
}

function readZqMembers(obj, e, inexact) {
  const ep = getEpoch(obj, 'ep');
  const qos = getWhole(obj, 'q', 0, 1, false);
  if (ep === BAD || qos === BAD) return false;
  e.ep = ep;
  e.q = qos ?? 0;
  if (e.q === 1 && e.ep === undefined) return false; /* an ack names the epoch (§5) */
  const seq = getWhole(obj, 'seq', 0, SEQ_MAX, inexact);
  if (seq === BAD && e.ep !== undefined) return false; /* ordering and resume rely on it */
  e.seq = seq ?? 0;
  if (!readLvc(obj, e)) return false;
  return readKind(obj, e);
}

function readLvc(obj, e) {
  if (!has(obj, 'lvc')) return true;
  const v = obj.lvc;
  if (typeof v === 'boolean') {
    e.lvc = v;
    return true;
  }
  if (v === 0 || v === 1) {
    e.lvc = v === 1;
    return true;
  }
  return false;
}

function readKind(obj, e) {
  if (!has(obj, 'k')) return true;
  if (obj.k === 'job') {
    e.kind = 'job';
    const lease = getWhole(obj, 'lease', 1, UINT32_MAX, false);
    e.lease = lease ?? 0;
    return lease !== BAD;
  }
  if (obj.k === 'req') {
    e.kind = 'req';
    const corr = required(getString(obj, 'corr', true));
    const timeout = getWhole(obj, 'timeout', 0, UINT32_MAX, false);
    if (corr === BAD || timeout === BAD) return false;
    e.corr = corr;
    e.timeout = timeout ?? 0;
    return true;
  }
  return false; /* a kind zq does not know cannot be handled as any of them */
}

/**
 * Writes an envelope, members in frame_envelope.c's order: id, topic, payload (when there is
 * one), timestamp, seq, retryCount, priority (when set), ep (when set), q (when 1), k, lvc
 * (when set), lease (jobs, when not 0), corr (requests), timeout (requests, when not 0).
 * `payloadText` (JSON text, inserted verbatim) takes precedence over `payload`.
 */
export function writeEnvelope(e) {
  need(typeof e.id === 'string' && e.id.length > 0, 'envelope id must be a non-empty string');
  need(typeof e.topic === 'string', 'envelope topic must be a string');
  const kind = e.kind ?? 'message';
  let s = `{"id":${q(e.id)},"topic":${q(e.topic)}`;
  const payload = e.payloadText !== undefined ? e.payloadText
    : (e.hasPayload !== false && e.payload !== undefined ? jsonText(e.payload) : undefined);
  if (payload !== undefined) s += `,"payload":${payload}`;
  s += `,"timestamp":${wholeText(e.timestamp ?? 0, -INT64_LIMIT, INT64_LIMIT, 'timestamp')}`;
  s += `,"seq":${wholeText(e.seq ?? 0, 0, SEQ_MAX, 'seq')}`;
  s += `,"retryCount":${wholeText(e.retryCount ?? 0, 0, UINT32_MAX, 'retryCount')}`;
  if (e.priority !== undefined) {
    s += `,"priority":${wholeText(e.priority, -INT64_LIMIT, INT64_LIMIT, 'priority')}`;
  }
  if (e.ep !== undefined) s += `,"ep":${q(toHex(e.ep, 8))}`;
  if (e.q === 1) {
    need(e.ep !== undefined, 'q:1 needs an epoch');
    s += ',"q":1';
  }
  if (kind === 'job') s += ',"k":"job"';
  else if (kind === 'req') s += ',"k":"req"';
  else need(kind === 'message', `unknown kind ${kind}`);
  if (e.lvc) s += ',"lvc":1';
  if (kind === 'job' && e.lease) s += `,"lease":${wholeText(e.lease, 1, UINT32_MAX, 'lease')}`;
  if (kind === 'req') {
    need(typeof e.corr === 'string' && e.corr.length > 0, 'a request needs a corr');
    s += `,"corr":${q(e.corr)}`;
    if (e.timeout) s += `,"timeout":${wholeText(e.timeout, 0, UINT32_MAX, 'timeout')}`;
  }
  return `${s}}`;
}

/** A written envelope with ,"lvc":1 before its closing brace (publish.c lvc_frame): the last
 *  value as replayed to a late subscriber. */
export function markLastValue(text) {
  return `${text.slice(0, -1)},"lvc":1}`;
}

// ---- Heartbeat and gossip (frame_heartbeat.c) -------------------------------------------------

export function writePing() {
  return `${begin('ping')}}`;
}

export function writePong() {
  return `${begin('pong')}}`;
}

/** The string ids of a gossip frame; a non-array "peers" counts as empty, as in ZeroQ. */
export function gossipCount(obj) {
  if (!isObject(obj) || !Array.isArray(obj.peers)) return 0;
  return obj.peers.filter((p) => typeof p === 'string').length;
}

// ---- hello (frame_hello.c; PROTOCOL.md §2) ----------------------------------------------------

/** @returns {{v, epoch, max, feat: string[], resume: {fp, epoch, seq}[]}|null} */
export function readHello(obj, inexact = false) {
  if (!isObject(obj)) return null;
  const v = required(getWhole(obj, 'v', 1, UINT32_MAX, false));
  const epoch = required(getEpoch(obj, 'epoch'));
  const max = required(getWhole(obj, 'max', HELLO_MIN_MAX, UINT32_MAX, false));
  if (v === BAD || epoch === BAD || max === BAD) return null;
  if (!Array.isArray(obj.feat) || !obj.feat.every((f) => typeof f === 'string')) return null;
  const feat = FEATURES.filter((f) => obj.feat.includes(f));
  const resume = readResume(obj, inexact);
  return resume === null ? null : { v, epoch, max, feat, resume };
}

// Entries past HELLO_MAX_RESUME are still checked: a malformed one marks a broken sender.
function readResume(obj, inexact) {
  if (!has(obj, 'resume')) return [];
  if (!Array.isArray(obj.resume)) return null;
  const out = [];
  for (const item of obj.resume) {
    if (!isObject(item)) return null;
    const fp = has(item, 'fp') ? hexOf(item.fp, 16) : BAD;
    const epoch = required(getEpoch(item, 'epoch'));
    const seq = required(getWhole(item, 'seq', 0, SEQ_MAX, inexact));
    if (fp === BAD || epoch === BAD || seq === BAD) return null;
    if (out.length < HELLO_MAX_RESUME) out.push({ fp, epoch, seq });
  }
  return out;
}

/** Writes a hello: type, v, epoch, max, feat (in FEATURES order), resume (when not empty, at
 *  most HELLO_MAX_RESUME). */
export function writeHello(h) {
  const feat = FEATURES.filter((f) => h.feat.includes(f));
  let s = `${begin('hello')},"v":${wholeText(h.v, 1, UINT32_MAX, 'v')}` +
    `,"epoch":${q(toHex(h.epoch, 8))},"max":${wholeText(h.max, 0, UINT32_MAX, 'max')}` +
    `,"feat":${q(feat)}`;
  const resume = (h.resume ?? []).slice(0, HELLO_MAX_RESUME);
  if (resume.length > 0) {
    s += `,"resume":[${resume.map((r) => `{"fp":${q(toHex(r.fp, 16))},` +
      `"epoch":${q(toHex(r.epoch, 8))},"seq":${wholeText(r.seq, 0, SEQ_MAX, 'seq')}}`).join(',')}]`;
  }
  return `${s}}`;
}

// ---- sub (frame_sub.c; PROTOCOL.md §3) --------------------------------------------------------

/** @returns {{topics: string[], services: string[], tooMany: boolean}|null} */
export function readSub(obj) {
  if (!isObject(obj)) return null;
  const out = { topics: [], services: [], tooMany: false };
  for (const key of ['topics', 'services']) {
    if (!has(obj, key)) continue;
    const list = obj[key];
    if (!Array.isArray(list) || !list.every((n) => typeof n === 'string')) return null;
    if (list.length > SUB_MAX_ITEMS) out.tooMany = true;
    out[key] = list.slice(0, SUB_MAX_ITEMS);
  }
  return out;
}

/** Writes a sub: both arrays always (an empty set is a statement: "nothing now"). */
export function writeSub(topics, services) {
  return `${begin('sub')},"topics":${q([...topics])},"services":${q([...services])}}`;
}

// ---- ack, lost (frame_ack.c, frame_lost.c; PROTOCOL.md §5, §7) --------------------------------

export function readAck(obj, inexact = false) {
  if (!isObject(obj)) return null;
  const ep = required(getEpoch(obj, 'ep'));
  const upto = required(getWhole(obj, 'upto', 0, SEQ_MAX, inexact));
  return ep === BAD || upto === BAD ? null : { ep, upto };
}

export function writeAck(a) {
  return `${begin('ack')},"ep":${q(toHex(a.ep, 8))},"upto":${wholeText(a.upto, 0, SEQ_MAX, 'upto')}}`;
}

export function readLost(obj, inexact = false) {
  if (!isObject(obj)) return null;
  const ep = required(getEpoch(obj, 'ep'));
  const from = required(getWhole(obj, 'from', 0, SEQ_MAX, inexact));
  const to = required(getWhole(obj, 'to', 0, SEQ_MAX, inexact));
  return ep === BAD || from === BAD || to === BAD || from > to ? null : { ep, from, to };
}

export function writeLost(l) {
  need(l.from <= l.to, 'lost: from must not be above to');
  return `${begin('lost')},"ep":${q(toHex(l.ep, 8))},"from":${wholeText(l.from, 0, SEQ_MAX, 'from')}` +
    `,"to":${wholeText(l.to, 0, SEQ_MAX, 'to')}}`;
}

// ---- ready, done (frame_ready.c, frame_done.c; PROTOCOL.md §6) --------------------------------

export function readReady(obj) {
  if (!isObject(obj)) return null;
  const queue = required(getString(obj, 'queue', true));
  const credit = required(getWhole(obj, 'credit', 0, UINT32_MAX, false));
  return queue === BAD || credit === BAD ? null : { queue, credit };
}

export function writeReady(queue, credit) {
  need(typeof queue === 'string' && queue.length > 0, 'ready: the queue needs a name');
  return `${begin('ready')},"queue":${q(queue)},"credit":${wholeText(credit, 0, UINT32_MAX, 'credit')}}`;
}

/** {id, ok}, or {id, ok: false, busy: true} for a job refused for want of room (no attempt). */
export function readDone(obj) {
  if (!isObject(obj)) return null;
  const id = required(getString(obj, 'id', true));
  const ok = required(getBool(obj, 'ok'));
  const busy = getBool(obj, 'busy');
  if (id === BAD || ok === BAD || busy === BAD || (ok && busy === true)) return null;
  return busy === true ? { id, ok, busy } : { id, ok };
}

/** An ack (ok), a nack, or with @p busy a refusal for want of room. */
export function writeDone(id, ok, busy = false) {
  need(typeof id === 'string' && id.length > 0, 'done: the job needs an id');
  need(!(ok && busy), 'done: busy is only a nack\'s');
  return `${begin('done')},"id":${q(id)},"ok":${ok ? 'true' : 'false'}${busy ? ',"busy":true' : ''}}`;
}

// ---- dlq, dlq_jobs (frame_dlq.c; PROTOCOL.md §6) ----------------------------------------------

export const DLQ_OPS = ['list', 'requeue', 'purge'];

export function readDlq(obj) {
  if (!isObject(obj)) return null;
  const queue = required(getString(obj, 'queue', true));
  if (queue === BAD || !DLQ_OPS.includes(obj.op)) return null;
  return { queue, op: obj.op };
}

export function writeDlq(queue, op) {
  need(typeof queue === 'string' && queue.length > 0, 'dlq: the queue needs a name');
  need(DLQ_OPS.includes(op), `dlq: unknown op ${op}`);
  return `${begin('dlq')},"queue":${q(queue)},"op":${q(op)}}`;
}

/** @returns {{queue, jobs: array (items unread: readDlqJob each), more}|null} */
export function readDlqJobs(obj) {
  if (!isObject(obj)) return null;
  const queue = required(getString(obj, 'queue', true));
  const more = required(getBool(obj, 'more'));
  if (queue === BAD || more === BAD || !Array.isArray(obj.jobs)) return null;
  return { queue, jobs: obj.jobs, more };
}

export function readDlqJob(item) {
  if (!isObject(item)) return null;
  const id = required(getString(item, 'id', true));
  const retryCount = required(getWhole(item, 'retryCount', 0, UINT32_MAX, false));
  if (id === BAD || retryCount === BAD) return null;
  return { id, hasPayload: has(item, 'payload'), payload: item.payload, retryCount };
}

/** jobs: [{id, payload | payloadText (absent: no member), retryCount}] */
export function writeDlqJobs(queue, jobs, more) {
  need(typeof queue === 'string' && queue.length > 0, 'dlq_jobs: the queue needs a name');
  const items = jobs.map((j) => {
    need(typeof j.id === 'string' && j.id.length > 0, 'dlq_jobs: a job needs an id');
    const payload = j.payloadText !== undefined ? j.payloadText
      : (j.payload !== undefined ? jsonText(j.payload) : undefined);
    return `{"id":${q(j.id)}${payload !== undefined ? `,"payload":${payload}` : ''}` +
      `,"retryCount":${wholeText(j.retryCount, 0, UINT32_MAX, 'retryCount')}}`;
  });
  return `${begin('dlqJobs')},"queue":${q(queue)},"jobs":[${items.join(',')}],` +
    `"more":${more ? 'true' : 'false'}}`;
}

// ---- rep (frame_rep.c; PROTOCOL.md §6) --------------------------------------------------------

/** @returns {{corr, hasPayload, payload, ok, error?}|null} */
export function readRep(obj) {
  if (!isObject(obj)) return null;
  const corr = required(getString(obj, 'corr', true));
  const ok = getBool(obj, 'ok');
  const error = getString(obj, 'error', false);
  if (corr === BAD || ok === BAD || error === BAD) return null;
  return { corr, hasPayload: has(obj, 'payload'), payload: obj.payload, ok: ok ?? true, error };
}

/** Members in the order corr, payload (when defined), ok, error (when defined). */
export function writeRep(r) {
  need(typeof r.corr === 'string' && r.corr.length > 0, 'rep: needs a corr');
  need(r.error === undefined || typeof r.error === 'string', 'rep: error must be a string');
  let s = `${begin('rep')},"corr":${q(r.corr)}`;
  const payload = r.payloadText !== undefined ? r.payloadText
    : (r.payload !== undefined ? jsonText(r.payload) : undefined);
  if (payload !== undefined) s += `,"payload":${payload}`;
  s += `,"ok":${r.ok === false ? 'false' : 'true'}`;
  if (r.error !== undefined) s += `,"error":${q(r.error)}`;
  return `${s}}`;
}
