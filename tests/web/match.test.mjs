// web/zq/match.js against the table of tests/unit/test_brk_pattern.c (fixtures/patterns.json),
// and the same exhaustive comparison with a backtracking reference matcher.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { checkPattern, matchPattern, isExactPattern } from '../../web/zq/match.js';

const fx = JSON.parse(readFileSync(new URL('fixtures/patterns.json', import.meta.url)));

for (const row of fx.expect) {
  test(`${row.rule}: "${row.pattern}"`, () => {
    assert.ok(checkPattern(row.pattern), 'usable');
    for (const t of row.yes) assert.ok(matchPattern(row.pattern, t), `should match "${t}"`);
    for (const t of row.no) assert.ok(!matchPattern(row.pattern, t), `should not match "${t}"`);
  });
}

test('malformed patterns are refused (one row per rule)', () => {
  for (const row of fx.malformed) assert.ok(!checkPattern(row.pattern), `${row.rule}: ${JSON.stringify(row.pattern)}`);
  assert.ok(!checkPattern(undefined));
});

test('byte strings that are not UTF-8 never become usable patterns', () => {
  for (const row of fx.malformedBytes) {
    const bytes = Buffer.from(row.hex, 'hex');
    let s;
    try {
      s = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      continue; /* not a string at all: nothing to subscribe with */
    }
    assert.ok(!checkPattern(s), row.rule);
  }
  assert.ok(!checkPattern('a\uD800'), 'a lone surrogate (what broken UTF-8 is in JavaScript)');
  assert.ok(!checkPattern('\uDC00.+'));
  assert.ok(checkPattern('\uD83C\uDF21.#'), 'a surrogate pair is a character');
  for (const row of fx.bytesNotMatched) {
    const lossy = new TextDecoder().decode(Buffer.from(row.topicHex, 'hex'));
    assert.ok(!matchPattern(row.pattern, lossy), row.rule);
  }
});

test('exact means no wildcard at all', () => {
  for (const p of fx.exact.yes) assert.ok(isExactPattern(p), p);
  for (const p of fx.exact.no) assert.ok(!isExactPattern(p), p);
});

// ---- The reference of test_brk_pattern.c: tokens matched by backtracking ----------------------

function compile(p) {
  const out = [];
  const prefix = p.length > 0 && p[p.length - 1] === '*';
  for (let from = 0; ;) {
    let end = from;
    while (end < p.length && p[end] !== '.') end++;
    const last = end === p.length;
    const hash = last && end - from === 1 && p[from] === '#';
    if (from > 0 && !hash) out.push({ kind: 'byte', c: '.' });
    if (last && prefix) {
      for (let i = from; i + 1 < end; i++) out.push({ kind: 'byte', c: p[i] });
      out.push({ kind: 'anything' });
    } else if (hash) {
      out.push({ kind: from > 0 ? 'rest' : 'anything' });
    } else if (end - from === 1 && p[from] === '+') {
      out.push({ kind: 'one' });
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
    case 'rest': return j === t.length || t[j] === '.';
    case 'byte': return j < t.length && t[j] === k.c && run(tk, i + 1, t, j + 1);
    default:
      for (let n = 0; ; n++) {
        if (run(tk, i + 1, t, j + n)) return true;
        if (j + n === t.length || t[j + n] === '.') return false;
      }
  }
}

function refCheck(p) {
  if (p.length === 0) return false;
  for (let i = 0; i < p.length; i++) {
    const start = i === 0 || p[i - 1] === '.';
    const end = i + 1 === p.length || p[i + 1] === '.';
    if (p[i] === '#' && start && end && i + 1 !== p.length) return false;
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
    const tokens = compile(p);
    for (let ti = 0; ti < topics; ti++) {
      const t = nth(ti, alphabet);
      const got = matchPattern(p, t);
      assert.equal(got, run(tokens, 0, t, 0), `"${p}" vs "${t}"`);
      if (isExactPattern(p)) assert.equal(got, p === t);
      compared++;
      matched += got ? 1 : 0;
    }
  }
  assert.ok(matched > 1000 && compared - matched > 1000, `${compared} compared, ${matched} matched`);
});
