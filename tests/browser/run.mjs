// zq against headless Chromium's own WebRTC (issue 5): `zq signal` serves page/echo.html and
// relays signalling; `zq echo` answers or dials; the page, driven by playwright-core, checks
// that data channels open both ways and echo every size byte for byte.
//
//   node run.mjs path/to/zq        (run.sh does this inside `unshare -n`, loopback only)
//
// Each check prints PASS/FAIL/SKIP and its figures; the exit status is non-zero if any check
// did not pass. Times are printed, never asserted. Environment:
//   ZQ_BROWSER_KEEP=1      keep the log directory even when everything passed
//   ZQ_BROWSER_PCAP=1      also capture loopback with dumpcap (tshark's) into the log directory
//   ZQ_BROWSER_CHROMIUM_LOG=1   Chromium's own WebRTC log into the log directory
//   ZQ_BROWSER_LAN=1       Chromium with its WebRTC defaults, as on a user's LAN: host candidates
//                          hidden behind mDNS names, no loopback; zq on 192.0.2.1, an interface
//                          run.sh adds to the namespace (browser_chromium_lan). The two offer
//                          directions, each with zq as a full and as a lite ICE agent, no reloads
import { spawn } from 'node:child_process';
import { mkdtempSync, appendFileSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CHROMIUM, flagsInForce, launchChromium } from '../support/chromium.mjs';
import { Checks, assert, drive, finish, keepLines, printTails, stamp } from '../support/report.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const zq = process.argv[2] ? resolve(process.argv[2]) : null;
if (!zq || !existsSync(zq)) {
  console.error('usage: node run.mjs path/to/zq');
  process.exit(2);
}
const SIZES = [0, 1, 1000, 16383, 16384, 65535, 65536, 131072]; // + the negotiated maximum
const EXPECTED_MAX = 262144; // zq echo's a=max-message-size
const RELOADS = 5; // more than ZQ_NODE_MAX_PEERS (4): gone peers must give their slot back

const LAN = process.env.ZQ_BROWSER_LAN === '1';
const HOST = LAN ? '192.0.2.1' : '127.0.0.1'; // tests/support/lan.sh's address
const ROOMS = LAN ? ['page-dials', 'zq-dials', 'page-dials-lite', 'zq-dials-lite'] :
  ['page-dials', 'zq-dials', 'no-candidates'];
const logs = mkdtempSync(join(tmpdir(), 'zq-browser-logs-'));
const profile = mkdtempSync(join(tmpdir(), 'zq-browser-profile-'));

// ---- Results ---------------------------------------------------------------------------------

const checks = new Checks('browser', { skips: true });
const { check, skip } = checks;
const figures = [];

function figure(what, value) {
  figures.push(`${what}: ${value}`);
}

// ---- Processes -------------------------------------------------------------------------------

const children = new Set();

// A child whose output lines are kept and saved to logs/NAME.log.
function start(name, args) {
  const file = join(logs, `${name}.log`);
  const proc = spawn(zq, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const p = { name, proc, lines: [], waiters: [], exited: null };
  keepLines(proc, file, p.lines, () => {
    for (const w of p.waiters.splice(0)) w();
  });
  proc.on('exit', (code, signal) => {
    p.exited = { code, signal };
    children.delete(p);
    for (const w of p.waiters.splice(0)) w();
  });
  children.add(p);
  return p;
}

async function waitLine(p, re, ms = 10000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const line = p.lines.find((l) => re.test(l));
    if (line) return line.match(re);
    if (p.exited) throw new Error(`${p.name} exited (${JSON.stringify(p.exited)}) before ${re}`);
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`${p.name} printed no ${re} in ${ms} ms`);
    await new Promise((r) => {
      p.waiters.push(r);
      setTimeout(r, Math.min(left, 200));
    });
  }
}

