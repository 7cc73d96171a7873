// The event log: the last LIMIT things that happened to the mesh (peers coming and going,
// messages lost, QoS 1 messages undelivered, dead letters, the signalling socket), newest
// first. level: 'info', 'ok', 'warn' or 'bad' (the colour of its badge). A text may be a
// function of how peers are called: names are often learned after the event (a device is
// named by the first topic it publishes), and the log shows the name as soon as it is known.

const LIMIT = 50;

export class EventLog {
  constructor() {
    this.items = [];
    this.seq = 0;
  }

  /** @p text: a string, or (who) => string where who(id) names a peer. */
  add(kind, text, level = 'info') {
    this.items.unshift({ n: ++this.seq, at: Date.now(), kind, text, level });
    if (this.items.length > LIMIT) this.items.length = LIMIT;
  }
}

/** The text of @p item, with peers called by @p name(id): "sensor-1 (d9R6shsg)". */
export function textOf(item, name) {
  if (typeof item.text !== 'function') return item.text;
  return item.text((id) => {
    const n = name(id);
    const short = String(id).slice(0, 8);
    return n === short ? short : `${n} (${short})`;
  });
}

/** Wires zq.js's events to @p log. */
export function logEvents(zq, log) {
  const on = (event, kind, level, text) => zq.on(event, (d) => log.add(kind, text(d), level));
  on('connected', 'joined', 'ok', (d) => `in the room as ${d.id}`);
  on('disconnected', 'signal', 'warn', (d) => `signalling socket closed (${d.code}); ` +
    'reconnecting, data channels stay up');
  on('connection_failed', 'signal', 'bad', (d) => `cannot reach ${d.url}`);
  on('peer', 'peer', 'ok', (d) => (who) => `${who(d.id)} open, speaks ${d.zq ? 'zq' : 'ZeroQ'}`);
  on('peer_left', 'peer', 'info', (d) => (who) => `${who(d.id)} left the room`);
  on('peer_down', 'peer', 'warn', (d) => (who) => `${who(d.id)}: channel closed`);
  on('peer_failed', 'peer', 'warn', (d) => (who) => `${who(d.id)}: connection failed ` +
    `(${d.reason})`);
  on('peer_unreachable', 'peer', 'bad', (d) => (who) => `${who(d.id)} unreachable: gave up`);
  on('waiting', 'peer', 'warn', (d) => (who) => `${who(d.id)} has no peer slot for us yet ` +
    `(${d.reason}); it dials us when one frees`);
  on('lost', 'lost', 'warn', (l) => (who) => `${l.last - l.first + 1} message(s) of ` +
    `${who(l.from)} gone (seq ${l.first}..${l.last})`);
  on('undelivered', 'undelivered', 'bad', (u) => `${u.count} QoS 1 message(s) never reached ` +
    `${u.fp}`);
  on('dead_letter', 'dead letter', 'bad', (d) => `job ${d.id.slice(2, 10)} on ${d.queue} after ` +
    `${d.attempts} attempts (last: ${d.reason})`);
  on('dlq', 'dead letter', 'warn', (d) => (who) => `${who(d.from)} holds ${d.jobs.length} dead ` +
    `letter(s) of ${d.queue}`);
  on('error', 'error', 'bad', (e) => (e && e.message ? e.message : String(e)));
}
