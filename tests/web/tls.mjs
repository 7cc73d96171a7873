// Headless Chromium against `zq signal --tls-cert` (issue 20): the page, web/zq.js and the
// signalling WebSocket all over TLS from zq signal itself, with a zq node in the room.
//
//   node tls.mjs path/to/zq       (tls.sh makes the certificates and Chromium's trust store,
//                                  then runs this inside `unshare -n`, loopback only)
//
// ZQ_TLS_DIR holds ca.pem, leaf.pem and leaf.key (a P-256 root and a leaf for localhost) and
// home/.pki/nssdb, an NSS database trusting ca.pem: how a Linux user or admin makes Chromium
// trust a CA; Chromium's settings are otherwise its defaults.
//
// Checked: a page whose root is not trusted is refused (net::ERR_CERT_AUTHORITY_INVALID); with
// the root trusted the page loads over https:// (a secure context), zq.js joins over wss://
// (the URL it derives from the page's), and a request to `zq rep echo --exec cat` (zq's own
// wss:// client, same server) is answered over the data channel.
import { spawn } from 'node:child_process';
import { mkdtempSync, appendFileSync, existsSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchBrowser, launchChromium } from '../support/chromium.mjs';
import { Checks, assert, drive, finish, keepLines, printTails, stamp } from '../support/report.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const zq = process.argv[2] ? resolve(process.argv[2]) : null;
const certs = process.env.ZQ_TLS_DIR;
if (!zq || !existsSync(zq) || !certs) {
  console.error('usage: ZQ_TLS_DIR=DIR node tls.mjs path/to/zq');
  process.exit(2);
}

const logs = mkdtempSync(join(tmpdir(), 'zq-tls-logs-'));
const profile = mkdtempSync(join(tmpdir(), 'zq-tls-profile-'));
const site = mkdtempSync(join(tmpdir(), 'zq-tls-site-'));
symlinkSync(join(root, 'web'), join(site, 'web'));
symlinkSync(join(here, 'page'), join(site, 'page'));

const checks = new Checks('tls', { timed: true });
const { check } = checks;
const children = [];
let context = null;
let stranger = null;

function start(name, args, env = {}) {
  const file = join(logs, `${name}.log`);
  const proc = spawn(zq, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  const lines = [];
  keepLines(proc, file, lines);
  children.push(proc);
  return { proc, lines };
}

function waitLine(child, re, ms = 10000) {
  return new Promise((resolveLine, reject) => {
    const deadline = Date.now() + ms;
    const poll = () => {
      const m = child.lines.map((l) => l.match(re)).find(Boolean);
      if (m) resolveLine(m);
      else if (child.proc.exitCode !== null || Date.now() > deadline) {
        reject(new Error(`no line ${re} (${child.lines.slice(-3).join(' | ')})`));
      } else setTimeout(poll, 50);
    };
    poll();
  });
}

function printLogs() {
  printTails(logs, ['signal', 'rep', 'page'], 40);
}

async function shutdown() {
  if (context) await context.close().catch(() => {});
  if (stranger) await stranger.close().catch(() => {});
  for (const c of children) c.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 300));
}

async function main() {
  const signal = start('signal', ['signal', '--listen', '127.0.0.1:0', '--web', site,
    '--tls-cert', join(certs, 'leaf.pem'), '--tls-key', join(certs, 'leaf.key')]);
  const port = (await waitLine(signal, /^zq signal: listening on https:\/\/127\.0\.0\.1:(\d+) /))[1];
  const origin = `https://localhost:${port}`;
  const room = 'tls';
  const url = `${origin}/page/zq.html?room=${room}`;
  start('rep', ['rep', 'echo', '--exec', 'cat', '--signal', `wss://localhost:${port}/ws`,
    '--room', room], { SSL_CERT_FILE: join(certs, 'ca.pem') });

  await check('a root Chromium does not trust: the page is refused', async () => {
    stranger = await launchBrowser(logs);
    const page = await (await stranger.newContext()).newPage();
    let error = '';
    await page.goto(url).catch((e) => { error = e.message; });
    await stranger.close();
    stranger = null;
    assert(/ERR_CERT_AUTHORITY_INVALID/.test(error), `goto: ${error || 'loaded'}`);
    return 'net::ERR_CERT_AUTHORITY_INVALID';
  });

  context = await launchChromium(profile, logs, [], { env: { HOME: join(certs, 'home') } });
  const version = context.browser() ? context.browser().version() : '';
  console.log(`browser: Chromium ${version}, ${url}; logs in ${logs}`);
  const page = await context.newPage();
  page.on('console', (m) => appendFileSync(join(logs, 'page.log'), `${stamp()} ${m.text()}\n`));
  await check('with the root in its NSS database, the page loads over https://', async () => {
    const response = await page.goto(url);
    assert(response && response.ok(), `status ${response && response.status()}`);
    const info = await page.evaluate(() => ({ secure: window.isSecureContext,
      protocol: location.protocol }));
    assert(info.secure && info.protocol === 'https:', JSON.stringify(info));
    const sec = await response.securityDetails();
    return `${sec.protocol}, issuer ${sec.issuer}, secure context`;
  });
  await check('zq.js joins over wss:// and a zq node answers its request', async () => {
    const id = await page.evaluate(() => window.t.ready);
    await page.evaluate(() => window.t.peers(1));
    const reply = await page.evaluate(() =>
      window.zq.request('echo', { said: 'over tls' }, { timeout: 5000 }));
    assert(reply && reply.said === 'over tls', `reply ${JSON.stringify(reply)}`);
    await waitLine(signal, new RegExp(`${id} joined room "${room}"`));
    return `page ${id}: reply ${JSON.stringify(reply)}`;
  });
  await finish(checks, { shutdown, printLogs, logs, temp: [profile, site, certs] });
}

drive(main, { printLogs, shutdown });
