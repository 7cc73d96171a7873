// `zq demo` with browsers (issue 7): zq.js pages and the dashboard (web/index.html) in headless
// Chromium beside the demo's devices (app/sensor.c, app/actuator.c run by `zq device`).
//
//   a. a zq.js page: sensor telemetry arrives, a cmd.led command reaches the actuator (its
//      actuators.actuator-1.led says {"on":true}), a job is acked, `status` answers;
//   b. two pages and a second actuator (actuator-2) in the room: 20 jobs enqueued from the two
//      pages at once: none processed twice, and every one done (none a dead letter: the
//      actuators fail no job of these). No sensor-2: see moreDevices();
//   c. the dashboard: live data, plots drawn, the peers listed, "LED off"/"LED on" seen in the
//      topics table, a job done, a failing job dead and listed, requeued and purged; the
//      screenshot docs/dashboard.png (1280x800) is taken on the way;
//   d. `zq demo --duration 20` with the dashboard connected exits 0 and leaves no process;
//   e. (before d) 20 zq.js pages join one after another, each left once it has both devices
//      as zq peers with their subs: a hello Chromium drops now and then is sent again
//      (broker/PROTOCOL.md §2).
//
//   node dashboard.mjs path/to/zq      (run.sh does this inside `unshare -n`, loopback only)
//
// Each check prints PASS/FAIL; the exit status is non-zero if one failed. Times are printed,
// never asserted. ZQ_BROWSER_KEEP=1 keeps the logs; ZQ_DASHBOARD_SHOT=path writes the
// screenshot elsewhere than docs/dashboard.png ("" for none).
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync,
  symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NO_BACKGROUND_THROTTLING, launchBrowser } from '../support/chromium.mjs';
import { Checks, assert, drive, finish, keepLines, printTails, stamp } from '../support/report.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');

const zq = process.argv[2] ? resolve(process.argv[2]) : null;
if (!zq || !existsSync(zq)) {
  console.error('usage: node dashboard.mjs path/to/zq');
  process.exit(2);
}
const SHOT = process.env.ZQ_DASHBOARD_SHOT ?? join(root, 'docs/dashboard.png');
const ROOM = 'default-topic';
const JOBS = 20;
const DURATION_S = 20;

const logs = mkdtempSync(join(tmpdir(), 'zq-dash-logs-'));
/* The served directory: web/'s files at the root (the dashboard is /) and the test page. */
const site = mkdtempSync(join(tmpdir(), 'zq-dash-site-'));
for (const name of readdirSync(join(root, 'web'))) {
  symlinkSync(join(root, 'web', name), join(site, name));
}
symlinkSync(join(here, 'page'), join(site, 'page'));

// ---- Results ------------------------------------------------------------------------------------

const checks = new Checks('dashboard', { timed: true });
const { check } = checks;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---- zq processes -------------------------------------------------------------------------------

const children = new Set();
const logNames = [];

