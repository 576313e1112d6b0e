// The guard against a whole class of bug (issue 25): CPU work on untrusted input that holds the
// server's one thread. A real `tidings serve` (SQLite, or PostgreSQL with
// TIDINGS_TEST_DATABASE_URL) gets each hostile input of the attacks (test/freeze-attacks.ts) while
// this process polls /healthz every 20 ms: every poll must answer within 200 ms throughout. The
// machine is shared: when ordinary requests of the same kinds (ORDINARY) already hold /healthz
// longer, the limit is twice their slowest, measured in the same run; an attack over the limit is
// run again, and fails only when over it both times (a freeze is, every time) and the server's own
// event-loop watch (tidings_event_loop_blocked_seconds in /metrics, reported beside each figure) saw
// its thread held over 200 ms (test/observability.test.ts checks that the watch sees holds). Before
// the fixes the same inputs held /healthz for 0.4 s to over 12 minutes (BENCHMARKS.md, "Freezes on
// hostile input"; bench/freeze.bench.ts).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { tempDataDir } from './helpers.ts';
import { serve, type Served } from './serve-helper.ts';
import { ATTACKS, ORDINARY, seedData, startHostileOrigin, underAttack, type Target } from './freeze-attacks.ts';

/** The longest any /healthz may take while a hostile request runs. */
const HEALTHZ_MS = 200;

let s: Served;
let origin: Awaited<ReturnType<typeof startHostileOrigin>>;
let target: Target;

before(async () => {
  origin = await startHostileOrigin();
  const dataDir = tempDataDir('tidings-freeze-');
  const { key, manyFeedsKey } = await seedData(dataDir, origin.base);
  s = await serve(['--data', dataDir, 'serve', '--port', '0', '--host', '127.0.0.1'], {
    TIDINGS_SCHEDULER: 'false',
    TIDINGS_ALLOW_PRIVATE_NETWORKS: 'true',
  });
  target = { url: s.url, base: origin.base, key, manyFeedsKey };
});

after(async () => {
  if (s && s.process.exitCode === null && s.process.signalCode === null) await s.stop('SIGKILL');
  await origin?.close();
});

/** Holds of the server's thread over 200 ms so far, from its event-loop watch in /metrics. */
async function serverHolds(): Promise<number> {
  const text = await (await fetch(`${s.url}/metrics`)).text();
  const bucket = (le: string) =>
    Number(
      [...text.matchAll(/^tidings_event_loop_blocked_seconds_bucket\{le="([^"]+)"\} (\d+)$/gm)].find(
        (m) => m[1] === le,
      )?.[2],
    );
  return bucket('+Inf') - bucket('0.2');
}

test('no hostile request holds the server: /healthz answers within 200 ms throughout', {
  timeout: 900_000,
}, async (t) => {
  const rows: string[] = [];
  let ordinary = 0;
  // Once to warm up (the first answer loads the answer code), then measured.
  for (const request of ORDINARY) await underAttack(target, request);
  for (const request of ORDINARY) {
    const m = await underAttack(target, request);
    ordinary = Math.max(ordinary, m.worstHealthzMs);
    rows.push(`base ${request.name}: slowest /healthz ${m.worstHealthzMs.toFixed(0)} ms; answer ${m.outcome}`);
  }
  const limit = Math.max(HEALTHZ_MS, 2 * ordinary);
  rows.push(`limit: ${limit.toFixed(0)} ms`);
  let failed = false;
  for (const attack of ATTACKS) {
    const holdsBefore = await serverHolds();
    const m = await underAttack(target, attack);
    const holds = (await serverHolds()) - holdsBefore;
    // Over the limit once may be the shared machine (another process had the cores): a freeze
    // is over it every time, so the attack is run again and fails only when over it twice. The
    // machine's load moves within a run, so the retry's limit is set afresh from the ordinary
    // requests measured just before it (a load that rose since the start raises both alike).
    // A slow poll with no hold seen by the server's own watch was this test process or the socket
    // waiting for a core, not the server's thread (a hold is a late timer there, whatever caused
    // it): at load 14 on 2 cores, an OPML import's polls took 262 and 418 ms with 0 holds.
    let again: Awaited<ReturnType<typeof underAttack>> | undefined;
    let againHolds = 0;
    let retryLimit = limit;
    if (m.worstHealthzMs > limit) {
      for (const request of ORDINARY)
        retryLimit = Math.max(retryLimit, 2 * (await underAttack(target, request)).worstHealthzMs);
      const holdsBeforeAgain = await serverHolds();
      again = await underAttack(target, attack);
      againHolds = (await serverHolds()) - holdsBeforeAgain;
    }
    const bad = again !== undefined && again.worstHealthzMs > retryLimit && holds + againHolds > 0;
    failed ||= bad;
    if (again)
      rows.push(
        `again ${attack.name}: slowest /healthz ${again.worstHealthzMs.toFixed(0)} ms (limit now ${retryLimit.toFixed(0)} ms), ` +
          `server-side holds over 200 ms: ${againHolds}`,
      );
    rows.push(
      `${bad ? 'HELD' : 'ok  '} ${attack.name}: slowest /healthz ${m.worstHealthzMs.toFixed(0)} ms over ${m.polls} polls, ` +
        `server-side holds over 200 ms: ${holds}; request ${m.requestMs.toFixed(0)} ms, answer ${m.outcome}`,
    );
  }
  for (const row of rows) t.diagnostic(row);
  assert.ok(!failed, `a request held the server:\n${rows.join('\n')}`);
});
