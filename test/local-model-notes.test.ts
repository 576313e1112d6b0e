// The offline default says what it is: without a model, the Ask page's session says in one line
// that answers are quotes and which command gets written ones, and `tidings ask` prints that line
// on stderr (stdout and --json unchanged). With a model loaded, the line is gone, r1-1776 is
// offered, and `tidings ask` answers with the model.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness } from './reader-harness.ts';
import { setUp } from './web-api-client.ts';
import { runCli, tempDataDir } from './helpers.ts';
import { createApp } from '../src/server/create-app.ts';
import { loadConfig } from '../src/config/config.ts';
import { loadFixture } from '../src/answer/testing/articles.ts';
import { nativeRuntimeSkip, tinyModelFile } from '../src/answer/testing/local-model.ts';
import { startLocalModel } from '../src/answer/local/index.ts';

const skip = await nativeRuntimeSkip();
const NOTE =
  /^These answers are quotes from your articles, not written by a language model\. For written answers, run: npx tidings model pull \S+$/m;

test('the Ask page: one line saying answers are quotes, with the pull command; gone once a model answers', {
  skip,
}, async () => {
  const plain = await startHarness();
  try {
    const s = (await (await setUp(plain)).call('GET', '/session')).json;
    assert.match(s.answerNote.text, /quotes from your articles/);
    assert.match(s.answerNote.command, /^npx tidings model pull \S+$/);
    assert.ok(!s.models.includes('r1-1776'), 'r1-1776 needs a model');
  } finally {
    await plain.close();
  }
  const withModel = await startHarness({ llmModel: tinyModelFile(), llmThreads: 1, llmContextTokens: 2048 });
  try {
    await startLocalModel(withModel.app);
    const s = (await (await setUp(withModel)).call('GET', '/session')).json;
    assert.equal(s.answerNote, null);
    assert.ok(s.models.includes('r1-1776'));
  } finally {
    await withModel.close();
  }
});

test('tidings ask: the quotes line on stderr without a model, none with one (and the model writes)', {
  skip,
}, async () => {
  const dir = tempDataDir('tidings-ask-note-');
  const app = await createApp(loadConfig({ env: {}, overrides: { dataDir: dir, logLevel: 'silent' } }));
  await loadFixture(app);
  await app.close();
  const env = { TIDINGS_LLM_BASE_URL: '', TIDINGS_LLM_MODEL: '', TIDINGS_LOG_LEVEL: 'silent' };
  const question = 'What did NASA announce about Artemis this week?';
  const quotes = await runCli(['--data', dir, 'ask', question], env);
  assert.equal(quotes.code, 0, quotes.stderr);
  assert.match(quotes.stderr, NOTE);
  assert.equal(quotes.stderr.match(/quotes from your articles/g)?.length, 1, 'one line');
  assert.doesNotMatch(quotes.stdout, /language model/, 'stdout is the answer alone');
  const json = await runCli(['--data', dir, 'ask', '--json', question], env);
  assert.doesNotMatch(json.stderr, /quotes from your articles/);
  assert.doesNotMatch(json.stdout, /language model/, 'the completion object is unchanged');

  const written = await runCli(['--data', dir, 'ask', '--max-tokens', '12', question], {
    ...env,
    TIDINGS_LLM_MODEL: tinyModelFile(),
    TIDINGS_LLM_THREADS: '1',
    TIDINGS_LLM_CONTEXT_TOKENS: '2048',
  });
  assert.equal(written.code, 0, written.stderr);
  assert.doesNotMatch(written.stderr, /quotes from your articles/);
  assert.match(written.stdout, /\nSources:\n\[1\] /, 'the sources follow the written answer');
  assert.doesNotMatch(written.stdout, /Artemis II mission will launch no earlier than April 2026/, 'not a quote');
});
