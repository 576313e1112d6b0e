// A static check for polynomial backtracking, the shape safe-regex2 (star height, nested
// repetition) lets through: unbounded repetitions in a row that can match the same characters,
// as in ^(.*)(.*)(.*)x$ or \w+\s*\w+x. On a text where the match fails, V8 tries every way of
// splitting the text between them: k such repetitions cost about n^(k+1) steps over n characters
// (6 of them and 250 ms per item in the attack of issue 25). A run is broken by anything required
// between them (a literal, a class the previous ones cannot match), so `.*foo.*` and `\w+\s+\w+`
// pass. Hand-written rather than ret's tokenizer (safe-regex2's): ret knows neither lookbehind nor
// \p{…}, which rules use under the `u` flag.

/** One term of a sequence: what it can consume, and how often. */
interface Term {
  src: string;
  /** Sources of the single-character atoms it can consume ('' when zero-width). */
  chars: string[];
  min: number;
  max: number;
  /** Alternatives inside (a group), each a sequence, checked on their own. */
  inner: Term[][];
  /** A plain group (one alternative, no quantifier): its terms join the enclosing sequence. */
  flatten: boolean;
  zeroWidth: boolean;
}

/** Repetitions past this many count as unbounded: .{0,5000} splits a text as many ways as .*. */
const UNBOUNDED_FROM = 100;

class Parser {
  private i = 0;
  private readonly p: string;
  constructor(pattern: string) {
    this.p = pattern;
  }

  alternatives(): Term[][] {
    const alts: Term[][] = [[]];
    while (this.i < this.p.length) {
      const c = this.p[this.i]!;
      if (c === ')') break;
      if (c === '|') {
        this.i++;
        alts.push([]);
        continue;
      }
      const start = this.i;
      const t = this.atom();
      this.quantifier(t, start);
      alts[alts.length - 1]!.push(t);
    }
    return alts;
  }

  private atom(): Term {
    const p = this.p;
    const start = this.i;
    const c = p[this.i]!;
    const term = (chars: string[], zeroWidth = false): Term => ({
      src: p.slice(start, this.i),
      chars,
      min: 1,
      max: 1,
      inner: [],
      flatten: false,
      zeroWidth,
    });
    if (c === '^' || c === '$') {
      this.i++;
      return term([], true);
    }
    if (c === '.') {
      this.i++;
      return term(['.']);
    }
    if (c === '[') {
      this.i++;
      if (p[this.i] === '^') this.i++;
      while (this.i < p.length && p[this.i] !== ']') this.i += p[this.i] === '\\' ? 2 : 1;
      this.i++;
      return term([p.slice(start, this.i)]);
    }
    if (c === '\\') {
      const n = p[this.i + 1] ?? '';
      this.i += 2;
      if (n === 'b' || n === 'B') return term([], true);
      if ((n === 'p' || n === 'P') && p[this.i] === '{') this.i = p.indexOf('}', this.i) + 1 || p.length;
      else if (n === 'u' && p[this.i] === '{') this.i = p.indexOf('}', this.i) + 1 || p.length;
      else if (n === 'u') this.i += 4;
      else if (n === 'x') this.i += 2;
      else if (n === 'c') this.i += 1;
      else if (n === 'k' && p[this.i] === '<') this.i = p.indexOf('>', this.i) + 1 || p.length;
      // A back reference can repeat anything the group matched.
      if (/[1-9k]/.test(n)) return term(['[^]']);
      return term([p.slice(start, this.i)]);
    }
    if (c === '(') {
      this.i++;
      let lookaround = false;
      if (p.startsWith('?:', this.i)) this.i += 2;
      else if (/^\?<?[=!]/.test(p.slice(this.i, this.i + 3))) {
        lookaround = true;
        this.i += p[this.i + 1] === '<' ? 3 : 2;
      } else if (p.startsWith('?<', this.i)) this.i = p.indexOf('>', this.i) + 1 || p.length;
      const inner = this.alternatives();
      this.i++; // ')'
      const t = term(lookaround ? [] : inner.flat().flatMap((x) => x.chars), lookaround);
      t.inner = inner;
      t.flatten = !lookaround && inner.length === 1;
      return t;
    }
    this.i++;
    return term([p.slice(start, this.i)]);
  }

  private quantifier(t: Term, start: number): void {
    const p = this.p;
    const q = /^(?:[*+?]|\{(\d+)(,(\d*))?\})\??/.exec(p.slice(this.i));
    if (!q) return;
    this.i += q[0].length;
    t.src = p.slice(start, this.i);
    t.flatten = false;
    const k = q[0][0];
    if (k === '*') [t.min, t.max] = [0, Infinity];
    else if (k === '+') [t.min, t.max] = [1, Infinity];
    else if (k === '?') [t.min, t.max] = [0, 1];
    else {
      t.min = Number(q[1]);
      t.max = q[2] === undefined ? t.min : q[3] ? Number(q[3]) : Infinity;
    }
    if (t.max >= UNBOUNDED_FROM) t.max = Infinity;
  }
}

// Characters tried when asking whether two classes overlap: Latin, Greek, Cyrillic, punctuation,
// CJK and an emoji cover what the usual classes (\w, \s, \d, \p{L}, [^…], .) tell apart.
const SAMPLES: string[] = (() => {
  const cps: number[] = [];
  for (let c = 0; c < 0x500; c++) cps.push(c);
  for (const [a, b] of [
    [0x2000, 0x206f],
    [0x3000, 0x303f],
    [0x4e00, 0x4e1f],
    [0xac00, 0xac0f],
    [0xfeff, 0xfeff],
    [0x1f600, 0x1f60f],
  ] as const)
    for (let c = a; c <= b; c++) cps.push(c);
  return cps.map((c) => String.fromCodePoint(c));
})();

function classMatcher(chars: string[]): RegExp | null {
  try {
    return new RegExp(`^(?:${chars.join('|')})$`, 'isu');
  } catch {
    return null;
  }
}

function overlap(a: string[], b: string[]): boolean {
  const ra = classMatcher(a),
    rb = classMatcher(b);
  if (!ra || !rb) return true; // not understood: assume the worst
  const extra = [...a, ...b].filter((s) => [...s].length === 1);
  return [...SAMPLES, ...extra].some((ch) => ra.test(ch) && rb.test(ch));
}

function flattened(seq: Term[]): Term[] {
  return seq.flatMap((t) => (t.flatten ? flattened(t.inner[0]!) : [t]));
}

/** The first pair of adjacent overlapping unbounded repetitions, as their sources. */
function findRun(seq: Term[]): [string, string] | null {
  let run: Term[] = [];
  for (const t of flattened(seq)) {
    for (const alt of t.inner) {
      const hit = findRun(alt);
      if (hit) return hit;
    }
    if (t.zeroWidth) continue;
    if (t.max === Infinity) {
      const prev = run.find((r) => overlap(r.chars, t.chars));
      if (prev) return [prev.src, t.src];
      // A required repetition none of the run can match separates it from what follows (\w+\s+\w+).
      if (t.min > 0) run = [t];
      else run.push(t);
    } else if (t.min > 0) run = []; // something required between them ends the run
  }
  return null;
}

/**
 * Why a (syntactically valid) pattern would backtrack polynomially, or null. Example answer:
 * `(.*) then (.*)`.
 */
export function polynomialShape(pattern: string): string | null {
  for (const alt of new Parser(pattern).alternatives()) {
    const hit = findRun(alt);
    if (hit) return `${hit[0]} then ${hit[1]}`;
  }
  return null;
}
