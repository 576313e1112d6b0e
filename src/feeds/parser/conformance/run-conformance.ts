// Runs the feedparser-style conformance suite (../shared/corpus/feeds/conformance) against parseFeed.
// Each file carries, in its leading comment, `Description:`, `Expect:` (a Python expression over
// feedparser's result) and optional `Header: Content-type: …` lines (the HTTP header to simulate).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { decodeFeedBody } from '../../encoding/decode-feed-body.ts';
import { FeedParseError, parseFeed } from '../parse-feed.ts';
import { evaluateExpectation } from './evaluate-expectation.ts';
import { parseExpression } from './python-expression.ts';

export interface CaseResult {
  file: string;
  category: string;
  expect: string;
  status: 'pass' | 'fail' | 'unmapped';
  /** For unmapped: the first feedparser key/construct our model has no counterpart for. */
  reason?: string;
  /** For the feedparser-allowlist cases: whether our output happens to agree anyway. */
  agrees?: boolean;
}

/**
 * sanitize/acceptable_* and sanitize/style_* assert that feedparser's own allowlist KEEPS an element,
 * attribute or inline style (e.g. <span accept-charset="">, style="color: red"). Our sanitizer keeps a
 * smaller, article-oriented set and never inline styles, by design; these are reported apart.
 * The sanitize cases that assert something dangerous is REMOVED stay mapped.
 */
const POLICY_CASE = /^wellformed\/sanitize\/(?:acceptable_|style_)/;
const POLICY_REASON = "feedparser's sanitizer allowlist (kept elements/attributes/inline styles)";

export interface ConformanceSummary {
  results: CaseResult[];
  mapped: number;
  passed: number;
  unmapped: number;
  /** passed / mapped */
  rate: number;
}

export function runConformance(dir: string): ConformanceSummary {
  const results: CaseResult[] = [];
  for (const file of walk(dir)) results.push(runCase(file, dir));
  const mapped = results.filter((r) => r.status !== 'unmapped').length;
  const passed = results.filter((r) => r.status === 'pass').length;
  return { results, mapped, passed, unmapped: results.length - mapped, rate: mapped ? passed / mapped : 0 };
}

function runCase(file: string, dir: string): CaseResult {
  const rel = relative(dir, file);
  const category = rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '.';
  const bytes = readFileSync(file);
  // The comment is ASCII, but the file may be UTF-16/32: read it through our decoder.
  const header = decodeFeedBody(bytes, null).text.slice(0, 4096);
  const expect = /Expect:[ \t]*(.*)/.exec(header)?.[1]?.trim() ?? '';
  const contentType = /Header:[ \t]*Content-type:[ \t]*(.*)/i.exec(header)?.[1]?.trim() ?? null;
  // feedparser's suite serves each file from this address; Content-Location (when given) is the base.
  const docUrl = `http://127.0.0.1:8097/tests/${rel}`;
  const contentLocation = /Header:[ \t]*Content-Location:[ \t]*(.*)/i.exec(header)?.[1]?.trim();
  const url = contentLocation ? new URL(contentLocation, docUrl).href : docUrl;
  const base = { file: rel, category, expect };
  if (!expect) return { ...base, status: 'unmapped', reason: 'no Expect: line' };
  let ast: ReturnType<typeof parseExpression>;
  try {
    ast = parseExpression(expect);
  } catch (err) {
    return { ...base, status: 'unmapped', reason: `expression not understood (${(err as Error).message})` };
  }
  if (/^\s*(?:<\?xml[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*)*<CHANNEL[\s>]/i.test(bytes.toString('latin1'))) {
    return {
      ...base,
      status: 'unmapped',
      reason: 'CDF (Microsoft Channel Definition Format) is not a supported format',
    };
  }
  let feed: ReturnType<typeof parseFeed>;
  try {
    feed = parseFeed(bytes, { url, contentType });
  } catch (err) {
    if (!(err instanceof FeedParseError)) throw err;
    // feedparser returns a (bozo) result for anything; we refuse. An expectation that is only
    // "bozo" is then met; everything else fails.
    return { ...base, status: expect === 'bozo' ? 'pass' : 'fail' };
  }
  const charset = decodeFeedBody(bytes, contentType).charset;
  const outcome = evaluateExpectation(ast, { feed, charset });
  if (POLICY_CASE.test(rel))
    return { ...base, status: 'unmapped', reason: POLICY_REASON, agrees: outcome.status === 'pass' };
  return outcome.status === 'unmapped'
    ? { ...base, status: 'unmapped', reason: outcome.reason }
    : { ...base, status: outcome.status };
}

function walk(d: string, out: string[] = []): string[] {
  for (const name of readdirSync(d).sort()) {
    const p = join(d, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (/\.(xml|rss|atom|rdf)$/i.test(name)) out.push(p);
  }
  return out;
}

/** Per-category table and the most common unmapped reasons, for the report script. */
export function formatBreakdown(summary: ConformanceSummary): string {
  const byCat = new Map<string, { pass: number; fail: number; unmapped: number }>();
  const reasons = new Map<string, number>();
  for (const r of summary.results) {
    const c = byCat.get(r.category) ?? { pass: 0, fail: 0, unmapped: 0 };
    c[r.status]++;
    byCat.set(r.category, c);
    if (r.status === 'unmapped') {
      const key = r.reason!.replace(/^(\w+)\.N\./, '$1[N].');
      reasons.set(key, (reasons.get(key) ?? 0) + 1);
    }
  }
  const lines = [
    'category                      files  mapped  passed  rate',
    ...[...byCat].map(([cat, c]) => {
      const mapped = c.pass + c.fail;
      return `${cat.padEnd(28)} ${String(c.pass + c.fail + c.unmapped).padStart(6)} ${String(mapped).padStart(7)} ${String(c.pass).padStart(7)}  ${mapped ? ((100 * c.pass) / mapped).toFixed(1) + '%' : '-'}`;
    }),
  ];
  lines.push(
    `TOTAL ${summary.results.length} files: ${summary.mapped} mapped, ${summary.passed} passed (${(100 * summary.rate).toFixed(1)}%), ${summary.unmapped} unmapped`,
  );
  const policy = summary.results.filter((r) => r.reason === POLICY_REASON);
  lines.push(
    `(${POLICY_REASON}: ${policy.length} cases reported apart; our output agrees on ${policy.filter((r) => r.agrees).length})`,
  );
  lines.push('', 'most common unmapped keys:');
  for (const [reason, n] of [...reasons].sort((a, b) => b[1] - a[1]).slice(0, 25))
    lines.push(`  ${String(n).padStart(4)}  ${reason}`);
  return lines.join('\n');
}
