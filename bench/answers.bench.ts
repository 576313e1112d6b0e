// npm run bench:answers — answer quality of the built-in engine on ../shared/corpus/news, judged
// exactly as ../shared/tools/answer-eval.py judges the API (bench/answer-eval.ts is its port), but
// in-process: no feeds to fetch, no HTTP, one run in about a minute.
//
// The setup is the judge's (bench/answers-judge.sh runs the real tools): the corpus as 20 feeds
// (news-to-feeds.py: article k in feed k mod 20, dates at UTC midnight, undated = 2026-01-01) a
// user subscribes to; a second user whose 4 feeds lack the relevant articles of the first 100
// questions (withhold-feeds.py) is asked those 100 (declines). Both users live in one App, as on
// the judged server. Every question goes through the chat API's request parser and
// AnswerService.complete(), the API's own code path. Figures are split by question index: tune on
// the even questions, report the odd ones.
//
//   npm run bench:answers                         sonar and sonar-pro
//   npm run bench:answers -- --models sonar       one model
//   npm run bench:answers -- --out /tmp/a         also write /tmp/a-<model>.jsonl for answer-eval.py
//   npm run bench:answers -- --data DIR           keep the built index in DIR and reuse it while the
//                                                 indexing code is unchanged (a stamp of its sources:
//                                                 src/search, src/text, src/feeds/sanitizer, src/store;
//                                                 a copy of a folder built by other sources is built
//                                                 again, which the bench says, naming the folders)
//   npm run bench:answers -- --data DIR --reuse-index  reuse it even so (a change that cannot
//                                                 touch what is indexed, e.g. a new migration)
//   npm run bench:answers -- --as-of-question-date  ask each question as of its `date` (its time
//                                                 words, "this week", count from that day)
//   npm run bench:answers -- --show 20            print 20 answers (even questions) with their verdicts
//   npm run bench:answers -- --context-size medium  ask with web_search_options.search_context_size
//   npm run bench:answers -- --engine local --model FILE.gguf  answer with a GGUF model on this
//                                                 machine (TIDINGS_LLM_THREADS, _GPU_LAYERS, _CONTEXT_TOKENS
//                                                 apply); refuses to run when it does not load
//   npm run bench:answers -- --limit 40           the first 40 questions only (a slow model)
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApp } from '../src/server/create-app.ts';
import type { App } from '../src/runtime/app.ts';
import { loadConfig, type Config } from '../src/config/config.ts';
import { answerService } from '../src/answer/service.ts';
import { parseChatRequest } from '../src/chat-api/request-schema.ts';
import { addFeed, addUser, ingest, subscribe } from '../src/search/testing/fixtures.ts';
import {
  hasNews,
  readArticles,
  readQuestions,
  type NewsArticle,
  type NewsQuestion,
} from '../src/answer/testing/news-corpus.ts';
import { tempDataDir } from '../test/helpers.ts';
import { answerText, judge, normUrl, paddedWords, verdictOf, type AnswerRow, type Judgement } from './answer-eval.ts';
import type { SonarModel } from '../src/answer/types.ts';

const FEEDS = 20;
const HELD_FEEDS = 4;
const WITHHELD = 100;

const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#x27;');

/** news-to-feeds.py's item: paragraphs as <p>, the date at UTC midnight, undated = 2026-01-01. */
function item(a: NewsArticle) {
  const m = /^(\d{4})\/(\d{2})\/(\d{2})$/.exec(a.published ?? '');
  const publishedAt = m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!) / 1000 : Date.UTC(2026, 0, 1) / 1000;
  const content = a.text
    .split('\n')
    .filter((p) => p.trim())
    .map((p) => `<p>${escapeHtml(p)}</p>`)
    .join('');
  return { url: a.url, title: a.title, content, publishedAt };
}

