// Length and format instructions in the system or user messages ("answer in one sentence",
// "briefly", "as a bullet list"), as far as an engine that only quotes sentences can honour them.

export interface AnswerFormat {
  /** Sentences (or digest items) at most. */
  maxSentences?: number;
  bullets: boolean;
}

const COUNT: Record<string, number> = { one: 1, single: 1, a: 1, two: 2, three: 3, four: 4, five: 5 };

export function formatOf(question: string, system: string[]): AnswerFormat {
  const text = [...system, question].join('\n').toLowerCase();
  const out: AnswerFormat = { bullets: /\b(bullet(ed)?( points?| list)?|as a list|in a list|list form)\b/.test(text) };
  const n = /\b(?:in|with|using|to)?\s*(one|single|a|two|three|four|five|\d+)\s+(?:short\s+)?sentences?\b/.exec(text);
  if (n) out.maxSentences = COUNT[n[1]!] ?? Math.max(1, Number(n[1]));
  else if (
    /\b(briefly|brief|short answer|be short|keep it short|concise(ly)?|tl;?dr|in a word|one[- ]liner)\b/.test(text)
  )
    out.maxSentences = 1;
  const items = /\b(\d+|two|three|four|five)\s+(?:bullet|points|items|stories|headlines)\b/.exec(text);
  if (items) out.maxSentences = COUNT[items[1]!] ?? Number(items[1]);
  return out;
}
