// Headless Chromium for zq's browser tests (tests/browser, tests/web, tests/dashboard): Debian's
// chromium through playwright-core, host candidates as plain addresses (no mDNS), loopback
// allowed; or, for browser_chromium_lan, with Chromium's WebRTC defaults.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
/* playwright-core as tests/browser installed it (package-lock.json there pins it) */
const { chromium } = createRequire(join(here, '../browser/package.json'))('playwright-core');

export const CHROMIUM = process.env.ZQ_CHROMIUM || '/usr/bin/chromium';

// playwright-core 1.61.1's own --disable-features list (lib/server/chromium/chromiumSwitches.js;
// package.json pins the version, so update this with it). Chromium honours only the last
// --disable-features, and ours comes after Playwright's: so it repeats the list and adds
// WebRtcHideLocalIpsWithMdns, without which host candidates are mDNS names.
export const PLAYWRIGHT_DISABLED = [
  'AvoidUnnecessaryBeforeUnloadCheckSync', 'BoundaryEventDispatchTracksNodeRemoval',
  'DestroyProfileOnBrowserClose', 'DialMediaRouteProvider', 'GlobalMediaControls',
  'HttpsUpgrades', 'LensOverlay', 'MediaRouter', 'PaintHolding', 'ThirdPartyStoragePartitioning',
  'Translate', 'AutoDeElevate', 'RenderDocument', 'OptimizationHints', 'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
];

// For tests with several pages open at once: a page not in front keeps its timers at full rate.
export const NO_BACKGROUND_THROTTLING = [
  '--disable-background-timer-throttling', '--disable-renderer-backgrounding',
  '--disable-backgrounding-occluded-windows',
];

// @p extra goes before --disable-features. ZQ_BROWSER_CHROMIUM_LOG=1 adds Chromium's own
// WebRTC log in logDir. With @p webrtcDefaults, WebRTC keeps Chromium's defaults: no loopback
// candidates, host addresses hidden behind mDNS names (the --disable-features list is then
// Playwright's alone), no media permission.
export function chromiumArgs(logDir, extra = [], { webrtcDefaults = false } = {}) {
  // With webrtcDefaults the namespace has a default route (tests/support/lan.sh), so the
  // host names Chromium looks up at start would go to the machine's resolver: none is looked
  // up (the pages are served from 192.0.2.1, lan.sh's address, which the rule leaves alone).
  const webrtc = webrtcDefaults ? ['--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 192.0.2.1'] :
    ['--allow-loopback-in-peer-connection', '--use-fake-ui-for-media-stream'];
  const disabled = webrtcDefaults ? PLAYWRIGHT_DISABLED :
    [...PLAYWRIGHT_DISABLED, 'WebRtcHideLocalIpsWithMdns'];
  const args = [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
    '--no-proxy-server', ...webrtc,
    ...extra,
    `--disable-features=${disabled.join(',')}`,
  ];
  if (process.env.ZQ_BROWSER_CHROMIUM_LOG) {
    args.push('--enable-logging', `--log-file=${join(logDir, 'chromium.log')}`, '--v=0',
              '--vmodule=*/webrtc/*=2,*/p2p/*=2,*/sctp/*=2,*/dcsctp/*=2,*peer_connection*=2');
  }
  return args;
}

/** One browser context over @p profileDir, its tabs sharing storage (a reload keeps it).
 *  @p options.env: variables Chromium gets on top of ours (HOME: where its NSS trust store is). */
export function launchChromium(profileDir, logDir, extra = [], options = {}) {
  return chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM, headless: true, args: chromiumArgs(logDir, extra, options),
    ...(options.env ? { env: { ...process.env, ...options.env } } : {}),
  });
}

/** A browser whose contexts (browser.newContext()) share nothing. */
export function launchBrowser(logDir, extra = []) {
  return chromium.launch({ executablePath: CHROMIUM, headless: true,
    args: chromiumArgs(logDir, extra) });
}

// What Chromium was started with (chrome://version; CDP's getBrowserCommandLine wants
// --enable-automation, which a persistent context lacks). The last --disable-features must be
// ours and keep everything Playwright's disabled: a playwright-core upgrade that changes its
// list shows up here, not as a mysteriously different browser. Throws what is wrong.
export async function flagsInForce(context, { webrtcDefaults = false } = {}) {
  const page = await context.newPage();
  await page.goto('chrome://version');
  const argv = (await page.locator('#command_line').innerText()).split(/\s+/);
  await page.close();
  const lists = argv.filter((a) => a.startsWith('--disable-features='))
    .map((a) => a.slice('--disable-features='.length).split(','));
  if (lists.length === 0) throw new Error('no --disable-features at all');
  const last = lists[lists.length - 1];
  const lost = lists.flat().filter((f) => !last.includes(f));
  if (lost.length > 0) {
    throw new Error(`Playwright disables ${lost.join(', ')} too: add to PLAYWRIGHT_DISABLED`);
  }
  const webrtcFlags = ['--allow-loopback-in-peer-connection', '--use-fake-ui-for-media-stream'];
  if (webrtcDefaults) {
    if (last.includes('WebRtcHideLocalIpsWithMdns')) {
      throw new Error('WebRtcHideLocalIpsWithMdns is disabled: host addresses would show');
    }
    const set = webrtcFlags.filter((f) => argv.includes(f));
    if (set.length > 0) throw new Error(`${set.join(', ')} set: not Chromium's defaults`);
    return `Chromium's WebRTC defaults (mDNS host names, no loopback); ${lists.length} ` +
      `--disable-features, the last with ${last.length} features`;
  }
  if (!last.includes('WebRtcHideLocalIpsWithMdns')) {
    throw new Error('WebRtcHideLocalIpsWithMdns is not disabled');
  }
  for (const flag of webrtcFlags) {
    if (!argv.includes(flag)) throw new Error(`${flag} missing`);
  }
  return `${lists.length} --disable-features, the last with ${last.length} features`;
}