/** Runs zq with @p args, its output in logs/<name>.log. @returns {proc, lines, exited}. */
function run(name, args) {
  const file = join(logs, `${name}.log`);
  logNames.push(name);
  const proc = spawn(zq, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const r = { proc, lines: [], exited: null };
  children.add(r);
  keepLines(proc, file, r.lines);
  r.done = new Promise((res) => proc.on('exit', (code, sig) => {
    r.exited = { code, sig };
    children.delete(r);
    res(r.exited);
  }));
  return r;
}

async function waitLine(r, re, ms, what) {
  const end = Date.now() + ms;
  while (!r.lines.some((l) => re.test(l))) {
    if (r.exited) throw new Error(`${what}: exited ${JSON.stringify(r.exited)}`);
    if (Date.now() > end) throw new Error(`${what}: nothing after ${ms} ms`);
    await sleep(50);
  }
}

/** A port nobody listens on now (the namespace is ours: nobody will take it meanwhile). */
function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.on('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

async function startDemo(name, extra) {
  const port = await freePort();
  const demo = run(name, ['demo', '--listen', `127.0.0.1:${port}`, '--verbose', ...extra]);
  await waitLine(demo, /^zq demo: dashboard at http:\/\/127\.0\.0\.1:\d+\//, 10000, 'zq demo');
  return { demo, port, base: `http://127.0.0.1:${port}` };
}

async function stop(r, ms = 5000) {
  if (r.exited) return r.exited;
  r.proc.kill('SIGTERM');
  return Promise.race([r.done, sleep(ms).then(() => {
    r.proc.kill('SIGKILL');
    return r.done;
  })]);
}

/** Processes whose command line mentions @p text (the demo's children name its address). */
function processesWith(text) {
  const found = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
      if (cmd.includes(text) && Number(pid) !== process.pid) found.push(`${pid}: ${cmd.trim()}`);
    } catch {
      /* gone meanwhile */
    }
  }
  return found;
}

// ---- Pages -------------------------------------------------------------------------------------

let browser = null;
const pageErrors = [];

/** A page of @p base + @p path in a context of its own, its console in logs/page-<name>.log;
 *  @p before(page) runs before it loads. */
async function openPage(name, base, path, options = {}, before = () => {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, ...options });
  const page = await context.newPage();
  before(page);
  const file = join(logs, `page-${name}.log`);
  logNames.push(`page-${name}`);
  page.on('console', (m) => appendFileSync(file, `${stamp()} ${m.type()} ${m.text()}\n`));
  page.on('pageerror', (e) => {
    pageErrors.push(`${name}: ${e.message}`);
    appendFileSync(file, `${stamp()} PAGE ERROR ${e.stack || e.message}\n`);
  });
  await page.goto(`${base}${path}`);
  return page;
}

/** What @p page's zq.js knows of each open peer (a test page's window.zq, the dashboard's
 *  window.dashboard.zq): whether it said hello, and the sub it sent, if any. A device whose sub
 *  never came is neither asked for its services nor sent its topics. */
function peerStates(page) {
  return page.evaluate(() => {
    const zq = window.zq ?? window.dashboard?.zq;
    if (!zq) return 'no zq.js on the page';
    const b = zq.broker;
    const peers = b.openPeers().map((p) => `${p.id.slice(0, 8)} ${p.zq ? 'zq' : 'ZeroQ'}` +
      `${p.classified ? '' : ' (unclassified)'}, sub ` +
      `${p.subReceived ? JSON.stringify({ topics: p.topics, services: p.services }) : 'none'}`);
    return `${peers.join('; ') || 'none open'}; rxMalformed ${b.stats.rxMalformed}, ` +
      `rxUnknown ${b.stats.rxUnknown}`;
  }).catch((e) => `unreadable (${e.message})`);
}

/** @p fn, whose failure also says what @p page knows of its peers (peerStates). */
function explained(page, fn) {
  return async () => {
    try {
      return await fn();
    } catch (e) {
      throw new Error(`${e.message}; the page's peers: ${await peerStates(page)}`);
    }
  };
}

/** A zq.js test page in the demo's room, joined. */
async function zqPage(name, base) {
  const page = await openPage(name, base, `/page/zq.html?room=${ROOM}`);
  await page.waitForFunction(() => window.t !== undefined);
  const id = await page.evaluate(() => window.t.ready);
  return { page, id, name };
}

// ---- a. one zq.js page and the demo's devices ---------------------------------------------------

async function telemetry(a) {
  const sensor = await a.page.evaluate(() => window.t.device('sensor-1'));
  const since = await a.page.evaluate(() => window.t.now());
  const m = await a.page.evaluate((s) => window.t.message('sensors.sensor-1', { since: s }), since);
  const p = m.payload;
  assert(m.from === sensor, `from ${m.from}, not sensor-1's ${sensor}`);
  for (const k of ['temperature', 'humidity', 'uptime']) {
    assert(typeof p[k] === 'number', `${k} in ${JSON.stringify(p)}`);
  }
  return `sensors.sensor-1 ${JSON.stringify(p)}`;
}

