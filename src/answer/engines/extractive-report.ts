// The extractive engine's sectioned report (sonar-deep-research without an LLM): one section per
// sub-question, each made of quoted sentences chosen for that sub-question from the articles
// found for it, never repeating a sentence of an earlier section; citation numbers are shared
// across sections, by first use.
import type { GroundingSource } from './engine.ts';
import { selectSentences } from './extractive-select.ts';
import { CitationNumbers, renderQuotes, type RenderBudget } from './extractive-render.ts';

export interface ReportSection {
  heading: string;
  /** What the section answers (its sentences are scored against this). */
  question: string;
  sources: GroundingSource[];
}

export interface ComposedReport {
  /** Markdown body (sections with "## " headings), empty when nothing relevant was found. */
  text: string;
  /** Input source numbers in citation order. */
  order: number[];
  notes: string[];
  cut: boolean;
}

export function composeReport(title: string, sections: ReportSection[], maxTokens?: number): ComposedReport {
  const numbers = new CitationNumbers();
  const budget: RenderBudget = { remaining: maxTokens, cut: false };
  const avoid: Set<string>[] = [];
  const parts: string[] = [];
  const notes: string[] = [];
  for (const section of sections) {
    if (budget.cut) break;
    const selection = selectSentences(section.question, section.sources, {
      maxSentences: 5,
      maxPerSource: 2,
      poolPerSource: 200,
      avoid,
    });
    if (!selection.found) {
      notes.push(
        `Section "${section.heading}": nothing in its ${section.sources.length} articles answered "${section.question}"; left out.`,
      );
      continue;
    }
    const paragraphs = renderQuotes(selection.picked, 'detailed', numbers, budget);
    if (!paragraphs.length) continue;
    avoid.push(...selection.picked.map((c) => c.shingleSet));
    parts.push(`## ${section.heading}\n\n${paragraphs.join('\n\n')}`);
    notes.push(
      `Section "${section.heading}": ${selection.picked.length} sentences from ${new Set(selection.picked.map((c) => c.source.n)).size} articles.`,
    );
  }
  const text = parts.length ? `# ${title}\n\n${parts.join('\n\n')}` : '';
  return { text, order: numbers.order, notes, cut: budget.cut };
}
