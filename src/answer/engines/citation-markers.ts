// Streaming filter for `[n]` citation markers in generated text: keeps markers that point at a
// real source (1..max), drops the rest (a model citing [9] of 5 sources), and normalizes lists
// like "[1, 2]" to "[1][2]". A marker split across chunks ("… launched [1" + "2] …") is held back
// until it is complete, so no invalid marker ever reaches the client.

const MAX_MARKER = 24;

export class CitationMarkerFilter {
  private readonly max: number;
  private pending = '';

  constructor(max: number) {
    this.max = max;
  }

  push(text: string): string {
    let out = '';
    for (const ch of text) {
      if (!this.pending) {
        if (ch === '[') this.pending = '[';
        else out += ch;
        continue;
      }
      if (ch === ']') {
        out += this.resolve(this.pending + ch);
        this.pending = '';
        continue;
      }
      if (/[\d,\s]/.test(ch) && this.pending.length < MAX_MARKER) {
        this.pending += ch;
        continue;
      }
      // Not a marker after all ("[a", "[see …"): release it as text.
      out += this.pending;
      this.pending = ch === '[' ? '[' : '';
      if (ch !== '[') out += ch;
    }
    return out;
  }

  /** What is still held back at the end of the stream (an unfinished "[1" is text, not a marker). */
  flush(): string {
    const p = this.pending;
    this.pending = '';
    return p;
  }

  private resolve(marker: string): string {
    const numbers = marker
      .slice(1, -1)
      .split(',')
      .map((s) => s.trim());
    if (!numbers.length || numbers.some((s) => !/^\d+$/.test(s))) return marker;
    return numbers
      .map(Number)
      .filter((n) => n >= 1 && n <= this.max)
      .map((n) => `[${n}]`)
      .join('');
  }
}
