// A reporter for node's test runner that writes every test event with a wall-clock stamp as JSON
// lines, for bench/test-timing.ts (which files and tests of the suite are slowest, and a run
// against another). The `test:complete` event of a file (nesting 0, named by the file) carries the
// time of that file's own process.
//
//   node test/run-suite.ts --test-reporter=./bench/test-timing-reporter.ts --test-reporter-destination=run.jsonl \
//     --test-reporter=spec --test-reporter-destination=stdout
//   (or node --test --test-reporter=./bench/test-timing-reporter.ts --test-reporter-destination=run.jsonl …)
export default async function* timingReporter(source: AsyncIterable<{ type: string; data?: any }>) {
  for await (const ev of source) {
    if (ev.type === 'test:diagnostic' || ev.type === 'test:stderr' || ev.type === 'test:stdout') continue;
    const d = ev.data ?? {};
    const row: Record<string, unknown> = {
      t: Date.now(),
      type: ev.type,
      file: d.file,
      name: d.name,
      nesting: d.nesting,
      ms: d.details?.duration_ms,
      skip: d.skip,
      todo: d.todo,
    };
    if (ev.type === 'test:fail') row.err = String(d.details?.error?.message ?? d.details?.error).slice(0, 300);
    yield `${JSON.stringify(row)}\n`;
  }
}
