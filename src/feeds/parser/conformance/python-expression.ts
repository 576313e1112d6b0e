// A parser for the small Python expression language of the conformance suite's "Expect:" lines
// (feedparser's test vocabulary): `not bozo and entries[0]['title'] == u'caf\xe9'`.
// It builds an AST that our evaluator maps onto ParsedFeed; nothing is ever eval'd.
// Supported: or/and/not, parentheses, comparison chains (== != is, is not, in, not in), string
// literals (u/r/b prefixes, escapes, implicit and + concatenation), ints/floats (with unary minus),
// tuples, None/True/False, dict literals, names, subscripts, attribute access (x.tags is x['tags']),
// and calls (len(...) is evaluated; other calls are reported as unmapped).

export type Node =
  | { t: 'str'; v: string }
  | { t: 'num'; v: number }
  | { t: 'const'; v: null | boolean }
  | { t: 'tuple'; items: Node[] }
  | { t: 'dict'; entries: Array<[Node, Node]> }
  | { t: 'name'; name: string }
  | { t: 'sub'; target: Node; index: Node }
  | { t: 'call'; fn: Node; args: Node[] }
  | { t: 'not'; operand: Node }
  | { t: 'bool'; op: 'and' | 'or'; left: Node; right: Node }
  | { t: 'cmp'; ops: string[]; operands: Node[] }
  | { t: 'add'; left: Node; right: Node };

type Tok = { k: 'str'; v: string } | { k: 'num'; v: number } | { k: 'id'; v: string } | { k: 'op'; v: string };

const TOKEN =
  /\s*(?:([urbURB]{0,2})('''[\s\S]*?'''|"""[\s\S]*?"""|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")|(\d+\.\d*|\.\d+|\d+)|([A-Za-z_]\w*)|(==|!=|<=|>=|[()[\]{},:.+\-<>]))/y;

export class ExpressionSyntaxError extends Error {}

function tokenize(src: string): Tok[] {
  const out: Tok[] = [];
  TOKEN.lastIndex = 0;
  let pos = 0;
  while (pos < src.length) {
    if (/^\s*$/.test(src.slice(pos))) break;
    TOKEN.lastIndex = pos;
    const m = TOKEN.exec(src);
    if (!m) throw new ExpressionSyntaxError(`cannot read "${src.slice(pos, pos + 20)}"`);
    pos = TOKEN.lastIndex;
    if (m[2] !== undefined) out.push({ k: 'str', v: unquote(m[2], (m[1] ?? '').toLowerCase().includes('r')) });
    else if (m[3] !== undefined) out.push({ k: 'num', v: Number(m[3]) });
    else if (m[4] !== undefined) out.push({ k: 'id', v: m[4] });
    else out.push({ k: 'op', v: m[5]! });
  }
  return out;
}

function unquote(lit: string, raw: boolean): string {
  const q = lit.startsWith("'''") || lit.startsWith('"""') ? 3 : 1;
  const body = lit.slice(q, lit.length - q);
  if (raw) return body;
  return body.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{1,3}|\n|.)/g, (_, e: string) => {
    if (e[0] === 'x' || e[0] === 'u' || e[0] === 'U') return String.fromCodePoint(parseInt(e.slice(1), 16));
    if (/^[0-7]/.test(e)) return String.fromCharCode(parseInt(e, 8));
    return (
      (
        {
          n: '\n',
          t: '\t',
          r: '\r',
          '\n': '',
          '\\': '\\',
          "'": "'",
          '"': '"',
          a: '\x07',
          b: '\b',
          f: '\f',
          v: '\v',
        } as Record<string, string>
      )[e] ?? '\\' + e
    );
  });
}

