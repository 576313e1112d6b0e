// The search's passage read (SqliteSearchIndex.passageTexts, ~7 % of a sonar answer's CPU) against
// other ways to bring the same texts into JavaScript (issue 26.4, branch answer-cpu4; none kept).
// Each round reads the passages of 20 random articles of at least 20 passages (a search reads
// those of its 20 best candidates, ~700 passages) 600 times per variant, each variant's texts
// checked equal to the read's first:
// - `read`: the statement of passageTexts (the item index, then each row by its id);
// - `no text`: the same rows without the text (what the texts' strings cost);
// - `id ranges`: each article's rows by a range of ids (its passages are stored together), sorted;
// - `joined`: the rows without text, then all texts in one group_concat split in JavaScript;
// - `json`: the rows without text, then the texts as one json_group_array parsed;
// - `bytes`: the rows without text, then the joined texts as a blob decoded by TextDecoder.
//
//   node bench/passage-read.bench.ts --data <a copy of a chat-memory.bench.ts data folder>
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { flagValue } from './backend.ts';

const DATA = flagValue(process.argv, 'data');
if (!DATA) {
  console.error('usage: node bench/passage-read.bench.ts --data DIR');
  process.exit(2);
}
const db = new DatabaseSync(join(DATA, 'tidings.db'), { readOnly: true });
db.exec('PRAGMA cache_size = -32768'); // the serve workload's page cache (src/store/sqlite/db.ts)
const long = (
  db.prepare('SELECT item_id FROM search_passages GROUP BY item_id HAVING count(*) >= 20').all() as {
    item_id: number;
  }[]
).map((r) => r.item_id);
let seed = 7;
const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const searches = Array.from({ length: 600 }, () =>
  JSON.stringify(Array.from({ length: 20 }, () => long[Math.floor(random() * long.length)]!)),
);
const IN = 'item_id IN (SELECT value FROM json_each(?))';
const arrays = (sql: string): StatementSync => {
  const st = db.prepare(sql);
  st.setReturnArrays(true);
  return st;
};
const read = arrays(`SELECT id, item_id, ord, text, words FROM search_passages WHERE ${IN} ORDER BY item_id, ord`);
const rows = arrays(`SELECT id, item_id, ord, words FROM search_passages WHERE ${IN} ORDER BY item_id, ord`);
const ranges = arrays(`SELECT p.id, p.item_id, p.ord, p.text, p.words
  FROM (SELECT item_id AS i, min(id) AS lo, max(id) AS hi FROM search_passages WHERE ${IN} GROUP BY item_id) r
  JOIN search_passages p ON p.id BETWEEN r.lo AND r.hi AND +p.item_id = r.i`);
const ordered = `(SELECT text FROM search_passages WHERE ${IN} ORDER BY item_id, ord)`;
const joined = arrays(`SELECT group_concat(text, char(1)) FROM ${ordered}`);
const json = arrays(`SELECT json_group_array(text) FROM ${ordered}`);
const bytes = arrays(`SELECT CAST(group_concat(text, char(1)) AS BLOB) FROM ${ordered}`);
const decoder = new TextDecoder();
type Row = unknown[];
const first = (st: StatementSync, q: string) => (st.get(q) as unknown as Row)[0];
const variants: [string, (q: string) => string[]][] = [
  ['read', (q) => (read.all(q) as unknown as Row[]).map((r) => r[3] as string)],
  ['no text', (q) => (rows.all(q) as unknown as Row[]).map(() => '')],
  [
    'id ranges',
    (q) =>
      (ranges.all(q) as unknown as Row[])
        .sort((a, b) => (a[1] as number) - (b[1] as number) || (a[2] as number) - (b[2] as number))
        .map((r) => r[3] as string),
  ],
  [
    'joined',
    (q) => {
      rows.all(q);
      return (first(joined, q) as string).split('\x01');
    },
  ],
  [
    'json',
    (q) => {
      rows.all(q);
      return JSON.parse(first(json, q) as string) as string[];
    },
  ],
  [
    'bytes',
    (q) => {
      rows.all(q);
      return decoder.decode(first(bytes, q) as Uint8Array).split('\x01');
    },
  ],
];
const differ = new Set<string>();
for (const q of searches.slice(0, 50)) {
  const want = JSON.stringify(variants[0]![1](q));
  for (const [name, f] of variants.slice(2)) if (JSON.stringify(f(q)) !== want) differ.add(name);
}
const load = loadavg()[0]!.toFixed(1);
let passages = 0;
for (let round = 0; round < 3; round++) {
  const ms: string[] = [];
  for (const [name, f] of variants) {
    const t0 = process.cpuUsage();
    passages = 0;
    for (const q of searches) passages += f(q).length;
    const t = process.cpuUsage(t0);
    ms.push(`${name} ${((t.user + t.system) / 1000 / searches.length).toFixed(3)}`);
  }
  console.log(`round ${round}, ms per search: ${ms.join(', ')}`);
}
console.log(
  `${searches.length} searches of ${(passages / searches.length).toFixed(0)} passages; texts differ from the read's: ${differ.size ? [...differ].join(', ') : 'none'}; load ${load} -> ${loadavg()[0]!.toFixed(1)}`,
);
db.close();
