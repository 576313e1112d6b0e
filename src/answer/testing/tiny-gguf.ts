// Writes a tiny GGUF (v3) model for tests and benchmarks: the llama architecture, a byte-level BPE
// vocabulary with a ChatML template, and seeded random weights. llama.cpp loads it, tokenizes,
// applies the template and generates noise, so the local engine runs for real without any
// download. What llama.cpp insists on (learned from ../shared/tools/tiny-gguf.py): a `gpt2`
// tokenizer has a `merges` array and a `pre` it knows (`gpt-2`), all 256 byte tokens are in the
// vocabulary, token strings are unique, and the special tokens are control tokens.
//
// The output weights are shaped so that control tokens (end of turn included) and bytes that are
// not printable ASCII never win: a generation always runs to its token limit or its abort, which
// makes lengths, aborts and queueing testable, and its text is printable.
import { writeFileSync, renameSync } from 'node:fs';

export interface TinyGgufOptions {
  seed?: number;
  layers?: number;
  /** Embedding width (a multiple of heads × 2). */
  embd?: number;
  heads?: number;
  kvHeads?: number;
  /** Context length the file declares. */
  contextLength?: number;
  /** BPE merges learned from the built-in text (at most). */
  merges?: number;
}

const CHATML =
  "{%- for message in messages %}{{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}{%- endfor %}" +
  "{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}";
const SPECIAL = ['<|endoftext|>', '<|im_start|>', '<|im_end|>'];
const TEXT =
  'The news today: the council voted on the budget, and the minister said the plan would start in March. ' +
  'Scientists reported that the river flooded the town after heavy rain; thousands of people left their homes. ' +
  'According to the sources, the company will build a new bridge and the election results were announced on Monday. ' +
  'What happened this week? Who won, where did it happen, and why does it matter to the readers of these feeds?';