async function addFeedsFor(
  app: App,
  userId: number,
  prefix: string,
  articles: NewsArticle[],
  count: number,
): Promise<void> {
  for (let k = 0; k < count; k++) {
    const feedId = await addFeed(app, `https://${prefix}.example/${k}`, `${prefix === 'news' ? 'News' : 'Held'} ${k}`);
    await subscribe(app, userId, feedId);
    const mine = articles.filter((_, i) => i % count === k).map(item);
    await app.store.transaction(async () => {
      for (let i = 0; i < mine.length; i += 500) await ingest(app, feedId, mine.slice(i, i + 500));
    });
  }
}

/** The folders whose sources decide what the index holds: a reused index must come from the same code. */
const INDEX_SOURCES = ['src/search', 'src/text', 'src/feeds/sanitizer', 'src/store'];

/**
 * A hash of each of INDEX_SOURCES (its .ts files but tests), as JSON. Any change there rebuilds the
 * index (35 s on a quiet machine, 220 s at load 15), a change to the store that cannot touch it too
 * (a new migration, the change signal): --reuse-index keeps the index then.
 */
function indexStamp(): string {
  const stamp: Record<string, string> = {};
  for (const dir of INDEX_SOURCES) {
    const h = createHash('sha256');
    const abs = new URL(`../${dir}/`, import.meta.url).pathname;
    if (existsSync(abs))
      for (const f of readdirSync(abs, { recursive: true }).map(String).sort())
        if (f.endsWith('.ts') && !f.endsWith('.test.ts')) h.update(f).update(readFileSync(join(abs, f)));
    stamp[dir] = h.digest('hex').slice(0, 16);
  }
  return JSON.stringify(stamp);
}

/** The folders of INDEX_SOURCES whose sources differ between two stamps (all of them for a stamp of before). */
function changedSources(was: string, now: string): string[] {
  let before: Record<string, string> = {};
  try {
    before = JSON.parse(was) as Record<string, string>;
  } catch {
    // a stamp from before the per-folder hashes (one hash of everything)
  }
  const after = JSON.parse(now) as Record<string, string>;
  return INDEX_SOURCES.filter((d) => before[d] !== after[d]);
}

export interface JudgeSetup {
  app: App;
  readerId: number;
  heldId: number;
  questions: NewsQuestion[];
  remainingText: string;
  /** search_context_size sent with every question (default: none, i.e. low). */
  contextSize?: 'low' | 'medium' | 'high';
}

/**
 * `reuseIndex`: reuse the index in `dataDir` even when it was built from other sources (a change
 * that cannot touch what is indexed); else such an index is deleted and built again, saying why.
 */
export async function buildSetup(
  dataDir?: string,
  overrides: Partial<Config> = {},
  reuseIndex = false,
): Promise<JudgeSetup> {
  const articles = readArticles();
  const questions = readQuestions();
  const held = new Set(questions.slice(0, WITHHELD).flatMap((q) => q.relevant_urls.map(normUrl)));
  const remaining = articles.filter((a) => !held.has(normUrl(a.url)));
  const remainingText = paddedWords(remaining.map((a) => a.title + ' ' + a.text).join(' '));
  const stamp = indexStamp();
  const dir = dataDir ?? tempDataDir('tidings-answers-bench-');
  const built = dataDir !== undefined && existsSync(join(dir, 'stamp')) ? readFileSync(join(dir, 'stamp'), 'utf8') : '';
  const changed = built ? changedSources(built, stamp) : [];
  const reuse = built !== '' && (changed.length === 0 || reuseIndex);
  if (built && changed.length)
    console.log(
      reuse
        ? `--reuse-index: the index in ${dir} was built from other sources in ${changed.join(', ')}; reused as it is`
        : `the index in ${dir} was built from other sources in ${changed.join(', ')}: building it again (--reuse-index keeps it)`,
    );
  if (dataDir && !reuse) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
  }
  const app = await createApp(
    loadConfig({ env: {}, overrides: { dataDir: dir, logLevel: 'silent', schedulerEnabled: false, ...overrides } }),
  );
  let readerId: number, heldId: number;
  if (reuse) {
    readerId = (await app.users.findByName('reader'))!.id;
    heldId = (await app.users.findByName('held'))!.id;
    console.log(`index reused from ${dir}`);
  } else {
    const t = performance.now();
    readerId = await addUser(app, 'reader');
    heldId = await addUser(app, 'held');
    await addFeedsFor(app, readerId, 'news', articles, FEEDS);
    await addFeedsFor(app, heldId, 'held', remaining, HELD_FEEDS);
    console.log(
      `indexed ${articles.length} + ${remaining.length} (withheld user) articles in ${((performance.now() - t) / 1000).toFixed(1)} s`,
    );
    if (dataDir) writeFileSync(join(dir, 'stamp'), stamp);
  }
  return { app, readerId, heldId, questions, remainingText };
}

