// `tidings ask` as a real child process over a real data folder.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { createApp } from '../src/server/create-app.ts';
import { loadConfig } from '../src/config/config.ts';
import { loadFixture } from '../src/answer/testing/articles.ts';
import { runCli, tempDataDir } from './helpers.ts';

let dir: string;
const env = { TIDINGS_LLM_BASE_URL: '', TIDINGS_LLM_MODEL: '' };
before(async () => {
  dir = tempDataDir('tidings-ask-');
  const app = await createApp(loadConfig({ env: {}, overrides: { dataDir: dir, logLevel: 'silent' } }));
  await loadFixture(app);
  await app.close();
});

test('tidings ask prints the answer with markers, then the numbered sources', async () => {
  const r = await runCli(['--data', dir, 'ask', 'What did NASA announce about Artemis this week?'], env);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /April 2026, giving engineers more time to study the Orion heat shield\.\[1\]/);
  assert.match(
    r.stdout,
    /\nSources:\n\[1\] NASA announces new launch date for Artemis II crewed Moon mission \(\d{4}-\d\d-\d\d\)\n {4}https:\/\/www\.nasa\.gov\/news\/artemis-ii-crew-launch-date/,
  );
});

test('tidings ask --json prints the completion object of the API', async () => {
  const r = await runCli(
    [
      '--data',
      dir,
      'ask',
      '--json',
      '--model',
      'sonar-pro',
      '--recency',
      'week',
      '--domain',
      'nasa.gov',
      'When does Artemis II launch?',
    ],
    env,
  );
  assert.equal(r.code, 0, r.stderr);
  const o = JSON.parse(r.stdout);
  assert.equal(o.object, 'chat.completion');
  assert.equal(o.model, 'sonar-pro');
  assert.match(o.id, /^[0-9a-f-]{36}$/);
  assert.ok(o.citations.length >= 1 && o.citations.every((u: string) => u.startsWith('https://www.nasa.gov/')));
  assert.equal(o.choices[0].finish_reason, 'stop');
  assert.match(o.choices[0].message.content, /\[1\]/);
  assert.equal(o.usage.total_tokens, o.usage.prompt_tokens + o.usage.completion_tokens);
  assert.equal(o.usage.search_context_size, 'low');
});

test('tidings ask deep research shows progress on stderr and writes a report', async () => {
  const r = await runCli(
    ['--data', dir, 'ask', '--model', 'sonar-deep-research', '--effort', 'low', 'What are the Artemis Moon plans?'],
    env,
  );
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /… Searching "/);
  assert.match(r.stderr, /… Writing the report/);
  assert.match(r.stdout, /^<think>\n[\s\S]*<\/think>\n\n# What are the Artemis Moon plans\?\n\n## Overview/);
});

// (Every validation rule is covered in src/answer/service.test.ts; here only the CLI's mapping.)
test('tidings ask: bad input is one clear line and exit code 2', async () => {
  const cases: [string[], RegExp][] = [
    [
      ['--domain', 'a.com', '--domain', 'b.com,c.com', '--domain', 'd.com', 'q'],
      /search_domain_filter accepts at most 3 entries/,
    ],
    [
      ['--model', 'r1-1776', 'q'],
      /r1-1776 needs a generative engine: run `npx tidings model pull <name>`.* or set TIDINGS_LLM_BASE_URL/,
    ],
  ];
  for (const [args, msg] of cases) {
    const r = await runCli(['--data', dir, 'ask', ...args], env);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, msg);
  }
});

test('tidings ask --as-of answers as if today were that day, and refuses a day that does not exist', async () => {
  const r = await runCli(
    ['--data', dir, 'ask', '--model', 'sonar-reasoning', '--as-of', '2031-05-20', 'What did NASA announce this week?'],
    env,
  );
  assert.equal(r.code, 0, r.stderr);
  // The fixture's articles are from the last days before now: none is from the week before 2031-05-20.
  assert.match(
    r.stdout,
    /Today is 2031-05-20\. The question asks about "this week" \(2031-05-14 to 2031-05-20\), but no article found is from then/,
  );
  const bad = await runCli(['--data', dir, 'ask', '--as-of', '2025-02-30', 'What happened?'], env);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--as-of must be a day as YYYY-MM-DD \(e\.g\. 2025-03-14\), got "2025-02-30"/);
});
