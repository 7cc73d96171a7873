// zq signal --cluster (issue: "In CI: a three-node NATS cluster and three zq signals"): three
// nats-server nodes routed into one cluster, three zq signals each linked to its own node
// first, nginx in front (/sK/ goes to server K, or to a backup when K is down), and one room
// spread over them: three zq.js pages in Chromium (one per server) and two zq devices (a sensor
// on s1, an actuator on s2). zq signal s2 and then NATS node 1 are SIGKILLed mid-run; the room
// has to re-form each time, and telemetry, a request and a command flow again.
//
//   node cluster.mjs path/to/zq       (run.sh does this inside `unshare -n`, loopback only)
//
// With ZQ_CLUSTER_TLS_DIR (run.sh tls: ca.pem, leaf.pem, leaf.key, other-ca.pem) the NATS
// nodes take clients over TLS only and the zq signals dial tls://: the same run, and check 0
// looks at the TLS itself (nats-server's /connz, and two zq signals it must refuse).
//
// Each check prints PASS/FAIL with its figures; the exit status is non-zero if any did not
// pass. Times are printed, never asserted. ZQ_BROWSER_KEEP=1 keeps the logs.
import { spawn } from 'node:child_process';
import { mkdtempSync, appendFileSync, existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NO_BACKGROUND_THROTTLING, launchChromium } from '../support/chromium.mjs';
import { Checks, assert, drive, finish, keepLines, printTails, stamp } from '../support/report.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');

const zq = process.argv[2] ? resolve(process.argv[2]) : null;
if (!zq || !existsSync(zq)) {
  console.error('usage: node cluster.mjs path/to/zq');
  process.exit(2);
}
const NATS_SERVER = process.env.ZQ_NATS_SERVER || '/usr/sbin/nats-server';
const NGINX = process.env.ZQ_NGINX || '/usr/sbin/nginx';

const ROOM = 'cluster';
const HOST = '127.0.0.1';
const LB = 8000; /* nginx */
const KS = [1, 2, 3];
const natsPort = (k) => 4221 + k;
const routePort = (k) => 6221 + k;
const monitorPort = (k) => 8221 + k;
const signalPort = (k) => 8000 + k;
const WAIT_MS = 30000; /* a wait for something that should take a few seconds */
const TLS_DIR = process.env.ZQ_CLUSTER_TLS_DIR || null;
const SCHEME = TLS_DIR ? 'tls' : 'nats';
/* The nodes ask clients for a certificate (nats-server --tlsverify): the zq signals show one. */
const tlsOptions = TLS_DIR ? ['--nats-tlsca', join(TLS_DIR, 'ca.pem'), '--nats-tlscert',
  join(TLS_DIR, 'client.pem'), '--nats-tlskey', join(TLS_DIR, 'client.key')] : [];

const logs = mkdtempSync(join(tmpdir(), 'zq-cluster-logs-'));
const profile = mkdtempSync(join(tmpdir(), 'zq-cluster-profile-'));
/* The served directory, as tests/web/browser.mjs makes it: web/ and the test pages. */
const site = mkdtempSync(join(tmpdir(), 'zq-cluster-site-'));
symlinkSync(join(root, 'web'), join(site, 'web'));
symlinkSync(join(root, 'tests/web/page'), join(site, 'page'));
const nginxDir = mkdtempSync(join(tmpdir(), 'zq-cluster-nginx-'));

const checks = new Checks(TLS_DIR ? 'cluster (TLS)' : 'cluster', { timed: true });
const { check } = checks;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---- Processes ----------------------------------------------------------------------------------

const procs = new Map(); /* name -> {proc, lines, exited, file} */

function start(name, cmd, args) {
  const file = join(logs, `${name}.log`);
  const proc = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const p = { name, proc, lines: [], times: [], exited: null, file };
  keepLines(proc, file, p.lines, () => {
    while (p.times.length < p.lines.length) p.times.push(Date.now());
  });
  proc.on('exit', (code, sig) => {
    p.exited = { code, sig, at: Date.now() };
    appendFileSync(file, `${stamp()} exit code ${code} signal ${sig}\n`);
  });
  proc.on('error', (e) => {
    p.exited = { code: null, sig: null, error: e.message, at: Date.now() };
  });
  procs.set(name, p);
  return p;
}

