// The Chromium columns of scripts/bench broker, open and browser: headless Chromium's own
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
//   node bench.mjs browser --zq PATH --peer PATH/bench_peer [--runs 3] [--seconds 3]
//                          [--loss 1,5]
//       A page and its peer over one data channel, the peer a zq node (bench/bench_peer.c for
//       one way, `zq echo` for the echo) or a page in a second Chromium, every pair joined
//       through `zq signal` the same way: 64-byte messages/s and 16 KiB MB/s one way, page ->
//       peer and peer -> page, counted at the receiver; the 16 KiB rows again with --loss % of
//       UDP datagrams dropped by nftables; 16 KiB echo throughput.
//
// scripts/bench runs msgs and open in the host's network namespace (a page's own two peer
// connections gather no candidate in `unshare -n`), browser inside `unshare -n` with only
// loopback up, as tests/browser/run.sh does: every candidate is 127.0.0.1 and the loss rules
// touch that namespace only. Uses playwright-core from tests/browser/node_modules (scripts/setup
// test runs npm ci there). Chromium's flags are tests/browser/run.mjs's.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync, readFileSync } from 'node:fs';
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

// For a browser with several pages open at once (browser mode): a page not in front keeps its
// timers at full rate (tests/support/chromium.mjs's NO_BACKGROUND_THROTTLING).
const NO_BACKGROUND_THROTTLING = [
  '--disable-background-timer-throttling', '--disable-renderer-backgrounding',
  '--disable-backgrounding-occluded-windows',
];

