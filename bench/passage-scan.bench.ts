// Passage scoring (src/search/passage-score.ts) by its one regular expression of the query words
// against a JavaScript scan of the passages' characters walking a trie of the words' forms (issue
// 26.4, branch answer-search: tried, 1.6-1.9x slower here and 1.022x an answer's CPU, not kept),
// and against indexOf of the forms' roots in each passage lowercased, each hit checked as a whole
// ASCII word (branch answer-cpu4: no pattern to compile per question, but 1.6-2.2x slower: one
// indexOf pass costs about what the whole pattern does; not kept).
// Each of the news corpus's questions scores a window of 700 passages of the data folder's index
// (a search scores ~700), by both; the scores must be identical. The first round compiles each
// question's pattern (V8 caches it by source), the next rounds reuse it.
//
//   node bench/passage-scan.bench.ts --data <a copy of a chat-memory.bench.ts data folder>
import { DatabaseSync } from 'node:sqlite';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { flagValue } from './backend.ts';
import { bm25Scores, fold, scorePassages, termForms } from '../src/search/passage-score.ts';
import { queryTerms } from '../src/search/query.ts';
import { readQuestions } from '../src/answer/testing/news-corpus.ts';

const DATA = flagValue(process.argv, 'data');
if (!DATA) {
  console.error('usage: node bench/passage-scan.bench.ts --data DIR');
  process.exit(2);
}
const db = new DatabaseSync(join(DATA, 'tidings.db'), { readOnly: true });
const rows = db.prepare('SELECT text, words FROM search_passages WHERE item_id % 7 = 0 LIMIT 40000').all() as {
  text: string;
  words: number;
}[];
db.close();

/** Column of an ASCII \w character (A-Z as a-z), -1 for the rest. */
const COLUMN = new Int8Array(65536).fill(-1);
for (let c = 0; c < 26; c++) COLUMN[97 + c] = COLUMN[65 + c] = c;
for (let c = 0; c < 10; c++) COLUMN[48 + c] = 26 + c;
COLUMN[95] = 36;

/** scorePassages by the scan, for ASCII words only (the pattern's \b then matches whole \w runs). */
function scanScores(passages: string[], queryWords: string[], lengths: number[]): number[] {
  const terms = [...new Set(queryWords.map((t) => fold(t.toLowerCase())))];
  const forms = termForms(terms);
  let size = 1;
  for (const f of forms) size += f.length;
  const next = new Int32Array(size * 37);
  const termOf: (string | undefined)[] = new Array(size).fill(undefined);
  let nodes = 1;
  for (const f of forms) {
    let node = 0;
    for (let i = 0; i < f.length; i++) {
      const at = node * 37 + COLUMN[f.charCodeAt(i)]!;
      node = next[at] || (next[at] = nodes++);
    }
    termOf[node] = fold(f);
  }
  const tfs = passages.map((p) => {
    let tf: Map<string, number> | undefined;
    const n = p.length;
    let i = 0;
    while (i < n) {
      if (COLUMN[p.charCodeAt(i++)]! < 0) continue;
      let node = next[COLUMN[p.charCodeAt(i - 1)]!]!;
      for (; i < n && COLUMN[p.charCodeAt(i)]! >= 0; i++) if (node) node = next[node * 37 + COLUMN[p.charCodeAt(i)]!]!;
      const t = node ? termOf[node] : undefined;
      if (t === undefined) continue;
      tf ??= new Map();
      tf.set(t, (tf.get(t) ?? 0) + 1);
    }
    return tf;
  });
  return bm25Scores(tfs, lengths);
}

/** ASCII \w, as the pattern's \b sees it without the u flag. */
const WORD = new Uint8Array(65536);
for (let c = 48; c < 58; c++) WORD[c] = 1;
for (let c = 65; c < 91; c++) WORD[c] = WORD[c + 32] = 1;
WORD[95] = 1;