/** Resolves with the match of the first line of @p p (from line @p from on) matching @p re,
 *  and the time it was read; rejects after @p ms or when @p p exits first. */
function waitLine(p, re, { from = 0, ms = WAIT_MS } = {}) {
  return new Promise((resolveLine, reject) => {
    const deadline = Date.now() + ms;
    const poll = () => {
      for (let i = from; i < p.lines.length; i++) {
        const m = p.lines[i].match(re);
        if (m) {
          resolveLine({ m, at: p.times[i] ?? Date.now(), line: p.lines[i] });
          return;
        }
      }
      if (p.exited) reject(new Error(`${p.name} exited (${JSON.stringify(p.exited)}) before ${re}`));
      else if (Date.now() > deadline) reject(new Error(`${p.name}: no line ${re} in ${ms} ms`));
      else setTimeout(poll, 25);
    };
    poll();
  });
}

async function until(what, fn, ms = WAIT_MS) {
  const deadline = Date.now() + ms;
  for (;;) {
    let last;
    try {
      if (await fn()) return;
    } catch (e) {
      last = e.message;
    }
    if (Date.now() > deadline) throw new Error(`${what} not within ${ms} ms${last ? `: ${last}` : ''}`);
    await sleep(100);
  }
}

async function stopProc(p, sig = 'SIGTERM', ms = 5000) {
  if (!p || p.exited) return p?.exited;
  p.proc.kill(sig);
  const deadline = Date.now() + ms;
  while (!p.exited && Date.now() < deadline) await sleep(25);
  return p.exited;
}

// ---- NATS, zq signal, nginx ---------------------------------------------------------------------

const nats = {};    /* k -> process */
const signals = {}; /* k -> {p, id (cluster server id), url (NATS now)} */

async function startNats(k) {
  const routes = KS.filter((j) => j !== k).map((j) => `nats://${HOST}:${routePort(j)}`).join(',');
  nats[k] = start(`nats-${k}`, NATS_SERVER, ['-a', HOST, '-p', String(natsPort(k)),
    '-m', String(monitorPort(k)), '-n', `nats-${k}`, '-cluster', `nats://${HOST}:${routePort(k)}`,
    '-routes', routes, '--cluster_name', 'zq',
    ...(TLS_DIR ? ['--tls', '--tlscert', join(TLS_DIR, 'leaf.pem'), '--tlskey',
      join(TLS_DIR, 'leaf.key'), '--tlsverify', '--tlscacert', join(TLS_DIR, 'ca.pem')] : [])]);
}

async function natsRoutes(k) {
  const r = await fetch(`http://${HOST}:${monitorPort(k)}/routez`);
  return (await r.json()).num_routes;
}

async function startSignal(k) {
  /* every NATS URL, server K's own node first */
  const urls = [0, 1, 2].map((i) => `${SCHEME}://${HOST}:${natsPort(((k - 1 + i) % 3) + 1)}`)
    .join(',');
  const p = start(`signal-${k}`, zq, ['signal', '--listen', `${HOST}:${signalPort(k)}`,
    '--web', site, '--cluster', urls, ...(TLS_DIR ? tlsOptions : [])]);
  signals[k] = { p, id: null };
  await waitLine(p, /^zq signal: listening on http:\/\/127\.0\.0\.1:(\d+) /, { ms: 10000 });
  const j = await waitLine(p, new RegExp(`cluster: joined through ${SCHEME}://([\\d.]+:\\d+) as server (\\S+)`),
    { ms: 10000 });
  signals[k].id = j.m[2];
  return `s${k} (${signals[k].id}) on ${j.m[1]}`;
}

