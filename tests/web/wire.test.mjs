// web/zq/wire.js against the frames of tests/unit/test_brk_frame.c (tests/web/fixtures/): the
// same bytes the C codecs are tested with, written byte for byte and read back, and every
// refusal, one rule per row.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as wire from '../../web/zq/wire.js';

const fixture = (name) => JSON.parse(readFileSync(new URL(`fixtures/${name}`, import.meta.url)));
const envelopes = fixture('envelopes.json');
const frames = fixture('frames.json');

function parse(text) {
  const f = wire.parseFrame(text);
  if (f) return f;
  return { obj: JSON.parse(text), inexact: false }; /* readers also refuse non-objects */
}

/* The fields a fixture names, as the reader gives them; null in a fixture means absent. */
function assertFields(got, want, text) {
  for (const [k, v] of Object.entries(want)) {
    if (k === 'payloadText') {
      /* the same JSON value (the C side spans the text: "-1.5e3" reads back as -1500 here) */
      assert.ok(got.hasPayload, `${text}: payload`);
      assert.equal(JSON.stringify(got.payload), JSON.stringify(JSON.parse(v)), `${text}: payload`);
      continue;
    }
    assert.deepEqual(got[k], v === null ? undefined : v, `${text}: ${k}`);
  }
}

/* A fixture's fields as the writer takes them (payloadText verbatim, as the C writer). */
function writerInput(fields) {
  const e = { ...fields };
  if (e.hasPayload) e.payloadText = fields.payloadText;
  delete e.payload;
  return e;
}

// ---- Envelopes ---------------------------------------------------------------------------------

for (const f of envelopes.zeroq) {
  test(`${f.name}: read field by field, rewritten byte for byte`, () => {
    const { obj, inexact } = parse(f.text);
    assert.equal(wire.frameType(obj), 'envelope');
    const e = wire.readEnvelope(obj, inexact);
    assert.ok(e, 'refused');
    assertFields(e, f.fields, f.name);
    for (const k of ['ep', 'corr']) assert.equal(e[k], undefined, `plain ZeroQ: no ${k}`);
    assert.equal(wire.writeEnvelope(writerInput(f.fields)), f.text);
    assert.equal(wire.writeEnvelope(e), f.text, 'what was read writes back the same bytes');
  });
}

for (const f of envelopes.zq) {
  test(`${f.name}: written byte for byte, read back`, () => {
    assert.equal(wire.writeEnvelope(writerInput(f.fields)), f.text);
    const { obj, inexact } = parse(f.text);
    assert.equal(wire.frameType(obj), 'envelope');
    const e = wire.readEnvelope(obj, inexact);
    assert.ok(e, 'refused');
    assertFields(e, f.fields, f.name);
  });
}

test('envelope lenient members read as ZeroQ reads them (one row per case)', () => {
  for (const f of [...envelopes.lenient, ...envelopes.misc]) {
    const { obj, inexact } = parse(f.text);
    const e = wire.readEnvelope(obj, inexact);
    assert.ok(e, `${f.rule}: refused ${f.text}`);
    assertFields(e, f.expect, `${f.rule}: ${f.text}`);
  }
});

test('envelope refusals: every rule enforced', () => {
  for (const f of envelopes.refusals) {
    const { obj, inexact } = parse(f.text);
    assert.equal(wire.readEnvelope(obj, inexact), null, `rule "${f.rule}" not enforced: ${f.text}`);
  }
});

test('envelope writer refuses what the reader refuses', () => {
  for (const f of envelopes.writerRefusals) {
    assert.throws(() => wire.writeEnvelope(f.fields), { code: 'INVALID_ARG' }, f.rule);
  }
  assert.throws(() => wire.writeEnvelope({ id: 'a', topic: 't', payload: () => 1 }),
    { code: 'MALFORMED' }, 'a payload that is not JSON');
});

test('a last value is the frame with ,"lvc":1 before its closing brace (publish.c)', () => {
  const q1 = envelopes.zq.find((f) => f.name === 'qos1_message_round_trips');
  const lv = wire.markLastValue(q1.text);
  assert.ok(lv.endsWith('"ep":"0c77e1d2","q":1,"lvc":1}'));
  assert.equal(wire.readEnvelope(JSON.parse(lv)).lvc, true);
});

// ---- zq's frames -------------------------------------------------------------------------------