async function launch(extra = []) {
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
      ...extra,
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

  // ---- One way (browser mode): the page and its peer (bench_peer, or serve() in a second
  // Chromium) speak the same commands, text messages starting 'zq-bench ' (bench/bench_peer.c);
  // binary messages are data. Each rate is measured at the receiver, on its own clock.

  const FLOOD_LIMIT = 1024 * 1024; // what a sender keeps buffered at most
  const FLOOD_LOW = 256 * 1024;    // bufferedAmountLowThreshold: refill below this
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  // Whether pred() came true within ms.
  async function waitFor(pred, ms) {
    const deadline = performance.now() + ms;
    while (!pred()) {
      if (performance.now() > deadline) return false;
      await sleep(10);
    }
    return true;
  }

  // Sends msg while the channel buffers under 1 MiB (refilled at onbufferedamountlow, so the
  // browser never has to refuse or drop) until stop().
  function flood(dc, msg) {
    let stopped = false;
    let sent = 0;
    dc.bufferedAmountLowThreshold = FLOOD_LOW;
    const fill = () => {
      while (!stopped && dc.bufferedAmount < FLOOD_LIMIT) {
        dc.send(msg);
        sent++;
      }
    };
    dc.onbufferedamountlow = fill;
    fill();
    return {
      stop() { stopped = true; dc.onbufferedamountlow = null; },
      get sent() { return sent; },
    };
  }

  // The page sends binary messages of size bytes for seconds, between two marks; the peer
  // counts them and answers each mark with its counts and clock (microseconds).
  async function toPeer(dc, size, seconds, stallMs) {
    const msg = new Uint8Array(size).fill(0x5a).buffer;
    const marks = [];
    const previous = dc.onmessage;
    dc.onmessage = (e) => {
      if (typeof e.data === 'string' && e.data.startsWith('zq-bench mark ')) {
        const [m, b, us] = e.data.slice('zq-bench mark '.length).split(' ').map(Number);
        marks.push({ m, b, us });
      }
    };
    dc.send('zq-bench mark');
    const f = flood(dc, msg);
    await sleep(seconds * 1000);
    f.stop();
    dc.send('zq-bench mark');
    const ended = await waitFor(() => marks.length === 2, stallMs);
    dc.onmessage = previous;
    if (!ended) {
      return { stalled: true, detail: `${marks.length} of 2 marks back, ${dc.bufferedAmount} ` +
        `bytes still buffered, ${f.sent} messages sent` };
    }
    const dt = (marks[1].us - marks[0].us) / 1e6;
    const got = marks[1].m - marks[0].m;
    return { perS: got / dt, mbS: (marks[1].b - marks[0].b) / 1e6 / dt, sent: f.sent, got };
  }

  // The peer sends binary messages of size bytes for seconds, then 'zq-bench sent N BYTES';
  // the page counts in onmessage from the first data message (its bytes left out) to that.
  async function fromPeer(dc, size, seconds, stallMs) {
    let n = 0;
    let bytes = 0;
    let first = null;
    let done = null;
    const previous = dc.onmessage;
    dc.onmessage = (e) => {
      if (typeof e.data === 'string') {
        if (e.data.startsWith('zq-bench sent ')) {
          const [m] = e.data.slice('zq-bench sent '.length).split(' ').map(Number);
          done = { at: performance.now(), m };
        }
        return;
      }
      if (n === 0) first = { at: performance.now(), bytes: e.data.byteLength };
      n++;
      bytes += e.data.byteLength;
    };
    dc.send(`zq-bench send ${size} ${Math.round(seconds * 1000)}`);
    const ended = await waitFor(() => done, seconds * 1000 + stallMs);
    dc.onmessage = previous;
    if (!ended) return { stalled: true, detail: `no 'sent' from the peer, ${n} messages came` };
    if (!first || n < 2) return { perS: 0, mbS: 0, sent: done.m, got: n };
    const dt = (done.at - first.at) / 1000;
    return { perS: (n - 1) / dt, mbS: (bytes - first.bytes) / 1e6 / dt, sent: done.m, got: n };
  }

  // The Chromium peer: answers the commands as bench_peer does, counts data; with echo on,
  // sends every data message back instead (the round-trip rows).
  const served = { echo: false };
  function serve(dc) {
    let m = 0;
    let b = 0;
    dc.onmessage = (e) => {
      if (typeof e.data === 'string' && e.data.startsWith('zq-bench ')) {
        const w = e.data.split(' ');
        if (w[1] === 'mark') {
          dc.send(`zq-bench mark ${m} ${b} ${Math.round(performance.now() * 1000)}`);
        } else if (w[1] === 'send') {
          const size = Number(w[2]);
          const f = flood(dc, new Uint8Array(size).fill(0xa5).buffer);
          setTimeout(() => {
            f.stop();
            dc.send(`zq-bench sent ${f.sent} ${f.sent * size}`);
          }, Number(w[3]));
        }
        return;
      }
      if (served.echo) {
        dc.send(e.data);
        return;
      }
      m++;
      b += typeof e.data === 'string' ? e.data.length : e.data.byteLength;
    };
  }

  // The DTLS version, suite and role, and the selected pair, of a page's connection (getStats).
  async function transport(pc) {
    const stats = await pc.getStats();
    let t = null;
    stats.forEach((r) => { if (r.type === 'transport') t = r; });
    if (!t) return null;
    const pair = t.selectedCandidatePairId && stats.get(t.selectedCandidatePairId);
    const local = pair && stats.get(pair.localCandidateId);
    const remote = pair && stats.get(pair.remoteCandidateId);
    return {
      tls: t.tlsVersion, cipher: t.dtlsCipher, role: t.dtlsRole,
      pair: local && remote ? `${local.address}:${local.port} → ${remote.address}:${remote.port}` : '',
    };
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
    // echo.js's channel (its script-level `channel`, the one peer of this page's room).
    // eslint-disable-next-line no-undef
    toPeer(size, seconds, stallMs) { return toPeer(channel.dc, size, seconds, stallMs); },
    // eslint-disable-next-line no-undef
    fromPeer(size, seconds, stallMs) { return fromPeer(channel.dc, size, seconds, stallMs); },
    // eslint-disable-next-line no-undef
    serve() { serve(channel.dc); },
    serveEcho(on) { served.echo = on; },
    // eslint-disable-next-line no-undef
    bulkChannel(size, seconds) { return bulkEcho(channel.dc, size, seconds); },
    // eslint-disable-next-line no-undef
    transport() { return transport(peers.get(channel.peerId).pc); },
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
  console.log(`| 64-byte messages/s, both ends in one process | zq ↔ zq, C | Chromium ${version} ` +
    '↔ Chromium, JavaScript in one page (measured, this run) | zq / Chromium |');
  console.log('|---|---:|---:|---:|');
  console.log('| bare data channel: zq\'s C loop (node_send → node_read) against a page\'s ' +
    'JavaScript (send → onmessage); a page ↔ a zq node: scripts/bench browser | ' +
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
const started = []; // every process started, for its last lines on a failure

function startZq(zq, args) {
  const proc = spawn(zq, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const p = { proc, lines: [], exited: false, name: [zq, ...args.slice(0, 1)].join(' ') };
  const take = (chunk) => { for (const l of chunk.toString().split('\n')) if (l) p.lines.push(l); };
  proc.stdout.on('data', take);
  proc.stderr.on('data', take);
  proc.on('exit', () => { p.exited = true; children.delete(p); });
  children.add(p);
  started.push(p);
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
// offer; zq answers as a full ICE agent). waitOpen()'s ms runs from peer_joined at the page (createOffer
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

// ---- browser ---------------------------------------------------------------------------------

// Why the lossy rows cannot run here, or null. Only inside a network namespace of our own
// (loopback its only interface) does this file touch nftables: a rule in the host's namespace
// would drop the machine's own UDP.
function lossUnavailable() {
  const links = readFileSync('/proc/net/dev', 'utf8').split('\n').slice(2)
    .map((l) => l.split(':')[0].trim()).filter(Boolean);
  if (links.length !== 1 || links[0] !== 'lo') {
    return 'not in a network namespace of its own (scripts/bench browser runs in unshare -n), ' +
      'and nftables here would drop the host\'s own UDP';
  }
  if (spawnSync('nft', ['--version']).status !== 0) return 'no nft (apt-get install nftables)';
  return null;
}

const LOSS_TABLE = 'zq_bench_loss';

function nft(args, check = true) {
  const r = spawnSync('nft', args, { encoding: 'utf8' });
  if (check && r.status !== 0) throw new Error(`nft ${args.join(' ')}: ${r.stderr || r.error}`);
  return r.stdout || '';
}

// Drops pct % of UDP datagrams as they arrive at any socket of the namespace: on the input
// hook, so both directions of every flow lose (on output, sendto() fails with EPERM instead,
// which is not loss). As tests/support/echo_env.sh's echo_env_udp_loss, with a counter of all
// UDP datagrams before the drop rule, so the loss actually drawn can be reported.
function setLoss(pct) {
  nft(['delete', 'table', 'inet', LOSS_TABLE], false);
  if (pct === 0) return;
  nft(['add', 'table', 'inet', LOSS_TABLE]);
  nft(['add', 'chain', 'inet', LOSS_TABLE, 'in', '{ type filter hook input priority 0; }']);
  nft(['add', 'rule', 'inet', LOSS_TABLE, 'in', 'meta', 'l4proto', 'udp', 'counter']);
  nft(['add', 'rule', 'inet', LOSS_TABLE, 'in', 'meta', 'l4proto', 'udp', 'numgen', 'random',
    'mod', '100', '<', String(pct), 'counter', 'drop']);
}

// [all UDP datagrams seen, dropped] since setLoss().
function lossCounters() {
  const out = nft(['list', 'table', 'inet', LOSS_TABLE], false);
  const c = [...out.matchAll(/counter packets (\d+)/g)].map((m) => Number(m[1]));
  return c.length === 2 ? c : [0, 0];
}

// A page of browser `context` in room (echo.html), joined; the peer joins after it, so the page
// dials (its offer; a full ICE answer from zq and from Chromium) as zqPageOpen() does.
async function roomPage(context, base, room) {
  const page = await context.newPage();
  page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
  await page.goto(`${base}/echo.html?room=${room}`);
  await page.waitForFunction(() => window.zqTest !== undefined);
  await page.evaluate(`(${installPageBench.toString()})()`);
  await page.evaluate(() => window.zqTest.join());
  return page;
}

const waitOpen = (page) => page.evaluate(() => window.zqTest.waitOpen(20000));

// The peers of the page, each in a process of its own and a room of its own: bench_peer (one
// way, zq's side), a page in a second Chromium (one way and echo, Chromium's side) and zq echo
// (echo, zq's side). The pages on our side are all in the first Chromium. A peer whose cell
// stalled is replaced by a fresh one (new room, new connection) before the next cell.
function browserPeers(zq, peerBin, base, ws, A, B) {
  let rooms = 0;
  const peers = {
    async zq() {
      const room = `bench-zq-${rooms++}`;
      const page = await roomPage(A.context, base, room);
      const proc = startZq(peerBin, ['--signal', ws, '--room', room]);
      await waitOpen(page);
      return { page, async close() { await stopZq(proc); await page.close(); }, proc };
    },
    async chromium() {
      const room = `bench-chromium-${rooms++}`;
      const page = await roomPage(A.context, base, room);
      const other = await roomPage(B.context, base, room);
      await waitOpen(page);
      await waitOpen(other);
      await other.evaluate(() => window.zqBench.serve());
      return { page, other, async close() { await page.close(); await other.close(); } };
    },
    async echo() {
      const page = await roomPage(A.context, base, 'bench-echo');
      const proc = startZq(zq, ['echo', '--signal', ws, '--room', 'bench-echo']);
      await waitOpen(page);
      return { page, proc };
    },
  };
  return peers;
}

// A cell that does not finish this long after its burst is stalled: the association moves no
// data any more (seen with zq's receiver at 1 % loss, bench/README.md).
const STALL_MS = 20000;

async function oneWay(page, dir, size, seconds) {
  return page.evaluate(([d, z, t, stall]) =>
    (d === 'to' ? window.zqBench.toPeer(z, t, stall) : window.zqBench.fromPeer(z, t, stall)),
  [dir, size, seconds, STALL_MS]);
}

async function browserBench() {
  const zq = opts.zq ? resolve(opts.zq) : null;
  const peerBin = opts.peer ? resolve(opts.peer) : null;
  if (!zq || !existsSync(zq) || !peerBin || !existsSync(peerBin)) {
    throw new Error('browser needs --zq path/to/zq --peer path/to/bench_peer');
  }
  const runs = num('runs', 3);
  const seconds = num('seconds', 3);
  const losses = (opts.loss || '1,5').split(',').filter(Boolean).map(Number);
  const noLoss = lossUnavailable();
  const lossy = noLoss === null;
  const signal = startZq(zq, ['signal', '--listen', '127.0.0.1:0', '--web',
    join(repo, 'tests/browser/page')]);
  const [, port] = await waitLine(signal, /^zq signal: listening on http:\/\/127\.0\.0\.1:(\d+) /);
  const base = `http://127.0.0.1:${port}`;
  const ws = `ws://127.0.0.1:${port}/ws`;
  const A = await launch(NO_BACKGROUND_THROTTLING);
  const B = await launch(NO_BACKGROUND_THROTTLING);
  // cells: key -> {zq: [per run, null if it stalled], chromium: [...]}; a run measures every
  // cell of a loss level once, zq then Chromium, so noise hits both.
  const cells = new Map();
  const cell = (key) => {
    if (!cells.has(key)) cells.set(key, { zq: [], chromium: [] });
    return cells.get(key);
  };
  const drawn = new Map(); // loss % -> [seen, dropped]
  const stalls = [];       // what each stall looked like
  const info = {};
  const make = browserPeers(zq, peerBin, base, ws, A, B);
  const live = {};
  try {
    live.zq = await make.zq();
    live.chromium = await make.chromium();
    live.echo = await make.echo();
    info.zq = await live.zq.page.evaluate(() => window.zqBench.transport());
    info.chromium = await live.chromium.page.evaluate(() => window.zqBench.transport());
    info.echo = await live.echo.page.evaluate(() => window.zqBench.transport());
    const levels = [0, ...(lossy ? losses : [])];
    for (const loss of levels) {
      setLossIf(lossy, loss);
      const shapes = loss === 0
        ? [['to', 64], ['from', 64], ['to', BULK_MESSAGE], ['from', BULK_MESSAGE]]
        : [['to', BULK_MESSAGE], ['from', BULK_MESSAGE]];
      for (let i = 0; i < runs; i++) {
        for (const [dir, size] of shapes) {
          const key = `${dir} ${size} ${loss}`;
          for (const who of ['zq', 'chromium']) {
            const r = await oneWay(live[who].page, dir, size, seconds);
            if (r.stalled) {
              cell(key)[who].push(null);
              // bench_peer says on its way out what its receiver and sender hold.
              if (who === 'zq') await stopZq(live.zq.proc);
              const said = who === 'zq'
                ? live.zq.proc.lines.filter((l) => / rx packets /.test(l)).join('; ') : '';
              stalls.push(`${keyText(key)}, peer ${who}, run ${i + 1}: ${r.detail}` +
                (said ? `; ${said}` : ''));
              await live[who].close();
              live[who] = await make[who]();
              continue;
            }
            cell(key)[who].push(size === 64 ? r.perS : r.mbS);
            if (r.sent !== r.got) {
              console.error(`bench.mjs: ${key} ${who}: ${r.got} messages counted, ${r.sent} sent`);
            }
          }
        }
        if (loss === 0) {
          const bulk = (page) => page.evaluate(([z, t]) => window.zqBench.bulkChannel(z, t),
            [BULK_MESSAGE, seconds]);
          cell('echo').zq.push(await bulk(live.echo.page));
          await live.chromium.other.evaluate(() => window.zqBench.serveEcho(true));
          cell('echo').chromium.push(await bulk(live.chromium.page));
          await live.chromium.other.evaluate(() => window.zqBench.serveEcho(false));
        }
      }
      if (loss > 0) drawn.set(loss, lossCounters());
    }
    setLossIf(lossy, 0);
  } finally {
    for (const X of [A, B]) {
      await X.context.close();
      rmSync(X.profile, { recursive: true, force: true });
    }
    for (const p of [...children]) await stopZq(p);
  }
  printBrowser({ cells, drawn, stalls, info, runs, seconds, noLoss, losses, version: A.version });
}

function setLossIf(lossy, pct) {
  if (lossy) setLoss(pct);
}

const finished = (v) => v.filter((x) => x !== null);

// 'to 16384 1' -> 'page → peer, 16384-byte messages, 1 % loss'.
function keyText(key) {
  if (key === 'echo') return `echo, ${BULK_MESSAGE}-byte messages`;
  const [dir, size, loss] = key.split(' ');
  return `${dir === 'to' ? 'page → peer' : 'peer → page'}, ${size}-byte messages, ${loss} % loss`;
}

// A cell's median, or how many of its runs stalled.
function cellText(v, d) {
  const ok = finished(v);
  if (ok.length === v.length) return fmt(median(ok), d);
  if (ok.length === 0) return `stalled (${v.length} of ${v.length})`;
  return `${fmt(median(ok), d)}, ${v.length - ok.length} of ${v.length} stalled`;
}

function printBrowser({ cells, drawn, stalls, info, runs, seconds, noLoss, losses, version }) {
  const row = (label, key, d = 1) => {
    const c = cells.get(key);
    if (!c) return;
    // No ratio where a run stalled: the median of the others would hide it.
    const clean = !c.zq.includes(null) && !c.chromium.includes(null);
    const z = clean ? median(c.zq) : null;
    const b = clean ? median(c.chromium) : null;
    console.log(`| ${label} | ${cellText(c.zq, d)} | ${cellText(c.chromium, d)} | ` +
      `${ratio(z, b)} |`);
  };
  console.log(`| a page in Chromium ${version} and its peer, one data channel, real UDP on ` +
    'loopback | peer: zq node | peer: Chromium (a second browser) | zq / Chromium |');
  console.log('|---|---:|---:|---:|');
  row('64-byte messages/s, page → peer (dcSCTP sends; zq or dcSCTP receives)', 'to 64 0', 0);
  row('64-byte messages/s, peer → page (zq or dcSCTP sends; dcSCTP receives)', 'from 64 0', 0);
  row('16 KiB messages, MB/s, page → peer', `to ${BULK_MESSAGE} 0`);
  row('16 KiB messages, MB/s, peer → page', `from ${BULK_MESSAGE} 0`);
  for (const loss of noLoss ? [] : losses) {
    row(`16 KiB messages, MB/s, page → peer, ${loss} % UDP loss (dcSCTP's sender)`,
      `to ${BULK_MESSAGE} ${loss}`);
    row(`16 KiB messages, MB/s, peer → page, ${loss} % UDP loss (dcSCTP's receiver)`,
      `from ${BULK_MESSAGE} ${loss}`);
  }
  row('16 KiB messages echoed, page → peer → page, MB/s one way (zq: `zq echo`)', 'echo');
  console.log(`\nMedians of ${runs} run${runs === 1 ? '' : 's'} of ${seconds} s per cell, every ` +
    'figure measured in this ' +
    'run; each run measures every cell of a loss level, zq then Chromium. One way: counted by ' +
    'the receiving application on its own clock (zq: bench_peer, node_read; Chromium: ' +
    'onmessage), between two marks sent in the channel, or from the first message to the ' +
    'sender\'s last. Pages keep at most 1 MiB buffered (bufferedAmountLowThreshold 256 KiB); ' +
    'zq sends until its 16 KiB send buffer refuses. Echo: at most 1 MiB sent and not yet ' +
    `back, MB of payload back. MB = 10^6 bytes. Stalled: no end ${STALL_MS / 1000} s after ` +
    'the burst; the peer is then replaced by a fresh connection.');
  if (noLoss) console.log(`\nLossy rows skipped: ${noLoss}.`);
  for (const [loss, [seen, dropped]] of drawn) {
    console.log(`- ${loss} % loss: nftables dropped ${dropped} of ${seen} UDP datagrams ` +
      `(${seen ? fmt(100 * dropped / seen, 2) : '—'} %), both directions, as they arrived`);
  }
  const each = (v) => v.map((x) => (x === null ? 'stalled' : fmt(x, 1))).join(' ');
  for (const [key, c] of cells) {
    console.log(`- ${keyText(key)}, each run: zq ${each(c.zq)}; Chromium ${each(c.chromium)}`);
  }
  for (const x of stalls) console.log(`- stalled: ${x}`);
  const dtls = { FEFD: 'DTLS 1.2', FEFC: 'DTLS 1.3' };
  const t = (x) => (x ? `${dtls[x.tls] || x.tls} ${x.cipher}, the page is DTLS ${x.role}, ` +
    `${x.pair}` : '—');
  console.log(`- page ↔ bench_peer: ${t(info.zq)}`);
  console.log(`- page ↔ Chromium: ${t(info.chromium)}`);
  console.log(`- page ↔ zq echo: ${t(info.echo)}`);
}

// ---- Main ------------------------------------------------------------------------------------

const modes = { msgs, open, browser: browserBench };
const main = Object.hasOwn(modes, mode || '') ? modes[mode] : null;
if (!main) {
  console.error('usage: node bench.mjs msgs|open|browser [options] (see the comment at the top)');
  process.exit(2);
}
main().then(() => process.exit(0)).catch(async (e) => {
  console.error(`bench.mjs: ${e.stack || e.message}`);
  for (const p of started) {
    console.error(`bench.mjs: ${p.name}'s last lines:\n  ${p.lines.slice(-5).join('\n  ')}`);
  }
  for (const p of [...children]) await stopZq(p);
  process.exit(1);
});
