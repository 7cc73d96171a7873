// web/zq/broker.js over in-memory channels with a manual clock (support/fake.mjs): one test per
// rule of broker/PROTOCOL.md that the broker (not the codecs) carries out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Clock, makeNode, connect, rawEnd, sentFrames, flush } from './support/fake.mjs';

function collect(node, pattern) {
  const got = [];
  node.broker.subs.subscribe(pattern, (m) => got.push(m));
  return got;
}

async function pair(opts = {}) {
  const clock = new Clock();
  const a = makeNode('alice', clock, opts);
  const b = makeNode('bob', clock, opts);
  const link = connect(a, b, opts);
  await flush();
  return { clock, a, b, link };
}

// ---- hello, sub, heartbeat -----------------------------------------------------------------------

test('hello goes first both ways; each side then knows the other as zq with its features', async () => {
  const { a, b, link } = await pair();
  assert.equal(link.ab.sent[0].startsWith('{"type":"__zq_hello__","v":1,'), true);
  assert.match(link.ab.sent[0], /"feat":\["sub","qos1","queue","rpc","chunk","replay"\]/);
  for (const n of [a, b]) {
    const [p] = n.broker.peers;
    assert.ok(p.zq);
    assert.deepEqual([...p.features], ['sub', 'qos1', 'queue', 'rpc', 'chunk', 'replay']);
    assert.deepEqual(n.events.filter((e) => e.event === 'peer').map((e) => e.zq), [true]);
  }
});

test('a hello lost on the way is sent again until the sub comes; then never again', async () => {
  const clock = new Clock();
  const a = makeNode('alice', clock);
  const b = makeNode('bob', clock);
  const link = connect(a, b);
  const lost = link.ba.queue.shift(); /* as Chromium 156 dropped a first message once */
  link.ba.buffered -= Buffer.byteLength(lost);
  assert.match(lost, /__zq_hello__/);
  await flush();
  const [pa] = a.broker.peers;
  const [pb] = b.broker.peers;
  assert.ok(!pa.zq && !pa.classified, 'alice waits for bob\'s hello: his sub, a zq frame, came first');
  assert.ok(pb.zq && !pb.subReceived, 'bob has alice\'s hello, not her sub');
  await clock.advance(5000);
  for (const [n, p] of [[a, pa], [b, pb]]) {
    assert.ok(p.zq && p.subReceived, `${n.name} knows the other as zq, with its sub`);
  }
  assert.equal(b.broker.stats.helloResent, 1);
  const hellos = sentFrames(link.ba, '__zq_hello__').length;
  await clock.advance(10000);
  assert.equal(sentFrames(link.ba, '__zq_hello__').length, hellos, 'not once the sub came');
});

test('a sub before the hello (lost on the way): nothing goes in ZeroQ form, nothing twice', async () => {
  const clock = new Clock();
  const a = makeNode('alice', clock);
  const b = makeNode('bob', clock);
  const got = collect(b, 'news.#');
  const link = connect(a, b);
  const lost = link.ba.queue.shift();
  link.ba.buffered -= Buffer.byteLength(lost);
  assert.match(lost, /__zq_hello__/);
  await flush();
  a.broker.pub.publish('news.x', 1, { qos: 1 }).catch(() => {});
  await clock.advance(300);
  const [pa] = a.broker.peers;
  assert.ok(!pa.classified && pa.subReceived, 'bob\'s sub is kept while alice waits for his hello');
  assert.equal(sentFrames(link.ab, 'envelope').length, 0, 'nothing to bob before his hello');
  await clock.advance(5000); /* bob's hello again, 0.5 s after alice's */
  assert.ok(pa.zq && pa.subReceived);
  assert.deepEqual(got.map((m) => m.payload), [1]);
  const second = a.broker.pub.publish('news.x', 2, { qos: 1 });
  await clock.advance(100);
  await second; /* acked */
  assert.deepEqual(got.map((m) => m.payload), [1, 2]);
  assert.equal(sentFrames(link.ab, 'envelope').length, 2, 'each once');
});

test('a hello again is answered with the sub again, and replays nothing', async () => {
  const { a, b, link } = await pair();
  const got = collect(b, 'news.#');
  await flush();
  await a.broker.pub.publish('news.x', 1);
  await flush();
  link.ab.hold(); /* 3 more on their way when bob's hello comes again, resuming from 1 */
  for (const n of [2, 3, 4]) await a.broker.pub.publish('news.x', n);
  const subs = sentFrames(link.ab, '__zq_sub__').length;
  const [atB] = b.broker.peers;
  b.broker.sendHello(atB);
  await flush();
  link.ab.release();
  await flush();
  assert.equal(sentFrames(link.ab, '__zq_sub__').length, subs + 1);
  assert.equal(sentFrames(link.ab, 'envelope').length, 4, 'nothing sent twice');
  assert.deepEqual(got.map((m) => m.payload), [1, 2, 3, 4]);
});

test('a peer whose sub comes in time is sent one hello only', async () => {
  const { clock, a, b, link } = await pair();
  await clock.advance(5000);
  assert.equal(sentFrames(link.ab, '__zq_hello__').length, 1);
  assert.equal(sentFrames(link.ba, '__zq_hello__').length, 1);
  assert.equal(a.broker.stats.helloResent + b.broker.stats.helloResent, 0);
});