function nginxConf() {
  const upstreams = KS.map((k) => {
    const others = KS.filter((j) => j !== k)
      .map((j) => `    server ${HOST}:${signalPort(j)} backup;`).join('\n');
    return `  upstream s${k} {\n    server ${HOST}:${signalPort(k)} max_fails=1 fail_timeout=30s;\n` +
      `${others}\n  }`;
  }).join('\n');
  const locations = KS.map((k) => `    location /s${k}/ {
      proxy_pass http://s${k}/;
      proxy_http_version 1.1;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection "upgrade";
      proxy_read_timeout 300s;
    }`).join('\n');
  const temps = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
    .map((t) => `  ${t}_temp_path ${nginxDir}/${t};`).join('\n');
  /* one process, as the user that runs the test: no workers to switch to nobody, and no temp
   * directories to chown to it (neither works in the user namespace of a non-root run) */
  return `daemon off;
master_process off;
user root root;
pid ${nginxDir}/nginx.pid;
error_log stderr info;
events {}
http {
  access_log ${nginxDir}/access.log;
${temps}
${upstreams}
  server {
    listen ${HOST}:${LB};
${locations}
  }
}
`;
}

let nginx = null;

async function startNginx() {
  const conf = join(nginxDir, 'nginx.conf');
  writeFileSync(conf, nginxConf());
  nginx = start('nginx', NGINX, ['-p', nginxDir, '-c', conf, '-e', 'stderr']);
  for (const k of KS) {
    await until(`nginx serving /s${k}/`, async () =>
      (await fetch(`http://${HOST}:${LB}/s${k}/page/zq.html`)).status === 200, 10000);
  }
}

/** Member joins in zq signal K's log (from line @p from): [{id, at}]. */
function joins(k, from = 0) {
  const out = [];
  const p = signals[k].p;
  for (let i = from; i < p.lines.length; i++) {
    const m = p.lines[i].match(/(\S+) joined room "cluster"/);
    if (m) out.push({ id: m[1], at: p.times[i] });
  }
  return out;
}

/** The server (1-3) whose log has @p id joining, or null. */
function serverOf(id) {
  return KS.find((k) => joins(k).some((j) => j.id === id)) ?? null;
}

// ---- Members ------------------------------------------------------------------------------------

let context = null;
const pages = {}; /* P1..P3 -> {name, k, page, id, fp} */
const devices = {}; /* kitchen, lamp -> {name, k, p, fp, id} */
const pageNames = [];

const signalUrl = (k) => `ws://${HOST}:${LB}/s${k}/ws`;

async function openPage(name, k) {
  const page = await context.newPage();
  const file = join(logs, `page-${name}.log`);
  pageNames.push(`page-${name}`);
  page.on('console', (m) => appendFileSync(file, `${stamp()} ${m.text()}\n`));
  page.on('pageerror', (e) => appendFileSync(file, `${stamp()} PAGE ERROR ${e.stack || e.message}\n`));
  await page.goto(`http://${HOST}:${LB}/s${k}/page/zq.html?room=${ROOM}` +
    `&signal=${encodeURIComponent(signalUrl(k))}`);
  await page.waitForFunction(() => window.t !== undefined);
  const id = await page.evaluate(() => window.t.ready);
  /* what the checks read: telemetry, LED reports and peer_left, each stamped */
  const fp = await page.evaluate(() => {
    window.rec = { sensor: [], led: [], left: [] };
    window.zq.subscribe('sensors.kitchen', (m) => window.rec.sensor.push({ at: Date.now(),
      fp: m.fp, payload: m.payload }));
    window.zq.subscribe('actuators.lamp.led', (m) => window.rec.led.push({ at: Date.now(),
      fp: m.fp, payload: m.payload }));
    window.zq.on('peer_left', (d) => window.rec.left.push({ at: Date.now(), id: d.id }));
    window.zq.on('disconnected', () => { window.rec.down = Date.now(); });
    return window.zq.fingerprint;
  });
  pages[name] = { name, k, page, id, fp };
  return pages[name];
}

function startDevice(name, kind, k, extra) {
  const p = start(`device-${name}`, zq, ['device', kind, '--name', name, ...extra,
    '--signal', signalUrl(k), '--room', ROOM, '--verbose']);
  devices[name] = { name, k, p, fp: null };
  return devices[name];
}

const allPages = () => Object.values(pages);

