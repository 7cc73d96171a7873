// Topic patterns (PROTOCOL.md §3, broker/pattern.c): levels separated by '.', '+' a whole level
// matching exactly one level, '#' a whole last level matching zero or more, a final '*' making
// the rest of the last level a prefix, anything else matching only itself. Pure.
//
// The same one-pass level walk as pattern.c: with '#' only last and '*' only as the final
// character, every pattern level but the last consumes exactly one topic level, so matching
// never backtracks. Strings are compared as UTF-16 code units; for well-formed strings that is
// the same answer as pattern.c's UTF-8 bytes ('.' is ASCII, and a prefix of code points is a
// prefix of both encodings).

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

function levelEnd(s, from) {
  if (from >= s.length) return s.length;
  const dot = s.indexOf('.', from);
  return dot < 0 ? s.length : dot;
}

/**
 * Whether @p pattern is usable: a non-empty well-formed string (a lone surrogate is what
 * invalid UTF-8 becomes in JavaScript), no control characters, no '#' level but the last.
 */
export function checkPattern(pattern) {
  if (typeof pattern !== 'string' || pattern.length === 0 || CONTROL.test(pattern) ||
      LONE_SURROGATE.test(pattern)) {
    return false;
  }
  for (let from = 0; ;) {
    const end = levelEnd(pattern, from);
    if (end === pattern.length) return true;
    if (end - from === 1 && pattern[from] === '#') return false; /* '#' not last */
    from = end + 1;
  }
}

function levelMatches(level, topicLevel) {
  return level === '+' || level === topicLevel;
}

// The last pattern level against the rest of the topic from t; t > topic.length means the
// topic has no level left.
function lastLevelMatches(level, prefix, topic, t) {
  if (prefix) {
    return t <= topic.length && topic.length - t >= level.length - 1 &&
      topic.startsWith(level.slice(0, -1), t);
  }
  if (level === '#') return true;
  if (t > topic.length || levelEnd(topic, t) !== topic.length) return false;
  return levelMatches(level, topic.slice(t));
}

/** Whether @p topic matches @p pattern (a checked pattern). */
export function matchPattern(pattern, topic) {
  const prefix = pattern.length > 0 && pattern[pattern.length - 1] === '*';
  let p = 0;
  let t = 0;
  for (;;) {
    const pe = levelEnd(pattern, p);
    if (pe === pattern.length) return lastLevelMatches(pattern.slice(p, pe), prefix, topic, t);
    if (t > topic.length) return false;
    const te = levelEnd(topic, t);
    if (!levelMatches(pattern.slice(p, pe), topic.slice(t, te))) return false;
    p = pe + 1;
    t = te + 1;
  }
}

/** Whether @p pattern has no wildcard at all (an exact topic). */
export function isExactPattern(pattern) {
  if (pattern.length === 0) return true;
  if (pattern[pattern.length - 1] === '*') return false;
  return !pattern.split('.').some((l) => l === '+' || l === '#');
}

/** Whether any of @p patterns matches @p topic. */
export function matchesAny(patterns, topic) {
  for (const p of patterns) if (matchPattern(p, topic)) return true;
  return false;
}
