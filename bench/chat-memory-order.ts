// The order in which bench/chat-memory.bench.ts starts its servers. The first server of a run
// idled at 121-130 MB instead of 108-113 (anonymous and file-backed pages both higher) and spent
// 20-24 ms per answer instead of 15-18, and it was always the same checkout (the first in round
// 1). It follows a checkout's first server of a run (seen on freshly copied data folders, and for
// a checkout cloned minutes before) more than the data: that server found Node's compile cache
// without its modules and kept Node's TypeScript stripper loaded (src/runtime/type-stripper.ts;
// a server with that fix starts over without it, a checkout without it still shows the effect,
// BENCHMARKS.md, "The first server's idle memory"). So before any measured round every
// checkout serves a discarded warm-up of `warm` answers on the same folder, in the order of round
// 1, and the measured rounds alternate as before: the first checkout first in odd rounds, last in
// even ones.
export interface ServerRun {
  /** 0 for the discarded warm-up, then 1..rounds. */
  round: number;
  checkout: string;
  measured: boolean;
}

export function chatMemoryRuns(checkouts: readonly string[], rounds: number, warm: number): ServerRun[] {
  if (!checkouts.length) throw new Error('chat-memory bench: no checkout to run');
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds ${rounds}: give a whole number of 1 or more`);
  if (!Number.isInteger(warm) || warm < 0) throw new Error(`--warm ${warm}: give a whole number of answers, 0 or more`);
  const runs: ServerRun[] = [];
  if (warm > 0) for (const checkout of checkouts) runs.push({ round: 0, checkout, measured: false });
  for (let round = 1; round <= rounds; round++) {
    // The second server of a round used 3-12 % less CPU per answer in all six rounds of three runs
    // (BENCHMARKS.md, "CPU per sonar answer, fourth pass"), whichever checkout it was.
    for (const checkout of round % 2 ? checkouts : [...checkouts].reverse())
      runs.push({ round, checkout, measured: true });
  }
  return runs;
}