/**
 * scorePassages by indexOf, for ASCII words only: each root (a form no other form starts) is found
 * in the passage lowercased; a hit at a word start whose whole word, of ASCII characters in the
 * passage itself (the Kelvin sign lowercases to k), is a form counts, in the order of the text.
 */
function findScores(passages: string[], queryWords: string[], lengths: number[]): number[] {
  const terms = [...new Set(queryWords.map((t) => fold(t.toLowerCase())))];
  const formTerm = new Map<string, string>();
  let longest = 0;
  for (const f of termForms(terms)) {
    formTerm.set(f, fold(f));
    longest = Math.max(longest, f.length);
  }
  const forms = [...formTerm.keys()];
  const roots = forms.filter((f) => !forms.some((g) => g !== f && f.startsWith(g)));
  const tfs = passages.map((p) => {
    const lower = p.toLowerCase();
    const hits: [number, string][] = [];
    for (const root of roots) {
      for (let i = lower.indexOf(root); i >= 0; i = lower.indexOf(root, i + 1)) {
        if (i > 0 && WORD[p.charCodeAt(i - 1)]) continue;
        let e = i + root.length;
        while (e < p.length && WORD[p.charCodeAt(e)]) e++;
        const t = e - i <= longest ? formTerm.get(lower.slice(i, e)) : undefined;
        if (t === undefined) continue;
        let ascii = true;
        for (let j = i; j < i + root.length; j++) if (p.charCodeAt(j) > 127) ascii = false;
        if (ascii) hits.push([i, t]);
      }
    }
    if (!hits.length) return undefined;
    hits.sort((a, b) => a[0] - b[0]);
    const tf = new Map<string, number>();
    for (const [, t] of hits) tf.set(t, (tf.get(t) ?? 0) + 1);
    return tf;
  });
  return bm25Scores(tfs, lengths);
}

const cases = readQuestions()
  .map((q, i) => {
    const start = (i * 997) % (rows.length - 700);
    const window = rows.slice(start, start + 700);
    return { terms: queryTerms(q.question), passages: window.map((r) => r.text), lengths: window.map((r) => r.words) };
  })
  .filter((c) => c.terms.every((t) => /^[a-z0-9_]+$/.test(fold(t))));
const chars = cases.reduce((s, c) => s + c.passages.reduce((a, p) => a + p.length, 0), 0) / cases.length;
const load = loadavg()[0]!.toFixed(1);
let differ = 0;
for (let round = 0; round < 4; round++) {
  const ms: Record<string, number> = {};
  for (const [name, score] of [
    ['pattern', scorePassages],
    ['scan', scanScores],
    ['find', findScores],
  ] as const) {
    const t0 = process.cpuUsage();
    for (const c of cases) score(c.passages, c.terms, c.lengths);
    const t = process.cpuUsage(t0);
    ms[name] = (t.user + t.system) / 1000 / cases.length;
  }
  console.log(
    `round ${round}${round ? '' : ' (patterns compiled)'}: pattern ${ms.pattern!.toFixed(3)} ms, scan ${ms.scan!.toFixed(3)} ms, find ${ms.find!.toFixed(3)} ms per search, scan/pattern ${(ms.scan! / ms.pattern!).toFixed(2)}, find/pattern ${(ms.find! / ms.pattern!).toFixed(2)}`,
  );
}
let findDiffer = 0;
for (const c of cases) {
  const pattern = JSON.stringify(scorePassages(c.passages, c.terms, c.lengths));
  if (pattern !== JSON.stringify(scanScores(c.passages, c.terms, c.lengths))) differ++;
  if (pattern !== JSON.stringify(findScores(c.passages, c.terms, c.lengths))) findDiffer++;
}
console.log(
  `${cases.length} questions (ASCII words), 700 passages each (${Math.round(chars)} characters); ${differ} differ by the scan, ${findDiffer} by find; load ${load} -> ${loadavg()[0]!.toFixed(1)}`,
);
