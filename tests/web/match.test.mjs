// web/zq/match.js against the pattern table tests/unit/test_brk_pattern.c runs too
// (fixtures/patterns.json): the same rows and reasons on both sides. Then the same exhaustive
// comparison with a backtracking reference matcher (tests/support/pattern_ref.c, ported).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  checkPattern, patternProblem, topicProblem, matchPattern, isExactPattern,
} from '../../web/zq/match.js';

const fx = JSON.parse(readFileSync(new URL('fixtures/patterns.json', import.meta.url)));

for (const row of fx.expect) {
  test(`${row.rule}: "${row.pattern}"`, () => {
    assert.equal(patternProblem(row.pattern), null, 'usable');
    assert.ok(checkPattern(row.pattern));
    for (const t of row.yes) assert.ok(matchPattern(row.pattern, t), `should match "${t}"`);
    for (const t of row.no) assert.ok(!matchPattern(row.pattern, t), `should not match "${t}"`);
  });
}

for (const rule of new Set(fx.refused.map((r) => r.rule))) {
  test(`${rule}: each pattern with its reason`, () => {
    for (const row of fx.refused.filter((r) => r.rule === rule)) {
      assert.equal(patternProblem(row.pattern), row.reason, JSON.stringify(row.pattern));
      assert.ok(!checkPattern(row.pattern));
    }
  });
}

test('a pattern that is not a string is refused', () => {
  assert.equal(patternProblem(undefined), 'it is not a string');
  assert.ok(!checkPattern(42));
});

test('invalid_utf8_is_refused: bytes that are not UTF-8 never become usable patterns', () => {
  const [{ reason }] = fx.refusedBytes;
  for (const row of fx.refusedBytes) {
    const bytes = Buffer.from(row.hex, 'hex');
    let s;
    try {
      s = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      continue; /* not a string at all: nothing to subscribe with */
    }
    assert.ok(!checkPattern(s), row.what);
  }
  assert.equal(patternProblem('a\uD800'), reason, 'a lone surrogate: broken UTF-8 here');
  assert.equal(patternProblem('\uDC00.+'), reason);
  assert.ok(checkPattern('\uD83C\uDF21.#'), 'a surrogate pair is a character');
  for (const row of fx.bytesNotMatched) {
    const lossy = new TextDecoder().decode(Buffer.from(row.topicHex, 'hex'));
    assert.ok(!matchPattern(row.pattern, lossy), row.what);
  }
});

test(`${fx.topics.rule}: a topic with '+' or '#' anywhere cannot be published on`, () => {
  for (const t of fx.topics.usable) assert.equal(topicProblem(t), null, t);
  for (const row of fx.topics.refused) assert.equal(topicProblem(row.topic), row.reason, row.topic);
  assert.equal(topicProblem(7), 'it is not a string');
});

test(`${fx.exact.rule}: exact means no wildcard at all`, () => {
  for (const p of [...fx.exact.yes, ...fx.exact.no]) assert.ok(checkPattern(p), p);
  for (const p of fx.exact.yes) assert.ok(isExactPattern(p), p);
  for (const p of fx.exact.no) assert.ok(!isExactPattern(p), p);
});

// ---- The reference of test_brk_pattern.c: tokens matched by backtracking ----------------------

// The pattern's '/' or else '.', else the topic's, else '.'.
function refSeparator(p, t) {
  for (const s of [p, t]) for (const c of ['/', '.']) if (s.includes(c)) return c;
  return '.';
}

function compile(p, sep) {
  const out = [];
  const prefix = p.length > 0 && p[p.length - 1] === '*';
  for (let from = 0; ;) {
    let end = from;
    while (end < p.length && p[end] !== sep) end++;
    const last = end === p.length;
    const hash = last && end - from === 1 && p[from] === '#';
    if (from > 0 && !hash) out.push({ kind: 'byte', c: sep });
    if (last && prefix) {
      for (let i = from; i + 1 < end; i++) out.push({ kind: 'byte', c: p[i] });
      out.push({ kind: 'anything' });
    } else if (hash) {
      out.push({ kind: from > 0 ? 'rest' : 'anything', c: sep });
    } else if (end - from === 1 && p[from] === '+') {
      out.push({ kind: 'one', c: sep });
    } else {
      for (let i = from; i < end; i++) out.push({ kind: 'byte', c: p[i] });
    }
    if (last) {
      out.push({ kind: 'end' });
      return out;
    }
    from = end + 1;
  }
}

function run(tk, i, t, j) {
  const k = tk[i];
  switch (k.kind) {
    case 'end': return j === t.length;
    case 'anything': return true;
    case 'rest': return j === t.length || t[j] === k.c;
    case 'byte': return j < t.length && t[j] === k.c && run(tk, i + 1, t, j + 1);
    default:
      for (let n = 0; ; n++) {
        if (run(tk, i + 1, t, j + n)) return true;
        if (j + n === t.length || t[j + n] === k.c) return false;
      }
  }
}

function refCheck(p) {
  if (p.length === 0) return false;
  const sep = refSeparator(p, '');
  for (let i = 0; i < p.length; i++) {
    const whole = (i === 0 || p[i - 1] === sep) && (i + 1 === p.length || p[i + 1] === sep);
    if ((p[i] === '+' || p[i] === '#') && !whole) return false;
    if (p[i] === '#' && i + 1 !== p.length) return false;
  }
  return true;
}

function nth(index, alphabet) {
  let len = 0;
  let count = 1;
  while (index >= count) {
    index -= count;
    count *= alphabet.length;
    len++;
  }
  let s = '';
  for (let i = 0; i < len; i++) {
    s += alphabet[index % alphabet.length];
    index = Math.floor(index / alphabet.length);
  }
  return s;
}

test('matches the reference on every short pair (patterns <= 4, topics <= 3 symbols)', () => {
  const { alphabet, patterns, topics } = fx.reference;
  let compared = 0;
  let matched = 0;
  for (let pi = 0; pi < patterns; pi++) {
    const p = nth(pi, alphabet);
    assert.equal(checkPattern(p), refCheck(p), `check disagrees on "${p}"`);
    if (!checkPattern(p)) continue;
    for (let ti = 0; ti < topics; ti++) {
      const t = nth(ti, alphabet);
      const got = matchPattern(p, t);
      assert.equal(got, run(compile(p, refSeparator(p, t)), 0, t, 0), `"${p}" vs "${t}"`);
      if (isExactPattern(p)) assert.equal(got, p === t);
      compared++;
      matched += got ? 1 : 0;
    }
  }
  assert.ok(matched > 1000 && compared - matched > 1000, `${compared} compared, ${matched} matched`);
});
