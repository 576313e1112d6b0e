// Error codes Tidings chooses are snake_case in every domain (src/http/README.md lists them): read
// from the sources, so a new code in another spelling fails here instead of reaching a client.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './helpers.ts';

const SNAKE = /^[a-z]+(_[a-z]+)*$/;
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** The string literals of a union type `name` declared in `file`. */
function unionLiterals(file: string, declaration: RegExp): string[] {
  const m = declaration.exec(read(file));
  assert.ok(m, `${declaration} in ${file}`);
  return [...m[1]!.matchAll(/'([^']*)'/g)].map((x) => x[1]!);
}

test('error codes are snake_case in every domain', () => {
  const codes: [string, string][] = [];
  const add = (where: string, list: string[]) => {
    assert.ok(list.length > 0, `no codes found in ${where}`);
    for (const c of list) codes.push([where, c]);
  };
  add('FeedErrorCode', unionLiterals('src/feeds/errors.ts', /export type FeedErrorCode =([^;]*);/));
  add('NetErrorCode', unionLiterals('src/net/errors.ts', /export type NetErrorCode =([^;]*);/));
  add('AccountError', unionLiterals('src/auth/accounts.ts', /readonly code: ([^;]*);/));
  add('AnswerErrorCode', unionLiterals('src/answer/types.ts', /export type AnswerErrorCode =([^;]*);/));
  add('ApiErrorType', unionLiterals('src/chat-api/errors.ts', /export type ApiErrorType =([^;]*);/));
  const web = ['src/web/http.ts', 'src/web/routes.ts', 'src/web/setup.ts', 'src/web/manage.ts', 'src/web/plugin.ts']
    .map(read)
    .join('\n');
  add(
    'web API',
    [...web.matchAll(/new WebError\(\s*\d+,\s*'([^']*)'/g)].map((m) => m[1]!),
  );
  const wrong = codes.filter(([, c]) => !SNAKE.test(c));
  assert.deepEqual(wrong, [], 'codes that are not snake_case');
});
