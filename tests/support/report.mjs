// Checks and reporting for zq's browser test drivers (tests/browser, tests/web,
// tests/dashboard): each check prints PASS, FAIL or SKIP with its figures, a run ends with a
// summary line and a non-zero exit status if any check did not pass.
import { appendFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const WATCHDOG_MS = 270_000; // under CTest's 300 s, so the logs still get printed (by default)
let watchdog = null;

export function assert(cond, message) {
  if (!cond) throw new Error(message);
}

// Wall-clock time with microseconds, as tshark's frame.time_epoch: log lines and a capture can
// be laid side by side.
export function stamp() {
  return ((performance.timeOrigin + performance.now()) / 1000).toFixed(6);
}

export class Checks {
  /** @p label starts the summary line; @p timed adds each check's duration to its PASS line;
   *  @p skips: the driver skips checks, and the summary counts them. */
  constructor(label, { timed = false, skips = false } = {}) {
    Object.assign(this, { label, timed, skips, passed: 0, failed: 0, skipped: 0 });
    this.lastFailure = '';
  }

  /** Runs @p fn; what it returns is printed beside PASS, what it throws beside FAIL. (check and
   *  skip are bound: a driver may take them out, `const { check, skip } = checks`.) */
  check = async (name, fn) => {
    const start = Date.now();
    try {
      const info = await fn();
      this.passed++;
      const ms = this.timed ? `  [${Date.now() - start} ms]` : '';
      console.log(`PASS ${name}${info ? `  (${info})` : ''}${ms}`);
      return true;
    } catch (e) {
      this.failed++;
      this.lastFailure = e.message;
      console.log(`FAIL ${name}: ${e.message}`);
      return false;
    }
  };

  skip = (name, why) => {
    this.skipped++;
    console.log(`SKIP ${name}: ${why}`);
  };

  get ok() {
    return this.failed + this.skipped === 0;
  }

  summary() {
    const skipped = this.skips ? `, ${this.skipped} skipped` : '';
    console.log(`\n${this.label}: ${this.passed} passed, ${this.failed} failed${skipped}`);
  }
}

/** Keeps a child's output a line at a time: each line of @p proc's stdout and stderr goes into
 *  @p lines and onto @p file, stamped and tagged out or err; @p after runs after each chunk. */
export function keepLines(proc, file, lines, after = () => {}) {
  const take = (stream) => (chunk) => {
    for (const line of chunk.toString().split('\n').filter(Boolean)) {
      lines.push(line);
      appendFileSync(file, `${stamp()} ${stream} ${line}\n`);
    }
    after();
  };
  proc.stdout.on('data', take('out'));
  proc.stderr.on('data', take('err'));
}

/** The last @p n lines of each logs/NAME.log there is, for @p names. */
export function printTails(logs, names, n) {
  for (const name of names) {
    const file = join(logs, `${name}.log`);
    if (!existsSync(file)) continue;
    const lines = readFileSync(file, 'utf8').split('\n');
    console.log(`---- ${file} (last ${n} of ${lines.length} lines)`);
    console.log(lines.slice(-(n + 1)).join('\n'));
  }
}

/** Runs @p main under the watchdog (@p watchdogMs, under the test's CTest timeout); what it
 *  throws fails the run, after the logs are printed and @p shutdown stopped what runs. main
 *  ends with finish(). */
export function drive(main, { printLogs, shutdown, watchdogMs = WATCHDOG_MS }) {
  const fail = async (what) => {
    console.log(what);
    printLogs();
    await shutdown();
    process.exit(1);
  };
  watchdog = setTimeout(
    () => fail(`FAIL watchdog: the run took longer than ${watchdogMs / 1000} s`), watchdogMs);
  main().catch((e) => fail(`FAIL run: ${e.stack || e.message}`));
}

/** The end of a run: @p shutdown, then @p before (the driver's own last words), the logs
 *  printed if a check did not pass, the summary, @p temp directories removed; @p logs kept
 *  when a check did not pass, with ZQ_BROWSER_KEEP=1 or @p keep. Exits. */
export async function finish(checks, { shutdown, printLogs, logs, temp, before = () => {},
  keep = false }) {
  clearTimeout(watchdog);
  await shutdown();
  before();
  if (!checks.ok) printLogs();
  checks.summary();
  for (const dir of temp) rmSync(dir, { recursive: true, force: true });
  if (!checks.ok || process.env.ZQ_BROWSER_KEEP || keep) console.log(`logs kept in ${logs}`);
  else rmSync(logs, { recursive: true, force: true });
  process.exit(checks.ok ? 0 : 1);
}