/** GPT-2's byte -> printable character map (printable bytes map to themselves). */
function byteChars(): string[] {
  const keep = (b: number) => (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
  const out: string[] = [];
  let next = 256;
  for (let b = 0; b < 256; b++) out[b] = String.fromCodePoint(keep(b) ? b : next++);
  return out;
}

/** Plain BPE over the byte symbols of the built-in text's words; ties broken by the pair's text. */
function learnMerges(count: number, chars: string[]): [string, string][] {
  let words = new Map<string, { syms: string[]; n: number }>();
  for (const w of TEXT.match(/ ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+/g) ?? []) {
    const syms = [...Buffer.from(w, 'utf8')].map((b) => chars[b]);
    const key = syms.join('\u0000');
    const e = words.get(key);
    if (e) e.n++;
    else words.set(key, { syms, n: 1 });
  }
  const merges: [string, string][] = [];
  for (let m = 0; m < count; m++) {
    const pairs = new Map<string, number>();
    for (const { syms, n } of words.values())
      for (let i = 0; i + 1 < syms.length; i++) {
        const k = `${syms[i]}\u0000${syms[i + 1]}`;
        pairs.set(k, (pairs.get(k) ?? 0) + n);
      }
    let best: string | undefined;
    let bestN = 0;
    for (const [k, n] of pairs)
      if (n > bestN || (n === bestN && best !== undefined && k < best)) [best, bestN] = [k, n];
    if (best === undefined || bestN < 2) break;
    const [a, b] = best.split('\u0000') as [string, string];
    merges.push([a, b]);
    const next = new Map<string, { syms: string[]; n: number }>();
    for (const { syms, n } of words.values()) {
      const out: string[] = [];
      for (let i = 0; i < syms.length; i++) {
        if (i + 1 < syms.length && syms[i] === a && syms[i + 1] === b) {
          out.push(a + b);
          i++;
        } else out.push(syms[i]);
      }
      next.set(out.join('\u0000'), { syms: out, n });
    }
    words = next;
  }
  return merges;
}

/** mulberry32: a small seeded generator, so the same seed writes the same bytes. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Out {
  private parts: Buffer[] = [];
  length = 0;
  push(b: Buffer): void {
    this.parts.push(b);
    this.length += b.length;
  }
  u32(v: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v);
    this.push(b);
  }
  u64(v: number): void {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(v));
    this.push(b);
  }
  str(s: string): void {
    const b = Buffer.from(s, 'utf8');
    this.u64(b.length);
    this.push(b);
  }
  pad(align = 32): void {
    const n = (align - (this.length % align)) % align;
    if (n) this.push(Buffer.alloc(n));
  }
  buffer(): Buffer {
    return Buffer.concat(this.parts);
  }
}

// GGUF value types.
const U32 = 4;
const I32 = 5;
const F32 = 6;
const BOOL = 7;
const STR = 8;
const ARR = 9;
type Meta =
  | [string, 'u32' | 'f32' | 'bool' | 'str', number | boolean | string]
  | [string, 'strs', string[]]
  | [string, 'i32s', number[]];

/** The file's bytes. */
export function tinyGguf(opts: TinyGgufOptions = {}): Buffer {
  const seed = opts.seed ?? 1;
  const L = opts.layers ?? 2;
  const E = opts.embd ?? 64;
  const H = opts.heads ?? 4;
  const KV = opts.kvHeads ?? 2;
  if (E % H || H % KV || (E / H) % 2)
    throw new Error('tinyGguf: embd must divide by heads into an even head size, heads by kvHeads');
  const FF = Math.ceil((E * 8) / 3 / 32) * 32;
  const chars = byteChars();
  const tokens = [...chars];
  const seen = new Set(tokens);
  const merges = learnMerges(opts.merges ?? 300, chars);
  // Two merge paths can make the same string: each token string once.
  for (const [a, b] of merges) {
    if (seen.has(a + b)) continue;
    seen.add(a + b);
    tokens.push(a + b);
  }
  const types = tokens.map(() => 1);
  for (const s of SPECIAL) {
    tokens.push(s);
    types.push(3);
  }
  const V = tokens.length;
  const bos = V - 3;
  const eos = V - 1;

  const rnd = random(seed);
  const uniform = (n: number, std: number) => {
    const a = std * Math.sqrt(3);
    const v = new Float32Array(n);
    for (let i = 0; i < n; i++) v[i] = (2 * rnd() - 1) * a;
    return v;
  };
  // Residual channel 0 holds a constant (every embedding has it, no layer writes to it), so the
  // output row's channel 0 works as a per-token bias: very negative for the tokens never wanted.
  const emb = uniform(V * E, 1);
  for (let v = 0; v < V; v++) emb[v * E] = 8;
  const mat = (nIn: number, nOut: number, keepChannel0 = false) => {
    const m = uniform(nIn * nOut, 1 / Math.sqrt(nIn));
    if (keepChannel0) for (let i = 0; i < nIn; i++) m[i] = 0;
    return m;
  };
  const ones = new Float32Array(E).fill(1);
  const head = E / H;
  const tensors: [string, number[], Float32Array][] = [['token_embd.weight', [E, V], emb]];
  for (let i = 0; i < L; i++) {
    const p = `blk.${i}.`;
    tensors.push(
      [`${p}attn_norm.weight`, [E], ones],
      [`${p}attn_q.weight`, [E, head * H], mat(E, head * H)],
      [`${p}attn_k.weight`, [E, head * KV], mat(E, head * KV)],
      [`${p}attn_v.weight`, [E, head * KV], mat(E, head * KV)],
      [`${p}attn_output.weight`, [head * H, E], mat(head * H, E, true)],
      [`${p}ffn_norm.weight`, [E], ones],
      [`${p}ffn_gate.weight`, [E, FF], mat(E, FF)],
      [`${p}ffn_up.weight`, [E, FF], mat(E, FF)],
      [`${p}ffn_down.weight`, [FF, E], mat(FF, E, true)],
    );
  }
  const output = uniform(V * E, 1 / Math.sqrt(E));
  for (let v = 0; v < V; v++) {
    const printable = v >= 256 || v === 10 || (v >= 32 && v < 127);
    output[v * E] = types[v] === 3 || !printable ? -30 : 0;
  }
  tensors.push(['output_norm.weight', [E], ones], ['output.weight', [E, V], output]);

  const meta: Meta[] = [
    ['general.architecture', 'str', 'llama'],
    ['general.name', 'str', 'tidings-tiny-test-model'],
    ['general.description', 'str', `Random weights (seed ${seed}) for Tidings's tests. Its output is noise.`],
    ['general.file_type', 'u32', 0],
    ['general.alignment', 'u32', 32],
    ['llama.vocab_size', 'u32', V],
    ['llama.context_length', 'u32', opts.contextLength ?? 4096],
    ['llama.embedding_length', 'u32', E],
    ['llama.block_count', 'u32', L],
    ['llama.feed_forward_length', 'u32', FF],
    ['llama.attention.head_count', 'u32', H],
    ['llama.attention.head_count_kv', 'u32', KV],
    ['llama.rope.dimension_count', 'u32', head],
    ['llama.rope.freq_base', 'f32', 10000],
    ['llama.attention.layer_norm_rms_epsilon', 'f32', 1e-5],
    ['tokenizer.ggml.model', 'str', 'gpt2'],
    ['tokenizer.ggml.pre', 'str', 'gpt-2'],
    ['tokenizer.ggml.tokens', 'strs', tokens],
    ['tokenizer.ggml.token_type', 'i32s', types],
    ['tokenizer.ggml.merges', 'strs', merges.map(([a, b]) => `${a} ${b}`)],
    ['tokenizer.ggml.bos_token_id', 'u32', bos],
    ['tokenizer.ggml.eos_token_id', 'u32', eos],
    ['tokenizer.ggml.eot_token_id', 'u32', eos],
    ['tokenizer.ggml.padding_token_id', 'u32', bos],
    ['tokenizer.ggml.add_bos_token', 'bool', false],
    ['tokenizer.ggml.add_eos_token', 'bool', false],
    ['tokenizer.chat_template', 'str', CHATML],
  ];

  const out = new Out();
  out.push(Buffer.from('GGUF'));
  out.u32(3);
  out.u64(tensors.length);
  out.u64(meta.length);
  for (const [key, kind, value] of meta) {
    out.str(key);
    if (kind === 'strs' || kind === 'i32s') {
      out.u32(ARR);
      out.u32(kind === 'strs' ? STR : I32);
      const list = value as (string | number)[];
      out.u64(list.length);
      for (const x of list) {
        if (kind === 'strs') out.str(x as string);
        else {
          const b = Buffer.alloc(4);
          b.writeInt32LE(x as number);
          out.push(b);
        }
      }
    } else if (kind === 'str') {
      out.u32(STR);
      out.str(value as string);
    } else if (kind === 'bool') {
      out.u32(BOOL);
      out.push(Buffer.from([value ? 1 : 0]));
    } else {
      out.u32(kind === 'u32' ? U32 : F32);
      const b = Buffer.alloc(4);
      if (kind === 'u32') b.writeUInt32LE(value as number);
      else b.writeFloatLE(value as number);
      out.push(b);
    }
  }
  let offset = 0;
  for (const [name, dims, data] of tensors) {
    out.str(name);
    out.u32(dims.length);
    for (const d of dims) out.u64(d);
    out.u32(0); // F32
    out.u64(offset);
    offset += data.byteLength + ((32 - (data.byteLength % 32)) % 32);
  }
  out.pad();
  for (const [, , data] of tensors) {
    out.push(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
    out.pad();
  }
  return out.buffer();
}

/** Writes the model to `path` (atomically) and returns the path. */
export function writeTinyGguf(path: string, opts: TinyGgufOptions = {}): string {
  writeFileSync(`${path}.tmp`, tinyGguf(opts));
  renameSync(`${path}.tmp`, path);
  return path;
}
