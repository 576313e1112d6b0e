// Conversations: follow-ups with pronouns or ellipsis are resolved from the earlier turns, and
// length/format instructions in system or user messages are honoured as far as quoting allows.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { App } from '../runtime/app.ts';
import { addFeed, ingest, testApp } from '../search/testing/fixtures.ts';
import { answerService } from './service.ts';
import { isFollowUp, readConversation, searchQueryFor } from './conversation.ts';
import { formatOf } from './text/format.ts';
import type { ChatMessage } from './types.ts';

test('a follow-up with a pronoun or an ellipsis carries the earlier topic into the search', () => {
  const conv = (...contents: string[]) =>
    readConversation(
      contents.map((content, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content }) as ChatMessage),
    );
  const where = searchQueryFor(
    conv('What happened to the Sumatran rhino?', 'It died.', 'Where exactly did it happen?'),
  );
  assert.match(where, /^Where exactly did it happen\? .*sumatran.*rhino/i);
  const ellipsis = searchQueryFor(conv('What is the inflation rate in France?', '2 percent.', 'And in Germany?'));
  assert.match(ellipsis, /Germany/);
  assert.match(ellipsis, /inflation/);
  assert.doesNotMatch(ellipsis, /france/i, 'Germany takes the place of France');
  // With a pronoun, the earlier names are what it points to.
  const pronoun = searchQueryFor(conv('What happened in Bucha?', 'Graves were found.', 'Did Zelensky comment on it?'));
  assert.match(pronoun, /bucha/i);
  // A new, complete question is searched as it is.
  const fresh = 'Who won the Tour de France cycling race in 2024?';
  assert.equal(searchQueryFor(conv('What happened to the Sumatran rhino?', 'It died.', fresh)), fresh);
  assert.equal(isFollowUp(fresh), false);
  assert.equal(isFollowUp('Where exactly did it happen?'), true);
});

test('format instructions: counts, shortness and bullets, from the system or the user message', () => {
  assert.deepEqual(formatOf('What happened?', ['Answer in two sentences.']), { bullets: false, maxSentences: 2 });
  assert.deepEqual(formatOf('What happened? Keep it short.', []), { bullets: false, maxSentences: 1 });
  assert.deepEqual(formatOf('Give me 3 bullet points on the storm', []), { bullets: true, maxSentences: 3 });
  assert.deepEqual(formatOf('What happened to the harbour wall?', []), { bullets: false });
});

let app: App;
const day = (iso: string) => Date.parse(`${iso}T12:00:00Z`) / 1000;
const p = (...xs: string[]) => xs.map((x) => `<p>${x}</p>`).join('');

before(async () => {
  app = await testApp();
  const feed = await addFeed(app, 'https://wild.example/feed.xml', 'Wild News');
  await ingest(app, feed, [
    {
      url: 'https://wild.example/rhino',
      title: 'Last Sumatran rhino of the Kerinci herd dies',
      publishedAt: day('2025-04-02'),
      content: p(
        'The last Sumatran rhino of the Kerinci herd died of old age on Tuesday.',
        'It died at the Way Kambas sanctuary in Lampung province, on the island of Sumatra, where keepers had cared for it since 2019.',
        'Only about 40 Sumatran rhinos are thought to survive in the wild.',
      ),
    },
    {
      url: 'https://wild.example/elephant',
      title: 'Where exactly elephants go in the dry season',
      publishedAt: day('2025-04-01'),
      content: p(
        'Researchers tracked where exactly elephants travel in the dry season, and it happened to surprise them.',
        'The herds walked more than 200 kilometres to reach the river.',
      ),
    },
    {
      url: 'https://wild.example/storm',
      title: 'Storm closes national park',
      publishedAt: day('2025-03-30'),
      content: p(
        'A storm closed the national park for three days.',
        'Rangers cleared fallen trees from the main road.',
        'Visitors were told to stay away until Friday.',
      ),
    },
  ]);
});
after(async () => {
  await app.close();
});

const ask = (messages: ChatMessage[]) =>
  answerService(app).complete({
    model: 'sonar',
    messages,
    scope: { kind: 'instance' },
    filters: {},
    searchContextSize: 'low',
  });

test('"Where exactly did it happen?" after a question on the rhino cites the rhino article', async () => {
  const first = await ask([{ role: 'user', content: 'What happened to the Sumatran rhino?' }]);
  assert.match(first.content, /Sumatran rhino/);
  const follow = await ask([
    { role: 'user', content: 'What happened to the Sumatran rhino?' },
    { role: 'assistant', content: first.content },
    { role: 'user', content: 'Where exactly did it happen?' },
  ]);
  assert.equal(follow.citations[0], 'https://wild.example/rhino', follow.citations.join('\n'));
  assert.match(follow.content, /Way Kambas sanctuary in Lampung province/);
  assert.doesNotMatch(follow.content, /elephants/);
});

test('"in two sentences" (system) and "keep it short" (user) limit the quoted sentences', async () => {
  const two = await ask([
    { role: 'system', content: 'Answer in two sentences.' },
    { role: 'user', content: 'What did the storm do to the national park?' },
  ]);
  assert.equal(two.content.match(/\[\d+\]/g)?.length, 2, two.content);
  const short = await ask([{ role: 'user', content: 'What did the storm do to the national park? Keep it short.' }]);
  assert.equal(short.content.match(/\[\d+\]/g)?.length, 1, short.content);
  const bullets = await ask([
    { role: 'system', content: 'Reply as a bullet list.' },
    { role: 'user', content: 'What did the storm do to the national park?' },
  ]);
  assert.ok((bullets.content.match(/^- .+\[\d+\]$/gm) ?? []).length >= 2, bullets.content);
});
