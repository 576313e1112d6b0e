// Enforces max_tokens over the whole streamed content (<think> block included): the delta that
// crosses the limit is cut at a token boundary, later deltas are dropped, and `done` reports
// finish_reason 'length'. The inner stream still runs to its end so usage and extras stay exact.
import type { AnswerEvent } from './types.ts';
import { countTokens, truncateToTokens } from './tokens.ts';

export async function* limitTokens(
  events: AsyncIterable<AnswerEvent>,
  maxTokens: number | undefined,
): AsyncGenerator<AnswerEvent> {
  if (maxTokens === undefined) {
    yield* events;
    return;
  }
  let used = 0;
  let cut = false;
  for await (const ev of events) {
    if (ev.type === 'delta') {
      if (cut) continue;
      const cost = countTokens(ev.text);
      if (used + cost <= maxTokens) {
        used += cost;
        yield ev;
        continue;
      }
      cut = true;
      const part = truncateToTokens(ev.text, maxTokens - used);
      used += countTokens(part);
      if (part) yield { type: 'delta', text: part };
      continue;
    }
    if (ev.type === 'done' && cut) {
      yield {
        ...ev,
        finishReason: 'length',
        usage: { ...ev.usage, completionTokens: Math.min(ev.usage.completionTokens, used) },
      };
      continue;
    }
    yield ev;
  }
}
