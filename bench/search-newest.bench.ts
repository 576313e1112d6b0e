// What a roundup's retrieval costs ("What's new?", src/answer/pipelines/roundup.ts): the search
// service's newest() (one pass over the article table, then the winners' passages and metadata)
// against a search for two words of the same library, alternating in one process so machine load
// moves both alike. Run on a copy of the chat-memory bench's data folder (100k items):
//
//   cp -a /tmp/cm-100k /tmp/sn-data && node bench/search-newest.bench.ts --data /tmp/sn-data [--rounds 5] [--calls 200]
import { loadavg } from 'node:os';
import { createApp } from '../src/server/create-app.ts';
import { loadConfig } from '../src/config/config.ts';
import { searchService } from '../src/search/service.ts';
import { flagValue } from './backend.ts';

const data = flagValue(process.argv, 'data');
if (!data) {
  console.error('usage: node bench/search-newest.bench.ts --data DIR (a copy of a chat-memory bench data folder)');
  process.exit(2);
}
const rounds = Number(flagValue(process.argv, 'rounds') ?? 5);
const calls = Number(flagValue(process.argv, 'calls') ?? 200);
const app = await createApp(loadConfig({ env: {}, overrides: { dataDir: data, logLevel: 'silent' } }));
const search = searchService(app);
const scope = { kind: 'instance' as const };
const time = async (run: () => Promise<unknown>) => {
  const t0 = process.cpuUsage();
  for (let i = 0; i < calls; i++) await run();
  const t = process.cpuUsage(t0);
  return (t.user + t.system) / 1000 / calls;
};
const newest = () => search.newest({ scope, filters: {}, limit: 100 });
const words = () => search.search({ text: 'harbour council', scope, filters: {}, limit: 20 });
await newest();
await words();
console.log(
  `load ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
for (let r = 1; r <= rounds; r++) {
  const a = r % 2 ? await time(newest) : 0;
  const b = await time(words);
  const c = r % 2 ? a : await time(newest);
  console.log(
    `round ${r}: newest(100) ${c.toFixed(2)} ms CPU per call, search of two words ${b.toFixed(2)} ms, ratio ${(c / b).toFixed(2)}`,
  );
}
console.log(
  `load ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
await app.close();
