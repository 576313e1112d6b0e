// Evaluates a conformance "Expect:" AST against our ParsedFeed, through a view that mirrors the
// parts of feedparser's result our model has. Keys our model has no counterpart for make the
// assertion "unmapped" (counted apart, with the key as the reason), never a failure.
import { Parser } from 'htmlparser2';
import type { ParsedFeed } from '../../../model/parsed-feed.ts';
import { canonicalCharset } from '../../encoding/decode-feed-body.ts';
import { VOID_ELEMENTS } from '../../../text/html-elements.ts';
import { htmlToText } from '../../../text/html-to-text.ts';
import type { Node } from './python-expression.ts';

/** A value with the comparison rule feedparser's equivalent needs. */
class Typed {
  kind: 'text' | 'html' | 'charset';
  value: string | null;
  constructor(kind: 'text' | 'html' | 'charset', value: string | null) {
    this.kind = kind;
    this.value = value;
  }
}

class Unmapped extends Error {}
/** Python would raise (KeyError, IndexError …): the assertion fails. */
class EvalFailure extends Error {}

/** Path patterns (N = any index) our model can answer. */
const MAPPED = new Set([
  'feed.title',
  'feed.title_detail.value',
  'feed.link',
  'feed.description',
  'feed.subtitle',
  'feed.tagline',
  'feed.subtitle_detail.value',
  'feed.tagline_detail.value',
  'feed.image.href',
  'feed.icon',
  'feed.ttl',
  'entries',
  'entries.N',
  'entries.N.title',
  'entries.N.title_detail.value',
  'entries.N.link',
  'entries.N.id',
  'entries.N.guid',
  'entries.N.author',
  'entries.N.published_parsed',
  'entries.N.updated_parsed',
  'entries.N.content.N.value',
  'entries.N.summary',
  'entries.N.description',
  'entries.N.summary_detail.value',
  'entries.N.enclosures',
  'entries.N.enclosures.N.href',
  'entries.N.enclosures.N.url',
  'entries.N.enclosures.N.type',
  'entries.N.enclosures.N.length',
  'entries.N.tags.N.term',
  'entries.N.category',
]);

export interface EvalContext {
  feed: ParsedFeed;
  /** Charset our decoder chose. */
  charset: string;
}

export type Outcome = { status: 'pass' | 'fail' } | { status: 'unmapped'; reason: string };

export function evaluateExpectation(ast: Node, ctx: EvalContext): Outcome {
  const reason = findUnmapped(ast);
  if (reason) return { status: 'unmapped', reason };
  try {
    return { status: truthy(evaluate(ast, ctx)) ? 'pass' : 'fail' };
  } catch (err) {
    if (err instanceof Unmapped) return { status: 'unmapped', reason: err.message };
    if (err instanceof EvalFailure) return { status: 'fail' };
    throw err;
  }
}

/** Static check: every feed/entries path and every name must be one we map. */
function findUnmapped(node: Node): string | null {
  switch (node.t) {
    case 'str':
    case 'num':
    case 'const':
      return null;
    case 'tuple':
      return firstOf(node.items.map(findUnmapped));
    case 'dict':
      return 'dict literal (feedparser detail objects)';
    case 'name':
      return ['feed', 'entries', 'bozo', 'encoding'].includes(node.name) ? null : `name ${node.name}`;
    case 'sub': {
      const path = pathOf(node);
      if (!path) return 'subscript of a computed value';
      return MAPPED.has(path) ? null : path.replace(/\.N\./g, '[N].');
    }
    case 'call':
      if (node.fn.t === 'name' && node.fn.name === 'len' && node.args.length === 1) return findUnmapped(node.args[0]!);
      return `call ${node.fn.t === 'name' ? node.fn.name : (pathOf(node.fn) ?? '?')}()`;
    case 'not':
      return findUnmapped(node.operand);
    case 'bool':
      return findUnmapped(node.left) ?? findUnmapped(node.right);
    case 'cmp':
      return firstOf(node.operands.map(findUnmapped));
    case 'add':
      return findUnmapped(node.left) ?? findUnmapped(node.right);
  }
}

function firstOf(values: Array<string | null>): string | null {
  return values.find((v) => v !== null) ?? null;
}

