// Topic patterns (PROTOCOL.md §3; broker/pattern.c, whose header comment says why each rule is
// as it is). Levels are split at '/' when the pattern has one, else at '.', and the topic at
// the same separator (a pattern of one level takes the topic's own); '+' a whole level matching
// exactly one level, '#' a whole last level matching zero or more, a final '*' making the rest
// of the last level a prefix, anything else matching only itself. A '+' or '#' that is not a
// whole level is refused, with a reason. Pure.
//
// The same one-pass level walk as pattern.c: with '#' only last and '*' only as the final
// character, every pattern level but the last consumes exactly one topic level, so matching
// never backtracks. Strings are compared as UTF-16 code units; for well-formed strings that is
// the same answer as pattern.c's UTF-8 bytes ('/', '.', '+', '#' and '*' are ASCII, and a
// prefix of code points is a prefix of both encodings).

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

// The reasons, word for word those of broker/pattern.c (fixtures/patterns.json has each).
const NOT_A_STRING = 'it is not a string';
const EMPTY = "it is empty: '#' matches every topic";
const HAS_CONTROL = 'it has a control character (U+0000 to U+001F, or U+007F)';
const NOT_UTF8 = 'it is not valid UTF-8';
const HASH_IN_LEVEL =
  "'#' must be a whole level, and the last one: write 'sensors/#' (or 'sensors.#')";
const HASH_NOT_LAST =
  "'#' only as the last level: write 'sensors/#', or '+' for one level ('sensors/+/temp')";
const PLUS_IN_LEVEL = "'+' must be a whole level: write 'sensors/+/temp'; a prefix is plain " +
  "characters and a final '*' ('sensors/kit*')";
const WILDCARD_IN_TOPIC =
  "'+' and '#' are wildcards, for patterns only: name one topic, such as 'sensors/kitchen'";

// A string's own separator: '/' when it has one, else '.' when it has one, else ''.
function ownSeparator(s) {
  return s.includes('/') ? '/' : s.includes('.') ? '.' : '';
}

// The separator both strings are split at: the pattern's, else the topic's. When neither has
// one, '.' is as good as any character that is in neither.
function separator(pattern, topic = '') {
  return ownSeparator(pattern) || ownSeparator(topic) || '.';
}

function levelEnd(s, from, sep) {
  if (from >= s.length) return s.length;
  const at = s.indexOf(sep, from);
  return at < 0 ? s.length : at;
}

// A wildcard must be a whole level (MQTT 3.1.1 §4.7.1.2-3), and a '#' level the last.
function levelProblem(level, last) {
  if (level.includes('#')) return level.length !== 1 ? HASH_IN_LEVEL : last ? null : HASH_NOT_LAST;
  return level.length !== 1 && level.includes('+') ? PLUS_IN_LEVEL : null;
}

/**
 * Why @p pattern cannot be subscribed to, in one sentence that says how to write it instead
 * (brk_pattern_problem's words): not a string, empty, a control character, a lone surrogate
 * (what invalid UTF-8 is in JavaScript), a '+' or '#' that is not a whole level, or a '#'
 * level that is not the last. @returns null when the pattern is usable.
 */
export function patternProblem(pattern) {
  if (typeof pattern !== 'string') return NOT_A_STRING;
  if (pattern.length === 0) return EMPTY;
  if (CONTROL.test(pattern)) return HAS_CONTROL;
  if (LONE_SURROGATE.test(pattern)) return NOT_UTF8;
  const levels = pattern.split(separator(pattern));
  for (let i = 0; i < levels.length; i++) {
    const why = levelProblem(levels[i], i === levels.length - 1);
    if (why !== null) return why;
  }
  return null;
}

/** Whether @p pattern is usable (patternProblem() has nothing to say). */
export function checkPattern(pattern) {
  return patternProblem(pattern) === null;
}

/**
 * Why @p topic cannot be published on: it has a '+' or a '#' anywhere (MQTT 3.1.1 §4.7.1.1:
 * wildcards are for patterns; no exact pattern could name it). brk_topic_problem's words.
 * @returns null when it can.
 */
export function topicProblem(topic) {
  if (typeof topic !== 'string') return NOT_A_STRING;
  return topic.includes('+') || topic.includes('#') ? WILDCARD_IN_TOPIC : null;
}

function levelMatches(level, topicLevel) {
  return level === '+' || level === topicLevel;
}

// The last pattern level against the rest of the topic from t; t > topic.length means the
// topic has no level left.
function lastLevelMatches(level, prefix, topic, t, sep) {
  if (prefix) {
    return t <= topic.length && topic.length - t >= level.length - 1 &&
      topic.startsWith(level.slice(0, -1), t);
  }
  if (level === '#') return true;
  if (t > topic.length || levelEnd(topic, t, sep) !== topic.length) return false;
  return levelMatches(level, topic.slice(t));
}

/** Whether @p topic matches @p pattern (a checked pattern). */
export function matchPattern(pattern, topic) {
  const sep = separator(pattern, topic);
  const prefix = pattern.length > 0 && pattern[pattern.length - 1] === '*';
  let p = 0;
  let t = 0;
  for (;;) {
    const pe = levelEnd(pattern, p, sep);
    if (pe === pattern.length) {
      return lastLevelMatches(pattern.slice(p, pe), prefix, topic, t, sep);
    }
    if (t > topic.length) return false;
    const te = levelEnd(topic, t, sep);
    if (!levelMatches(pattern.slice(p, pe), topic.slice(t, te))) return false;
    p = pe + 1;
    t = te + 1;
  }
}

/** Whether @p pattern has no wildcard at all (an exact topic: it matches only itself). */
export function isExactPattern(pattern) {
  if (pattern.length === 0) return true;
  if (pattern[pattern.length - 1] === '*') return false;
  return !pattern.split(separator(pattern)).some((l) => l === '+' || l === '#');
}

/** Whether any of @p patterns matches @p topic. */
export function matchesAny(patterns, topic) {
  for (const p of patterns) if (matchPattern(p, topic)) return true;
  return false;
}