const codecs = {
  hello: { read: wire.readHello, write: (v) => wire.writeHello(v) },
  sub: { read: wire.readSub, write: (v) => wire.writeSub(v.topics, v.services) },
  ack: { read: wire.readAck, write: wire.writeAck },
  lost: { read: wire.readLost, write: wire.writeLost },
  ready: { read: wire.readReady, write: (v) => wire.writeReady(v.queue, v.credit) },
  done: { read: wire.readDone, write: (v) => wire.writeDone(v.id, v.ok, v.busy) },
  dlq: { read: wire.readDlq, write: (v) => wire.writeDlq(v.queue, v.op) },
  dlqJobs: {
    read: (obj) => {
      const d = wire.readDlqJobs(obj);
      return d && { ...d, jobs: d.jobs.map(wire.readDlqJob) };
    },
    write: (v) => wire.writeDlqJobs(v.queue, v.jobs, v.more),
  },
  rep: { read: wire.readRep, write: wire.writeRep },
};

function assertValue(got, want, name) {
  for (const [k, v] of Object.entries(want)) {
    if (k === 'jobs') {
      assert.equal(got.jobs.length, v.length, `${name}: jobs`);
      v.forEach((j, i) => assertValue(got.jobs[i], j, `${name}: job ${i}`));
    } else if (k === 'payloadText') {
      assert.equal(JSON.stringify(got.payload), v, `${name}: payload`);
    } else {
      assert.deepEqual(got[k], v, `${name}: ${k}`);
    }
  }
}

for (const [type, codec] of Object.entries(codecs)) {
  const f = frames[type];
  for (const rt of f.roundTrips) {
    test(`${rt.name}: written byte for byte, read back`, () => {
      assert.equal(codec.write(rt.value), rt.text);
      const { obj, inexact } = parse(rt.text);
      assert.equal(wire.frameType(obj), type);
      const got = codec.read(obj, inexact);
      assert.ok(got, 'refused');
      assertValue(got, rt.value, rt.name);
    });
  }
  for (const r of f.reads ?? []) {
    test(`${r.name}`, () => {
      const { obj, inexact } = parse(r.text);
      const got = codec.read(obj, inexact);
      assert.ok(got, 'refused');
      assertValue(got, r.value, r.name);
    });
  }
  test(`${type} refusals: every rule enforced (${f.refusals.length} rows)`, () => {
    for (const r of f.refusals) {
      const { obj, inexact } = parse(r.text);
      assert.equal(codec.read(obj, inexact), null, `rule "${r.rule}" not enforced: ${r.text}`);
    }
  });
}

test('dlq_jobs items: every rule enforced', () => {
  for (const r of frames.dlqJobs.itemRefusals) {
    assert.equal(wire.readDlqJob(JSON.parse(r.text)), null, `rule "${r.rule}": ${r.text}`);
  }
});

test('rep refusal with an empty error string keeps it (the C writer writes "" too)', () => {
  assert.equal(wire.writeRep({ corr: 'c', ok: false, error: '' }),
    '{"type":"__zq_rep__","corr":"c","ok":false,"error":""}');
});

test('writers refuse frames their readers refuse', () => {
  const writers = { ready: wire.writeReady, done: wire.writeDone, dlq: wire.writeDlq,
    rep: wire.writeRep, dlqJobs: wire.writeDlqJobs };
  for (const r of frames.writerRefusals) {
    assert.throws(() => writers[r.frame](...r.args), { code: 'INVALID_ARG' }, r.rule);
  }
});

test('ping and pong are written as ZeroQ does', () => {
  assert.equal(wire.writePing(), frames.heartbeat.ping);
  assert.equal(wire.writePong(), frames.heartbeat.pong);
  assert.equal(wire.frameType(JSON.parse(wire.writePing())), 'ping');
  assert.equal(wire.frameType(JSON.parse(wire.writePong())), 'pong');
});

test('gossip counts its string ids; non-array peers count as empty', () => {
  for (const g of frames.heartbeat.gossip) {
    assert.equal(wire.gossipCount(JSON.parse(g.text)), g.count, g.text);
  }
});

test('frame types: every frame named; any other type is unknown, never an envelope', () => {
  for (const f of frames.frameTypes) {
    assert.equal(wire.frameType(JSON.parse(f.text)), f.type, f.text);
  }
});

test('parseFrame refuses what is not a JSON object', () => {
  for (const t of ['', 'x', '[]', '"s"', '1', 'null', '{"a":']) assert.equal(wire.parseFrame(t), null, t);
  assert.ok(wire.parseFrame('{}'));
});
