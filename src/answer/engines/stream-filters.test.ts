// The streaming text filters on every possible chunk split: a marker or tag cut anywhere must come
// out the same as when it arrives whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CitationMarkerFilter } from './citation-markers.ts';
import { ThinkSplitter } from './think-splitter.ts';

function allSplits(text: string): string[][] {
  const out: string[][] = [[text]];
  for (let i = 1; i < text.length; i++) out.push([text.slice(0, i), text.slice(i)]);
  for (let i = 1; i < text.length; i += 3)
    out.push(
      [...text].reduce<string[]>((acc, ch, j) => {
        if (j % i === 0) acc.push(ch);
        else acc[acc.length - 1] += ch;
        return acc;
      }, []),
    );
  return out;
}

test('citation markers: valid kept, out of range dropped, lists normalized, at any chunk split', () => {
  const input = 'Launch slips [1][9]. Lander [2, 3, 12] needs fuel [12]. See [a] and [0] [3';
  const expected = 'Launch slips [1]. Lander [2][3] needs fuel . See [a] and  [3';
  for (const parts of allSplits(input)) {
    const f = new CitationMarkerFilter(3);
    const got = parts.map((p) => f.push(p)).join('') + f.flush();
    assert.equal(got, expected, JSON.stringify(parts));
  }
});

test('think splitter: reasoning and answer separated with tags cut anywhere', () => {
  const input = '  <think>\nweighing sources</think>\n\nThe answer [1].';
  for (const parts of allSplits(input)) {
    const s = new ThinkSplitter();
    const out = [...parts.flatMap((p) => s.push(p)), ...s.flush()];
    const reasoning = out
      .filter((p) => p.kind === 'reasoning')
      .map((p) => p.text)
      .join('');
    const text = out
      .filter((p) => p.kind === 'text')
      .map((p) => p.text)
      .join('');
    assert.equal(reasoning, '\nweighing sources', JSON.stringify(parts));
    assert.equal(text, '\n\nThe answer [1].', JSON.stringify(parts));
  }
  const plain = new ThinkSplitter();
  assert.deepEqual([...plain.push('No <think> here'), ...plain.flush()], [{ kind: 'text', text: 'No <think> here' }]);
});