function pathOf(node: Node): string | null {
  if (node.t === 'name') return node.name;
  if (node.t !== 'sub') return null;
  const parent = pathOf(node.target);
  if (!parent) return null;
  if (node.index.t === 'num') return parent + '.N';
  if (node.index.t === 'str') return parent + '.' + node.index.v;
  return null;
}

function evaluate(node: Node, ctx: EvalContext): unknown {
  switch (node.t) {
    case 'str':
    case 'num':
    case 'const':
      return node.v;
    case 'tuple':
      return node.items.map((n) => evaluate(n, ctx));
    case 'dict':
      throw new Unmapped('dict literal');
    case 'name':
      if (node.name === 'feed') return feedView(ctx.feed);
      if (node.name === 'entries') return ctx.feed.entries.map(entryView);
      if (node.name === 'bozo') return ctx.feed.recovered;
      if (node.name === 'encoding') return new Typed('charset', ctx.charset);
      throw new Unmapped(node.name);
    case 'sub': {
      const target = evaluate(node.target, ctx);
      const index = evaluate(node.index, ctx);
      if (Array.isArray(target) && typeof index === 'number') {
        const v = target[index < 0 ? target.length + index : index];
        if (v === undefined) throw new EvalFailure('IndexError');
        return v;
      }
      if (target && typeof target === 'object' && !(target instanceof Typed) && typeof index === 'string') {
        const v = (target as Record<string, unknown>)[index];
        if (v === undefined || (v instanceof Typed && v.value === null)) throw new EvalFailure('KeyError');
        return v;
      }
      throw new EvalFailure('TypeError');
    }
    case 'call': {
      const arg = evaluate(node.args[0]!, ctx);
      if (Array.isArray(arg)) return arg.length;
      if (typeof arg === 'string') return arg.length;
      if (arg instanceof Typed) return arg.value?.length ?? 0;
      throw new EvalFailure('TypeError');
    }
    case 'not':
      return !truthy(evaluate(node.operand, ctx));
    case 'bool': {
      const left = evaluate(node.left, ctx);
      if (node.op === 'and') return truthy(left) ? evaluate(node.right, ctx) : left;
      return truthy(left) ? left : evaluate(node.right, ctx);
    }
    case 'add': {
      const l = evaluate(node.left, ctx),
        r = evaluate(node.right, ctx);
      if (typeof l === 'string' && typeof r === 'string') return l + r;
      if (typeof l === 'number' && typeof r === 'number') return l + r;
      throw new EvalFailure('TypeError');
    }
    case 'cmp': {
      let left = evaluate(node.operands[0]!, ctx);
      for (let k = 0; k < node.ops.length; k++) {
        const right = evaluate(node.operands[k + 1]!, ctx);
        if (!compare(node.ops[k]!, left, right)) return false;
        left = right;
      }
      return true;
    }
  }
}

function truthy(v: unknown): boolean {
  if (v instanceof Typed) return !!v.value;
  if (Array.isArray(v)) return v.length > 0;
  if (v && typeof v === 'object') return Object.keys(v).length > 0;
  return !!v;
}

function compare(op: string, a: unknown, b: unknown): boolean {
  switch (op) {
    case '==':
      return equal(a, b);
    case '!=':
      return !equal(a, b);
    case 'is':
      return equal(a, b);
    case 'is not':
      return !equal(a, b);
    case 'in':
      return contains(b, a);
    case 'not in':
      return !contains(b, a);
    default:
      throw new Unmapped(`operator ${op}`);
  }
}

function contains(container: unknown, item: unknown): boolean {
  if (Array.isArray(container)) return container.some((x) => equal(x, item));
  if (typeof container === 'string' && typeof item === 'string') return container.includes(item);
  if (container instanceof Typed && typeof item === 'string') return (container.value ?? '').includes(item);
  if (container && typeof container === 'object' && typeof item === 'string') return item in container;
  throw new EvalFailure('TypeError');
}

function equal(a: unknown, b: unknown): boolean {
  if (a instanceof Typed) return typedEquals(a, b);
  if (b instanceof Typed) return typedEquals(b, a);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => equal(x, b[i]));
  if (typeof a === 'string' && typeof b === 'string') {
    if (a.trim() === b.trim()) return true;
    // Our URLs are normalised (lower-case host, percent-encoding): compare URLs as URLs.
    return /^https?:\/\//i.test(a) && /^https?:\/\//i.test(b) && normaliseUrl(a) === normaliseUrl(b);
  }
  return a === b;
}

