// The architecture rules the README states, checked on every `npm test` by reading the imports of
// every source file (a small checker rather than dependency-cruiser: five rules, no config
// language, and it knows our `import type` convention: type-only imports vanish at run time, so
// they neither form cycles nor pull a driver in).
//   1. SQL and database drivers live in src/store/ only; nothing else imports a backend folder.
//   2. Fastify stays in the HTTP layers (src/http, the API plugins, auth's HTTP routes).
//   3. search/ imports nothing from answer/ (the answer pipelines consume search, not the reverse).
//   4. No import cycles between modules (value imports).
//   5. Other domains use the feeds domain through its entry module, feeds/index.ts.
//   6. Floors (test/layers.ts): no value import goes up a floor; the client protocols never import
//      one another. The README's Architecture table is generated from the same table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ROOT } from './helpers.ts';
import { floorOf, LAYERS, PROTOCOLS, readmeWithArchitecture } from './layers.ts';

interface Edge {
  from: string;
  to: string;
  typeOnly: boolean;
}

const SRC = join(ROOT, 'src');
const isTestCode = (f: string) =>
  /\.test\.ts$/.test(f) || /(^|\/)testing\//.test(f) || f.startsWith('test/') || f.startsWith('bench/');

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'node_modules' && e.name !== '__fixtures__') out.push(...sourceFiles(p));
    } else if (e.name.endsWith('.ts')) out.push(p);
  }
  return out;
}

