// zq's broker commands against a page that speaks ZeroQ by hand (page/zeroq.html) in headless
// Chromium: `zq signal` serves the page and relays signalling; each check is one room with one
// page and one zq command.
//
//   node zeroq_cli.mjs path/to/zq        (zeroq_cli.sh does this inside `unshare -n`)
//
// Each check prints PASS or FAIL; the exit status is non-zero if any failed. Nothing asserts on
// time. ZQ_BROWSER_KEEP=1 keeps the logs (page consoles, zq's output) even when all passed.
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHROMIUM, flagsInForce, launchChromium } from '../support/chromium.mjs';
import { Checks, assert, drive, finish, printTails } from '../support/report.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const zq = process.argv[2] ? resolve(process.argv[2]) : null;
if (!zq || !existsSync(zq)) {
  console.error('usage: node zeroq_cli.mjs path/to/zq');
  process.exit(2);
}
const logs = mkdtempSync(join(tmpdir(), 'zq-zeroq-cli-logs-'));
const profile = mkdtempSync(join(tmpdir(), 'zq-zeroq-cli-profile-'));

const checks = new Checks('zeroq cli');
const { check } = checks;

function same(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

// ---- zq processes ----------------------------------------------------------------------------

const children = new Set();

// A zq child whose stdout and stderr lines are kept, and logged to logs/NAME.log.
function start(name, args) {
  const file = join(logs, `${name}.log`);
  const proc = spawn(zq, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const p = { name, proc, out: [], err: [], waiters: [], exited: null };
  const take = (list, tag) => (chunk) => {
    for (const line of chunk.toString().split('\n').filter(Boolean)) {
      list.push(line);
      appendFileSync(file, `${tag} ${line}\n`);
    }
    for (const w of p.waiters.splice(0)) w();
  };
  proc.stdout.on('data', take(p.out, 'out'));
  proc.stderr.on('data', take(p.err, 'err'));
  proc.on('exit', (code, signal) => {
    p.exited = { code, signal };
    children.delete(p);
    for (const w of p.waiters.splice(0)) w();
  });
  children.add(p);
  return p;
}

async function waitFor(p, done, what, ms = 30000) {
  const deadline = Date.now() + ms;
  while (!done()) {
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`${p.name}: ${what} not within ${ms} ms`);
    await new Promise((r) => {
      p.waiters.push(r);
      setTimeout(r, Math.min(left, 200));
    });
  }
}

async function exitOf(p, ms = 30000) {
  await waitFor(p, () => p.exited, 'no exit', ms);
  return p.exited;
}

async function stop(p) {
  if (p.exited) return p.exited;
  p.proc.kill('SIGTERM');
  try {
    return await exitOf(p, 5000);
  } catch (e) {
    p.proc.kill('SIGKILL');
    return { code: null, signal: 'SIGKILL (did not stop on SIGTERM)' };
  }
}

// ---- The page --------------------------------------------------------------------------------

let context = null;
let base = null; // http://127.0.0.1:PORT
let signalUrl = null;

// A tab on zeroq.html in @p room, in it; its console goes to logs/page-ROOM.log.
async function joinedPage(room) {
  const page = await context.newPage();
  const file = join(logs, `page-${room}.log`);
  page.on('console', (m) => appendFileSync(file, `${m.text()}\n`));
  page.on('pageerror', (e) => appendFileSync(file, `PAGE ERROR ${e.message}\n`));
  await page.goto(`${base}/zeroq.html?room=${room}`);
  await page.waitForFunction(() => window.zqTest !== undefined);
  await page.evaluate(() => window.zqTest.join());
  return page;
}

function zqArgs(room, ...args) {
  return [...args, '--signal', signalUrl, '--room', room, '--verbose'];
}

async function exitedZero(p) {
  const ex = await exitOf(p);
  assert(ex.code === 0, `${p.name} exited ${JSON.stringify(ex)}: ${p.err.slice(-3).join(' | ')}`);
}

// ---- The checks ------------------------------------------------------------------------------

// zq pub joins after the page: the page dials (Chromium offers, zq answers).
async function pubReachesThePage() {
  const room = 'zeroq-pub';
  const page = await joinedPage(room);
  const pub = start('pub', zqArgs(room, 'pub', 'news.eu', '{"headline":"hi","n":[1,2]}'));
  const env = await page.evaluate(() => window.zqTest.waitEnvelope('news.eu'));
  await exitedZero(pub);
  const counts = await page.evaluate(() => window.zqTest.counts);
  await page.close();
  assert(same(env.payload, { headline: 'hi', n: [1, 2] }),
    `payload ${JSON.stringify(env.payload)}`);
  assert(typeof env.id === 'string' && /^[0-9a-f-]{36}$/.test(env.id), `id ${env.id}`);
  assert(Number.isInteger(env.timestamp) && env.timestamp > 1.5e12,
    `timestamp ${env.timestamp} is not Date.now()-like`);
  assert(env.retryCount === 0 && Number.isInteger(env.seq), `retryCount ${env.retryCount}`);
  return `envelope ${JSON.stringify(env)}; zq's hello dropped as ZeroQ drops it: ` +
    `${counts.hello}, pongs ${counts.pongs}`;
}

// zq sub is in the room first and dials the page (zq offers as a full ICE agent). The page's
// first envelope comes twice (ZeroQ sends along every edge; a resend has the same id and
// retryCount): sub prints it once.
async function pageReachesSub() {
  const room = 'zeroq-sub';
  const sub = start('sub', zqArgs(room, 'sub', 'sensors.#', '--count', '2'));
  await waitFor(sub, () => sub.err.some((l) => l.includes('in room')), 'no room');
  const page = await joinedPage(room);
  await page.evaluate(() => window.zqTest.waitOpen());
  const first = await page.evaluate(() => {
    window.zqTest.publish('weather', 'not for sensors.#');
    const e = window.zqTest.publish('sensors.kitchen.temp', 21.5);
    window.zqTest.publish('sensors.kitchen.temp', 21.5, e.id);
    window.zqTest.publish('sensors.hall.temp', { c: 19 });
    return e;
  });
  await exitedZero(sub);
  await page.close();
  const want = ['sensors.kitchen.temp 21.5', 'sensors.hall.temp {"c":19}'];
  assert(same(sub.out, want), `sub printed ${JSON.stringify(sub.out)}`);
  return `sub printed ${JSON.stringify(sub.out)} (envelope ${first.id} sent twice)`;
}

// ZeroQ's request: the page publishes on the service with payload.replyTo; zq rep answers with
// an envelope on topic replyTo.
async function pageRequestAnsweredByRep() {
  const room = 'zeroq-rep';
  const double = 'sed -n \'s/.*"n":\\([0-9-]*\\).*/\\1/p\' | awk \'{ print $1 * 2 }\'';
  const rep = start('rep', zqArgs(room, 'rep', 'math.double', '--exec', double));
  await waitFor(rep, () => rep.err.some((l) => l.includes('in room')), 'no room');
  const page = await joinedPage(room);
  await page.evaluate(() => window.zqTest.waitOpen());
  const { replyTo, env } = await page.evaluate(
    () => window.zqTest.request('math.double', { n: 21 }));
  await stop(rep);
  await page.close();
  assert(env.topic === replyTo, `reply on ${env.topic}, not ${replyTo}`);
  assert(env.payload === 42, `reply payload ${JSON.stringify(env.payload)}`);
  return `reply ${JSON.stringify(env)}`;
}

// ZeroQ's enqueue is a broadcast envelope on the queue's name: zq work takes it once, even sent
// twice, and acks it without a frame (ZeroQ has none).
async function pageJobProcessedOnceByWork() {
  const room = 'zeroq-work';
  const work = start('work', zqArgs(room, 'work', 'jobs', '--count', '2'));
  await waitFor(work, () => work.err.some((l) => l.includes('in room')), 'no room');
  const page = await joinedPage(room);
  await page.evaluate(() => window.zqTest.waitOpen());
  const ids = await page.evaluate(() => {
    const a = window.zqTest.publish('jobs', { job: 1 });
    window.zqTest.publish('jobs', { job: 1 }, a.id);
    const b = window.zqTest.publish('jobs', { job: 2 });
    return [a.id, b.id];
  });
  await exitedZero(work);
  await page.close();
  const want = [`${ids[0]} {"job":1}`, `${ids[1]} {"job":2}`];
  assert(same(work.out, want), `work printed ${JSON.stringify(work.out)}`);
  return `work printed ${JSON.stringify(work.out)}`;
}

// ---- Main ------------------------------------------------------------------------------------

function printLogs() {
  printTails(logs, ['signal', 'pub', 'sub', 'rep', 'work', 'page-zeroq-pub', 'page-zeroq-sub',
    'page-zeroq-rep', 'page-zeroq-work'], 40);
}

async function shutdown() {
  if (context) await context.close().catch(() => {});
  for (const p of [...children]) await stop(p);
}

async function main() {
  console.log(`browser: ${CHROMIUM}, zq ${zq}`);
  const signal = start('signal',
    ['signal', '--listen', '127.0.0.1:0', '--web', join(here, 'page')]);
  const listening = /^zq signal: listening on http:\/\/127\.0\.0\.1:(\d+) /;
  await waitFor(signal, () => signal.out.some((l) => listening.test(l)), 'no listening line');
  const port = signal.out.map((l) => l.match(listening)).find(Boolean)[1];
  base = `http://127.0.0.1:${port}`;
  signalUrl = `ws://127.0.0.1:${port}/ws`;
  context = await launchChromium(profile, logs);
  console.log(`browser: Chromium ${context.browser() ? context.browser().version() : ''} ` +
    `serving ${base}/zeroq.html; logs in ${logs}`);
  await check('Chromium runs with the interop flags', () => flagsInForce(context));
  await check('zq pub -> the page receives the ZeroQ envelope (topic, payload)', pubReachesThePage);
  await check('the page publishes an envelope (twice) -> zq sub prints it once', pageReachesSub);
  await check('the page sends a ZeroQ request (payload.replyTo) -> zq rep answers on replyTo',
    pageRequestAnsweredByRep);
  await check('the page enqueues (broadcast on a queue name, twice) -> zq work does it once',
    pageJobProcessedOnceByWork);
  await finish(checks, { shutdown, printLogs, logs, temp: [profile] });
}

drive(main, { printLogs, shutdown });
