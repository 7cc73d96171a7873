// The Chromium columns of scripts/bench broker and scripts/bench open: headless Chromium's own
// WebRTC (dcSCTP + BoringSSL), measured in the same run as zq's C benches, printed as Markdown
// tables beside zq's numbers (given on the command line) with ratios.
//
//   node bench.mjs msgs [--runs 3] [--seconds 2] [--zq-raw N] [--zq-qos0 N]
//       Chromium <-> Chromium, two RTCPeerConnections in one page: 64-byte text messages/s
//       delivered to the receiving channel's onmessage, no broker.
//   node bench.mjs open --zq PATH [--opens 10] [--runs 3] [--seconds 5]
//                       [--zq-open-median MS --zq-open-p90 MS --zq-open-n N]
//       Offer -> open channel: Chromium <-> Chromium in one page, and a page dialing `zq echo`
//       through `zq signal` (tests/browser/page/echo.html, window.zqTest.waitOpen()); then bulk
//       throughput, 16 KiB binary messages echoed: by `zq echo`, and by a second peer
//       connection in the same page.
//
// scripts/bench runs this inside `unshare -n` with only loopback up, as tests/browser/run.sh
// does, so every candidate is 127.0.0.1. Uses playwright-core from tests/browser/node_modules
// (scripts/setup test runs npm ci there). Chromium's flags are tests/browser/run.mjs's.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '../..');
const require = createRequire(join(repo, 'tests/browser/package.json'));
const { chromium } = require('playwright-core');

const CHROMIUM = process.env.ZQ_CHROMIUM || '/usr/bin/chromium';
const PAYLOAD = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZab'; // 64 bytes
const BULK_MESSAGE = 16 * 1024;

// ---- Arguments -------------------------------------------------------------------------------

const mode = process.argv[2];
const opts = {};
for (let i = 3; i < process.argv.length; i += 2) {
  opts[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
}
const num = (k, d) => (opts[k] !== undefined ? Number(opts[k]) : d);

// ---- Statistics ------------------------------------------------------------------------------

function sorted(v) {
  return [...v].sort((a, b) => a - b);
}
function median(v) {
  const s = sorted(v);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}
// Nearest rank, as bench_open.c.
function quantile(v, q) {
  const s = sorted(v);
  const rank = Math.min(s.length, Math.max(1, Math.ceil(q * s.length)));
  return s[rank - 1];
}
const fmt = (x, d = 0) => (x === null || x === undefined || Number.isNaN(x) ? '—' : x.toFixed(d));
const ratio = (a, b) => (a && b ? (a / b).toFixed(2) : '—');

// ---- Chromium (tests/browser/run.mjs's flags) --------------------------------------------------

// playwright-core 1.61.1's own --disable-features list; Chromium honours only the last
// --disable-features, so ours repeats it and adds WebRtcHideLocalIpsWithMdns (else host
// candidates are mDNS names). Kept in step with tests/browser/run.mjs.
const PLAYWRIGHT_DISABLED = [
  'AvoidUnnecessaryBeforeUnloadCheckSync', 'BoundaryEventDispatchTracksNodeRemoval',
  'DestroyProfileOnBrowserClose', 'DialMediaRouteProvider', 'GlobalMediaControls',
  'HttpsUpgrades', 'LensOverlay', 'MediaRouter', 'PaintHolding', 'ThirdPartyStoragePartitioning',
  'Translate', 'AutoDeElevate', 'RenderDocument', 'OptimizationHints', 'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
];

async function launch() {
  const profile = mkdtempSync(join(tmpdir(), 'zq-bench-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--no-proxy-server', '--allow-loopback-in-peer-connection',
      // With a media permission Chromium gathers on every interface, loopback included;
      // without one only on the default route's, and the namespace has no route: no
      // candidates, and the Chromium <-> Chromium pair never connects (Chromium 156).
      '--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream',
      `--disable-features=${[...PLAYWRIGHT_DISABLED, 'WebRtcHideLocalIpsWithMdns'].join(',')}`,
    ],
  });
  const version = context.browser() ? context.browser().version() : '';
  return { context, profile, version };
}

// ---- In the page: two peer connections, signalled directly -----------------------------------

