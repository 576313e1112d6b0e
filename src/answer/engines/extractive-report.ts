// The extractive engine's sectioned report (sonar-deep-research without an LLM): an overview, then
// one section per subtopic of the articles read. Subtopics are clusters of the articles
// (./story-clusters.ts: rarity-weighted terms of title and opening); a section's heading is written
// from what its articles share (whole names, shared words; a lone article's own title), its
// sentences are chosen for the question plus that heading from its own articles, the lead from its
// best-ranked article, and it says the days its articles span. No sentence repeats an earlier
// section's; citation numbers are shared across sections, by first use.
import type { GroundingSource } from './engine.ts';
import { selectSentences, type Candidate } from './extractive-select.ts';
import { CitationNumbers, renderQuotes, type RenderBudget } from './extractive-render.ts';
import { clusterHeading, clusterStories, SAME_SUBTOPIC } from './story-clusters.ts';
import { longDay } from './extractive-dates.ts';
import { shingles } from '../text/similarity.ts';

export interface ReportSection {
  heading: string;
  /** What the section answers (its sentences are scored against this). */
  question: string;
  sources: GroundingSource[];
  /** The days its articles span, written under the heading ("3 March 2025 to 14 March 2025"). */
  dates?: string;
  /** Input number of the source the section's lead sentence comes from when it has one. */
  lead?: number;
  /** Sentences at most (default 5). */
  maxSentences?: number;
  /** A line of the engine's own about the sources (counts, days), written before any quote. */
  intro?: string;
}

/** The overview: what was read, in how many subtopics, over which days (no claim of its own). */
export function overviewLine(sources: GroundingSource[], topics: ReportSection[]): string {
  const dates = sources.map((s) => s.hit.publishedAt ?? 0).filter((d) => d > 0);
  const span = dates.length ? `, published from ${longDay(Math.min(...dates))} to ${longDay(Math.max(...dates))}` : '';
  const list = topics.map((t) => t.heading);
  const named = list.length > 1 ? `${list.slice(0, -1).join('; ')}; and ${list[list.length - 1]}` : list[0];
  // No subtopics (a roundup's report tells each article instead): what was read, over which days.
  if (!topics.length) return `${sources.length} article${sources.length === 1 ? '' : 's'} read${span}.`;
  return `${sources.length} article${sources.length === 1 ? '' : 's'} read${span}, in ${topics.length} subtopic${topics.length === 1 ? '' : 's'}${named ? `: ${named}` : ''}.`;
}

/** Sections for the subtopics of the articles read, biggest first (ties: the better-ranked). */
export function subtopicSections(question: string, sources: GroundingSource[], max: number): ReportSection[] {
  const clusters = clusterStories(question, sources, SAME_SUBTOPIC);
  return clusters
    .map((c, i) => ({ c, i }))
    .sort((a, b) => b.c.members.length - a.c.members.length || a.i - b.i)
    .slice(0, max)
    .map(({ c }) => {
      const heading = clusterHeading(question, c);
      const span =
        c.newest === 0
          ? undefined
          : c.oldest === c.newest || longDay(c.oldest) === longDay(c.newest)
            ? longDay(c.newest)
            : `${longDay(c.oldest)} to ${longDay(c.newest)}`;
      return {
        heading,
        // Scored against its own headline: the subtopic's words, which its articles contain.
        question: heading,
        sources: c.members,
        dates: span && `${span}, ${c.members.length} article${c.members.length === 1 ? '' : 's'}`,
        lead: c.members[0]!.n,
      };
    });
}

/** The lead sentence comes first, from the section's best article when it has a chosen one. */
function leadFirst(picked: Candidate[], lead: number | undefined): Candidate[] {
  const i = lead === undefined ? -1 : picked.findIndex((c) => c.source.n === lead);
  if (i <= 0) return picked;
  return [picked[i]!, ...picked.slice(0, i), ...picked.slice(i + 1)];
}

export interface ComposedReport {
  /** Markdown body (sections with "## " headings), empty when nothing relevant was found. */
  text: string;
  /** Input source numbers in citation order. */
  order: number[];
  notes: string[];
  cut: boolean;
}

export interface ReportOptions {
  maxTokens?: number;
  /** Sources numbered first, in this order, and all listed (the articles read, in search order). */
  listed?: number[];
  /** Sentences already quoted (the direct answer): no section repeats them. */
  quoted?: string[];
}

export function composeReport(title: string, sections: ReportSection[], opts: ReportOptions = {}): ComposedReport {
  const numbers = new CitationNumbers(opts.listed);
  const budget: RenderBudget = { remaining: opts.maxTokens, cut: false };
  const avoid: Set<string>[] = (opts.quoted ?? []).map((q) => shingles(q));
  const parts: string[] = [];
  const notes: string[] = [];
  let quotes = (opts.quoted ?? []).length;
  for (const section of sections) {
    if (budget.cut) break;
    if (section.intro !== undefined && !section.sources.length) {
      parts.push(`## ${section.heading}\n\n${section.intro}`);
      continue;
    }
    const selection = selectSentences(section.question, section.sources, {
      maxSentences: section.maxSentences ?? 5,
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
    const ordered = leadFirst(selection.picked, section.lead);
    const paragraphs = renderQuotes(ordered, 'detailed', numbers, budget);
    if (!paragraphs.length) continue;
    quotes += paragraphs.length;
    avoid.push(...selection.picked.map((c) => c.shingleSet));
    parts.push(`## ${section.heading}\n\n${section.dates ? `_${section.dates}_\n\n` : ''}${paragraphs.join('\n\n')}`);
    const lead = ordered[0]!;
    const leadIsBest = lead === selection.picked[0];
    notes.push(
      `Section "${section.heading}": ${selection.picked.length} sentences from ${new Set(selection.picked.map((c) => c.source.n)).size} articles. Lead from [${lead.source.n}]${
        leadIsBest ? ', the highest-scoring sentence' : ", the section's best-ranked article"
      } (${selection.reasons.get(lead) ?? 'no score'}).`,
    );
  }
  // An overview with no section after it would be a report of nothing: the caller says so instead.
  const text = quotes > 0 ? `# ${title}\n\n${parts.join('\n\n')}` : '';
  return { text, order: numbers.order, notes, cut: budget.cut };
}