/** Every fingerprint of the room. */
function roomFps() {
  return [...allPages().map((x) => x.fp), devices.kitchen.fp, devices.lamp.fp];
}

/** Resolves once page @p x sees exactly the room's other 4 members (by fingerprint), none
 *  under an id of @p gone, all classified. */
async function seesRoom(x, gone = [], ms = WAIT_MS) {
  const want = roomFps().filter((f) => f !== x.fp).sort();
  try {
    await x.page.waitForFunction(([w, g]) => {
      const ps = window.zq.peers().filter((p) => p.classified);
      return ps.length === w.length && JSON.stringify(ps.map((p) => p.fp).sort()) ===
        JSON.stringify(w) && !ps.some((p) => g.includes(p.id));
    }, [want, gone], { timeout: ms, polling: 50 });
  } catch {
    const ps = await x.page.evaluate(() => window.zq.peers());
    throw new Error(`${x.name} sees ${JSON.stringify(ps)}; wants fps ${want.join(',')}` +
      `${gone.length ? ` and none of ids ${gone.join(',')}` : ''}`);
  }
}

/** The page ids and the devices' current ids, as zq.js pages see them. */
async function currentIds() {
  const ps = await pages.P1.page.evaluate(() => window.zq.broker.openPeers()
    .map((p) => ({ id: p.id, fp: p.fp })));
  for (const d of Object.values(devices)) d.id = ps.find((p) => p.fp === d.fp)?.id ?? d.id;
  for (const x of allPages()) x.id = await x.page.evaluate(() => window.zq.id);
}

// ---- The flows (check 3, again after each kill) -------------------------------------------------

/** P3 gets the sensor's telemetry; P2 a `status` reply from it; P1's cmd.led @p state reaches
 *  the lamp, whose actuators.lamp.led report P3 sees. */
async function flows(state) {
  const { P1, P2, P3 } = pages;
  const out = [];
  /* telemetry: a reading published after now */
  let since = Date.now();
  const tele = await P3.page.waitForFunction(([s, fp]) =>
    window.rec.sensor.find((m) => m.at > s && m.fp === fp), [since, devices.kitchen.fp],
  { timeout: 10000, polling: 20 }).then((h) => h.jsonValue()).catch(() => null);
  assert(tele, `P3 got no sensors.kitchen from ${devices.kitchen.fp} in 10 s`);
  assert(typeof tele.payload.temperature === 'number', `telemetry ${JSON.stringify(tele.payload)}`);
  out.push(`P3 got sensors.kitchen ${JSON.stringify(tele.payload)} ${tele.at - since} ms after asking`);

  /* status: P2 asks the sensor itself (its fingerprint) */
  await P2.page.waitForFunction((fp) => window.zq.broker.openPeers().some((p) => p.fp === fp &&
    p.subReceived && p.services.includes('status')), devices.kitchen.fp, { timeout: 10000 })
    .catch(() => { throw new Error('P2 never saw the sensor offer status'); });
  const st = await P2.page.evaluate(async (fp) => {
    const t0 = performance.now();
    const r = await window.zq.request('status', {}, { peer: fp, timeout: 3000 });
    return { r, ms: (performance.now() - t0).toFixed(1) };
  }, devices.kitchen.fp);
  assert(st.r && st.r.name === 'kitchen' && st.r.kind === 'sensor', `status ${JSON.stringify(st.r)}`);
  out.push(`P2 status reply in ${st.ms} ms (published ${st.r.published})`);

  /* cmd.led: P1 publishes once the lamp announced cmd.led; P3 waits for the lamp's report */
  await P1.page.waitForFunction((fp) => window.zq.broker.openPeers().some((p) => p.fp === fp &&
    p.subReceived && p.topics.includes('cmd.led')), devices.lamp.fp, { timeout: 10000 })
    .catch(() => { throw new Error('P1 never saw the lamp announce cmd.led'); });
  await P3.page.waitForFunction((fp) => window.zq.broker.openPeers().some((p) => p.fp === fp &&
    p.subReceived), devices.lamp.fp, { timeout: 10000 })
    .catch(() => { throw new Error('P3 has no open channel to the lamp'); });
  /* P3's own sub reaches the lamp in its hello; Chromium may drop a first message on a channel
   * it accepted, and zq.js then says it again 0.5 s later (web/README.md) */
  await sleep(700);
  since = Date.now();
  const pub = await P1.page.evaluate(async (s) => {
    const t0 = performance.now();
    const r = await window.zq.publish('cmd.led', s, { qos: 1 });
    return { seq: r.seq, ms: (performance.now() - t0).toFixed(1) };
  }, state);
  const led = await P3.page.waitForFunction(([s, fp]) =>
    window.rec.led.find((m) => m.at >= s && m.fp === fp), [since, devices.lamp.fp],
  { timeout: 10000, polling: 20 }).then((h) => h.jsonValue()).catch(() => null);
  assert(led, `P3 saw no actuators.lamp.led after cmd.led "${state}" (acked in ${pub.ms} ms)`);
  assert(led.payload && led.payload.on === (state === 'on'), `report ${JSON.stringify(led.payload)}`);
  out.push(`P1 cmd.led "${state}" (QoS 1 seq ${pub.seq}, acked in ${pub.ms} ms) -> P3 got ` +
    `actuators.lamp.led ${JSON.stringify(led.payload)} ${led.at - since} ms after`);
  return out.join('; ');
}