async function ledCommand(a) {
  const actuator = await a.page.evaluate(() => window.t.device('actuator-1'));
  await a.page.evaluate((id) => window.t.announced(id, { topics: ['cmd.led'] }), actuator);
  const since = await a.page.evaluate(() => window.t.now());
  const r = await a.page.evaluate(() => window.zq.publish('cmd.led', 'on', { qos: 1 }));
  const m = await a.page.evaluate((s) => window.t.message('actuators.actuator-1.led',
    { since: s, equals: '{"on":true}' }), since);
  assert(m.from === actuator, `LED state from ${m.from}, not the actuator ${actuator}`);
  return `cmd.led "on" (QoS 1, seq ${r.seq}, acked) -> actuators.actuator-1.led {"on":true}`;
}

async function oneJob(a) {
  const t0 = Date.now();
  const r = await a.page.evaluate(() => window.zq.enqueue('jobs', { test: 'a' },
    { until: 'done' }));
  const done = await a.page.evaluate((id) => window.t.jobsDone.find((d) => d.id === id), r.id);
  const actuator = await a.page.evaluate(() => window.t.device('actuator-1'));
  assert(r.attempts === 1, `acked after ${r.attempts} attempts`);
  assert(done && done.by === actuator, `job_done ${JSON.stringify(done)}`);
  return `job ${r.id} acked by actuator-1 after ${Date.now() - t0} ms (the device works 500 ms)`;
}

async function status(a) {
  const t0 = Date.now();
  const s = await a.page.evaluate(() => window.zq.request('status', {}, { timeout: 3000 }));
  assert(s && ['sensor', 'actuator'].includes(s.kind) && /^(sensor|actuator)-1$/.test(s.name),
    `status ${JSON.stringify(s)}`);
  return `${JSON.stringify(s)} in ${Date.now() - t0} ms`;
}

// ---- b. two pages, two more devices, 20 jobs ----------------------------------------------------

/** Starts actuator-2 in the demo's room; resolves once both pages see it. Not sensor-2 as
 *  well: a device holds at most ZQ_NODE_MAX_PEERS (4) peers (node/node.h), and sensor-1,
 *  actuator-1, two pages and actuator-2 are already 4 peers for each device; a sixth member
 *  would be refused a connection by one of them (silently: the dialer times out after 20 s). */
async function moreDevices(pages, port) {
  const url = `ws://127.0.0.1:${port}/ws`;
  const procs = [run('actuator-2', ['device', 'actuator', '--name', 'actuator-2', '--verbose',
    '--signal', url, '--room', ROOM])];
  const ids = {};
  for (const x of pages) {
    for (const d of ['sensor-1', 'actuator-1', 'actuator-2']) {
      ids[d] = await x.page.evaluate((n) => window.t.device(n, 20000), d);
    }
  }
  return { procs, ids };
}

/** Each page enqueues JOBS / 2 jobs at once, until done. @returns every outcome:
 *  {page, id, attempts} or {page, id, code} (a rejection), and the job_done events seen. */
async function enqueueFromBoth(pages) {
  const outcomes = await Promise.all(pages.map((x) => x.page.evaluate(async ([n, from]) => {
    const all = [];
    for (let i = 0; i < n; i++) {
      all.push(window.zq.enqueue('jobs', { page: from, i }, { until: 'done' }).then(
        (r) => ({ page: from, id: r.id, attempts: r.attempts }),
        (e) => ({ page: from, id: e.id, code: e.code, message: e.message })));
    }
    return Promise.all(all);
  }, [JOBS / 2, x.name])));
  const done = [];
  for (const x of pages) {
    done.push(...await x.page.evaluate(() => window.t.jobsDone.filter((d) => d.queue === 'jobs')));
  }
  return { outcomes: outcomes.flat(), done };
}

/** b (1): whatever happened to each job, no consumer processed one twice: every acked job
 *  has exactly one job_done, by one of the actuators, and no job is both acked and dead. */
