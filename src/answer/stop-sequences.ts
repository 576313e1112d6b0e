// `stop` sequences: the content ends just before the first occurrence of any of them (the
// sequence itself is not returned, as in OpenAI's API). Generative engines also get them
// upstream; applying them here makes the extractive engine honour them too, and keeps the rule
// identical for every engine. A sequence split across deltas is caught by holding back the
// last (longest stop - 1) characters until more text arrives.
import type { AnswerEvent } from './types.ts';
import { countTokens } from './tokens.ts';

export async function* applyStopSequences(
  events: AsyncIterable<AnswerEvent>,
  stops: string[] | undefined,
): AsyncGenerator<AnswerEvent> {
  const list = (stops ?? []).filter((s) => s.length > 0);
  if (!list.length) {
    yield* events;
    return;
  }
  const hold = Math.max(...list.map((s) => s.length)) - 1;
  let pending = '';
  let emitted = '';
  let stopped = false;
  const delta = (text: string): AnswerEvent => {
    emitted += text;
    return { type: 'delta', text };
  };
  for await (const ev of events) {
    if (ev.type === 'sources') {
      yield ev;
      continue;
    }
    if (ev.type === 'done') {
      if (!stopped && pending) yield delta(pending);
      yield stopped
        ? {
            ...ev,
            finishReason: 'stop',
            usage: { ...ev.usage, completionTokens: Math.min(ev.usage.completionTokens, countTokens(emitted)) },
          }
        : ev;
      continue;
    }
    if (stopped) continue;
    pending += ev.text;
    let at = -1;
    for (const s of list) {
      const i = pending.indexOf(s);
      if (i >= 0 && (at < 0 || i < at)) at = i;
    }
    if (at >= 0) {
      stopped = true;
      if (at > 0) yield delta(pending.slice(0, at));
      pending = '';
      continue;
    }
    if (pending.length > hold) {
      yield delta(pending.slice(0, pending.length - hold));
      pending = pending.slice(pending.length - hold);
    }
  }
}
