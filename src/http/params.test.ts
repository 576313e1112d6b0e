import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FormBody, lenientDecode, paramsFromRequest, parsePairs } from './params.ts';

// The reading before forms were scanned in place (split on '&', then on the first '='), kept as the reference.
function splitPairs(text: string): [string, string][] {
  const out: [string, string][] = [];
  if (!text) return out;
  for (const part of text.split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    const k = eq < 0 ? part : part.slice(0, eq);
    const v = eq < 0 ? '' : part.slice(eq + 1);
    out.push([lenientDecode(k.replaceAll('+', ' ')), lenientDecode(v.replaceAll('+', ' '))]);
  }
  return out;
}

test('forms scanned in place read exactly as split forms did, whatever the separators', () => {
  const alphabet = ['a', 'i', '=', '&', '+', '%', '%2F', '%zz', 'é', '1', ''];
  const samples = ['', '&', '=', '&&', 'a', 'a=', '=a', 'a==b', 'a=1&&b=2&', '&a=1', 'i=1&i=2&i=3', 'x=a+b&t=50%'];
  for (let n = 0; n < 3000; n++) {
    let s = '';
    for (let k = Math.floor(Math.random() * 12); k > 0; k--) s += alphabet[Math.floor(Math.random() * alphabet.length)];
    samples.push(s);
  }
  for (const s of samples) {
    assert.deepEqual(parsePairs(s), splitPairs(s), JSON.stringify(s));
    const p = paramsFromRequest(`/x?${s}`, new FormBody(s));
    assert.deepEqual(
      [...p.asMap()].flatMap(([k, vs]) => vs.map((v) => [k, v])).length,
      splitPairs(s).length * 2,
      `query and body of ${JSON.stringify(s)}`,
    );
  }
  assert.deepEqual(parsePairs(new FormBody('i=2&i=3&x=a+b').text), [
    ['i', '2'],
    ['i', '3'],
    ['x', 'a b'],
  ]);
});