test('a peer that never sends its sub is sent our hello 3 more times, then left be', async () => {
  const clock = new Clock();
  const a = makeNode('alice', clock);
  const z = rawEnd('device');
  const link = connect(a, z);
  z.raw.send({ type: '__zq_hello__', v: 1, epoch: '5f0c9a2e', max: 65536, feat: ['sub'] });
  await clock.advance(10000);
  assert.equal(sentFrames(link.ab, '__zq_hello__').length, 4);
  assert.equal(a.broker.stats.helloResent, 3);
});

test('sub carries the whole set of patterns and services, again on every change', async () => {
  const { a, b, link } = await pair();
  collect(b, 'news.#');
  b.broker.rpc.reply('rpc.x', () => 1);
  await flush();
  const subs = sentFrames(link.ba, '__zq_sub__');
  assert.deepEqual(subs.at(-1), { type: '__zq_sub__', topics: ['news.#'], services: ['rpc.x'] });
  const [p] = a.broker.peers;
  assert.deepEqual(p.topics, ['news.#']);
  assert.deepEqual(p.services, ['rpc.x']);
});

test('a ping is answered at once with a pong; a peer silent 30 s is closed', async () => {
  const clock = new Clock();
  const a = makeNode('alice', clock);
  const z = rawEnd('zeroq');
  connect(a, z);
  await flush();
  z.raw.send({ type: '__ping__' });
  await flush();
  assert.deepEqual(z.raw.frames().at(-1), { type: '__pong__' });
  let closed = false;
  z.raw.onClose = () => { closed = true; };
  await clock.advance(10000);
  assert.deepEqual(z.raw.frames().at(-1), { type: '__ping__' }, 'ZeroQ heartbeat every 10 s');
  await clock.advance(19000);
  assert.ok(!closed, 'not before 30 s of silence');
  await clock.advance(11000);
  assert.ok(closed, 'closed after 30-40 s of silence');
  assert.equal(a.broker.stats.peersTimedOut, 1);
});

test('gossip is read and never acted on', async () => {
  const clock = new Clock();
  const a = makeNode('alice', clock);
  const z = rawEnd('zeroq');
  connect(a, z);
  z.raw.send({ type: '__gossip__', peers: ['x', 'y'] });
  await flush();
  assert.equal(a.broker.stats.rxGossip, 1);
  assert.deepEqual(a.events.filter((e) => e.event === 'peer').map((e) => e.zq), [false]);
});

test('zq frames go only to peers whose hello listed their feature', async () => {
  const clock = new Clock();
  const a = makeNode('alice', clock);
  a.broker.subs.subscribe('x', () => {});
  const c = rawEnd('device');
  connect(a, c);
  c.raw.send({ type: '__zq_hello__', v: 1, epoch: '00000001', max: 65536, feat: ['chunk'] });
  await flush();
  await a.broker.pub.publish('any.topic', 1);
  const frames = c.raw.frames();
  assert.equal(frames.filter((f) => f.type === '__zq_sub__').length, 0, 'no sub without "sub"');
  assert.equal(frames.filter((f) => f.topic === 'any.topic').length, 1,
    'a peer that never subscribes gets everything');
});

// ---- Publishing: interest, ZeroQ peers, order --------------------------------------------------

test('a publisher sends a message only to zq peers whose patterns match it', async () => {
  const { a, b, link } = await pair();
  const got = collect(b, 'news.+');
  await flush();
  await a.broker.pub.publish('news.eu', { h: 1 });
  await a.broker.pub.publish('sports', { h: 2 });
  await a.broker.pub.publish('news.us', { h: 3 });
  await flush();
  assert.deepEqual(got.map((m) => m.payload.h), [1, 3]);
  const sent = sentFrames(link.ab, 'envelope');
  assert.deepEqual(sent.map((e) => e.topic), ['news.eu', 'news.us'], 'sports never went out');
  assert.deepEqual(sent.map((e) => e.seq), [1, 3], 'seq counts every message of ours');
  assert.ok(sent.every((e) => e.ep === a.broker.pub.epoch));
});

test('slashed and dotted patterns each get the topics of their reading (§3)', async () => {
  const { a, b, link } = await pair();
  const slashed = collect(b, 'sensors/#');
  const dotted = collect(b, 'sensors.#');
  await flush();
  for (const t of ['sensors/kitchen', 'sensors/kitchen/temp', 'sensors', 'sensors.kitchen']) {
    await a.broker.pub.publish(t, 21.5);
  }
  await a.broker.pub.publish('v1.2/status', 'up');
  await flush();
  assert.deepEqual(slashed.map((m) => m.topic),
    ['sensors/kitchen', 'sensors/kitchen/temp', 'sensors']);
  assert.deepEqual(dotted.map((m) => m.topic), ['sensors', 'sensors.kitchen']);
  assert.deepEqual(sentFrames(link.ab, 'envelope').map((e) => e.topic),
    ['sensors/kitchen', 'sensors/kitchen/temp', 'sensors', 'sensors.kitchen'],
    'v1.2/status never went out');
});