// `import … from 'x'`, `export … from 'x'`, `import 'x'` and `import('x')`; `import type` and
// `export type` are type-only.
const STATIC = /^\s*(import|export)\s+(type\s+)?([^'";]*?\bfrom\s+)?['"]([^'"]+)['"]/gm;
const DYNAMIC = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

function edgesOf(file: string): { edges: Edge[]; packages: string[] } {
  const text = readFileSync(file, 'utf8');
  const rel = relative(ROOT, file);
  const edges: Edge[] = [];
  const packages: string[] = [];
  const add = (spec: string, typeOnly: boolean) => {
    if (spec.startsWith('.')) edges.push({ from: rel, to: relative(ROOT, resolve(dirname(file), spec)), typeOnly });
    else if (!typeOnly) packages.push(spec);
  };
  for (const m of text.matchAll(STATIC)) {
    // `import { type A, type B } from` is type-only too.
    const named = m[3] ?? '';
    const allTypes = /^\{\s*(type\s+\w+(\s+as\s+\w+)?\s*,?\s*)+\}\s*from\s+$/.test(named.trim() + ' ');
    add(m[4]!, Boolean(m[2]) || allTypes);
  }
  for (const m of text.matchAll(DYNAMIC)) add(m[1]!, false);
  return { edges, packages };
}

const files = [...sourceFiles(SRC), ...sourceFiles(join(ROOT, 'test')), ...sourceFiles(join(ROOT, 'bench'))];
const graph = new Map(files.map((f) => [relative(ROOT, f), edgesOf(f)]));
const inside = (f: string, dir: string) => f.startsWith(dir.endsWith('/') ? dir : dir + '/');

/**
 * Tools that use SQLite itself on purpose: FTS5 as the reference the tokenizer is checked against,
 * the Reader and web benchmarks' bulk generator (bench/library.ts) and the Reader bench's
 * query-plan check (SQLite-specific by design), the SQLite index cost bench (the index definitions
 * before and after a migration, side by side), and the chat statement counter, which wraps the
 * drivers' query functions to count what a chat answer sends.
 */
const SQLITE_TOOLS = [
  'src/search/tokenizer.test.ts',
  'bench/tokenizer.bench.ts',
  'bench/reader.bench.ts',
  'bench/reader-index-cost.ts',
  'bench/library.ts',
  'bench/chat-statements.ts',
  'bench/passage-scan.bench.ts',
  'bench/passage-pattern.bench.ts',
  'bench/passage-read.bench.ts',
];

test('SQL and database drivers only in src/store/; backends only through src/store/open-store.ts', () => {
  const problems: string[] = [];
  const SQL = /`[^`]*\b(SELECT\s+[\w*(]|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|CREATE\s+(TABLE|INDEX))\b/i;
  for (const [file, { edges, packages }] of graph) {
    if (inside(file, 'src/store') || SQLITE_TOOLS.includes(file)) continue;
    for (const p of packages)
      if (p === 'node:sqlite' || p === 'pg' || p.startsWith('pg-') || p.startsWith('@redis/'))
        problems.push(`${file} imports the driver ${p}`);
    for (const e of edges) {
      if (inside(e.to, 'src/store/sqlite') || inside(e.to, 'src/store/postgres'))
        problems.push(`${file} imports ${e.to} (use src/store/open-store.ts)`);
      if (e.to === 'src/store/testing.ts' && !isTestCode(file))
        problems.push(`${file} imports the test-only raw SQL helper`);
    }
    if (!isTestCode(file) && inside(file, 'src') && SQL.test(readFileSync(join(ROOT, file), 'utf8')))
      problems.push(`${file} contains SQL`);
  }
  assert.deepEqual(problems, []);
});

test('Fastify only in the HTTP layers, never in domain code', () => {
  const HTTP = ['src/http', 'src/server', 'src/reader-api', 'src/chat-api', 'src/auth/http', 'src/web', 'src/fever'];
  const problems: string[] = [];
  for (const [file, { packages }] of graph) {
    if (!inside(file, 'src') || HTTP.some((d) => inside(file, d)) || file === 'src/auth/routes.ts') continue;
    for (const p of packages) if (p === 'fastify' || p.startsWith('@fastify/')) problems.push(`${file} imports ${p}`);
  }
  assert.deepEqual(problems, []);
});

test('search imports nothing from answer', () => {
  const problems = [...graph.values()]
    .flatMap((g) => g.edges)
    .filter((e) => inside(e.from, 'src/search') && inside(e.to, 'src/answer'))
    .map((e) => `${e.from} -> ${e.to}`);
  assert.deepEqual(problems, []);
});

test('other domains reach the feed engine through src/feeds/index.ts', () => {
  const problems = [...graph.values()]
    .flatMap((g) => g.edges)
    .filter((e) => inside(e.from, 'src') && !inside(e.from, 'src/feeds') && !isTestCode(e.from) && !e.typeOnly)
    .filter((e) =>
      [
        'src/feeds/services.ts',
        'src/feeds/refresh.ts',
        'src/feeds/subscriptions.ts',
        'src/feeds/opml/import-export.ts',
      ].includes(e.to),
    )
    .map((e) => `${e.from} -> ${e.to}`);
  assert.deepEqual(problems, []);
});

test('no import cycles (value imports) among the sources', () => {
  const next = new Map<string, string[]>();
  for (const [file, { edges }] of graph)
    next.set(
      file,
      edges.filter((e) => !e.typeOnly && graph.has(e.to)).map((e) => e.to),
    );
  const cycles: string[] = [];
  const state = new Map<string, 1 | 2>();
  const stack: string[] = [];
  const visit = (f: string) => {
    state.set(f, 1);
    stack.push(f);
    for (const t of next.get(f) ?? []) {
      if (state.get(t) === 1) cycles.push([...stack.slice(stack.indexOf(t)), t].join(' -> '));
      else if (!state.has(t)) visit(t);
    }
    stack.pop();
    state.set(f, 2);
  };
  for (const f of next.keys()) if (!state.has(f)) visit(f);
  assert.deepEqual(cycles, []);
});

/** The room of src/ a source file is in, as LAYERS names it (`feeds/`, `main.ts`); null outside src/. */
function roomOf(file: string): string | null {
  if (!inside(file, 'src')) return null;
  const [first, second] = file.slice('src/'.length).split('/');
  return second === undefined ? first! : `${first}/`;
}

/** Value imports between rooms of src/ (test code and type-only imports left out). */
const roomEdges = [...graph.values()]
  .flatMap((g) => g.edges)
  .filter((e) => !e.typeOnly && !isTestCode(e.from) && graph.has(e.to))
  .map((e) => ({ ...e, fromRoom: roomOf(e.from), toRoom: roomOf(e.to) }))
  .filter((e) => e.fromRoom !== null && e.toRoom !== null && e.fromRoom !== e.toRoom);

test('every folder of src/ is on one floor of the layer table', () => {
  const rooms = new Set(
    readdirSync(SRC, { withFileTypes: true }).map((e) => (e.isDirectory() ? `${e.name}/` : e.name)),
  );
  const listed = LAYERS.flatMap((f) => f.rooms.map(([room]) => room));
  assert.deepEqual(
    [...rooms].filter((r) => (r.endsWith('/') || r.endsWith('.ts')) && !floorOf.has(r)),
    [],
    'add new folders to test/layers.ts',
  );
  assert.deepEqual(
    listed.filter((r) => !rooms.has(r)),
    [],
    'test/layers.ts names folders that do not exist',
  );
  assert.equal(new Set(listed).size, listed.length, 'a folder on two floors');
});

test('no value import goes up a floor', () => {
  const up = roomEdges
    .filter((e) => floorOf.get(e.toRoom!)! > floorOf.get(e.fromRoom!)!)
    .map(
      (e) =>
        `${e.from} (${LAYERS[floorOf.get(e.fromRoom!)!]!.name}) -> ${e.to} (${LAYERS[floorOf.get(e.toRoom!)!]!.name})`,
    );
  assert.deepEqual(up, []);
});

test('the client protocols never import one another', () => {
  const across = roomEdges
    .filter((e) => PROTOCOLS.includes(e.fromRoom!) && PROTOCOLS.includes(e.toRoom!))
    .map((e) => `${e.from} -> ${e.to}`);
  assert.deepEqual(across, []);
});

test("the README's Architecture table is generated from the layer table (run node scripts/architecture-table.ts)", () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  assert.equal(readme, readmeWithArchitecture(readme), 'README.md architecture table is stale');
  const section = readme.slice(
    readme.indexOf('## Architecture'),
    readme.indexOf('\n## ', readme.indexOf('## Architecture') + 1),
  );
  for (const [room] of LAYERS.flatMap((f) => f.rooms))
    assert.ok(section.includes(`\`${room}\``), `${room} in the Architecture section`);
});
