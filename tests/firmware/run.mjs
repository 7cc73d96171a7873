// The zq firmware image (firmware/, on the lwIP port and the MPS2-AN386 board under QEMU)
// against headless Chromium and a zq host node, through `zq signal` (issue 19). run.sh gives
// this a network namespace with a bridge holding 192.0.2.1/24 and two tap interfaces; each
// firmware runs in its own QEMU on one of them (192.0.2.2, 192.0.2.3).
//
//   node run.mjs path/to/zq path/to/scripts/firmware
//
// a. echo, both offer directions: the page dials a firmware that joined after it, and a
//    firmware dials a page that joins after it: the channel opens, 1,000 text messages come
//    back in order, text and binary of every size up to the negotiated maximum byte for byte,
//    `zq-echo close` closes it, a reload opens it again;
// b. 100 connect / exchange / close cycles from pages against one running firmware, its arena
//    back at the baseline it reported after joining, after every one;
// c. a flood of garbage datagrams at the firmware's port and malformed signalling frames
//    addressed to it, with a good pair open: the pair still echoes, the firmware still runs;
// d. the sensor and actuator apps in two firmwares: the dashboard lists both with telemetry,
//    a zq.js page switches the LED (QoS 1), queues a job and requests `status`; a zq host node
//    (zq sub, pub, put, req) does the same over the mesh.
//
// Figures (boot to joined, offer to open, round trips, the firmware's stack high-water mark)
// are printed, never asserted. ZQ_BROWSER_KEEP=1 keeps the logs; ZQ_FIRMWARE_CYCLES=N runs N
// cycles in b (100); ZQ_FIRMWARE_GROUPS=a,b runs only those groups (by name, for debugging).
import { spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { appendFileSync, existsSync, mkdtempSync, readdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../support/chromium.mjs';
import { Checks, assert, drive, finish, printTails, stamp } from '../support/report.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const [zq, firmwareScript] = process.argv.slice(2).map((p) => resolve(p));
if (!zq || !existsSync(zq) || !firmwareScript || !existsSync(firmwareScript)) {
  console.error('usage: node run.mjs path/to/zq path/to/scripts/firmware');
  process.exit(2);
}
const HOST = '192.0.2.1'; // run.sh's bridge
const BOARDS = [{ tap: 'zq-fw0', ip: '192.0.2.2', mac: '02:00:00:00:00:02' },
  { tap: 'zq-fw1', ip: '192.0.2.3', mac: '02:00:00:00:00:03' }];
const SIZES = [0, 1, 1000, 16383, 16384, 65535, 65536, 131072]; // + the negotiated maximum
const EXPECTED_MAX = 262144; // the firmware's a=max-message-size (ZQ_PEER_MAX_MESSAGE)
const CYCLES = Number(process.env.ZQ_FIRMWARE_CYCLES || 100);
const FLOOD = 5000; // garbage datagrams
const ONLY = process.env.ZQ_FIRMWARE_GROUPS?.split(','); // e.g. "page dials,devices" (all)

const logs = mkdtempSync(join(tmpdir(), 'zq-firmware-logs-'));
const profile = mkdtempSync(join(tmpdir(), 'zq-firmware-profile-'));
const site = mkdtempSync(join(tmpdir(), 'zq-firmware-site-'));
for (const name of readdirSync(join(root, 'web'))) symlinkSync(join(root, 'web', name), join(site, name));
symlinkSync(join(root, 'tests/browser/page'), join(site, 'echo'));
symlinkSync(join(root, 'tests/dashboard/page'), join(site, 'page'));

const checks = new Checks('firmware', { skips: true, timed: true });
const { check, skip } = checks;
const figures = [];
const figure = (what, value) => figures.push(`${what}: ${value}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---- Processes: zq and the emulated boards -----------------------------------------------------

const children = new Set();
const logNames = ['signal'];

function start(name, cmd, args) {
  const file = join(logs, `${name}.log`);
  if (!logNames.includes(name)) logNames.push(name);
  const proc = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const p = { name, proc, lines: [], waiters: [], exited: null, startedAt: Date.now() };
  p.done = new Promise((res) => proc.on('exit', (code, signal) => {
    p.exited = { code, signal };
    children.delete(p);
    for (const w of p.waiters.splice(0)) w();
    res(p.exited);
  }));
  // Whole lines only: a console line may come in several chunks (QEMU writes as the UART
  // does, a byte at a time).
  const rest = { out: '', err: '' };
  const take = (stream) => (chunk) => {
    const parts = (rest[stream] + chunk.toString()).split('\n');
    rest[stream] = parts.pop();
    for (const raw of parts) {
      const line = raw.replace(/\r$/, '');
      if (!line) continue;
      p.lines.push({ line, at: Date.now() });
      appendFileSync(file, `${stamp()} ${stream} ${line}\n`);
    }
    for (const w of p.waiters.splice(0)) w();
  };
  proc.stdout.on('data', take('out'));
  proc.stderr.on('data', take('err'));
  children.add(p);
  return p;
}

/** The first line of @p p matching @p re at index @p from or later: its match, index, time. */
async function waitLine(p, re, ms = 10000, from = 0) {
  const deadline = Date.now() + ms;
  for (;;) {
    for (let i = from; i < p.lines.length; i++) {
      const m = p.lines[i].line.match(re);
      if (m) return { m, index: i, at: p.lines[i].at };
    }
    if (p.exited) throw new Error(`${p.name} exited (${JSON.stringify(p.exited)}) before ${re}`);
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`${p.name} printed no ${re} in ${ms} ms`);
    await new Promise((r) => {
      p.waiters.push(r);
      setTimeout(r, Math.min(left, 200));
    });
  }
}

/** Stops every emulated board still running (a failed step leaves its tap taken). */
async function stopFirmwares() {
  for (const p of [...children]) if (p.name.startsWith('firmware-')) await stop(p);
}

async function stop(p) {
  if (p.exited) return p.exited;
  p.proc.kill('SIGTERM');
  const t = setTimeout(() => p.proc.kill('SIGKILL'), 5000);
  const ex = await p.done;
  clearTimeout(t);
  return ex;
}

let signalUrl = null;
const boards = []; // every firmware booted, for the run's arena and stack figures

/** The highest arena peak and stack high-water mark any board reported. */
function boardPeaks() {
  let arena = 0;
  let stack = 0;
  for (const b of boards) {
    for (const { line } of b.lines) {
      const a = line.match(/^zq: arena \d+ in use, peak (\d+) of/);
      const h = line.match(/^firmware: stack high-water (\d+) of/);
      if (a) arena = Math.max(arena, Number(a[1]));
      if (h) stack = Math.max(stack, Number(h[1]));
    }
  }
  return `arena peak ${arena} B, stack high-water ${stack} B (scripts/firmware report ` +
    `--arena-peak ${arena} --stack-peak ${stack})`;
}
let base = null;

/** Boots a firmware image on board @p b with @p app in @p room; resolves once it joined. */
async function boot(name, b, app, room, extra = []) {
  const fw = start(name, firmwareScript, ['run', '--image', 'zq', '--tap', b.tap,
    '--ip', `${b.ip}/24`, '--gw', HOST, '--mac', b.mac, '--app', app, '--signal', signalUrl,
    '--room', room, ...extra]);
  const node = await waitLine(fw, /^zq: node on [0-9.]+:(\d+), identity made (\d+) ms/, 60000);
  fw.udpPort = Number(node.m[1]);
  boards.push(fw);
  const joined = await waitLine(fw, /^zq: joined room '.*' as (\S+), (\d+) ms after start/, 60000);
  fw.id = joined.m[1];
  const booted = await waitLine(fw, /^firmware: zq on \S+, booted in (\d+) ms/, 1000);
  figure(`${name} boot to joined`, `${joined.at - fw.startedAt} ms from QEMU's start ` +
    `(the board's clock: boot ${booted.m[1]} ms, identity ${node.m[2]} ms, joined ` +
    `${joined.m[2]} ms after the runner started)`);
  fw.baseline = Number((await waitLine(fw, /^zq: arena (\d+) in use/, 5000, joined.index)).m[1]);
  return fw;
}

// ---- Pages ---------------------------------------------------------------------------------------

let context = null;

async function openPage(name, path) {
  const page = await context.newPage();
  const file = join(logs, `page-${name}.log`);
  if (!logNames.includes(`page-${name}`)) logNames.push(`page-${name}`);
  page.on('console', (m) => appendFileSync(file, `${stamp()} ${m.text()}\n`));
  page.on('pageerror', (e) => appendFileSync(file, `${stamp()} PAGE ERROR ${e.message}\n`));
  await page.goto(`${base}${path}`);
  return page;
}

async function echoPage(room) {
  const page = await openPage(room, `/echo/echo.html?room=${room}`);
  await page.waitForFunction(() => window.zqTest !== undefined);
  return page;
}

const connected = (id) => new RegExp(`^zq: peer ${id} connected in (\\d+) ms`);
const gone = (id) => new RegExp(`^zq: peer ${id} gone`);

async function opened(page, fw, tag, wantRole) {
  const open = await page.evaluate(() => window.zqTest.waitOpen(30000));
  const id = await page.evaluate(() => window.zqTest.id);
  assert(open.role === wantRole, `the page is the ${open.role}, expected the ${wantRole}`);
  const own = await waitLine(fw, connected(id), 10000);
  figure(`${tag} offer to open`, `${open.ms} ms (the page's join or peer_joined to onopen); ` +
    `the firmware's count ${own.m[1]} ms`);
  return `${open.ms} ms, max-message-size ${open.maxMessageSize}, pair ` +
    `${open.pair ? `${open.pair.local} -> ${open.pair.remote}` : '?'}`;
}

async function sequence(page, tag, n) {
  const r = await page.evaluate((k) => window.zqTest.sequence(k), n);
  assert(r.ok, r.detail);
  figure(`${tag} ${n} text messages round trip`, `${r.ms} ms`);
  return `${r.ms} ms for ${n}`;
}

async function sizes(page, tag) {
  const max = await page.evaluate(() => window.zqTest.maxMessageSize);
  await check(`${tag}: negotiated max message size is ${EXPECTED_MAX}`, () => {
    assert(max === EXPECTED_MAX, `pc.sctp.maxMessageSize is ${max}`);
  });
  for (const size of max > 0 ? [...SIZES, max] : SIZES) {
    for (const kind of ['text', 'binary']) {
      await check(`${tag}: ${kind} ${size} B echoed byte for byte`, async () => {
        const r = await page.evaluate(([s, k]) => window.zqTest.roundTrip(s, k, 60000),
          [size, kind]);
        assert(r.ok, r.detail);
        return `${r.ms} ms`;
      });
    }
  }
}

async function closeAndReopen(page, fw, tag) {
  await check(`${tag}: 'zq-echo close' closes the channel (page sees onclose)`, async () => {
    const r = await page.evaluate(() => window.zqTest.closeByCommand(10000));
    assert(!r.echoed, 'the close command was echoed back');
    return `onclose ${r.ms} ms after the command`;
  });
  await check(`${tag}: a reload reopens it and echoes`, async () => {
    await page.reload();
    await page.waitForFunction(() => window.zqTest !== undefined);
    const id = await page.evaluate(() => window.zqTest.join());
    const open = await page.evaluate(() => window.zqTest.waitOpen(30000));
    await waitLine(fw, connected(id), 10000);
    const seq = await page.evaluate(() => window.zqTest.sequence(100));
    assert(seq.ok, seq.detail);
    return `${open.ms} ms to open as ${open.role}, 100 messages in ${seq.ms} ms`;
  });
}

// ---- a. echo, both directions --------------------------------------------------------------------

/** The checks of one direction, the page being the @p role. */
async function echoChecks(page, fw, tag, role) {
  const who = role === 'offerer' ? 'Chromium offers, the firmware answers'
    : 'the firmware offers, Chromium answers';
  if (await check(`${tag}: channel opens (${who})`, () => opened(page, fw, tag, role))) {
    await check(`${tag}: 1000 text messages round trip in order`, () => sequence(page, tag, 1000));
    await sizes(page, tag);
    await closeAndReopen(page, fw, tag);
  } else {
    skip(`${tag}: messages, sizes, close`, 'the channel never opened');
  }
}

async function pageDials() {
  const tag = 'page dials';
  const page = await echoPage('fw-page-dials');
  await page.evaluate(() => window.zqTest.join());
  const fw = await boot('firmware-page-dials', BOARDS[0], 'echo', 'fw-page-dials')
    .catch(async (e) => {
      await stopFirmwares();
      throw e;
    });
  await echoChecks(page, fw, tag, 'offerer');
  await page.close();
  await stop(fw);
}

async function zqDials() {
  const tag = 'firmware dials';
  const fw = await boot('firmware-echo', BOARDS[0], 'echo', 'fw-echo');
  const page = await echoPage('fw-echo');
  await page.evaluate(() => window.zqTest.join());
  await echoChecks(page, fw, tag, 'answerer');
  await page.close();
  return fw;
}

// ---- b. cycles against one firmware ----------------------------------------------------------------

/** The arena the firmware reports after peer @p id is gone. */
async function arenaAfterGone(fw, id) {
  const g = await waitLine(fw, gone(id), 30000);
  return Number((await waitLine(fw, /^zq: arena (\d+) in use/, 5000, g.index)).m[1]);
}

async function cycles(fw) {
  const tag = `${CYCLES} cycles`;
  const page = await context.newPage();
  const opens = [];
  let worst = fw.baseline;
  const ok = await check(`${tag}: connect, 10 messages, close; the arena back at its baseline ` +
    `(${fw.baseline} B) after each`, async () => {
    for (let i = 1; i <= CYCLES; i++) {
      await page.goto(`${base}/echo/echo.html?room=fw-echo`);
      await page.waitForFunction(() => window.zqTest !== undefined);
      const id = await page.evaluate(() => window.zqTest.join());
      const open = await page.evaluate(() => window.zqTest.waitOpen(30000));
      opens.push(open.ms);
      const seq = await page.evaluate(() => window.zqTest.sequence(10));
      assert(seq.ok, `cycle ${i}: ${seq.detail}`);
      await page.evaluate(() => window.zqTest.closeByCommand(10000));
      await page.goto('about:blank'); // leaves the room: the firmware frees the peer
      const arena = await arenaAfterGone(fw, id);
      worst = Math.max(worst, arena);
      assert(arena === fw.baseline, `cycle ${i}: the arena holds ${arena} B after the peer ` +
        `left, its baseline is ${fw.baseline} B`);
    }
    opens.sort((x, y) => x - y);
    return `open p50 ${opens[opens.length >> 1]} ms, max ${opens[opens.length - 1]} ms`;
  });
  figure(`${tag} arena after each`, `${worst} B at most, baseline ${fw.baseline} B`);
  await page.close();
  return ok;
}

// ---- c. garbage ----------------------------------------------------------------------------------

async function flood(ip, port) {
  const sock = createSocket('udp4');
  const kinds = [
    (i) => Buffer.from([0x00, 0x01, 0x00, 0x50, ...Array(20).fill(i & 0xff)]), // a STUN head
    (i) => Buffer.from([22, 0xfe, 0xfd, 0, 0, 0, 0, 0, 0, 0, i & 0xff, 0x40, 0]), // DTLS head
    () => Buffer.alloc(1200, 0xa5),
    (i) => Buffer.from(Array.from({ length: 1 + (i % 600) }, (_, k) => (k * 131 + i) & 0xff)),
  ];
  for (let i = 0; i < FLOOD; i++) {
    await new Promise((r) => sock.send(kinds[i % kinds.length](i), port, ip, r));
    if (i % 100 === 99) await sleep(5); // about 20,000 datagrams/s: more than a LAN's noise
  }
  sock.close();
}

/** A signalling member of its own that sends malformed frames addressed to @p target. */
async function badFrames(room, target) {
  const frames = [
    { type: 'offer', peerId: target, sdp: { type: 'offer', sdp: 'v=0\r\ngarbage\r\n' } },
    { type: 'offer', peerId: target, sdp: 42 },
    { type: 'answer', peerId: target, sdp: { type: 'answer', sdp: '' } },
    { type: 'ice_candidate', peerId: target, candidate: { candidate: 'candidate:x 1 udp' } },
    { type: 'ice_candidate', peerId: target, candidate: 'not an object' },
  ];
  // From a page (Node 20 has no WebSocket): a member of its own, not the echo page's.
  const page = await openPage('bad-frames', '/echo/echo.html?room=none');
  await page.evaluate(async ([url, r, list, cut]) => {
    const ws = new WebSocket(url);
    await new Promise((res, rej) => { ws.onopen = res; ws.onerror = () => rej(new Error('ws')); });
    ws.send(JSON.stringify({ type: 'join', topicId: r }));
    await new Promise((res) => setTimeout(res, 300));
    for (const f of list) ws.send(JSON.stringify(f));
    ws.send(cut);
    await new Promise((res) => setTimeout(res, 1000));
    ws.close();
  }, [signalUrl, room, frames,
    '{"type":"offer","peerId":"' + target + '","sdp":{"type":"offer","sdp":"v=0']);
  await page.close();
  return frames.length + 1;
}

async function garbage(fw) {
  const tag = 'bad input';
  const page = await echoPage('fw-echo');
  await page.evaluate(() => window.zqTest.join());
  if (!await check(`${tag}: a good pair opens`, () => opened(page, fw, tag, 'answerer'))) {
    skip(`${tag}: flood and frames`, 'the channel never opened');
    return;
  }
  await check(`${tag}: ${FLOOD} garbage datagrams at the firmware's port leave the pair echoing`,
    async () => {
      const t0 = Date.now();
      const [, seq] = await Promise.all([flood(BOARDS[0].ip, fw.udpPort),
        page.evaluate(() => window.zqTest.sequence(100, 60000))]);
      assert(seq.ok, `during the flood: ${seq.detail}`);
      const after = await page.evaluate(() => window.zqTest.sequence(100));
      assert(after.ok, `after the flood: ${after.detail}`);
      return `flood took ${Date.now() - t0} ms; 100 messages during it ${seq.ms} ms, after ` +
        `${after.ms} ms`;
    });
  // The frames come from a member of their own, which the echo page dials too and then
  // takes as its channel (echo.js keeps one): its leaving closes the page's channel, not the
  // firmware's pair. So: the firmware refuses the frames, stays in the room, keeps its pair
  // with the page until the page goes, and a fresh page then opens and echoes.
  await check(`${tag}: malformed signalling frames addressed to the firmware leave it working`,
    async () => {
      const goodId = await page.evaluate(() => window.zqTest.id);
      const from = fw.lines.length;
      const n = await badFrames('fw-echo', fw.id);
      const refused = await waitLine(fw, /^zq: peer (\S+) gone: the peer's SDP was refused/, 5000,
        from);
      const after = fw.lines.slice(from).map((l) => l.line);
      assert(!after.some((l) => gone(goodId).test(l)), 'the good pair went with the bad frames');
      assert(!after.some((l) => /^zq: signalling closed/.test(l)), 'the firmware lost signalling');
      await page.reload();
      await page.waitForFunction(() => window.zqTest !== undefined);
      const id = await page.evaluate(() => window.zqTest.join());
      await page.evaluate(() => window.zqTest.waitOpen(30000));
      await waitLine(fw, connected(id), 10000);
      const seq = await page.evaluate(() => window.zqTest.sequence(100));
      assert(seq.ok, seq.detail);
      assert(!fw.exited, 'the firmware stopped');
      return `${n} frames sent; ${refused.m[1]} refused ("the peer's SDP was refused"), the ` +
        `good pair kept; a fresh page then echoed 100 messages in ${seq.ms} ms`;
    });
  const hw = fw.lines.map((l) => l.line.match(/^firmware: stack high-water (\d+) of (\d+)/))
    .filter(Boolean).pop();
  if (hw) figure('firmware (echo) stack high-water', `${hw[1]} of ${hw[2]} bytes`);
  await page.close();
}

// ---- d. sensor and actuator ----------------------------------------------------------------------

async function zqPage() {
  const page = await openPage('zq', '/page/zq.html?room=fw-devices');
  await page.waitForFunction(() => window.t !== undefined);
  await page.evaluate(() => window.t.ready);
  return page;
}

function cli(name, args, ms = 30000) {
  const p = start(name, zq, [...args, '--signal', signalUrl, '--room', 'fw-devices']);
  const t = setTimeout(() => p.proc.kill('SIGKILL'), ms);
  return p.done.then((ex) => {
    clearTimeout(t);
    return { ex, out: p.lines.map((l) => l.line) };
  });
}

async function devices() {
  const sensor = await boot('firmware-sensor', BOARDS[0], 'sensor', 'fw-devices');
  const actuator = await boot('firmware-actuator', BOARDS[1], 'actuator', 'fw-devices');
  const dash = await openPage('dashboard', '/?room=fw-devices');
  await check('devices: the dashboard lists sensor-1 and actuator-1 open', async () => {
    for (const n of ['sensor-1', 'actuator-1']) {
      await dash.waitForSelector(`#peers tr[data-name="${n}"][data-state="open"]`,
        { timeout: 30000 });
    }
  });
  const page = await zqPage();
  await check('devices: a page gets sensor-1\'s telemetry', async () => {
    const m = await page.evaluate(() => window.t.message('sensors.sensor-1', {}, 20000));
    assert(typeof m.payload.temperature === 'number', JSON.stringify(m.payload));
    return JSON.stringify(m.payload);
  });
  await check('devices: a QoS 1 publish on cmd.led switches the actuator\'s LED', async () => {
    const id = await page.evaluate(() => window.t.device('actuator-1'));
    await page.evaluate((a) => window.t.announced(a, { topics: ['cmd.led'] }), id);
    const since = await page.evaluate(() => window.t.now());
    const from = actuator.lines.length;
    const r = await page.evaluate(() => window.zq.publish('cmd.led', 'on', { qos: 1 }));
    await page.evaluate((s) => window.t.message('actuators.actuator-1.led',
      { since: s, equals: '{"on":true}' }), since);
    await waitLine(actuator, /^firmware: LED on/, 5000, from);
    return `seq ${r.seq} acked; the board's console says LED on`;
  });
  await check('devices: a job queued from the page is done by the actuator', async () => {
    const r = await page.evaluate(() => window.zq.enqueue('jobs', { test: 'fw' }, { until: 'done' }));
    return `job ${r.id} after ${r.attempts} attempt(s)`;
  });
  await check('devices: `status` answers', async () => {
    const s = await page.evaluate(() => window.zq.request('status', {}, { timeout: 5000 }));
    assert(s && ['sensor', 'actuator'].includes(s.kind), JSON.stringify(s));
    return JSON.stringify(s);
  });
  await check('devices: the dashboard switches the LED and shows its state', async () => {
    const topic = '[data-topic="actuators.actuator-1.led"] [data-field="value"]';
    await dash.click('[data-action="led-off"]');
    await dash.waitForFunction((sel) => document.querySelector(sel)?.textContent ===
      '{"on":false}', topic, { timeout: 15000 });
    await waitLine(actuator, /^firmware: LED off/, 5000);
    return 'LED off from its button: the topic shows {"on":false}, the board\'s console LED off';
  });
  await page.close();
  await check('devices: a zq host node over the mesh: sub, pub (QoS 1), put, req', async () => {
    const sub = await cli('zq-sub', ['sub', 'sensors.#', '--count', '1']);
    assert(sub.ex.code === 0 && sub.out.some((l) => l.includes('temperature')),
      `zq sub: exit ${JSON.stringify(sub.ex)}, ${sub.out.slice(-3).join(' | ')}`);
    const from = actuator.lines.length;
    // The room holds the sensor, the actuator and the dashboard's page: wait for all three, or
    // a publish acked by the page and the sensor alone can end before the actuator is dialed.
    const pub = await cli('zq-pub', ['pub', 'cmd.led', 'on', '--qos', '1', '--wait-peers', '3']);
    assert(pub.ex.code === 0, `zq pub: exit ${JSON.stringify(pub.ex)}`);
    await waitLine(actuator, /^firmware: LED on/, 5000, from);
    const put = await cli('zq-put', ['put', 'jobs', '{"from":"zq put"}']);
    assert(put.ex.code === 0, `zq put: exit ${JSON.stringify(put.ex)}`);
    const req = await cli('zq-req', ['req', 'status', '{}']);
    assert(req.ex.code === 0 && req.out.some((l) => l.includes('"kind"')),
      `zq req: exit ${JSON.stringify(req.ex)}, ${req.out.slice(-2).join(' | ')}`);
    return `telemetry, LED on, job done, ${req.out.find((l) => l.includes('"kind"'))}`;
  });
  await dash.close();
  for (const fw of [sensor, actuator]) {
    const hw = fw.lines.map((l) => l.line.match(/^firmware: stack high-water (\d+) of (\d+)/))
      .filter(Boolean).pop();
    if (hw) figure(`${fw.name} stack high-water`, `${hw[1]} of ${hw[2]} bytes`);
    await stop(fw);
  }
}

// ---- Main ------------------------------------------------------------------------------------------

async function shutdown() {
  if (context) await context.close().catch(() => {});
  for (const p of [...children]) await stop(p);
}

const printLogs = () => printTails(logs, logNames, 40);

async function main() {
  // --open: beyond loopback zq signal wants a token key or this; the bridge is the test's own.
  const signal = start('signal', zq, ['signal', '--listen', `${HOST}:0`, '--open', '--web', site]);
  const { m } = await waitLine(signal, /^zq signal: listening on http:\/\/[0-9.]+:(\d+) /);
  base = `http://${HOST}:${m[1]}`;
  signalUrl = `ws://${HOST}:${m[1]}/ws`;
  context = await launchChromium(profile, logs, [], { webrtcDefaults: true });
  console.log(`firmware: Chromium ${context.browser() ? context.browser().version() : ''}, ` +
    `${base}; logs in ${logs}`);
  let echoFw = null;
  for (const [name, group] of [['page dials', pageDials], ['firmware dials', async () => {
    echoFw = await zqDials();
  }], ['cycles', () => echoFw && cycles(echoFw)], ['bad input', () => echoFw && garbage(echoFw)],
  ['devices', async () => {
    if (echoFw) await stop(echoFw);
    await devices();
  }]].filter(([n]) => !ONLY || ONLY.includes(n))) {
    try {
      await group();
    } catch (e) {
      checks.failed++;
      console.log(`FAIL ${name}: ${e.message}`);
      if (name !== 'firmware dials' || !echoFw) await stopFirmwares();
    }
  }
  await finish(checks, { shutdown, printLogs, logs, temp: [profile, site], before: () => {
    figure('every board', boardPeaks());
    console.log('\nfigures (measured, never asserted):');
    for (const f of figures) console.log(`  ${f}`);
  } });
}

drive(main, { printLogs, shutdown, watchdogMs: 1_500_000 });
