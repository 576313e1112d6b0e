// The answer judge of ../shared/tools/answer-eval.py, ported line for line so the in-process bench
// (bench/answers.bench.ts) reports the same figures as the real tools. Keep it in step with the
// Python file: `npm run bench:answers -- --out FILE` writes the rows answer-eval.py reads, so the
// two can be compared on the same answers.

export interface JudgedQuestion {
  id: string;
  question: string;
  choices: string[];
  answer: string[];
  relevant_urls: string[];
}

/** One answer as ask-all.mjs records it. */
export interface AnswerRow {
  id: string;
  status: number;
  ms: number;
  withheld: boolean;
  resp: { choices: { message: { content: string } }[]; citations: string[] };
}

const QUOTES: [string, string][] = [
  ['\u2019', "'"],
  ['\u2018', "'"],
  ['\u201c', '"'],
  ['\u201d', '"'],
  ['\u2013', '-'],
  ['\u2014', '-'],
];

export function fold(s: string): string {
  s = s.normalize('NFKD').replace(/\p{M}/gu, '');
  for (const [a, b] of QUOTES) s = s.split(a).join(b);
  return s.toLowerCase();
}

export function judgeWords(s: string): string[] {
  return fold(s).match(/[a-z0-9]+(?:'[a-z]+)?/g) ?? [];
}

/** " w1 w2 … " — the padded form has_phrase searches in. */
export function paddedWords(s: string): string {
  return ' ' + judgeWords(s).join(' ') + ' ';
}

export function hasPhrase(padded: string, choice: string): boolean {
  const c = judgeWords(choice).join(' ');
  return c.length > 0 && padded.includes(' ' + c + ' ');
}

export function normUrl(u: string): string {
  return u
    .trim()
    .toLowerCase()
    .replace(/^https?:\/\/(www\.)?/, '')
    .split('#')[0]!
    .replace(/\/+$/, '');
}

const REFUSAL =
  /\b(no|none of|nothing|couldn'?t|could not|can'?t|cannot|did not|didn'?t|does not|doesn'?t|do not|don'?t|unable to|not)\b.{0,80}\b(articles?|sources?|feeds?|information|results?|coverage|answers? (to|this|that|the))\b/i;

/** A reply that says it cannot answer (judged on its opening sentence), or that cites nothing. */
export function declines(text: string, citations: string[]): boolean {
  const t = text.trim();
  const m = /\[\d+\]|(?<=[.!?])\s/.exec(t);
  const lead = (m ? t.slice(0, m.index) : t).slice(0, 300);
  return !citations.length || REFUSAL.test(lead);
}

/** Page chrome in an answer (Python's re without MULTILINE: ^ is the start of the text only). */
export const DEBRIS = [
  /(^|[.!?\]]\s+)ET\s/,
  /Share this update/,
  /\{\{/,
  /\u200b|\u200c|\u200d|\u2060|\ufeff/,
  /\|\s*Image:/,
];

export function hasDebris(text: string): boolean {
  return DEBRIS.some((p) => p.test(text));
}

export type Verdict = 'correct_only' | 'wrong_only' | 'both' | 'none';

export function verdictOf(text: string, q: JudgedQuestion): Verdict {
  const tw = paddedWords(text);
  const ci = Number(q.answer[0]);
  const named = q.choices.map((c) => hasPhrase(tw, c));
  if (named[ci]) return named.filter(Boolean).length === 1 ? 'correct_only' : 'both';
  return named.some(Boolean) ? 'wrong_only' : 'none';
}

export function answerText(row: AnswerRow): string {
  return row.resp.choices[0]!.message.content.replace(/<think>[\s\S]*?<\/think>/g, '');
}

export interface Judgement {
  n: number;
  errors: number;
  correct_only: number;
  wrong_only: number;
  both: number;
  none: number;
  'success@5': number;
  MRR: number;
  mean_citations: number;
  debris: number;
  declines: number;
  p50_ms: number | null;
  withheld?: number;
  unanswerable?: number;
  declined?: number;
  withheld_wrong_only?: number;
  /** Counts behind the withheld rates (not in answer-eval.py's output). */
  declinedCount?: number;
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;

/**
 * answer-eval.py's main(). `remainingText`: paddedWords of every article left to the withheld user
 * (the truly-unanswerable test), needed when rows include withheld answers.
 */
export function judge(rows: AnswerRow[], questions: Map<string, JudgedQuestion>, remainingText?: string): Judgement {
  const full = {
    n: 0,
    correct_only: 0,
    wrong_only: 0,
    both: 0,
    none: 0,
    s5: 0,
    rr: 0,
    errors: 0,
    debris: 0,
    declines: 0,
    ncit: [] as number[],
  };
  const held = { n: 0, unanswerable: 0, declined: 0, wrong_only: 0 };
  const lat: number[] = [];
  for (const r of rows) {
    const q = questions.get(r.id)!;
    lat.push(r.ms ?? 0);
    if (r.status !== 200) {
      full.errors++;
      continue;
    }
    const text = answerText(r);
    const verdict = verdictOf(text, q);
    const ci = Number(q.answer[0]);
    if (r.withheld) {
      held.n++;
      if (!hasPhrase(remainingText ?? '', q.choices[ci]!)) {
        held.unanswerable++;
        if (verdict === 'none' && declines(text, r.resp.citations ?? [])) held.declined++;
        if (verdict === 'wrong_only') held.wrong_only++;
      }
      continue;
    }
    full.n++;
    full[verdict]++;
    if (declines(text, r.resp.citations ?? [])) full.declines++;
    const cits = (r.resp.citations ?? []).map(normUrl);
    full.ncit.push(cits.length);
    const rel = new Set(q.relevant_urls.map(normUrl));
    if (cits.slice(0, 5).some((c) => rel.has(c))) full.s5++;
    const first = cits.slice(0, 10).findIndex((c) => rel.has(c));
    if (first >= 0) full.rr += 1 / (first + 1);
    if (hasDebris(text)) full.debris++;
  }
  const n = Math.max(full.n, 1);
  lat.sort((a, b) => a - b);
  const out: Judgement = {
    n: full.n,
    errors: full.errors,
    correct_only: r3(full.correct_only / n),
    wrong_only: r3(full.wrong_only / n),
    both: r3(full.both / n),
    none: r3(full.none / n),
    'success@5': r3(full.s5 / n),
    MRR: r3(full.rr / n),
    mean_citations: full.ncit.length
      ? Math.round((full.ncit.reduce((a, b) => a + b, 0) / full.ncit.length) * 100) / 100
      : 0,
    debris: r3(full.debris / n),
    declines: r3(full.declines / n),
    p50_ms: lat.length ? Math.round(lat[Math.floor(lat.length / 2)]! * 10) / 10 : null,
  };
  if (remainingText !== undefined) {
    const u = Math.max(held.unanswerable, 1);
    Object.assign(out, {
      withheld: held.n,
      unanswerable: held.unanswerable,
      declined: r3(held.declined / u),
      withheld_wrong_only: r3(held.wrong_only / u),
      declinedCount: held.declined,
    });
  }
  return out;
}
