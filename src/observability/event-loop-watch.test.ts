// The event-loop watch: idle, it ticks once a second instead of ten times; work brings it back to
// 100 ms (a request at once, anything else at its next slow tick); a hold is seen as lateness.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BUSY_TICK_MS, IDLE_TICK_MS, watchEventLoop, type EventLoopWatch } from './event-loop-watch.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits (up to 15 s: a loaded machine preempts ticks, which then look busy) for the watch's period. */
async function periodBecomes(watch: EventLoopWatch, ms: number): Promise<void> {
  for (let waited = 0; watch.periodMs !== ms; waited += 50) {
    if (waited > 15_000) assert.fail(`the watch still ticks every ${watch.periodMs} ms, not ${ms}`);
    await sleep(50);
  }
}

function hold(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

test('an idle loop is watched once a second; a request brings it back to 100 ms, and its hold is measured', async () => {
  const late: number[] = [];
  const watch = watchEventLoop((s) => late.push(s));
  try {
    assert.equal(watch.periodMs, BUSY_TICK_MS, 'a new watch starts at full rate');
    await periodBecomes(watch, IDLE_TICK_MS);
    // Idle now: about one tick a second (ten at full rate). A tick preempted for a scheduler slice
    // on a loaded machine looks busy and brings a second of full rate: three windows to find one.
    const counts: number[] = [];
    for (let window = 0; window < 3 && !(counts.at(-1)! <= 4); window++) {
      await periodBecomes(watch, IDLE_TICK_MS);
      const before = late.length;
      await sleep(2500);
      counts.push(late.length - before);
    }
    assert.ok(counts.at(-1)! <= 4, `ticks in windows of 2.5 s of an idle loop: ${counts}`);
    watch.busy();
    assert.equal(watch.periodMs, BUSY_TICK_MS, 'a request puts the watch back at full rate at once');
    const n = late.length;
    hold(400);
    await sleep(2 * BUSY_TICK_MS);
    const seen = late.slice(n);
    assert.ok(
      seen.some((s) => s >= 0.25),
      `a 400 ms hold right after the request was seen: ${seen.map((s) => s.toFixed(3))}`,
    );
  } finally {
    watch.stop();
  }
});

test('work that no request announced brings the watch back to 100 ms at its next slow tick', async () => {
  const watch = watchEventLoop(() => {});
  try {
    await periodBecomes(watch, IDLE_TICK_MS);
    // Background work in short tasks (a refresh round's shape): 10 ms of every 20, for 2.5 s.
    const end = performance.now() + 2500;
    let sawBusy = false;
    while (performance.now() < end) {
      hold(10);
      await sleep(10);
      if (watch.periodMs === BUSY_TICK_MS) sawBusy = true;
    }
    assert.ok(sawBusy, 'the watch stayed at one tick a second while the loop worked');
  } finally {
    watch.stop();
  }
});

test("the samples are each tick's lateness past its due time, taken and reset together", async () => {
  const watch = watchEventLoop(() => {});
  try {
    await sleep(350);
    const quiet = watch.takeSamples();
    assert.ok(quiet.count >= 2, `${quiet.count} samples in 350 ms at full rate`);
    // Lateness, not the period: on time is (nearly) 0, where monitorEventLoopDelay reads 0.1 s.
    assert.ok(quiet.min < 50e6, `the smallest lateness was ${quiet.min / 1e6} ms`);
    hold(300);
    await sleep(BUSY_TICK_MS);
    const held = watch.takeSamples();
    assert.ok(held.max >= 200e6, `a 300 ms hold shows as ${held.max / 1e6} ms late`);
    assert.ok(watch.takeSamples().count <= 1, 'taking the samples starts a new set');
  } finally {
    watch.stop();
  }
});
