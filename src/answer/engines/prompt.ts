// The grounded prompt sent to generative engines: numbered sources in the system message, the
// caller's own system messages after ours, the earlier turns, then the question — fitted into the
// model's context window (llmContextTokens): room is kept for the answer, the oldest turns go
// first, and each source's text is cut to an equal share of what is left. The model is told
// today's date, each source's date, the period the question's time words name, and — for a
// follow-up — the standalone query it was searched as.
import type { ChatMessage } from '../types.ts';
import type { AnswerStyle, EngineRequest, GroundingSource } from './engine.ts';
import { countTokens, truncateToTokens } from '../tokens.ts';
import { stalenessLine, stalenessOf } from './staleness.ts';

const STYLE: Record<AnswerStyle, string> = {
  concise: 'Answer in one short paragraph (two to four sentences).',
  detailed: 'Answer thoroughly in a few paragraphs, covering every relevant aspect the sources give.',
  report:
    'Write a structured research report in markdown: a short summary, then one "## " section per aspect, then a conclusion.',
};

/** Tokens a chat template adds per message (role markers), a safe over-estimate. */
const PER_MESSAGE = 8;

const isoDay = (unix: number) => new Date(unix * 1000).toISOString().slice(0, 10);

/** What the pipeline knows about time and the conversation, said to the model in plain words. */
function cues(req: EngineRequest): string[] {
  const out: string[] = [];
  if (req.timeCue)
    out.push(
      `The question asks about "${req.timeCue.phrase}", that is ${isoDay(req.timeCue.from)} to ${isoDay(req.timeCue.to - 1)}: prefer sources from then.`,
    );
  if (req.roundup && req.feeds?.length)
    out.push(
      `The question asks what ${req.feeds.map((f) => `"${f}"`).join(' and ')} ${req.feeds.length === 1 ? 'has' : 'have'} published: the sources are the newest articles of ${req.feeds.length === 1 ? 'that feed' : 'those feeds'}, newest first. Tell them newest first, one or two sentences each, each with its date.`,
    );
  else if (req.roundup)
    out.push(
      "The question asks what is new: the sources are the newest articles in the user's feeds, newest first. Tell the main stories among them, newest first, one or two sentences each, each with its date.",
    );
  const stale = stalenessOf(req);
  if (stale)
    out.push(
      `No source is from that period: the newest is from ${isoDay(stale.newest)}. Say so first, before anything else, in these words: "${stalenessLine(stale, 'quotes').replace(/:$/, ' …')}", and do not present their news as current.`,
    );
  out.push(
    'Each source has its publication date. Say when things happened ("3 March 2025: …"); when sources of different dates disagree, give the newest and say what the earlier one said and when.',
  );
  if (req.searchQuery && req.searchQuery !== req.question && req.history.length)
    out.push(
      `The question follows up on the conversation; it was searched as "${req.searchQuery}". Read its pronouns accordingly.`,
    );
  return out;
}

export function buildPrompt(req: EngineRequest, contextTokens = 16_384, today?: Date): ChatMessage[] {
  // "Today" is the request's (tidings ask --as-of, tests), else the clock.
  const date = (today ?? new Date(req.asOf !== undefined ? req.asOf * 1000 : Date.now())).toISOString().slice(0, 10);
  const reserve = req.maxTokens ?? Math.min(2_048, Math.floor(contextTokens / 4));
  const instructions = req.searched
    ? [
        `You are Tidings, an assistant that answers questions from the user's news feeds. Today is ${date}.`,
        'Use only the numbered sources below; do not add facts they do not contain.',
        'After each sentence that uses a source, cite it with its number in brackets, like [1] or [1][3]. Cite only the numbers listed below.',
        'If the sources do not answer the question, say so plainly.',
        ...cues(req),
        STYLE[req.style],
      ].join('\n')
    : `You are Tidings, a helpful assistant. Answer from your own knowledge. Today is ${date}. ${STYLE[req.style]}`;

  const tail: ChatMessage[] = [
    ...req.system.map((content) => ({ role: 'system' as const, content })),
    ...req.history,
    { role: 'user', content: req.question },
  ];
  const cost = (m: ChatMessage) => countTokens(m.content) + PER_MESSAGE;
  let fixed = countTokens(instructions) + PER_MESSAGE + tail.reduce((n, m) => n + cost(m), 0);
  // Too long a conversation: drop the oldest turns (never the system messages or the question).
  const firstTurn = req.system.length;
  while (fixed + reserve > contextTokens && tail.length - firstTurn > 1) {
    fixed -= cost(tail[firstTurn]);
    tail.splice(firstTurn, 1);
  }
  if (!req.searched) return [{ role: 'system', content: instructions }, ...tail];

  const sourceBudget = Math.max(0, contextTokens - reserve - fixed - 16);
  const sources = fitSources(req.sources, sourceBudget);
  return [{ role: 'system', content: `${instructions}\n\nSources:\n${sources || '(no articles found)'}` }, ...tail];
}

function fitSources(sources: GroundingSource[], budget: number): string {
  if (!sources.length) return '';
  const blocks = sources.map((s) => {
    const day = s.hit.publishedAt ? `, ${isoDay(s.hit.publishedAt)}` : '';
    return {
      head: `[${s.n}] ${s.hit.title} (${s.hit.sourceName}${day})\nURL: ${s.hit.url}\n`,
      body: s.texts.join('\n'),
    };
  });
  const share = Math.floor(budget / blocks.length);
  return blocks
    .map((b) => {
      const room = Math.max(0, share - countTokens(b.head));
      return b.head + truncateToTokens(b.body, room);
    })
    .join('\n\n');
}
