// One-off measurement behind the choice of feed parser library (see BENCHMARKS.md, ## Feed parsing).
// Candidates other than feedsmith are not dependencies; install them into a scratch folder and point
// CANDIDATES_DIR at it:
//   mkdir /tmp/cand && cd /tmp/cand && npm init -y && npm i @rowanmanning/feed-parser@2.1.5 rss-parser@3.13.0 @extractus/feed-extractor@8.0.3 feedsmith@3.0.1
//   CANDIDATES_DIR=/tmp/cand node bench/feed-parser-candidates.ts
// Measures per library, on ../shared/corpus/feeds (each file decoded to a string by our charset step):
//  (a) files parsed without throwing, and files that yielded at least one item;
//  (b) a conformance sample: Expect: lines of the form feed['title'] / entries[0]['title'|'link'|'id'] == '...'
//      checked against the library's own output (library-native fields, no normalisation of ours);
//  (c) raw parse speed (MB/s) over real-world/.
import { createRequire } from 'node:module';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { decodeFeedBody } from '../src/feeds/encoding/decode-feed-body.ts';

const ROOT = resolve(fileURLToPath(import.meta.url), '../..');
const CORPUS = join(ROOT, '../shared/corpus/feeds');
const dir = process.env.CANDIDATES_DIR ?? ROOT;
const req = createRequire(join(dir, 'package.json'));

interface Simple {
  title: string | null;
  items: Array<{ title: string | null; link: string | null; id: string | null }>;
}
interface Candidate {
  name: string;
  parse: (text: string) => Promise<Simple> | Simple;
}

async function load(name: string): Promise<any> {
  try {
    return await import(pathToFileURL(req.resolve(name)).href);
  } catch {
    return null;
  }
}

const str = (v: unknown): string | null =>
  typeof v === 'string'
    ? v
    : v && typeof v === 'object' && 'value' in v
      ? String((v as { value: unknown }).value)
      : null;

async function candidates(): Promise<Candidate[]> {
  const out: Candidate[] = [];
  const fs = await load('feedsmith');
  if (fs)
    out.push({
      name: 'feedsmith 3.0.1',
      parse: (t) => {
        const r = fs.parseFeed(t.trimStart().startsWith('{') ? JSON.parse(t) : t).feed;
        const items = r.items ?? r.entries ?? [];
        return {
          title: str(r.title),
          items: items.map((i: any) => ({
            title: str(i.title),
            link: i.link ?? i.url ?? i.links?.find((l: any) => !l.rel || l.rel === 'alternate')?.href ?? null,
            id: i.guid?.value ?? i.id ?? null,
          })),
        };
      },
    });
  const rm = await load('@rowanmanning/feed-parser');
  if (rm)
    out.push({
      name: '@rowanmanning/feed-parser 2.1.5',
      parse: (t) => {
        const f = (rm.parseFeed ?? rm.default.parseFeed)(t);
        return { title: f.title, items: f.items.map((i: any) => ({ title: i.title, link: i.url, id: i.id })) };
      },
    });
  const rp = await load('rss-parser');
  if (rp) {
    const P = rp.default ?? rp;
    const p = new P();
    out.push({
      name: 'rss-parser 3.13.0',
      parse: async (t) => {
        const f = await p.parseString(t);
        return {
          title: f.title ?? null,
          items: (f.items ?? []).map((i: any) => ({
            title: i.title ?? null,
            link: i.link ?? null,
            id: i.guid ?? i.id ?? null,
          })),
        };
      },
    });
  }
  const fe = await load('@extractus/feed-extractor');
  if (fe)
    out.push({
      name: '@extractus/feed-extractor 8.0.3',
      parse: (t) => {
        const f = t.trimStart().startsWith('{') ? fe.extractFromJson(JSON.parse(t)) : fe.extractFromXml(t);
        return {
          title: f.title ?? null,
          items: (f.entries ?? []).map((i: any) => ({
            title: i.title ?? null,
            link: i.link ?? null,
            id: i.id ?? null,
          })),
        };
      },
    });
  return out;
}

function walk(d: string, out: string[] = []): string[] {
  for (const n of readdirSync(d).sort()) {
    const p = join(d, n);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (!n.endsWith('.md')) out.push(p);
  }
  return out;
}

/** Python string literal ('...' or u'...') -> JS string, for the simple escapes the suite uses. */
function pyString(lit: string): string | null {
  const m = /^u?'((?:[^'\\]|\\.)*)'$/.exec(lit.trim()) ?? /^u?"((?:[^"\\]|\\.)*)"$/.exec(lit.trim());
  if (!m) return null;
  return m[1]!.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|.)/g, (_, e: string) =>
    e[0] === 'x' || e[0] === 'u'
      ? String.fromCharCode(parseInt(e.slice(1), 16))
      : e === 'n'
        ? '\n'
        : e === 't'
          ? '\t'
          : e,
  );
}

const SAMPLE = /^(?:not bozo and )?(feed|entries\[0\])\['(title|link|id)'\] == (u?'(?:[^'\\]|\\.)*')$/;

async function main() {
  const files = walk(CORPUS);
  const texts = files.map((f) => ({ f, text: decodeFeedBody(readFileSync(f), null).text }));
  const conf = texts
    .map(({ f, text }) => {
      const expect = /Expect:\s*(.*)/.exec(text)?.[1]?.trim() ?? '';
      const m = SAMPLE.exec(expect);
      return m ? { f, text, scope: m[1]!, field: m[2]!, want: pyString(m[3]!) } : null;
    })
    .filter((x) => x !== null && x.want !== null) as Array<{
    f: string;
    text: string;
    scope: string;
    field: string;
    want: string;
  }>;
  const realWorld = texts.filter((t) => t.f.includes('/real-world/'));
  const rwBytes = realWorld.reduce((n, t) => n + Buffer.byteLength(t.text), 0);
  console.log(
    `corpus files: ${files.length}; conformance sample: ${conf.length}; real-world: ${realWorld.length} files, ${(rwBytes / 1e6).toFixed(2)} MB`,
  );
  for (const c of await candidates()) {
    let ok = 0,
      withItems = 0,
      threw = 0;
    for (const { text } of texts) {
      try {
        const r = await c.parse(text);
        ok++;
        if (r.items.length) withItems++;
      } catch {
        threw++;
      }
    }
    let pass = 0;
    for (const t of conf) {
      try {
        const r = await c.parse(t.text);
        const got =
          t.scope === 'feed'
            ? t.field === 'title'
              ? r.title
              : null
            : (r.items[0]?.[t.field as 'title' | 'link' | 'id'] ?? null);
        if (got !== null && got.trim() === t.want.trim()) pass++;
      } catch {
        /* counted as a failure */
      }
    }
    // speed: warm up once, then as many rounds as fit in ~2 s
    for (const t of realWorld)
      try {
        await c.parse(t.text);
      } catch {
        /* */
      }
    let rounds = 0;
    const t0 = performance.now();
    while (performance.now() - t0 < 2000) {
      for (const t of realWorld)
        try {
          await c.parse(t.text);
        } catch {
          /* */
        }
      rounds++;
    }
    const secs = (performance.now() - t0) / 1000;
    console.log(
      `${c.name.padEnd(34)} parsed ${ok}/${files.length} (threw ${threw}), with items ${withItems}; sample ${pass}/${conf.length} (${((100 * pass) / conf.length).toFixed(1)}%); real-world ${((rwBytes * rounds) / 1e6 / secs).toFixed(1)} MB/s`,
    );
  }
}

await main();
