// Turning picked sentences into answer text: grouped by source (sources in order of their best
// sentence), each source's sentences in article order, every sentence verbatim followed by its
// `[n]` marker. Citation numbers are handed out by first use, so `[1]` is the first source quoted.
import type { Candidate } from './extractive-select.ts';
import type { AnswerStyle } from './engine.ts';
import { countTokens, truncateToTokens } from '../tokens.ts';

/**
 * Citation numbering by first use, shareable across the sections of one report; `listed` numbers
 * those sources first, in that order (a report lists every article it read, in search order).
 */
export class CitationNumbers {
  /** Input source numbers in citation order. */
  readonly order: number[] = [];
  private readonly byInput = new Map<number, number>();
  constructor(listed: number[] = []) {
    for (const n of listed) this.number(n);
  }
  /** The citation number of an input source if it was cited, else undefined. */
  lookup(inputN: number): number | undefined {
    return this.byInput.get(inputN);
  }
  number(inputN: number): number {
    let n = this.byInput.get(inputN);
    if (n === undefined) {
      this.order.push(inputN);
      n = this.order.length;
      this.byInput.set(inputN, n);
    }
    return n;
  }
}

export interface RenderBudget {
  /** Tokens left for text; undefined = unlimited. Decreases as text is rendered. */
  remaining?: number;
  /** Set when a sentence had to be dropped or cut for the budget. */
  cut: boolean;
}

/** Paragraphs of quoted sentences with markers; stops when the token budget runs out. */
export function renderQuotes(
  picked: Candidate[],
  style: AnswerStyle,
  numbers: CitationNumbers,
  budget: RenderBudget,
): string[] {
  const groups = new Map<number, Candidate[]>();
  for (const c of picked) {
    const g = groups.get(c.source.n);
    if (g) g.push(c);
    else groups.set(c.source.n, [c]);
  }
  const paragraphs: string[][] = [];
  for (const group of groups.values()) {
    group.sort((a, b) => a.position - b.position);
    const sentences: string[] = [];
    for (const c of group) {
      if (budget.cut) break;
      // Reserve the marker's number before rendering, but only commit it if the sentence fits.
      const probe = `${c.text}[${peekNumber(numbers, c.source.n)}]`;
      const piece = sentences.length || paragraphs.length ? ' ' + probe : probe;
      if (budget.remaining !== undefined) {
        const cost = countTokens(piece);
        if (cost > budget.remaining) {
          budget.cut = true;
          // Nothing written yet: a cut sentence beats an empty answer.
          if (!paragraphs.length && !sentences.length) {
            sentences.push(truncateToTokens(c.text, budget.remaining));
            numbers.number(c.source.n);
          }
          budget.remaining = 0;
          break;
        }
        budget.remaining -= cost;
      }
      sentences.push(`${c.text}[${numbers.number(c.source.n)}]`);
    }
    if (sentences.length) paragraphs.push(sentences);
    if (budget.cut) break;
  }
  if (style === 'concise') return paragraphs.length ? [paragraphs.map((p) => p.join(' ')).join(' ')] : [];
  return paragraphs.map((p) => p.join(' '));
}

function peekNumber(numbers: CitationNumbers, inputN: number): number {
  const i = numbers.order.indexOf(inputN);
  return i >= 0 ? i + 1 : numbers.order.length + 1;
}

/** Why each source was or was not quoted: the real selection, for the reasoning models' <think>. */
export function selectionNotes(
  picked: Candidate[],
  considered: { n: number; title: string }[],
  numbers: CitationNumbers,
): string[] {
  const notes: string[] = [];
  const bySource = new Map<number, Candidate[]>();
  for (const c of picked) bySource.set(c.source.n, [...(bySource.get(c.source.n) ?? []), c]);
  const skipped: string[] = [];
  const cut: string[] = [];
  const quoted: { cited: number; line: string }[] = [];
  for (const s of considered) {
    const used = bySource.get(s.n);
    const cited = numbers.lookup(s.n);
    if (!used) {
      skipped.push(`"${s.title}"`);
      continue;
    }
    if (cited === undefined) {
      cut.push(`"${s.title}"`);
      continue;
    }
    const terms = [...new Set(used.flatMap((c) => c.matched))].slice(0, 6).join(', ');
    quoted.push({
      cited,
      line: `Quoted ${used.length} sentence${used.length > 1 ? 's' : ''} of "${s.title}" as [${cited}]: ${used.length > 1 ? 'they match' : 'it matches'} ${terms || 'the topic'}.`,
    });
  }
  notes.push(...quoted.sort((a, b) => a.cited - b.cited).map((q) => q.line));
  if (skipped.length) notes.push(`Not quoted (weaker matches, or repeating what was chosen): ${skipped.join('; ')}.`);
  if (cut.length) notes.push(`Left out to stay within max_tokens: ${cut.join('; ')}.`);
  return notes;
}