function processedOnce(r, ids) {
  const { outcomes, done } = r;
  assert(outcomes.length === JOBS && new Set(outcomes.map((o) => o.id)).size === JOBS,
    `${outcomes.length} outcomes, ${new Set(outcomes.map((o) => o.id)).size} distinct jobs`);
  const odd = outcomes.filter((o) => o.code && o.code !== 'DEAD_LETTER');
  assert(odd.length === 0, `rejections: ${JSON.stringify(odd)}`);
  const by = {};
  for (const o of outcomes) {
    const ds = done.filter((d) => d.id === o.id);
    assert(ds.length === (o.code ? 0 : 1), `job ${o.id} (${o.code ?? 'acked'}): ` +
      `${ds.length} job_done events`);
    for (const d of ds) by[d.by] = (by[d.by] ?? 0) + 1;
  }
  const by1 = by[ids['actuator-1']] ?? 0;
  const by2 = by[ids['actuator-2']] ?? 0;
  const acked = outcomes.filter((o) => !o.code).length;
  assert(by1 + by2 === acked, `acked by others than the actuators: ${JSON.stringify(by)}`);
  return { by1, by2, acked };
}

/** b (2): every job done. A job a consumer refused for want of room (two producers were both
 *  told its credit of 1, PROTOCOL.md §6) was not processed; it must not end as a dead letter. */
function noneDead(r) {
  const dead = r.outcomes.filter((o) => o.code === 'DEAD_LETTER');
  const refused = r.outcomes.filter((o) => o.attempts > 1);
  assert(dead.length === 0, `${dead.length} of ${JOBS} jobs ended as dead ` +
    `letters though the actuators fail no job (the only failing payload is {"fail":true}): ` +
    `each was refused 3 times for want of room, and a refusal counts as an attempt ` +
    `(${dead.map((d) => d.message).slice(0, 2).join('; ')})`);
  return `${refused.length} job(s) refused first, none dead`;
}

// ---- c. the dashboard ---------------------------------------------------------------------------

const led = (page) => page.locator('[data-topic="actuators.actuator-1.led"] [data-field="value"]');

async function dashboard(base) {
  const t0 = Date.now();
  const foreign = [];
  const page = await openPage('dashboard', base, '/', {}, (p) => p.on('request', (r) => {
    if (!r.url().startsWith(`${base}/`) && !r.url().startsWith('data:')) foreign.push(r.url());
  }));
  return explained(page, () => dashboardSeen(page, base, foreign, t0))();
}