async function stop(p) {
  if (p.exited) return p.exited;
  p.proc.kill('SIGTERM');
  const deadline = Date.now() + 5000;
  while (!p.exited && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  if (!p.exited) {
    p.proc.kill('SIGKILL');
    await new Promise((r) => p.proc.once('exit', r));
    return { code: null, signal: 'SIGKILL (did not stop on SIGTERM)' };
  }
  return p.exited;
}

// ---- Chromium --------------------------------------------------------------------------------

let context = null;
let base = null; // http://127.0.0.1:PORT

// A fresh tab on echo.html with the given query; its console goes to logs/page-ROOM.log.
async function openPage(room, query) {
  const page = await context.newPage();
  const file = join(logs, `page-${room}.log`);
  page.on('console', (m) => appendFileSync(file, `${stamp()} ${m.text()}\n`));
  page.on('pageerror', (e) => appendFileSync(file, `${stamp()} PAGE ERROR ${e.message}\n`));
  await page.goto(`${base}/echo.html?${query}`);
  await page.waitForFunction(() => window.zqTest !== undefined);
  return page;
}

// ---- The checks shared by every direction ----------------------------------------------------

// zq echo's line for a peer whose channel opened, with its own timing and the candidate types
// of its path ("412 ms over host -> prflx") when it prints them.
function peerConnected(id) {
  return new RegExp(`^zq echo: peer ${id} connected( in (.*))?$`);
}

async function opened(page, echo, who, wantRole) {
  const open = await page.evaluate(() => window.zqTest.waitOpen(20000));
  const id = await page.evaluate(() => window.zqTest.id);
  assert(open.role === wantRole, `the page is the ${open.role}, expected the ${wantRole}`);
  assert(open.label === who.room, `channel label '${open.label}', expected '${who.room}'`);
  const [, , zqSide] = await waitLine(echo, peerConnected(id), 5000);
  figure(`${who.tag} join->open`, `${open.ms} ms`);
  if (zqSide) figure(`${who.tag} zq echo's own count`, zqSide);
  figure(`${who.tag} max message size`, open.maxMessageSize);
  figure(`${who.tag} selected pair (Chromium's view)`,
    open.pair ? `local ${open.pair.local}, remote ${open.pair.remote}` : 'none');
  if (who.noCandidates) {
    assert(open.candidatesSent === 0, `the page sent ${open.candidatesSent} ice_candidate frames`);
  }
  if (LAN) figure(`${who.tag} Chromium's candidates`, await hiddenAddresses(page));
  return `${open.ms} ms join->open, max-message-size ${open.maxMessageSize}, ` +
    `pair ${open.pair ? `${open.pair.local} -> ${open.pair.remote}` : '?'}, ` +
    `ice_candidate frames sent ${open.candidatesSent}, received ${open.candidatesReceived}`;
}

// Chromium with its defaults names its host candidates <uuid>.local (or sends none): no
// candidate line it produced may hold an IP address. Returns what it produced.
async function hiddenAddresses(page) {
  const lines = await page.evaluate(() => window.zqTest.lines);
  const local = lines.filter((l) => l.includes('local candidate'))
    .map((l) => l.replace(/^.*candidate[^:]*: /, ''));
  const offerOrAnswer = lines.filter((l) => /local (offer|answer):/.test(l)).join('\n');
  const inSdp = [...offerOrAnswer.matchAll(/a=candidate:(\S+ \S+ \S+ \S+ \S+)/g)].map((m) => m[1]);
  const addresses = [...local, ...inSdp].map((c) => c.split(' ')[4]).filter(Boolean);
  const plain = addresses.filter((a) => !a.endsWith('.local'));
  assert(plain.length === 0, `Chromium showed its address: ${plain.join(', ')}`);
  return addresses.length ? `${addresses.length}, all mDNS names (${addresses[0]} ...)` : 'none';
}

async function sequence(page, tag, n) {
  const r = await page.evaluate((k) => window.zqTest.sequence(k), n);
  assert(r.ok, r.detail);
  figure(`${tag} ${n} text messages round trip`, `${r.ms} ms`);
  return `${r.ms} ms for ${n}`;
}

async function sizes(page, who) {
  const max = await page.evaluate(() => window.zqTest.maxMessageSize);
  const all = max > 0 ? [...SIZES, max] : SIZES;
  await check(`${who.tag}: negotiated max message size is ${EXPECTED_MAX}`, () => {
    assert(max === EXPECTED_MAX, `pc.sctp.maxMessageSize is ${max}`);
    return `${max}`;
  });
  let stuck = false; // after one echo that never came, the rest would only wait out theirs
  for (const size of all) {
    for (const kind of ['text', 'binary']) {
      const name = `${who.tag}: ${kind} ${size} B echoed byte for byte`;
      if (stuck) {
        skip(name, 'an earlier echo never came back');
        continue;
      }
      stuck = !await check(name, async () => {
        const r = await page.evaluate(([s, k]) => window.zqTest.roundTrip(s, k), [size, kind]);
        assert(r.ok, r.detail);
        return `${r.ms} ms`;
      }) && checks.lastFailure.includes('timed out');
    }
  }
}

async function closeByCommand(page, who) {
  return check(`${who.tag}: 'zq-echo close' closes the channel (page sees onclose)`, async () => {
    const r = await page.evaluate(() => window.zqTest.closeByCommand(10000));
    assert(!r.echoed, 'the close command was echoed back');
    figure(`${who.tag} close command -> onclose`, `${r.ms} ms`);
    return `onclose ${r.ms} ms after the command`;
  });
}

async function stopEcho(echo, who) {
  await check(`${who.tag}: zq echo stops cleanly on SIGTERM`, async () => {
    const ex = await stop(echo);
    assert(ex.code === 0, `exit ${JSON.stringify(ex)}`);
    const m = echo.lines.map((l) => l.match(/echoed (\d+) messages \((\d+) bytes\)/)).find(Boolean);
    return m ? `echoed ${m[1]} messages, ${m[2]} bytes` : 'no totals line';
  });
}

// On the LAN, zq echo offers only its LAN address, as a device would: Chromium would take a
// loopback candidate that zq offered (it only never gathers one itself).
function startEcho(who) {
  return start(`echo-${who.room}`, ['echo', '--signal', `${base.replace('http', 'ws')}/ws`,
    '--room', who.room, '--ice', who.ice, ...(LAN ? ['--bind', HOST] : [])]);
}

// Who is who in a group: zq's ICE mode (full, as zq echo runs by default, or lite) names it.
function party(tag, room, ice) {
  const lite = ice === 'lite';
  return { tag: lite ? `${tag} (zq lite)` : tag, room: lite ? `${room}-lite` : room, ice };
}

// ---- a, c, d: the page is in the room first and dials zq echo -------------------------------

async function pageDials(ice = 'full') {
  const who = party('page dials', 'page-dials', ice);
  const page = await openPage(who.room, `room=${who.room}`);
  await page.evaluate(() => window.zqTest.join());
  const echo = startEcho(who);
  if (await check(`${who.tag}: channel opens (Chromium offers, zq answers as ${ice} ICE agent)`,
    () => opened(page, echo, who, 'offerer'))) {
    await check(`${who.tag}: 1000 text messages round trip in order`, () => sequence(page, who.tag, 1000));
    await sizes(page, who);
    await closeByCommand(page, who);
  } else {
    skip(`${who.tag}: messages, sizes and close`, 'the channel never opened');
  }
  await stopEcho(echo, who);
  await page.close();
}

// ---- b, c, e, d: zq echo is in the room first and dials the page ----------------------------

async function zqDials(ice = 'full') {
  const who = party('zq dials', 'zq-dials', ice);
  const echo = startEcho(who);
  await waitLine(echo, /^zq echo: in room /);
  const page = await openPage(who.room, `room=${who.room}`);
  await page.evaluate(() => window.zqTest.join());
  if (await check(`${who.tag}: channel opens (zq offers as ${ice} ICE agent, Chromium answers)`,
    () => opened(page, echo, who, 'answerer'))) {
    await check(`${who.tag}: 1000 text messages round trip in order`, () => sequence(page, who.tag, 1000));
    await sizes(page, who);
    if (!LAN) await reloads(page, echo, who);
    await closeByCommand(page, who);
  } else {
    skip(`${who.tag}: messages, sizes, reload and close`, 'the channel never opened');
  }
  await stopEcho(echo, who);
  await page.close();
}

// e: each reload is a new member with a new id; zq echo hears peer_left, then peer_joined.
async function reloads(page, echo, who) {
  let id = await page.evaluate(() => window.zqTest.id);
  for (let i = 1; i <= RELOADS; i++) {
    const ok = await check(`${who.tag}: reload ${i} of ${RELOADS} reconnects and echoes`, async () => {
      await page.reload();
      await page.waitForFunction(() => window.zqTest !== undefined);
      const fresh = await page.evaluate(() => window.zqTest.join());
      assert(fresh !== id, `the reloaded page has the old id ${id}`);
      id = fresh;
      const open = await page.evaluate(() => window.zqTest.waitOpen(20000));
      await waitLine(echo, peerConnected(id), 5000);
      const seq = await page.evaluate(() => window.zqTest.sequence(100));
      assert(seq.ok, seq.detail);
      const big = await page.evaluate((s) => window.zqTest.roundTrip(s, 'binary'), EXPECTED_MAX);
      assert(big.ok, `${EXPECTED_MAX} B binary: ${big.detail}`);
      figure(`${who.tag} reload ${i} join->open`, `${open.ms} ms (page is the ${open.role})`);
      return `${open.ms} ms join->open as ${open.role}; 100 messages ${seq.ms} ms`;
    });
    if (!ok) break;
  }
}

// ---- f: a Chromium offer without any candidate ----------------------------------------------

async function noCandidates() {
  const who = { tag: 'no-candidate offer', room: 'no-candidates', noCandidates: true, ice: 'full' };
  const page = await openPage(who.room, `room=${who.room}&nocandidates=1`);
  await page.evaluate(() => window.zqTest.join());
  const echo = startEcho(who);
  if (await check(`${who.tag}: channel opens (zq learns Chromium peer-reflexive)`,
    () => opened(page, echo, who, 'offerer'))) {
    await check(`${who.tag}: the offer held no candidate`, async () => {
      const lines = await page.evaluate(() => window.zqTest.lines);
      const offer = lines.find((l) => l.includes('local offer:'));
      assert(offer && !/a=candidate/.test(offer), 'the offer sent had a candidate line');
    });
    await check(`${who.tag}: 100 text messages round trip in order`, () => sequence(page, who.tag, 100));
    for (const kind of ['text', 'binary']) {
      await check(`${who.tag}: ${kind} ${EXPECTED_MAX} B echoed byte for byte`, async () => {
        const r = await page.evaluate(([s, k]) => window.zqTest.roundTrip(s, k), [EXPECTED_MAX, kind]);
        assert(r.ok, r.detail);
        return `${r.ms} ms`;
      });
    }
  } else {
    skip(`${who.tag}: messages`, 'the channel never opened');
  }
  await stopEcho(echo, who);
  await page.close();
}

// ---- Main ------------------------------------------------------------------------------------

function printLogs() {
  printTails(logs, ['signal', ...ROOMS.flatMap((r) => [`echo-${r}`, `page-${r}`])], 60);
}

async function shutdown() {
  if (context) await context.close().catch(() => {});
  for (const p of [...children]) await stop(p);
}

async function main() {
  console.log(`browser: ${CHROMIUM}, playwright-core ${JSON.parse(readFileSync(
    join(here, 'node_modules/playwright-core/package.json'), 'utf8')).version}, zq ${zq}`);
  let pcap = null;
  if (process.env.ZQ_BROWSER_PCAP) {
    pcap = spawn('dumpcap', ['-q', '-i', 'lo', '-w', join(logs, 'lo.pcapng')], { stdio: 'ignore' });
    pcap.on('error', (e) => console.log(`browser: no capture: dumpcap: ${e.message}`));
    await new Promise((r) => setTimeout(r, 1000));
  }

  // In LAN mode HOST is the test namespace's own 192.0.2.1: beyond loopback, so --open.
  const open = HOST.startsWith('127.') ? [] : ['--open'];
  const signal = start('signal',
    ['signal', '--listen', `${HOST}:0`, ...open, '--web', join(here, 'page')]);
  const [, port] = await waitLine(signal, /^zq signal: listening on http:\/\/[0-9.]+:(\d+) /);
  base = `http://${HOST}:${port}`;
  context = await launchChromium(profile, logs, [], { webrtcDefaults: LAN });
  console.log(`browser: Chromium ${context.browser() ? context.browser().version() : ''} ` +
    `serving ${base}/echo.html; logs in ${logs}`);
  await check(LAN ? "Chromium runs with its WebRTC defaults (mDNS names, no loopback)" :
    'Chromium runs with the interop flags (one --disable-features, ours, last)',
  () => flagsInForce(context, { webrtcDefaults: LAN }));

  const lite = (group) => Object.defineProperty(() => group('lite'), 'name', { value: `${group.name} (lite)` });
  for (const group of LAN ? [pageDials, zqDials, lite(pageDials), lite(zqDials)] :
    [pageDials, zqDials, noCandidates]) {
    try {
      await group();
    } catch (e) {
      checks.failed++;
      console.log(`FAIL ${group.name}: ${e.message}`);
    }
  }

  await finish(checks, { shutdown, printLogs, logs, temp: [profile], keep: pcap !== null,
    before: () => {
      if (pcap) pcap.kill('SIGTERM');
      console.log('\nfigures (measured, never asserted):');
      for (const f of figures) console.log(`  ${f}`);
    } });
}

drive(main, { printLogs, shutdown });