let asOfQuestionDate = false;

/** The end of the question's day, "YYYY/MM/DD" or "YYYY-MM-DD". */
const endOfDay = (date: string) => {
  const [y, m, d] = date.split(/[/-]/).map(Number);
  return Date.UTC(y!, m! - 1, d!, 23, 59, 59) / 1000;
};

async function ask(setup: JudgeSetup, model: SonarModel, q: NewsQuestion, withheld: boolean): Promise<AnswerRow> {
  const parsed = parseChatRequest({
    model,
    messages: [{ role: 'user', content: q.question }],
    ...(setup.contextSize ? { web_search_options: { search_context_size: setup.contextSize } } : {}),
  });
  const t = performance.now();
  const r = await answerService(setup.app).complete({
    ...parsed.answer,
    ...(asOfQuestionDate && q.date ? { asOf: endOfDay(q.date) } : {}),
    scope: { kind: 'subscriptions', userId: withheld ? setup.heldId : setup.readerId },
  });
  const ms = performance.now() - t;
  return {
    id: q.id,
    status: 200,
    ms,
    withheld,
    resp: { choices: [{ message: { content: r.content } }], citations: r.citations },
  };
}

export interface ModelRun {
  model: SonarModel;
  all: Judgement;
  even: Judgement;
  odd: Judgement;
  rows: AnswerRow[];
}

export async function runModel(setup: JudgeSetup, model: SonarModel): Promise<ModelRun> {
  const { questions } = setup;
  for (const q of questions.slice(0, 5)) await ask(setup, model, q, false); // warm-up
  const rows: AnswerRow[] = [];
  for (const q of questions) rows.push(await ask(setup, model, q, false));
  for (const q of questions.slice(0, WITHHELD)) rows.push(await ask(setup, model, q, true));
  const byId = new Map(questions.map((q) => [q.id, q]));
  const index = new Map(questions.map((q, i) => [q.id, i]));
  const half = (parity: number) =>
    judge(
      rows.filter((r) => index.get(r.id)! % 2 === parity),
      byId,
      setup.remainingText,
    );
  return { model, all: judge(rows, byId, setup.remainingText), even: half(0), odd: half(1), rows };
}

export function formatJudgement(j: Judgement): string {
  return (
    `correct-only ${j.correct_only.toFixed(3)}  wrong-only ${j.wrong_only.toFixed(3)}  both ${j.both.toFixed(3)}  none ${j.none.toFixed(3)}  ` +
    `success@5 ${j['success@5'].toFixed(3)}  MRR ${j.MRR.toFixed(3)}  citations ${j.mean_citations.toFixed(2)}  debris ${j.debris.toFixed(3)}  ` +
    `declines ${j.declines.toFixed(3)}  declined ${j.declinedCount}/${j.unanswerable} unanswerable (${j.declined?.toFixed(3)}, wrong-only ${j.withheld_wrong_only?.toFixed(3)})  p50 ${j.p50_ms} ms`
  );
}

const VALUE_FLAGS = ['--models', '--out', '--data', '--show', '--context-size', '--engine', '--model', '--limit'];
const SWITCHES = ['--reuse-index', '--as-of-question-date'];

/** The usage is this file's opening comment: one text, not a copy that drifts from it. */
function usage(): string {
  const lines = readFileSync(new URL(import.meta.url), 'utf8').split('\n');
  const end = lines.findIndex((l) => !l.startsWith('//'));
  return lines
    .slice(0, end)
    .map((l) => l.replace(/^\/\/ ?/, ''))
    .join('\n');
}