async function dashboardSeen(page, base, foreign, t0) {
  const open = (name) => `#peers tr[data-name="${name}"][data-state="open"]`;
  await page.waitForSelector(open('sensor-1'), { timeout: 15000 });
  await page.waitForSelector(open('actuator-1'), { timeout: 15000 });
  const peers = await page.locator('#peers tbody tr[data-state="open"]').count();
  assert(peers >= 2, `${peers} open peers listed`);
  const rttCell = `${open('sensor-1')} .rtt`;
  await page.waitForFunction((sel) => / ms$/.test(document.querySelector(sel)?.textContent),
    rttCell, { timeout: 10000 });
  const rtt = await page.locator(rttCell).textContent();

  await page.click('[data-action="led-off"]');
  await page.waitForFunction((sel) => document.querySelector(sel)?.textContent === '{"on":false}',
    '[data-topic="actuators.actuator-1.led"] [data-field="value"]', { timeout: 10000 });
  await page.click('[data-action="led-on"]');
  const tLed = Date.now();
  await led(page).filter({ hasText: '{"on":true}' }).waitFor({ timeout: 10000 });
  const ledMs = Date.now() - tLed;

  await page.click('[data-action="job"]');
  await page.click('[data-action="fail-job"]');
  await page.waitForSelector('#jobs tr[data-state="done"]', { timeout: 10000 });
  await page.waitForSelector('#jobs tr[data-state="dead"]', { timeout: 15000 });
  await page.waitForFunction(() => document.getElementById('dlq').children.length === 1,
    null, { timeout: 10000 });
  await page.click('[data-action="status"]');
  await page.waitForSelector('#result.ok', { timeout: 5000 });
  const reply = await page.locator('#result pre').textContent();
  assert(/"name": "(sensor|actuator)-1"/.test(reply), `status reply ${reply}`);

  /* The plots: at least 10 s of telemetry, drawn (points counted, pixels set) */
  const plot = '[data-topic="sensors.sensor-1"] canvas.plot';
  await page.waitForFunction((sel) => Number(document.querySelector(sel)?.dataset.points) >= 30,
    plot, { timeout: 20000 }); /* 3 fields x 10 readings */
  const drawn = await page.evaluate((sel) => {
    const c = document.querySelector(sel);
    const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let set = 0;
    for (let i = 3; i < px.length; i += 4) if (px[i] > 0) set++;
    return { points: Number(c.dataset.points), set, w: c.width, h: c.height };
  }, plot);
  assert(drawn.set > 1000, `the plot has ${drawn.set} pixels drawn`);
  if (SHOT) {
    await page.evaluate(() => document.activeElement?.blur());
    await page.mouse.move(0, 0); /* no button hovered */
    await page.screenshot({ path: SHOT });
  }

  /* Dead letters: requeued (dead again after 3 more attempts), then purged */
  await page.click('#dlq-requeue');
  await page.waitForSelector('#jobs tr[data-state="waiting"], #jobs tr[data-state="leased"]',
    { timeout: 5000 });
  await page.waitForSelector('#jobs tr[data-state="dead"]', { timeout: 15000 });
  await page.click('#dlq-purge');
  await page.waitForSelector('#jobs tr[data-state="purged"]', { timeout: 5000 });
  await page.waitForFunction(() => document.getElementById('dlq').children.length === 0,
    null, { timeout: 5000 });

  /* A request to one chosen device, through the form: each answers for itself */
  await page.click('[aria-controls="form-request"]');
  const choice = '#form-request select[name="peer"]';
  for (const name of ['sensor-1', 'actuator-1']) {
    const id = await page.evaluate(({ sel, n }) => [...document.querySelector(sel).options]
      .find((o) => o.text.startsWith(`${n} `))?.value, { sel: choice, n: name });
    assert(id, `the request form offers ${name}`);
    await page.selectOption(choice, id);
    await page.click('#form-request button.primary');
    /* its outcome, ok or not, so a failure says what the page showed */
    await page.waitForFunction((n) => !document.querySelector('#result.busy') &&
      document.querySelector('#result .result-head')?.textContent
        .startsWith(`request status of ${n}:`), name, { timeout: 5000 })
      .catch(async () => {
        const shown = await page.locator('#result').textContent();
        throw new Error(`no answer from ${name} in 5 s; the page shows: ${shown.trim()}`);
      });
    const head = await page.locator('#result .result-head').textContent();
    const answer = await page.locator('#result pre').textContent();
    assert(await page.locator('#result.ok').count() === 1, `${name}: ${head} ${answer}`);
    assert(answer.includes(`"name": "${name}"`), `${name}'s status reply ${answer}`);
  }
  const events = await page.locator('#log li').count();
  assert(pageErrors.length === 0, `page errors: ${pageErrors.join('; ')}`);
  assert(foreign.length === 0, `requests elsewhere than ${base}: ${foreign.join(' ')}`);
  await page.context().close();
  return `only ${base} loaded; ${peers} peers open (sensor-1 RTT ${rtt.trim()}), LED on ` +
    `shown in ${ledMs} ms, ` +
    `${drawn.points} points plotted (${drawn.set} pixels of ${drawn.w}x${drawn.h}), a job done, ` +
    `a failing one dead, requeued, dead again, purged; status asked of each device by name; ` +
    `${events} events logged` +
    `${SHOT ? `; screenshot ${SHOT}` : ''}; ${Date.now() - t0} ms`;
}

// ---- d. zq demo --duration with the dashboard connected -----------------------------------------