function typedEquals(t: Typed, other: unknown): boolean {
  if (other === null) return t.value === null;
  if (typeof other !== 'string' || t.value === null) return false;
  switch (t.kind) {
    case 'charset':
      return (canonicalCharset(other) ?? other.toLowerCase()) === t.value;
    case 'text':
      return t.value === other.trim() || t.value === htmlToText(other, { singleLine: true });
    case 'html':
      return canonicalHtml(t.value) === canonicalHtml(other);
  }
}

/** Attributes our sanitizer adds by policy; feedparser's expected output never has them. */
const ADDED_BY_US = new Set(['target', 'rel', 'loading']);

/** HTML in a canonical form: entities decoded, whitespace collapsed, attributes sorted, our additions dropped. */
export function canonicalHtml(html: string): string {
  const out: string[] = [];
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        const attrs = Object.entries(attribs)
          .filter(([k]) => !ADDED_BY_US.has(k))
          .map(([k, v]): [string, string] => [k, k === 'href' || k === 'src' ? normaliseUrl(v) : v])
          .sort(([x], [y]) => (x < y ? -1 : 1));
        out.push(`<${name}${attrs.map(([k, v]) => ` ${k}="${v}"`).join('')}>`);
      },
      onclosetag(name) {
        if (!VOID_ELEMENTS.has(name)) out.push(`</${name}>`);
      },
      ontext(text) {
        out.push(text);
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  const canonical = out.join('').replace(/\s+/g, ' ').trim();
  // RFC 4287 §4.1.3: the xhtml:div around Atom XHTML content is a container, not content.
  const wrapped = /^<div>([\s\S]*)<\/div>$/.exec(canonical);
  return wrapped && !/<\/?div[ >]/.test(wrapped[1]!) ? wrapped[1]!.trim() : canonical;
}

/** "http://any.test/\u00c0" and "http://any.test/%C3%80" are the same URL. */
function normaliseUrl(v: string): string {
  try {
    return new URL(v).href;
  } catch {
    return v;
  }
}

function timeTuple(seconds: number | null): number[] | null {
  if (seconds === null) return null;
  const d = new Date(seconds * 1000);
  const yday =
    Math.floor(
      (Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - Date.UTC(d.getUTCFullYear(), 0, 1)) / 86400000,
    ) + 1;
  return [
    d.getUTCFullYear(),
    d.getUTCMonth() + 1,
    d.getUTCDate(),
    d.getUTCHours(),
    d.getUTCMinutes(),
    d.getUTCSeconds(),
    (d.getUTCDay() + 6) % 7,
    yday,
    0,
  ];
}

function feedView(feed: ParsedFeed): Record<string, unknown> {
  const title = new Typed('text', feed.title);
  // Our feed description is plain text; an HTML-only description (an image) is '' there.
  const description = new Typed('text', feed.description ?? '');
  return {
    title,
    title_detail: { value: title },
    link: feed.siteUrl ?? undefined,
    description,
    subtitle: description,
    tagline: description,
    subtitle_detail: { value: description },
    tagline_detail: { value: description },
    image: feed.iconUrl ? { href: feed.iconUrl } : undefined,
    icon: feed.iconUrl ?? undefined,
    ttl: feed.ttlMinutes === null ? undefined : String(feed.ttlMinutes),
  };
}

function entryView(e: ParsedFeed['entries'][number]): Record<string, unknown> {
  const title = new Typed('text', e.title);
  const summary = new Typed('html', e.summary ?? e.content);
  return {
    title,
    title_detail: { value: title },
    link: e.url ?? undefined,
    id: e.guid,
    guid: e.guid,
    author: e.author === null ? undefined : new Typed('text', e.author),
    published_parsed: timeTuple(e.publishedAt) ?? undefined,
    updated_parsed: timeTuple(e.updatedAt ?? e.publishedAt) ?? undefined,
    content: e.content === null ? undefined : [{ value: new Typed('html', e.content) }],
    summary,
    description: summary,
    summary_detail: { value: summary },
    enclosures: e.enclosures.map((x) => ({
      href: x.url,
      url: x.url,
      type: x.type ?? undefined,
      length: x.length === null ? undefined : String(x.length),
    })),
    tags: e.categories.map((term) => ({ term })),
    category: e.categories[0],
  };
}