/** What the pages' logs say about pairs that dialed each other at once (both told
 *  peer_joined: zq.js takes the other's offer on both sides), for a room that did not form:
 *  how often each page logged it, and when each page got its id (the logs' stamps, ms). */
function glare() {
  const said = [];
  const welcomed = [];
  for (const x of allPages()) {
    const file = join(logs, `page-${x.name}.log`);
    if (!existsSync(file)) continue;
    const lines = readFileSync(file, 'utf8').split('\n');
    const n = lines.filter((l) => l.includes('while dialing it: taking theirs')).length;
    if (n > 0) said.push(`${x.name} ${n}`);
    const w = lines.find((l) => l.includes('event connected'));
    if (w) welcomed.push({ name: x.name, at: Number(w.split(' ')[0]) * 1000 });
  }
  const t0 = Math.min(...welcomed.map((w) => w.at));
  return said.length ? ` (offers crossed, "offer from X while dialing it: taking theirs": ` +
    `${said.join(', ')}; the pages got their ids at ` +
    `${welcomed.map((w) => `${w.name} +${(w.at - t0).toFixed(1)}`).join(', ')} ms)` : '';
}

// ---- TLS (check 0) ------------------------------------------------------------------------------

/** What nats-server's monitor says of each zq signal's connection (its name is zq-signal), and
 *  what three more zq signals log: one with nats:// (the node asks for TLS: CONNECT, credentials
 *  and all, must not go out in the clear), one trusting a root that signed nothing here, one
 *  with no client certificate for a node that asks for one. */