// Installed once per page as window.zqBench (page.evaluate of a function's source keeps this
// file the one place the page code lives).
function installPageBench() {
  const ICE = { iceServers: [] };

  // Two RTCPeerConnections, candidates and descriptions handed over in the page; the clock
  // starts just before createOffer() (after createDataChannel(), which only adds the
  // m=application line) and stops at each side's open: the offerer's channel onopen (DCEP ACK
  // received), the answerer's ondatachannel (DCEP OPEN received, the channel open).
  async function pair() {
    // See launch(). Only a secure page has mediaDevices: not msgs' about:blank, which
    // scripts/bench runs in the host's namespace, where Chromium gathers without it.
    if (navigator.mediaDevices) {
      const media = await navigator.mediaDevices.getUserMedia({ audio: true });
      media.getTracks().forEach((t) => t.stop());
    }
    const a = new RTCPeerConnection(ICE);
    const b = new RTCPeerConnection(ICE);
    const pending = { a: [], b: [] };
    const hand = (to, key) => (e) => {
      if (!e.candidate) return;
      if (to.remoteDescription) to.addIceCandidate(e.candidate).catch(() => {});
      else pending[key].push(e.candidate);
    };
    a.onicecandidate = hand(b, 'b');
    b.onicecandidate = hand(a, 'a');
    const flush = async (pc, key) => {
      for (const c of pending[key].splice(0)) await pc.addIceCandidate(c);
    };
    const dca = a.createDataChannel('bench');
    dca.binaryType = 'arraybuffer';
    let openA = 0;
    let openB = 0;
    const aOpen = new Promise((r) => { dca.onopen = () => { openA = performance.now(); r(); }; });
    const bOpen = new Promise((r) => {
      b.ondatachannel = (e) => {
        openB = performance.now();
        e.channel.binaryType = 'arraybuffer';
        r(e.channel);
      };
    });
    const t0 = performance.now();
    await a.setLocalDescription(await a.createOffer());
    await b.setRemoteDescription(a.localDescription);
    await flush(b, 'b');
    await b.setLocalDescription(await b.createAnswer());
    await a.setRemoteDescription(b.localDescription);
    await flush(a, 'a');
    const [, dcb] = await Promise.all([aOpen, bOpen]);
    return {
      a, b, dca, dcb,
      ms: { both: Math.max(openA, openB) - t0, offerer: openA - t0, answerer: openB - t0 },
    };
  }

  // 64-byte text messages a -> b while a's buffer holds under 1 MiB; delivered/s at b.
  async function messageRate(dca, dcb, payload, seconds) {
    let got = 0;
    let stop = false;
    dcb.onmessage = () => { got++; };
    dca.bufferedAmountLowThreshold = 256 * 1024;
    const fill = () => {
      while (!stop && dca.bufferedAmount < 1024 * 1024) dca.send(payload);
    };
    dca.onbufferedamountlow = fill;
    const t0 = performance.now();
    fill();
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const n = got;
    const t1 = performance.now();
    stop = true;
    dca.onbufferedamountlow = null;
    await new Promise((r) => setTimeout(r, 300)); // what is in flight drains
    return n / ((t1 - t0) / 1000);
  }

  // Binary messages of size bytes to an echo; at most 1 MiB sent and not yet back. MB/s
  // (10^6 bytes) of payload echoed back, one way.
  async function bulkEcho(dc, size, seconds) {
    const msg = new Uint8Array(size).fill(0x5a).buffer;
    let sent = 0;
    let back = 0;
    let stop = false;
    const inFlight = 1024 * 1024; // sent and not yet back
    const fill = () => {
      while (!stop && sent - back < inFlight) {
        dc.send(msg);
        sent += size;
      }
    };
    const previous = dc.onmessage;
    dc.onmessage = (e) => {
      back += e.data.byteLength;
      fill();
    };
    const t0 = performance.now();
    fill();
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const bytes = back;
    const t1 = performance.now();
    stop = true;
    // Let the echoes in flight come back before the channel is used again.
    const deadline = performance.now() + 3000;
    while (back < sent && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    dc.onmessage = previous;
    return bytes / 1e6 / ((t1 - t0) / 1000);
  }

  let current = null;
  window.zqBench = {
    async open() {
      if (current) { current.a.close(); current.b.close(); }
      current = await pair();
      return current.ms;
    },
    async messageRate(payload, seconds) {
      return messageRate(current.dca, current.dcb, payload, seconds);
    },
    async bulkLocal(size, seconds) {
      current.dcb.onmessage = (e) => current.dcb.send(e.data); // the second peer echoes
      return bulkEcho(current.dca, size, seconds);
    },
    // The zq echo channel of tests/browser/page/echo.js (its script-level `channel`).
    async bulkZq(size, seconds) {
      // eslint-disable-next-line no-undef
      return bulkEcho(channel.dc, size, seconds);
    },
    close() {
      if (current) { current.a.close(); current.b.close(); current = null; }
    },
  };
}

async function benchPage(context, url) {
  const page = await context.newPage();
  page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
  await page.goto(url);
  await page.evaluate(`(${installPageBench.toString()})()`);
  return page;
}

// ---- msgs ------------------------------------------------------------------------------------

async function msgs() {
  const runs = num('runs', 3);
  const seconds = num('seconds', 2);
  const { context, profile, version } = await launch();
  const rates = [];
  try {
    const page = await benchPage(context, 'about:blank');
    for (let i = 0; i < runs; i++) {
      await page.evaluate(() => window.zqBench.open()); // a fresh pair per run
      rates.push(await page.evaluate(([p, s]) => window.zqBench.messageRate(p, s),
        [PAYLOAD, seconds]));
    }
    await page.evaluate(() => window.zqBench.close());
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
  const chrome = median(rates);
  const zqRaw = num('zq-raw', null);
  const zqQos0 = num('zq-qos0', null);
  console.log(`| 64-byte messages/s, both ends in one process | zq ↔ zq | Chromium ${version} ↔ ` +
    'Chromium (live, this run) | zq / Chromium |');
  console.log('|---|---:|---:|---:|');
  console.log(`| data channel only (zq: node_send → node_read; Chromium: send → onmessage) | ` +
    `${fmt(zqRaw)} | ${fmt(chrome)} | ${ratio(zqRaw, chrome)} |`);
  console.log(`| zq through the broker (QoS 0 pub/sub, delivered) vs Chromium's bare channel | ` +
    `${fmt(zqQos0)} | ${fmt(chrome)} | ${ratio(zqQos0, chrome)} |`);
  console.log(`\nChromium: two RTCPeerConnections in one page (one renderer; its network thread ` +
    `runs both dcSCTP associations), text messages while bufferedAmount < 1 MiB, counted in ` +
    `onmessage over ${seconds} s; median of ${runs} runs, each on a fresh pair: ` +
    `${rates.map((r) => fmt(r)).join(', ')}.`);
}

// ---- open ------------------------------------------------------------------------------------

const children = new Set();

function startZq(zq, args) {
  const proc = spawn(zq, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const p = { proc, lines: [], exited: false };
  const take = (chunk) => { for (const l of chunk.toString().split('\n')) if (l) p.lines.push(l); };
  proc.stdout.on('data', take);
  proc.stderr.on('data', take);
  proc.on('exit', () => { p.exited = true; children.delete(p); });
  children.add(p);
  return p;
}

async function waitLine(p, re, ms = 10000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const line = p.lines.find((l) => re.test(l));
    if (line) return line.match(re);
    if (p.exited) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no ${re} from zq (${p.lines.slice(-3).join(' | ')})`);
}

async function stopZq(p) {
  if (p.exited) return;
  p.proc.kill('SIGTERM');
  const deadline = Date.now() + 3000;
  while (!p.exited && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  if (!p.exited) p.proc.kill('SIGKILL');
}

// The page joins room first, then `zq echo` joins: the page hears peer_joined and dials (its
// offer, zq answers ICE-lite). waitOpen()'s ms runs from peer_joined at the page (createOffer
// follows at once) to the page's onopen (DCEP ACK from zq); the page dials as a ZeroQ peer does.
async function zqPageOpen(context, base, zq, room) {
  const page = await context.newPage();
  await page.goto(`${base}/echo.html?room=${room}`);
  await page.waitForFunction(() => window.zqTest !== undefined);
  await page.evaluate(() => window.zqTest.join());
  const echo = startZq(zq, ['echo', '--signal', `${base.replace('http', 'ws')}/ws`, '--room', room]);
  const open = await page.evaluate(() => window.zqTest.waitOpen(20000));
  const [, own] = await waitLine(echo, /peer \S+ connected \((\d+) ms from offer/, 5000);
  return { page, echo, ms: open.ms, zqOwn: Number(own) };
}

async function open() {
  const zq = opts.zq ? resolve(opts.zq) : null;
  if (!zq || !existsSync(zq)) throw new Error('open needs --zq path/to/zq');
  const opens = num('opens', 10);
  const runs = num('runs', 3);
  const seconds = num('seconds', 5);
  const signal = startZq(zq, ['signal', '--listen', '127.0.0.1:0', '--web',
    join(repo, 'tests/browser/page')]);
  const [, port] = await waitLine(signal, /^zq signal: listening on http:\/\/127\.0\.0\.1:(\d+) /);
  const base = `http://127.0.0.1:${port}`;
  const { context, profile, version } = await launch();
  const local = [];
  const viaZq = [];
  const zqOwn = [];
  const bulkLocal = [];
  const bulkZq = [];
  try {
    const page = await benchPage(context, `${base}/echo.html?room=unused`);
    for (let i = 0; i < opens; i++) {
      local.push((await page.evaluate(() => window.zqBench.open())).both);
      const z = await zqPageOpen(context, base, zq, `open-${i}`);
      viaZq.push(z.ms);
      zqOwn.push(z.zqOwn);
      await stopZq(z.echo);
      await z.page.close();
    }
    // Bulk: one zq echo channel and one local pair, measured in turns so noise hits both.
    const z = await zqPageOpen(context, base, zq, 'bulk');
    await z.page.evaluate(`(${installPageBench.toString()})()`);
    await page.evaluate(() => window.zqBench.open());
    for (let i = 0; i < runs; i++) {
      bulkZq.push(await z.page.evaluate(([s, t]) => window.zqBench.bulkZq(s, t),
        [BULK_MESSAGE, seconds]));
      bulkLocal.push(await page.evaluate(([s, t]) => window.zqBench.bulkLocal(s, t),
        [BULK_MESSAGE, seconds]));
    }
    await stopZq(z.echo);
    await page.evaluate(() => window.zqBench.close());
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
    for (const p of [...children]) await stopZq(p);
  }
  const zqMed = num('zq-open-median', null);
  const zqP90 = num('zq-open-p90', null);
  const lm = median(local);
  const vm = median(viaZq);
  console.log(`| offer → open channel, ms | median | p90 | n | median / Chromium ↔ Chromium |`);
  console.log('|---|---:|---:|---:|---:|');
  console.log(`| zq ↔ zq, one process, in-process signalling (bench_open above) | ${fmt(zqMed, 2)} | ` +
    `${fmt(zqP90, 2)} | ${num('zq-open-n', 50)} | ${ratio(zqMed, lm)} |`);
  console.log(`| Chromium ${version} ↔ Chromium, one page, direct signalling (createOffer → both ` +
    `open) | ${fmt(lm, 1)} | ${fmt(quantile(local, 0.9), 1)} | ${local.length} | 1.00 |`);
  console.log(`| Chromium dials zq echo via zq signal (peer_joined → page's onopen) | ` +
    `${fmt(vm, 1)} | ${fmt(quantile(viaZq, 0.9), 1)} | ${viaZq.length} | ${ratio(vm, lm)} |`);
  console.log(`| ... zq echo's own count (offer received → open) | ${fmt(median(zqOwn))} | ` +
    `${fmt(quantile(zqOwn, 0.9))} | ${zqOwn.length} | |`);
  console.log(`\n- Chromium ↔ Chromium, each: ${local.map((x) => fmt(x, 1)).join(' ')}`);
  console.log(`- Chromium dials zq, each: ${viaZq.join(' ')} (page's whole ms; zq's own: ` +
    `${zqOwn.join(' ')})`);
  const bz = median(bulkZq);
  const bl = median(bulkLocal);
  console.log(`\n| bulk, 16 KiB binary messages echoed, MB/s one way | median of ${runs} × ` +
    `${seconds} s | each run | / Chromium ↔ Chromium |`);
  console.log('|---|---:|---|---:|');
  console.log(`| Chromium page → zq echo → page (zq signal, real UDP) | ${fmt(bz, 1)} | ` +
    `${bulkZq.map((x) => fmt(x, 1)).join(', ')} | ${ratio(bz, bl)} |`);
  console.log(`| Chromium → Chromium → Chromium, two peer connections in one page | ${fmt(bl, 1)} | ` +
    `${bulkLocal.map((x) => fmt(x, 1)).join(', ')} | 1.00 |`);
  console.log(`\nMB = 10^6 bytes of payload that came back; at most 1 MiB sent and not yet back; ` +
    `runs alternate between the two.`);
}

// ---- Main ------------------------------------------------------------------------------------

const main = mode === 'msgs' ? msgs : mode === 'open' ? open : null;
if (!main) {
  console.error('usage: node bench.mjs msgs|open [options] (see the comment at the top)');
  process.exit(2);
}
main().then(() => process.exit(0)).catch(async (e) => {
  console.error(`bench.mjs: ${e.stack || e.message}`);
  for (const p of [...children]) await stopZq(p);
  process.exit(1);
});