test('a misplaced wildcard is refused with its reason, in a pattern or a topic', async () => {
  const { a } = await pair();
  assert.throws(() => a.broker.subs.subscribe('sensors#', () => {}), {
    name: 'ZQError', code: 'MALFORMED',
    message: "'sensors#' is not a topic pattern: '#' must be a whole level, and the last one: " +
      "write 'sensors/#' (or 'sensors.#')",
  });
  assert.throws(() => a.broker.subs.subscribe('a/#/b', () => {}), /'#' only as the last level/);
  await assert.rejects(a.broker.pub.publish('sensors/#', 1), {
    name: 'ZQError', code: 'MALFORMED',
    message: "cannot publish on 'sensors/#': '+' and '#' are wildcards, for patterns only: " +
      "name one topic, such as 'sensors/kitchen'",
  });
  await assert.rejects(a.broker.pub.publish('c++', 1), { code: 'MALFORMED' });
  assert.equal(a.broker.pub.nextSeq, 1, 'nothing was published');
});

test('an unusable pattern in a peer\'s sub is counted, and the peer gets everything', async () => {
  const clock = new Clock();
  const a = makeNode('alice', clock);
  const c = rawEnd('device');
  connect(a, c);
  c.raw.send({ type: '__zq_hello__', v: 1, epoch: '00000001', max: 65536, feat: ['sub'] });
  c.raw.send({ type: '__zq_sub__', topics: ['news', 'sensors#', 'a/#/b'], services: [] });
  await flush();
  assert.equal(a.broker.stats.rxBadPatterns, 2);
  await a.broker.pub.publish('weather', 1);
  assert.equal(c.raw.frames().filter((f) => f.topic === 'weather').length, 1);
});

test('a ZeroQ peer gets every message as a plain envelope', async () => {
  const clock = new Clock();
  const a = makeNode('alice', clock);
  const z = rawEnd('zeroq');
  connect(a, z);
  z.raw.send({ type: '__gossip__', peers: [] }); /* ZeroQ's first frame */
  await flush();
  await a.broker.pub.publish('anything', 'x', { qos: 1 });
  const [e] = z.raw.frames().filter((f) => !('type' in f));
  assert.deepEqual(Object.keys(e), ['id', 'topic', 'payload', 'timestamp', 'seq', 'retryCount']);
  assert.equal(e.seq, 0);
  assert.equal(e.payload, 'x');
});

test('a silent new peer is taken for a ZeroQ peer after 1 s; publishing to it waits till then', async () => {
  const clock = new Clock();
  const a = makeNode('alice', clock);
  const z = rawEnd('zeroq');
  connect(a, z);
  await flush();
  let done = false;
  const p = a.broker.pub.publish('t', 1).then(() => { done = true; });
  await flush();
  assert.ok(!done);
  assert.equal(z.raw.frames().filter((f) => !('type' in f)).length, 0);
  await clock.advance(1000);
  await p;
  assert.equal(z.raw.frames().filter((f) => !('type' in f)).length, 1);
});

test('messages from a ZeroQ peer are delivered once per (identity, id, retryCount)', async () => {
  const clock = new Clock();
  const a = makeNode('alice', clock);
  const got = collect(a, '#');
  const z1 = rawEnd('zeroq1');
  const z2 = rawEnd('zeroq2');
  connect(a, z1);
  connect(a, z2);
  const env = { id: 'm1', topic: 't', payload: 1, timestamp: 0, seq: 0, retryCount: 0 };
  z1.raw.send(env);
  z1.raw.send(env);
  z2.raw.send(env); /* another sender claiming the same id is not a duplicate */
  z1.raw.send({ ...env, retryCount: 1 });
  await flush();
  assert.deepEqual(got.map((m) => `${m.from}:${m.retryCount}`).sort(),
    ['zeroq1:0', 'zeroq1:1', 'zeroq2:0']);
  assert.equal(a.broker.stats.rxDuplicates, 1);
});

test('a zq subscriber delivers each publisher seq once and drops what is not above it', async () => {
  const clock = new Clock();
  const b = makeNode('bob', clock);
  const got = collect(b, '#');
  const z = rawEnd('pub');
  connect(b, z);
  z.raw.send({ type: '__zq_hello__', v: 1, epoch: '00000001', max: 65536, feat: ['sub'] });
  const env = (seq) => ({ id: `m${seq}`, topic: 't', payload: seq, timestamp: 0, seq,
    retryCount: 0, ep: '00000001' });
  for (const s of [1, 2, 2, 1, 3]) z.raw.send(env(s));
  z.raw.send({ ...env(1), ep: '00000002' }); /* a new epoch: the publisher started over */
  await flush();
  assert.deepEqual(got.map((m) => m.seq), [1, 2, 3, 1]);
});

// ---- QoS 1, resume, linger, high-water mark -----------------------------------------------------