export function parseExpression(src: string): Node {
  const toks = tokenize(src);
  let i = 0;
  const peek = () => toks[i];
  const isOp = (v: string) => toks[i]?.k === 'op' && toks[i]!.v === v;
  const isId = (v: string) => toks[i]?.k === 'id' && toks[i]!.v === v;
  const expect = (v: string) => {
    if (!isOp(v)) throw new ExpressionSyntaxError(`expected "${v}"`);
    i++;
  };

  const orExpr = (): Node => {
    let left = andExpr();
    while (isId('or')) {
      i++;
      left = { t: 'bool', op: 'or', left, right: andExpr() };
    }
    return left;
  };
  const andExpr = (): Node => {
    let left = notExpr();
    while (isId('and')) {
      i++;
      left = { t: 'bool', op: 'and', left, right: notExpr() };
    }
    return left;
  };
  const notExpr = (): Node => {
    if (isId('not')) {
      i++;
      return { t: 'not', operand: notExpr() };
    }
    return comparison();
  };
  const comparison = (): Node => {
    const operands = [sum()];
    const ops: string[] = [];
    for (;;) {
      let op: string | null = null;
      if (isOp('==') || isOp('!=') || isOp('<') || isOp('>') || isOp('<=') || isOp('>=')) op = String(toks[i++]!.v);
      else if (isId('in')) {
        i++;
        op = 'in';
      } else if (isId('is')) {
        i++;
        op = 'is';
        if (isId('not')) {
          i++;
          op = 'is not';
        }
      } else if (isId('not') && toks[i + 1]?.k === 'id' && toks[i + 1]!.v === 'in') {
        i += 2;
        op = 'not in';
      }
      if (!op) break;
      ops.push(op);
      operands.push(sum());
    }
    return ops.length ? { t: 'cmp', ops, operands } : operands[0]!;
  };
  const sum = (): Node => {
    let left = unary();
    while (isOp('+')) {
      i++;
      left = { t: 'add', left, right: unary() };
    }
    return left;
  };
  const unary = (): Node => {
    if (isOp('-')) {
      i++;
      const operand = unary();
      if (operand.t !== 'num') throw new ExpressionSyntaxError('unary minus on a non-number');
      return { t: 'num', v: -operand.v };
    }
    return postfix();
  };
  const postfix = (): Node => {
    let node = atom();
    for (;;) {
      if (isOp('[')) {
        i++;
        const index = orExpr();
        expect(']');
        node = { t: 'sub', target: node, index };
      } else if (isOp('.')) {
        i++;
        const name = peek();
        if (name?.k !== 'id') throw new ExpressionSyntaxError('expected an attribute name');
        i++;
        node = { t: 'sub', target: node, index: { t: 'str', v: name.v } };
      } else if (isOp('(')) {
        i++;
        const args: Node[] = [];
        while (!isOp(')')) {
          args.push(orExpr());
          if (isOp(',')) i++;
          else break;
        }
        expect(')');
        node = { t: 'call', fn: node, args };
      } else return node;
    }
  };
  const atom = (): Node => {
    const tok = peek();
    if (!tok) throw new ExpressionSyntaxError('unexpected end');
    if (tok.k === 'str') {
      let v = '';
      while (peek()?.k === 'str') v += (toks[i++] as { v: string }).v; // implicit concatenation
      return { t: 'str', v };
    }
    if (tok.k === 'num') {
      i++;
      return { t: 'num', v: tok.v };
    }
    if (tok.k === 'id') {
      i++;
      if (tok.v === 'None') return { t: 'const', v: null };
      if (tok.v === 'True') return { t: 'const', v: true };
      if (tok.v === 'False') return { t: 'const', v: false };
      return { t: 'name', name: tok.v };
    }
    if (tok.v === '(') {
      i++;
      if (isOp(')')) {
        i++;
        return { t: 'tuple', items: [] };
      }
      const first = orExpr();
      if (isOp(')')) {
        i++;
        return first;
      }
      const items = [first];
      while (isOp(',')) {
        i++;
        if (isOp(')')) break;
        items.push(orExpr());
      }
      expect(')');
      return { t: 'tuple', items };
    }
    if (tok.v === '{') {
      i++;
      const entries: Array<[Node, Node]> = [];
      while (!isOp('}')) {
        const k = orExpr();
        expect(':');
        entries.push([k, orExpr()]);
        if (isOp(',')) i++;
        else break;
      }
      expect('}');
      return { t: 'dict', entries };
    }
    throw new ExpressionSyntaxError(`unexpected "${tok.v}"`);
  };

  const node = orExpr();
  if (i < toks.length)
    throw new ExpressionSyntaxError(`unexpected "${(toks[i] as { v: unknown }).v}" after the expression`);
  return node;
}