/** An unknown flag, or a flag without its value: what to fix; undefined when the arguments are fine. */
function argsProblem(argv: string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (SWITCHES.includes(a)) continue;
    if (!VALUE_FLAGS.includes(a)) return `unknown argument "${a}"`;
    const value = argv[++i];
    if (value === undefined || value.startsWith('--')) return `${a} needs a value`;
  }
  return undefined;
}

async function main(argv: string[]): Promise<void> {
  // A mistyped flag used to start a full run of several minutes; --help did too.
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(usage());
    return;
  }
  const problem = argsProblem(argv);
  if (problem) {
    console.error(`${problem}\n\n${usage()}`);
    process.exitCode = 2;
    return;
  }
  if (!hasNews) {
    console.log('skipped: ../shared/corpus/news is not present');
    return;
  }
  const opt = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
  const models = (opt('--models') ?? 'sonar,sonar-pro').split(',') as SonarModel[];
  asOfQuestionDate = argv.includes('--as-of-question-date');
  const engine = opt('--engine') ?? 'extractive';
  const overrides: Partial<Config> = {};
  if (engine === 'local') {
    const file = opt('--model');
    if (!file || !existsSync(file))
      throw new Error(`--engine local needs --model FILE.gguf (a file that exists), got ${file}`);
    // Every model on the local engine; the settings come from the environment like the server's.
    const env = loadConfig({ overrides: { dataDir: tempDataDir('tidings-answers-env-') } });
    Object.assign(overrides, {
      llmModel: file,
      llmThreads: env.llmThreads,
      llmGpuLayers: env.llmGpuLayers,
      llmContextTokens: env.llmContextTokens,
      llmParallel: 1,
      engineByModel: Object.fromEntries(models.map((m) => [m, 'local'])),
    });
  } else if (engine !== 'extractive') throw new Error(`--engine must be extractive or local, got ${engine}`);
  const setup = await buildSetup(opt('--data'), overrides, argv.includes('--reuse-index'));
  if (engine === 'local') {
    const { startLocalModel } = await import('../src/answer/local/index.ts');
    const { status } = await startLocalModel(setup.app);
    if (status.state !== 'ready') throw new Error(`the model did not load: ${status.error}`);
    console.log(
      `local model ${status.file}: ${status.backend}, ${status.gpuLayers} layers on the GPU, ${status.threads} threads, context ${status.contextTokens}`,
    );
  }
  const limit = Number(opt('--limit') ?? 0);
  if (limit > 0) setup.questions = setup.questions.slice(0, limit);
  setup.contextSize = opt('--context-size') as JudgeSetup['contextSize'];
  const byId = new Map(setup.questions.map((q) => [q.id, q]));
  for (const model of models) {
    const run = await runModel(setup, model);
    console.log(`## ${model} (${run.all.n} questions + ${run.all.withheld} withheld)`);
    for (const [name, j] of [
      ['even', run.even],
      ['odd', run.odd],
      ['all', run.all],
    ] as const)
      console.log(`${name.padEnd(4)} ${formatJudgement(j)}`);
    const out = opt('--out');
    if (out) writeFileSync(`${out}-${model}.jsonl`, run.rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const show = Number(opt('--show') ?? 0);
    for (const r of run.rows.filter((_, i) => i % 2 === 0).slice(0, show)) {
      const q = byId.get(r.id)!;
      console.log(
        `\n[${verdictOf(answerText(r), q)}${r.withheld ? ', withheld' : ''}] ${q.question}\n  choices: ${q.choices.map((c, i) => (String(i) === q.answer[0] ? `*${c}*` : c)).join(' | ')}\n  ${answerText(r).replace(/\n+/g, '\n  ')}`,
      );
    }
  }
  await setup.app.close();
}

if (import.meta.url === `file://${process.argv[1]}`) await main(process.argv.slice(2));