test('QoS 1: publish resolves once the receiver acked, in a batch', async () => {
  const { a, b, link } = await pair();
  collect(b, 'q.#');
  await flush();
  let resolved = 0;
  const all = [];
  for (let i = 0; i < 5; i++) all.push(a.broker.pub.publish('q.x', i, { qos: 1 }).then(() => resolved++));
  await flush();
  assert.equal(resolved, 0, 'not before the ack');
  assert.equal(a.broker.pub.ring.entries.filter((e) => e.pending.size > 0).length, 5);
  await b.clock.advance(20);
  await Promise.all(all);
  const acks = sentFrames(link.ba, '__zq_ack__');
  assert.equal(acks.length, 1, 'one batched ack');
  assert.deepEqual(acks[0], { type: '__zq_ack__', ep: a.broker.pub.epoch, upto: 5 });
  assert.equal(a.broker.pub.ring.entries.filter((e) => e.pending.size > 0).length, 0);
});

test('QoS 1 acks go at once after 32 messages', async () => {
  const { a, b, link } = await pair();
  collect(b, '#');
  await flush();
  for (let i = 0; i < 32; i++) a.broker.pub.publish('t', i, { qos: 1 });
  await flush();
  assert.equal(sentFrames(link.ba, '__zq_ack__').length, 1);
});

