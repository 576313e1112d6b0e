// Splits a streamed reply of a reasoning model ("<think>…</think>answer") into reasoning and
// answer pieces, with either tag possibly cut across chunks. Only a <think> at the very start of
// the reply opens a reasoning block (that is where reasoning models put it).

export interface SplitPart {
  kind: 'reasoning' | 'text';
  text: string;
}

const OPEN = '<think>';
const CLOSE = '</think>';

export class ThinkSplitter {
  private state: 'start' | 'think' | 'answer' = 'start';
  private buf = '';

  push(text: string): SplitPart[] {
    this.buf += text;
    const out: SplitPart[] = [];
    if (this.state === 'start') {
      const t = this.buf.trimStart();
      if (OPEN.startsWith(t)) return out; // "", "<", "<thi": wait for more
      if (t.startsWith(OPEN)) {
        this.state = 'think';
        this.buf = t.slice(OPEN.length);
      } else this.state = 'answer';
    }
    if (this.state === 'think') {
      const i = this.buf.indexOf(CLOSE);
      if (i < 0) {
        const keep = partialSuffix(this.buf, CLOSE);
        const emit = this.buf.slice(0, this.buf.length - keep);
        if (emit) out.push({ kind: 'reasoning', text: emit });
        this.buf = this.buf.slice(this.buf.length - keep);
        return out;
      }
      if (i > 0) out.push({ kind: 'reasoning', text: this.buf.slice(0, i) });
      this.buf = this.buf.slice(i + CLOSE.length);
      this.state = 'answer';
    }
    if (this.buf) out.push({ kind: 'text', text: this.buf });
    this.buf = '';
    return out;
  }

  flush(): SplitPart[] {
    const b = this.buf;
    this.buf = '';
    if (!b) return [];
    return [{ kind: this.state === 'think' ? 'reasoning' : 'text', text: b }];
  }
}

/** Length of the longest suffix of s that is a proper prefix of tag. */
function partialSuffix(s: string, tag: string): number {
  for (let n = Math.min(tag.length - 1, s.length); n > 0; n--) if (s.endsWith(tag.slice(0, n))) return n;
  return 0;
}