async function demoDuration() {
  const t0 = Date.now();
  /* the demo's own default --web: the source tree's web/ */
  const { demo, port, base } = await startDemo('demo-duration', ['--duration', String(DURATION_S)]);
  const page = await openPage('dashboard-duration', base, '/');
  for (const name of ['sensor-1', 'actuator-1']) {
    await page.waitForSelector(`#peers tr[data-name="${name}"][data-state="open"]`,
      { timeout: 15000 });
  }
  const exit = await Promise.race([demo.done, sleep((DURATION_S + 15) * 1000).then(() => null)]);
  assert(exit !== null, `still running ${DURATION_S + 15} s after it started`);
  const took = (Date.now() - t0) / 1000;
  assert(exit.code === 0, `zq demo exited ${JSON.stringify(exit)}`);
  await sleep(300);
  const left = processesWith(`127.0.0.1:${port}`);
  assert(left.length === 0, `left behind: ${left.join('; ')}`);
  await page.waitForFunction(() => document.getElementById('signal').textContent !== 'connected',
    null, { timeout: 10000 });
  const shown = await page.locator('#signal').textContent();
  await page.context().close();
  return `exit 0 after ${took.toFixed(1)} s, no zq process left; the dashboard says '${shown}'`;
}

// ---- e. one page after another ------------------------------------------------------------------

const JOINS = 20;

/** e: JOINS pages join, one at a time; each must see sensor-1 and actuator-1 as zq peers with
 *  their subs within 6 s (a device that missed the page's hello never sends its sub). */
async function joins(base) {
  const file = join(logs, 'page-joins.log');
  logNames.push('page-joins');
  let resent = 0;
  const took = [];
  for (let i = 0; i < JOINS; i++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.on('console', (m) => appendFileSync(file, `${stamp()} ${i} ${m.type()} ${m.text()}\n`));
    const t0 = Date.now();
    await page.goto(`${base}/page/zq.html?room=${ROOM}`);
    const ok = await page.waitForFunction(() => {
      const ps = window.zq?.broker.openPeers() ?? [];
      return ps.length >= 2 && ps.every((p) => p.zq && p.subReceived);
    }, null, { timeout: 6000 }).then(() => true, () => false);
    if (!ok) {
      const state = await peerStates(page);
      await context.close();
      throw new Error(`join ${i + 1} of ${JOINS}: not both devices with their subs in 6 s; ` +
        `the page's peers: ${state}`);
    }
    took.push(Date.now() - t0);
    resent += await page.evaluate(() => window.zq.stats.helloResent);
    await context.close();
  }
  took.sort((x, y) => x - y);
  return `${JOINS} joins, median ${took[JOINS >> 1]} ms to both subs (slowest ${took.at(-1)} ms); ` +
    `hellos sent again: ${resent}`;
}

// ---- f. more pages than a device has peer slots -------------------------------------------------

/** Whether @p page has both devices (the peers whose sub offers `status`; pages offer no
 *  service) as zq peers with their subs. Other pages are open peers too. */
function bothDevicesIn(page, ms) {
  return page.waitForFunction(() => window.zq.broker.openPeers()
    .filter((x) => x.zq && x.subReceived && x.services.includes('status')).length >= 2,
  null, { timeout: ms }).then(() => true, () => false);
}

/** f: pages join and stay until the devices, every peer slot taken, tell one it waits; when
 *  the first page leaves, both devices dial the waiting one. */
async function waitForSlot(base) {
  const opened = [];
  const stayed = [];
  try {
    let waiter = null;
    for (let i = 1; i <= 6 && !waiter; i++) {
      const p = await zqPage(`f${i}`, base);
      opened.push(p);
      const told = p.page.waitForFunction(() => window.t.waiting.length >= 2, null,
        { timeout: 8000 }).then(() => true, () => false);
      const met = bothDevicesIn(p.page, 8000);
      const first = await new Promise((resolve) => { /* whichever comes true first */
        told.then((v) => v && resolve('told'));
        met.then((v) => v && resolve('met'));
        Promise.all([told, met]).then(() => resolve(null));
      });
      if (first === 'told') waiter = p;
      else if (first === 'met') stayed.push(p);
      else {
        throw new Error(`page f${i}: neither both devices nor told it waits in 8 s; ` +
          `its peers: ${await peerStates(p.page)}`);
      }
    }
    assert(waiter, `${stayed.length} pages joined and no device said it was full`);
    const t0 = Date.now();
    await stayed[0].page.context().close();
    const ok = await bothDevicesIn(waiter.page, 15000);
    const ms = Date.now() - t0;
    assert(ok, `after a page left, the waiting page still lacks a device: ` +
      `${await peerStates(waiter.page)}`);
    return `${stayed.length} pages filled the devices' slots; the next was told it waits by ` +
      `both devices; ${ms} ms after one page left, both had dialed it`;
  } finally {
    for (const p of opened) await p.page.context().close().catch(() => {});
  }
}