test('QoS 1 across a reconnect: the receiver resumes, nothing is lost and nothing comes twice', async () => {
  const clock = new Clock();
  const a = makeNode('alice', clock);
  const store = new Map();
  let b = makeNode('bob', clock, { storage: store });
  let got = [];
  const sub = (n) => n.broker.subs.subscribe('s.#', (m) => got.push(m.payload));
  sub(b);
  let link = connect(a, b);
  await flush();
  const promises = [];
  for (let i = 1; i <= 10; i++) promises.push(a.broker.pub.publish('s.x', i, { qos: 1 }));
  await flush(); /* delivered, ack not sent yet (batched 20 ms) */
  assert.deepEqual(got, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  link.down(); /* before the ack: a still owes the receiver 1..10 */
  for (let i = 11; i <= 15; i++) promises.push(a.broker.pub.publish('s.x', i, { qos: 1 }));
  await clock.advance(5000);
  assert.equal(a.broker.pub.ring.entries.filter((e) => e.pending.size > 0).length, 15,
    'kept for the lingering receiver');
  /* bob comes back: same identity, its resume point from storage, a fresh broker */
  b.broker.close();
  b = makeNode('bob', clock, { storage: store });
  const before = got.length;
  sub(b);
  link = connect(a, b);
  await clock.advance(100);
  const hello = JSON.parse(link.ba.sent[0]);
  assert.deepEqual(hello.resume, [{ fp: a.fp, epoch: a.broker.pub.epoch, seq: 10 }]);
  assert.deepEqual(got.slice(before), [11, 12, 13, 14, 15]);
  assert.deepEqual(got, Array.from({ length: 15 }, (_, i) => i + 1));
  await Promise.all(promises);
  assert.equal(a.broker.pub.ring.entries.filter((e) => e.pending.size > 0).length, 0);
});

test('a late hello\'s resume replays around what went in ZeroQ\'s form, and acks it', async () => {
  const clock = new Clock();
  const a = makeNode('alice', clock);
  const store = new Map();
  let b = makeNode('bob', clock, { storage: store });
  const got = [];
  const sub = (n) => n.broker.subs.subscribe('s.#', (m) => got.push(m.payload));
  sub(b);
  let link = connect(a, b);
  await flush();
  const first = a.broker.pub.publish('s.x', 1, { qos: 1 });
  await clock.advance(100);
  await first; /* acked */
  link.down();
  a.broker.pub.publish('s.x', 2, { qos: 1 }).catch(() => {}); /* missed while bob is away */
  b.broker.close();
  b = makeNode('bob', clock, { storage: store });
  sub(b);
  link = connect(a, b);
  link.ba.hold(); /* every frame of bob's first 1.5 s lost on the way (held here) */
  await clock.advance(1500);
  const [pa] = [...a.broker.peers].filter((p) => p.open);
  assert.ok(pa.classified && !pa.zq, 'taken for ZeroQ');
  a.broker.pub.publish('s.x', 3, { qos: 1 }).catch(() => {});
  await clock.advance(100);
  assert.deepEqual(got, [1, 2, 3], '2 and 3 in ZeroQ\'s form');
  link.ba.release(); /* then bob's hello, resuming from 1 */
  await clock.advance(100);
  assert.ok(pa.zq);
  assert.equal(a.broker.pub.ring.entries.filter((e) => e.pending.size > 0).length, 0,
    'a resume point just below what went in ZeroQ\'s form covers it');
  a.broker.pub.publish('s.x', 4, { qos: 1 }).catch(() => {});
  await clock.advance(100);
  assert.deepEqual(got, [1, 2, 3, 4], 'each once');
});

test('QoS 1: a receiver away longer than the linger time is given up, and the publisher is told', async () => {
  const { clock, a, b, link } = await pair();
  collect(b, '#');
  await flush();
  link.ab.hold(); /* never delivered, never acked */
  const p = a.broker.pub.publish('t', 1, { qos: 1 });
  const settled = p.then(() => 'resolved', (e) => e);
  link.down();
  await clock.advance(59000);
  assert.equal(a.events.filter((e) => e.event === 'undelivered').length, 0);
  await clock.advance(2000);
  const err = await settled;
  assert.equal(err.code, 'UNDELIVERED');
  assert.deepEqual(a.events.filter((e) => e.event === 'undelivered').map((e) => e.count), [1]);
});

test('high-water mark: a full ring makes publish wait (or refuse with wait:false) until an ack', async () => {
  const { clock, a, b } = await pair({ config: { ringEntries: 4, ackDelayMs: 1000 } });
  collect(b, '#');
  await flush();
  const first = [1, 2, 3, 4].map((i) => a.broker.pub.publish('t', i, { qos: 1 }));
  let fifth = false;
  const waiting = a.broker.pub.publish('t', 5, { qos: 1 }).then(() => { fifth = true; });
  await assert.rejects(a.broker.pub.publish('t', 6, { qos: 1, wait: false }), { code: 'WOULD_BLOCK' });
  await flush();
  assert.ok(!fifth);
  assert.equal(a.broker.pub.nextSeq, 5, 'the waiting message has no seq yet');
  await clock.advance(1000); /* the ack */
  await Promise.all(first);
  await clock.advance(1000);
  await waiting;
  assert.ok(fifth);
});

test('lost: what the ring no longer holds for a returning subscriber is announced', async () => {
  const clock = new Clock();
  const a = makeNode('alice', clock, { config: { ringEntries: 3 } });
  const store = new Map();
  let b = makeNode('bob', clock, { storage: store });
  let got = [];
  b.broker.subs.subscribe('#', (m) => got.push(m.payload));
  let link = connect(a, b);
  await flush();
  await a.broker.pub.publish('t', 1);
  await flush();
  link.down();
  for (let i = 2; i <= 7; i++) a.broker.pub.publish('t', i); /* QoS 0: the ring keeps 5..7 */
  await flush();
  b.broker.close();
  b = makeNode('bob', clock, { storage: store });
  b.broker.subs.subscribe('#', (m) => got.push(m.payload));
  link = connect(a, b);
  await clock.advance(10);
  assert.deepEqual(got, [1, 5, 6, 7]);
  const lost = b.events.filter((e) => e.event === 'lost');
  assert.deepEqual(lost.map((e) => [e.first, e.last]), [[2, 4]]);
  assert.deepEqual(sentFrames(link.ab, '__zq_lost__'),
    [{ type: '__zq_lost__', ep: a.broker.pub.epoch, from: 2, to: 4 }]);
});

test('a slow channel makes the publisher wait; it never drops a connected peer\'s messages', async () => {
  const { clock, a, b, link } = await pair({ config: { ringEntries: 4 } });
  const got = collect(b, '#');
  await flush();
  link.ab.hold();
  const payload = 'x'.repeat(600 * 1024); /* two of these fill the 1 MiB high-water mark */
  const ps = [1, 2, 3, 4, 5, 6].map((i) => a.broker.pub.publish('t', { i, payload }));
  await flush();
  assert.ok(link.ab.bufferedAmount < 2 * 1024 * 1024, 'frames wait above the high-water mark');
  link.ab.release();
  await Promise.all(ps);
  await clock.advance(10);
  assert.deepEqual(got.map((m) => m.payload.i), [1, 2, 3, 4, 5, 6]);
});

// ---- Last values -------------------------------------------------------------------------------

test('a new subscriber gets the last value of each matching topic, marked lvc', async () => {
  const clock = new Clock();
  const a = makeNode('alice', clock);
  a.broker.pub.publish('temp.kitchen', 20);
  a.broker.pub.publish('temp.kitchen', 21);
  a.broker.pub.publish('temp.hall', 18);
  a.broker.pub.publish('other', 0);
  const b = makeNode('bob', clock);
  const got = collect(b, 'temp.#');
  connect(a, b);
  await clock.advance(10);
  assert.deepEqual(got.map((m) => [m.topic, m.payload, m.lastValue]),
    [['temp.kitchen', 21, true], ['temp.hall', 18, true]]);
  /* gaining a pattern later brings the values it has not seen */
  const more = collect(b, 'other');
  await clock.advance(10);
  assert.deepEqual(more.map((m) => [m.topic, m.payload, m.lastValue]), [['other', 0, true]]);
  assert.equal(got.length, 2, 'temp.* not again');
});

// ---- Chunks and sizes ---------------------------------------------------------------------------

test('a frame over the channel\'s max-message-size goes as chunks to a zq peer', async () => {
  const { clock, a, b, link } = await pair({ mms: 1000 });
  const got = collect(b, '#');
  await flush();
  const big = 'ü'.repeat(3000);
  await a.broker.pub.publish('big', big);
  await clock.advance(10);
  assert.equal(got[0].payload, big);
  const binary = link.ab.sent.filter((m) => typeof m !== 'string');
  assert.ok(binary.length >= 7, `${binary.length} chunks`);
  assert.ok(binary.every((m) => m.length <= 1000));
});

test('a frame too long for a ZeroQ peer (no chunks) is refused, truthfully', async () => {
  const clock = new Clock();
  const a = makeNode('alice', clock);
  const z = rawEnd('zeroq');
  connect(a, z, { mms: 1000 });
  z.raw.send({ type: '__gossip__', peers: [] });
  await flush();
  await assert.rejects(a.broker.pub.publish('big', 'x'.repeat(2000)), (e) => {
    assert.equal(e.code, 'TOO_LONG');
    assert.equal(e.failures[0].peer, 'zeroq');
    return true;
  });
});

test('a frame over the peer\'s hello max is refused', async () => {
  const clock = new Clock();
  const a = makeNode('alice', clock);
  const c = rawEnd('device');
  connect(a, c);
  c.raw.send({ type: '__zq_hello__', v: 1, epoch: '00000001', max: 8192, feat: ['sub', 'chunk'] });
  c.raw.send({ type: '__zq_sub__', topics: ['#'], services: [] });
  await flush();
  await assert.rejects(a.broker.pub.publish('t', 'x'.repeat(9000)), { code: 'TOO_LONG' });
  await a.broker.pub.publish('t', 'x'.repeat(8000));
});

// ---- Work queues -------------------------------------------------------------------------------

async function mesh3() {
  const clock = new Clock();
  const a = makeNode('alice', clock);
  const b = makeNode('bob', clock);
  const c = makeNode('carol', clock);
  const ab = connect(a, b);
  const ac = connect(a, c);
  await flush();
  return { clock, a, b, c, ab, ac };
}

test('a queue hands each job to exactly one consumer with credit', async () => {
  const { clock, a, b, c } = await mesh3();
  const seen = [];
  for (const n of [b, c]) {
    n.broker.consumer.consume('jobs', (job, ack) => {
      seen.push([n.name, job.payload]);
      ack();
    }, { credit: 1 });
  }
  await flush();
  const done = [];
  for (let i = 0; i < 10; i++) done.push(a.broker.producer.enqueue('jobs', i, { until: 'done' }));
  await Promise.all(done);
  await clock.advance(10);
  assert.deepEqual(seen.map((s) => s[1]).sort((x, y) => x - y), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.ok(seen.some((s) => s[0] === 'bob') && seen.some((s) => s[0] === 'carol'));
});

test('jobs wait for credit: nothing goes to a consumer that gave none, nor to ZeroQ peers', async () => {
  const { clock, a, b, ab } = await mesh3();
  const z = rawEnd('zeroq');
  connect(a, z);
  z.raw.send({ type: '__gossip__', peers: [] });
  const id = (await a.broker.producer.enqueue('jobs', 'j')).id;
  await clock.advance(10);
  assert.equal(sentFrames(ab.ab, 'envelope').length, 0);
  assert.equal(z.raw.frames().filter((f) => !('type' in f)).length, 0);
  const got = [];
  b.broker.consumer.consume('jobs', (job, ack) => { got.push(job.id); ack(); });
  await clock.advance(10);
  assert.deepEqual(got, [id]);
});

test('a nack makes an attempt: the job goes to another consumer', async () => {
  const { clock, a, b, c } = await mesh3();
  const seen = [];
  b.broker.consumer.consume('jobs', (job, ack, nack) => { seen.push(['bob', job.retryCount]); nack(); });
  c.broker.consumer.consume('jobs', (job, ack) => { seen.push(['carol', job.retryCount]); ack(); });
  await flush();
  a.broker.producer.nextPeer = 0; /* bob first */
  await a.broker.producer.enqueue('jobs', 1, { until: 'done' });
  await clock.advance(10);
  assert.deepEqual(seen[seen.length - 1], ['carol', seen.length - 1]);
  assert.ok(seen.length <= 2);
});

test('after 3 attempts a job is a dead letter: listed, requeued, purged', async () => {
  const { clock, a, b } = await mesh3();
  let fail = true;
  b.broker.consumer.consume('jobs', (job, ack, nack) => (fail ? nack() : ack()));
  await flush();
  await assert.rejects(a.broker.producer.enqueue('jobs', { url: 'x' }, { until: 'done' }),
    { code: 'DEAD_LETTER' });
  assert.equal(a.events.filter((e) => e.event === 'dead_letter').length, 1);
  const dead = a.broker.producer.listLocal('jobs');
  assert.deepEqual(dead.map((d) => [d.payload, d.retryCount]), [[{ url: 'x' }, 3]]);
  /* a peer asks for them */
  const remote = await b.broker.producer.remote('jobs', 'list', 1000);
  assert.deepEqual(remote.map((d) => [d.payload, d.retryCount, d.producer]), [[{ url: 'x' }, 3, 'alice']]);
  fail = false;
  assert.equal(a.broker.producer.requeue('jobs'), 1);
  await clock.advance(10);
  assert.equal(a.broker.producer.listLocal('jobs').length, 0);
  assert.equal(a.broker.producer.jobs.size, 0, 'done after requeue');
  fail = true;
  await assert.rejects(a.broker.producer.enqueue('jobs', 2, { until: 'done' }), { code: 'DEAD_LETTER' });
  await b.broker.producer.remote('jobs', 'purge', 1000);
  await clock.advance(10);
  assert.equal(a.broker.producer.listLocal('jobs').length, 0);
});

test('a lease running out, or the consumer going away, hands the job to another', async () => {
  const { clock, a, b, c, ab } = await mesh3();
  const seen = [];
  b.broker.consumer.consume('jobs', (job) => seen.push(['bob', job.retryCount])); /* never done */
  await flush();
  const done = a.broker.producer.enqueue('jobs', 1, { until: 'done' });
  await clock.advance(10);
  assert.deepEqual(seen, [['bob', 0]]);
  c.broker.consumer.consume('jobs', (job, ack) => { seen.push(['carol', job.retryCount]); ack(); });
  await clock.advance(30000); /* the lease */
  await done;
  assert.deepEqual(seen, [['bob', 0], ['carol', 1]]);
  const again = a.broker.producer.enqueue('jobs', 2, { until: 'done' });
  a.broker.producer.nextPeer = 0;
  await clock.advance(10);
  ab.down();
  await again;
  assert.ok(seen.length >= 3);
});

test('a ZeroQ broadcast on a queue we consume is one job here, once, with nothing sent back', async () => {
  const clock = new Clock();
  const a = makeNode('alice', clock);
  const z = rawEnd('zeroq');
  connect(a, z);
  const got = [];
  a.broker.consumer.consume('jobs', (job, ack) => { got.push(job.payload); ack(); });
  const env = { id: 'j1', topic: 'jobs', payload: { url: 'x' }, timestamp: 0, seq: 0, retryCount: 0 };
  z.raw.send(env);
  z.raw.send(env);
  await flush();
  assert.deepEqual(got, [{ url: 'x' }]);
  assert.equal(z.raw.frames().filter((f) => f.type === '__zq_done__').length, 0);
});

test('a nacked ZeroQ job goes on ZeroQ\'s way, retryCount + 1, and is dead at its third try', async () => {
  const clock = new Clock();
  const a = makeNode('alice', clock);
  const z = rawEnd('zeroq');
  connect(a, z);
  const got = [];
  a.broker.consumer.consume('jobs', (job, ack, nack) => { got.push(job.retryCount); nack(); }, { credit: 1 });
  const env = (n) => ({ id: 'j1', topic: 'jobs', payload: { url: 'x' }, timestamp: 77, seq: 0, retryCount: n, priority: 2 });
  z.raw.send(env(0));
  await flush();
  assert.deepEqual(z.raw.frames().filter((f) => f.id === 'j1'), [env(1)]);
  z.raw.send(env(2)); /* another ZeroQ consumer nacked it once more */
  await flush();
  assert.deepEqual(got, [0, 2]);
  assert.equal(z.raw.frames().filter((f) => f.retryCount === 3).length, 0);
  assert.equal(a.broker.stats.zeroqResent, 1);
  assert.equal(a.broker.stats.zeroqDead, 1);
});

test('ZeroQ jobs are taken whatever the credit: refusing one would lose it', async () => {
  const clock = new Clock();
  const a = makeNode('alice', clock);
  const z = rawEnd('zeroq');
  connect(a, z);
  const held = [];
  a.broker.consumer.consume('jobs', (job) => { held.push(job.payload); }, { credit: 1 });
  for (const n of [1, 2, 3]) {
    z.raw.send({ id: `j${n}`, topic: 'jobs', payload: n, timestamp: 0, seq: 0, retryCount: 0 });
  }
  await flush();
  assert.deepEqual(held, [1, 2, 3]);
});

test('a job beyond the consumer\'s credit is refused at once, as busy', async () => {
  const clock = new Clock();
  const b = makeNode('bob', clock);
  const p = rawEnd('producer');
  connect(b, p);
  p.raw.send({ type: '__zq_hello__', v: 1, epoch: '00000001', max: 65536, feat: ['queue'] });
  const held = [];
  b.broker.consumer.consume('jobs', (job) => held.push(job), { credit: 1 });
  await flush();
  assert.deepEqual(p.raw.frames().filter((f) => f.type === '__zq_ready__').at(-1),
    { type: '__zq_ready__', queue: 'jobs', credit: 1 });
  const job = (id) => ({ id, topic: 'jobs', payload: 1, timestamp: 0, seq: 0, retryCount: 0, k: 'job' });
  p.raw.send(job('j-1'));
  p.raw.send(job('j-2'));
  await flush();
  assert.equal(held.length, 1);
  assert.deepEqual(p.raw.frames().filter((f) => f.type === '__zq_done__'),
    [{ type: '__zq_done__', id: 'j-2', ok: false, busy: true }]);
  assert.equal(b.broker.stats.jobsRefused, 1);
});

test('a job refused as busy is no attempt: it waits for room, then goes out again as new', async () => {
  const clock = new Clock();
  const a = makeNode('alice', clock);
  const c = rawEnd('consumer');
  connect(a, c);
  c.raw.send({ type: '__zq_hello__', v: 1, epoch: '00000001', max: 65536, feat: ['queue'] });
  c.raw.send({ type: '__zq_ready__', queue: 'jobs', credit: 1 });
  await flush();
  const done = a.broker.producer.enqueue('jobs', 7, { until: 'done' });
  await clock.advance(10);
  const jobs = () => c.raw.frames().filter((f) => f.k === 'job');
  assert.equal(jobs().length, 1);
  const id = jobs()[0].id;
  c.raw.send({ type: '__zq_done__', id, ok: false, busy: true });
  await clock.advance(10);
  assert.equal(jobs().length, 1, 'no credit until the next ready');
  assert.equal(a.broker.stats.jobsBusy, 1);
  assert.equal(a.broker.stats.jobsFailed, 0);
  c.raw.send({ type: '__zq_ready__', queue: 'jobs', credit: 1 });
  await clock.advance(10);
  assert.deepEqual(jobs().map((j) => [j.id, j.retryCount]), [[id, 0], [id, 0]]);
  c.raw.send({ type: '__zq_done__', id, ok: true });
  assert.deepEqual(await done, { id, attempts: 1 });
});

// ---- Request and reply ---------------------------------------------------------------------------

test('request/reply: the zq form, a refusal, and the next responder on no such service', async () => {
  const { a, b, c } = await mesh3();
  b.broker.rpc.reply('svc', (x) => ({ twice: x * 2 }));
  c.broker.rpc.reply('bad', () => { throw new Error('no such user'); });
  await flush();
  assert.deepEqual(await a.broker.rpc.request('svc', 21), { twice: 42 });
  await assert.rejects(a.broker.rpc.request('bad', 1), { code: 'REFUSED', message: 'no such user' });
});

test('a request with no reply in time goes to the next responder, then fails', async () => {
  const { clock, a, b, c } = await mesh3();
  b.broker.rpc.reply('svc', () => new Promise(() => {})); /* never answers */
  c.broker.rpc.reply('svc', () => 'carol');
  await flush();
  const r = a.broker.rpc.request('svc', {}, { timeout: 1000, retries: 1 });
  await clock.advance(1000);
  assert.equal(await r, 'carol');
  const lone = a.broker.rpc.request('nobody', {}, { timeout: 1000, retries: 2 });
  const settled = lone.catch((e) => e);
  await clock.advance(3000);
  assert.equal((await settled).code, 'TIMEOUT');
});

test('a request for one peer asks only that peer, again on each retry', async () => {
  const { clock, a, b, c } = await mesh3();
  const asked = [];
  b.broker.rpc.reply('svc', () => { asked.push('bob'); return 'bob'; });
  c.broker.rpc.reply('svc', () => { asked.push('carol'); return new Promise(() => {}); });
  await flush();
  assert.equal(await a.broker.rpc.request('svc', {}, { peer: 'bob' }), 'bob');
  const r = a.broker.rpc.request('svc', {}, { peer: 'carol', timeout: 1000, retries: 1 });
  const settled = r.catch((e) => e);
  await clock.advance(2000);
  assert.equal((await settled).code, 'TIMEOUT');
  assert.deepEqual(asked, ['bob', 'carol', 'carol']);
  await assert.rejects(a.broker.rpc.request('svc', {}, { peer: '' }), { code: 'MALFORMED' });
});

test('a responder going away moves the request to the next at once', async () => {
  const { clock, a, b, c, ab } = await mesh3();
  b.broker.rpc.reply('svc', () => new Promise(() => {}));
  c.broker.rpc.reply('svc', () => 'carol');
  await flush();
  const r = a.broker.rpc.request('svc', {}, { timeout: 60000 });
  await flush();
  const first = a.broker.rpc.requests.values().next().value.peer.id;
  if (first === 'bob') ab.down();
  await clock.advance(10);
  assert.equal(await r, 'carol');
});

test("ZeroQ's request form: payload.replyTo both ways", async () => {
  const clock = new Clock();
  const a = makeNode('alice', clock);
  const z = rawEnd('zeroq');
  connect(a, z);
  z.raw.send({ type: '__gossip__', peers: [] });
  a.broker.rpc.reply('rpc.getUser', (p) => ({ user: p.id }));
  await flush();
  /* a ZeroQ page asks us */
  z.raw.send({ id: 'r1', topic: 'rpc.getUser', payload: { id: 123, replyTo: 'rt-1' },
    timestamp: 0, seq: 0, retryCount: 0 });
  await flush();
  const reply = z.raw.frames().find((f) => f.topic === 'rt-1');
  assert.deepEqual(reply.payload, { user: 123 });
  /* we ask the ZeroQ page (no zq responder anywhere) */
  const r = a.broker.rpc.request('rpc.other', { q: 1 });
  await flush();
  const req = z.raw.frames().find((f) => f.topic === 'rpc.other');
  assert.equal(req.payload.q, 1);
  assert.match(req.payload.replyTo, /^c-[0-9a-f]{24}$/);
  z.raw.send({ id: 'x', topic: req.payload.replyTo, payload: 'answer', timestamp: 0, seq: 0, retryCount: 0 });
  assert.equal(await r, 'answer');
});

// ---- Closing -------------------------------------------------------------------------------------

test('close() settles every promise: nothing is left waiting', async () => {
  const { a, b } = await pair({ config: { ackDelayMs: 100000 } });
  collect(b, '#');
  await flush();
  const ps = [
    a.broker.pub.publish('t', 1, { qos: 1 }),
    a.broker.producer.enqueue('q', 1, { until: 'done' }),
    a.broker.rpc.request('svc', 1),
  ];
  await flush();
  a.broker.close();
  for (const p of ps) await assert.rejects(p, { code: 'CLOSED' });
});