async function tlsChecks() {
  const seen = [];
  for (const k of KS) {
    const conns = (await (await fetch(`http://${HOST}:${monitorPort(k)}/connz`)).json())
      .connections.filter((c) => c.name === 'zq-signal');
    assert(conns.length >= 1, `nats-${k} lists no zq-signal client`);
    for (const c of conns) {
      assert(c.tls_version === '1.2' && c.tls_cipher_suite, `nats-${k}: ${JSON.stringify(c)}`);
    }
    seen.push(`nats-${k}: ${conns.map((c) => `${c.lang} TLS ${c.tls_version} ${c.tls_cipher_suite}`)
      .join(', ')}`);
  }
  const node = `${HOST}:${natsPort(3)}`;
  const plain = start('signal-plain', zq, ['signal', '--listen', `${HOST}:0`,
    '--cluster', `nats://${node}`]);
  const stranger = start('signal-stranger', zq, ['signal', '--listen', `${HOST}:0`,
    '--cluster', `tls://${node}`, '--nats-tlsca', join(TLS_DIR, 'other-ca.pem')]);
  const anonymous = start('signal-anonymous', zq, ['signal', '--listen', `${HOST}:0`,
    '--cluster', `tls://${node}`, '--nats-tlsca', join(TLS_DIR, 'ca.pem')]);
  const refused = await waitLine(plain, /cluster: NATS says: (the server requires TLS.*)$/);
  const distrusted = await waitLine(stranger, /cluster: tls:\/\/[\d.:]+: (.*TLS.*)$/);
  const unshown = await waitLine(anonymous, /cluster: tls:\/\/[\d.:]+: (.*TLS.*)$/);
  const natsSaid = await waitLine(nats[3], /TLS handshake error: (.*didn't provide a certificate.*)$/);
  for (const p of [plain, stranger, anonymous]) await stopProc(p);
  for (const p of [plain, stranger, anonymous]) {
    assert(!p.lines.some((l) => /joined through/.test(l)), `${p.name} joined: ${p.lines.join(' | ')}`);
  }
  return `${seen.join('; ')}; nats:// to a TLS node: '${refused.m[1]}'; tls:// trusting ` +
    `another root: '${distrusted.m[1]}'; no client certificate: '${unshown.m[1]}' (nats-3: ` +
    `'${natsSaid.m[1]}')`;
}

// ---- Main ---------------------------------------------------------------------------------------

function printLogs() {
  printTails(logs, [...KS.map((k) => `nats-${k}`), ...KS.map((k) => `signal-${k}`), 'nginx',
    'device-kitchen', 'device-lamp', ...pageNames], 40);
}

async function shutdown() {
  if (context) await context.close().catch(() => {});
  context = null;
  for (const p of procs.values()) if (!p.exited) p.proc.kill('SIGTERM');
  const deadline = Date.now() + 3000;
  while ([...procs.values()].some((p) => !p.exited) && Date.now() < deadline) await sleep(25);
  for (const p of procs.values()) if (!p.exited) p.proc.kill('SIGKILL');
}

async function main() {
  const tStart = Date.now();
  let up = false;
  await check('three NATS nodes in one cluster, three zq signals on them, nginx in front', async () => {
    for (const k of KS) await startNats(k);
    for (const k of KS) {
      await until(`nats-${k}'s two routes`, async () => (await natsRoutes(k)) >= 2, 15000);
    }
    const t = Date.now();
    const joined = [];
    for (const k of KS) joined.push(await startSignal(k));
    await startNginx();
    up = true;
    return `routes up at ${t - tStart} ms; ${joined.join(', ')}; nginx on :${LB} ` +
      `${Date.now() - tStart} ms after the start`;
  });
  if (!up) {
    await finish(checks, { shutdown, printLogs, logs, temp: [profile, site, nginxDir] });
    return;
  }
  if (TLS_DIR) {
    await check('0. TLS: each zq signal reaches NATS over TLS 1.2 with its client certificate; ' +
      'nats://, an unknown root and no certificate refused', tlsChecks);
  }
  context = await launchChromium(profile, logs, NO_BACKGROUND_THROTTLING);
  console.log(`cluster: Chromium ${context.browser() ? context.browser().version() : ''}, ` +
    `room '${ROOM}' via http://${HOST}:${LB}/sK/; logs in ${logs}`);

  const tRoom = Date.now();
  const members = await check('1. members spread: each zq signal has members of the room', async () => {
    await Promise.all([openPage('P1', 1), openPage('P2', 2), openPage('P3', 3)]);
    startDevice('kitchen', 'sensor', 1, ['--period', '500']);
    startDevice('lamp', 'actuator', 2, []);
    await until('5 joins in the three logs', () =>
      KS.reduce((n, k) => n + joins(k).length, 0) >= 5, 15000);
    const counts = KS.map((k) => joins(k).length);
    assert(counts.every((n) => n >= 1), `joins per server ${counts.join('/')}`);
    for (const x of allPages()) {
      assert(serverOf(x.id) === x.k, `${x.name} (${x.id}) joined on s${serverOf(x.id)}, not s${x.k}`);
    }
    return `joins s1 ${counts[0]}, s2 ${counts[1]}, s3 ${counts[2]} (P1, P2, P3 on s1, s2, s3)`;
  });

  const formed = members && await check('2. the room forms across servers: every page sees 4 peers',
    async () => {
      await Promise.all(allPages().map((x) => x.page.evaluate(() => window.t.peers(4, 30000))))
        .catch((e) => { throw new Error(`${e.message.split('\n')[0]}${glare()}`); });
      /* the devices' fingerprints: the lamp subscribes to cmd.led, the sensor publishes */
      devices.lamp.fp = await pages.P1.page.waitForFunction(() => window.zq.broker.openPeers()
        .find((p) => p.subReceived && p.topics.includes('cmd.led'))?.fp, null, { timeout: 10000 })
        .then((h) => h.jsonValue()).catch(() => null);
      const tele = await pages.P1.page.waitForFunction(() => window.rec.sensor[0], null,
        { timeout: 10000 }).then((h) => h.jsonValue()).catch(() => null);
      devices.kitchen.fp = tele?.fp ?? null;
      assert(devices.lamp.fp && devices.kitchen.fp, `lamp ${devices.lamp.fp}, kitchen ${devices.kitchen.fp}`);
      for (const x of allPages()) await seesRoom(x);
      await currentIds();
      const where = [...allPages(), ...Object.values(devices)]
        .map((x) => ({ name: x.name, k: serverOf(x.id) }));
      assert(where.every((w) => w.k !== null), `not every member found in a log: ${JSON.stringify(where)}`);
      let cross = 0;
      for (let i = 0; i < where.length; i++) {
        for (let j = i + 1; j < where.length; j++) cross += where[i].k !== where[j].k;
      }
      return `formed ${Date.now() - tRoom} ms after the first page opened; ` +
        `${where.map((w) => `${w.name}@s${w.k}`).join(' ')}: ${cross} of 10 pairs cross servers`;
    });

  const flowing = formed && await check('3. telemetry s1->s3, status s2->s1, cmd.led s1->s2->s3',
    () => flows('on'));

  if (flowing) {
    let reformed = false;
    await check('4. SIGKILL zq signal s2: its members are gone, reconnect through nginx, the room re-forms',
      async () => {
        await currentIds();
        const oldP2 = pages.P2.id;
        const oldLamp = devices.lamp.id;
        const from = Object.fromEntries(KS.map((k) => [k, signals[k].p.lines.length]));
        const lampFrom = devices.lamp.p.lines.length;
        const t0 = Date.now();
        signals[2].p.proc.kill('SIGKILL');
        /* P1 and P3 hear peer_left for both of s2's members */
        const left = {};
        for (const x of [pages.P1, pages.P3]) {
          const at = await x.page.waitForFunction((ids) => {
            const got = ids.map((id) => window.rec.left.find((l) => l.id === id));
            return got.every(Boolean) && Math.max(...got.map((l) => l.at));
          }, [oldP2, oldLamp], { timeout: 15000 }).then((h) => h.jsonValue()).catch(() => null);
          assert(at, `${x.name} got no peer_left for both of ${oldP2} (P2), ${oldLamp} (lamp)`);
          left[x.name] = at - t0;
        }
        /* P2 and the lamp are back, on another server, under new ids */
        await pages.P2.page.waitForFunction((o) => window.zq.id && window.zq.id !== o, oldP2,
          { timeout: WAIT_MS });
        const newP2 = await pages.P2.page.evaluate(() => window.zq.id);
        const closed = await waitLine(devices.lamp.p, /signalling closed \((\d+)\); reconnecting in (\S+ s)/,
          { from: lampFrom });
        await waitLine(devices.lamp.p, /signalling reconnected/, { from: lampFrom });
        const p2down = await pages.P2.page.evaluate(() => window.rec.down);
        let p2at = null;
        await until('P2 and the lamp joined on s1 or s3', () => {
          const js = [1, 3].flatMap((k) => joins(k, from[k]).map((j) => ({ ...j, k })));
          const p2 = js.find((j) => j.id === newP2);
          const lamp = js.find((j) => j.id !== newP2); /* nobody else joins now */
          if (p2 && lamp) {
            p2at = p2;
            devices.lamp.rejoined = lamp;
          }
          return p2 && lamp;
        });
        for (const x of allPages()) await seesRoom(x, [oldP2, oldLamp]);
        const t1 = Date.now();
        await currentIds();
        const info = await flows('off');
        reformed = true;
        return `peer_left at P1 +${left.P1} ms, at P3 +${left.P3} ms; P2 (WebSocket closed at ` +
          `+${p2down - t0} ms) rejoined via s${p2at.k} at +${p2at.at - t0} ms, the lamp (closed ` +
          `${closed.m[1]} at +${closed.at - t0} ms, "reconnecting in ${closed.m[2]}") via ` +
          `s${devices.lamp.rejoined.k} at +${devices.lamp.rejoined.at - t0} ms; every page sees ` +
          `4 peers at +${t1 - t0} ms ` +
          `(kill to re-formed); flows again: ${info}`;
      });

    if (reformed) {
      await check('5. SIGKILL NATS node 1 (s1\'s): s1 joins through another, the room stays or re-forms',
        async () => {
          const from = signals[1].p.lines.length;
          const lefts = await Promise.all(allPages().map((x) =>
            x.page.evaluate(() => window.rec.left.length)));
          const t0 = Date.now();
          nats[1].proc.kill('SIGKILL');
          const lost = await waitLine(signals[1].p,
            new RegExp(`cluster: ${SCHEME}://127\\.0\\.0\\.1:4222: (.*)$`), { from, ms: 15000 });
          const rejoined = await waitLine(signals[1].p,
            new RegExp(`cluster: joined through ${SCHEME}://(127\\.0\\.0\\.1:(?:4223|4224)) as server`),
            { from, ms: 15000 });
          for (const x of allPages()) await seesRoom(x);
          const t1 = Date.now();
          await currentIds();
          const info = await flows('on');
          /* past the dead window (SIG_CLUSTER_DEAD_MS 3 s) after the rejoin: s1's beats reach
           * s3 through the new node, or s3 would have taken s1 for dead (P3: peer_left for P1
           * and the sensor) */
          await sleep(Math.max(0, rejoined.at + 4000 - Date.now()));
          for (const x of allPages()) await seesRoom(x, [], 1000);
          const leftNow = await Promise.all(allPages().map((x) =>
            x.page.evaluate(() => window.rec.left.length)));
          const churn = leftNow.map((n, i) => n - lefts[i]);
          return `s1 lost ${SCHEME}://127.0.0.1:4222 ('${lost.m[1]}') at +${lost.at - t0} ms, joined ` +
            `through ${SCHEME}://${rejoined.m[1]} at +${rejoined.at - t0} ms; every page sees 4 ` +
            `peers at +${t1 - t0} ms and still 4 s after the rejoin (peer_left meanwhile ` +
            `P1/P2/P3: ${churn.join('/')}: ${churn.every((n) => n === 0) ? 'the room stayed' :
              're-formed'}); flows again: ${info}`;
        });
    }
  }

  await check('6. SIGTERM: the surviving zq signals stop, exit 0', async () => {
    if (context) await context.close().catch(() => {});
    context = null;
    const dev = [];
    for (const d of Object.values(devices)) {
      const e = await stopProc(d.p);
      dev.push(`${d.name} ${e ? `exit ${e.code ?? e.sig}` : 'still running'}`);
    }
    const out = [];
    for (const k of KS) {
      const p = signals[k]?.p;
      if (!p) continue;
      if (k === 2 && p.exited) {
        out.push(`s2 killed (${p.exited.sig})`);
        continue;
      }
      const e = await stopProc(p);
      assert(e, `s${k} still running 5 s after SIGTERM`);
      assert(e.code === 0, `s${k} exited ${JSON.stringify(e)}`);
      assert(p.lines.some((l) => /^zq signal: stopped/.test(l)), `s${k} printed no 'stopped'`);
      out.push(`s${k} stopped, exit 0`);
    }
    await stopProc(nginx);
    for (const k of KS) await stopProc(nats[k]);
    return `${out.join(', ')}; devices: ${dev.join(', ')}; whole run ${Date.now() - tStart} ms`;
  });

  await finish(checks, { shutdown, printLogs, logs, temp: [profile, site, nginxDir] });
}

drive(main, { printLogs, shutdown });