// ---- Main ---------------------------------------------------------------------------------------

function printLogs() {
  printTails(logs, logNames, 60);
}

async function shutdown() {
  if (browser) await browser.close().catch(() => {});
  await Promise.all([...children].map((r) => stop(r, 3000)));
}

/** a and b: zq.js pages beside the demo's devices (b with two more devices). */
async function pages(base, port) {
  let a = null;
  await check('a: a zq.js page joins the demo room', async () => {
    a = await zqPage('a', base);
    return `as ${a.id}`;
  });
  if (!a) return;
  await check('a: sensor telemetry reaches the page', explained(a.page, () => telemetry(a)));
  await check('a: a cmd.led command reaches the actuator, which reports its LED on',
    explained(a.page, () => ledCommand(a)));
  await check('a: a queued job is acked (enqueue until done)',
    explained(a.page, () => oneJob(a)));
  await check('a: an RPC to status returns', explained(a.page, () => status(a)));
  let b = null;
  let more = null;
  await check('b: a second page and actuator-2 join the room', async () => {
    b = await zqPage('b', base);
    more = await moreDevices([a, b], port);
    return 'both pages see sensor-1, actuator-1 and actuator-2';
  });
  if (more) await twentyJobs(a, b, more);
  if (b) await b.page.context().close();
  await a.page.context().close();
}

async function twentyJobs(a, b, more) {
  let jobs = null;
  await check(`b: ${JOBS} jobs from the two pages, two actuators: none processed twice`,
    explained(a.page, async () => {
      const t0 = Date.now();
      jobs = await enqueueFromBoth([a, b]);
      const ms = Date.now() - t0;
      const { by1, by2, acked } = processedOnce(jobs, more.ids);
      assert(by1 > 0 && by2 > 0, `actuator-1 did ${by1}, actuator-2 ${by2}`);
      return `${acked} acked once each in ${ms} ms: actuator-1 did ${by1}, actuator-2 ${by2}`;
    }));
  if (jobs) {
    await check(`b: every one of the ${JOBS} jobs done, none dead-lettered`,
      () => noneDead(jobs));
  }
  await check('b: actuator-2 exits 0 on SIGTERM', async () => {
    for (const d of more.procs) {
      const e = await stop(d);
      assert(e.code === 0, `${d.proc.spawnargs.slice(1, 5).join(' ')}: ${JSON.stringify(e)}`);
    }
  });
}

async function main() {
  browser = await launchBrowser(logs, NO_BACKGROUND_THROTTLING);
  const { demo, port, base } = await startDemo('demo', ['--web', site]);
  console.log(`browser: Chromium ${browser.version()}; zq demo at ${base}/, logs in ${logs}`);

  await pages(base, port);
  await check('c: the dashboard: live data, plots, peers, the LED; queues and dead letters',
    () => dashboard(base));
  await check(`e: ${JOINS} pages join one after another, each meets both devices`,
    () => joins(base));
  await check('f: a page beyond the devices\' peer slots is told it waits, then dialed',
    () => waitForSlot(base));
  await check('zq demo stops on SIGTERM with exit 0', async () => {
    const e = await stop(demo);
    assert(e.code === 0, `exited ${JSON.stringify(e)}`);
  });
  await check(`d: zq demo --duration ${DURATION_S} with the dashboard: exit 0, nothing left`,
    demoDuration);

  await finish(checks, { shutdown, printLogs, logs, temp: [site] });
}

drive(main, { printLogs, shutdown });
