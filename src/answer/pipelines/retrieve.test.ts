// Which search hits become an answer's sources: one story syndicated on two sites, or stored under
// two URLs, is listed once (at its better rank), over a real App and its index.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { App } from '../../app.ts';
import { addFeed, ingest, testApp } from '../../search/testing/fixtures.ts';
import { answerService } from '../service.ts';

let app: App;
const day = (iso: string) => Date.parse(`${iso}T12:00:00Z`) / 1000;
const p = (...xs: string[]) => xs.map((x) => `<p>${x}</p>`).join('');

const wireStory = p(
  'Engineers closed the Tarn river bridge on Tuesday after inspectors found cracks in two of its concrete supports.',
  'Repairs to the supports of the Tarn river bridge will take most of the summer, the county roads department said.',
  'Traffic is being sent over the old ferry road, which adds about twenty minutes to a crossing at rush hour.',
);

before(async () => {
  app = await testApp();
  const wire = await addFeed(app, 'https://wire.example/feed.xml', 'Wire');
  const local = await addFeed(app, 'https://valley.example/feed.xml', 'Valley Post');
  await ingest(app, wire, [
    {
      url: 'https://wire.example/tarn-bridge',
      title: 'Tarn river bridge closed',
      publishedAt: day('2025-03-04'),
      content: wireStory,
    },
    {
      url: 'https://wire.example/tarn-budget',
      title: 'County budget for the Tarn river bridge',
      publishedAt: day('2025-02-20'),
      content: p(
        'The county set aside money for the Tarn river bridge in its February budget, before any cracks were known.',
        'Councillors argued about the cost of a new river crossing for most of the evening.',
      ),
    },
  ]);
  // The local paper runs the wire story under its own headline, with a line of its own at the end.
  await ingest(app, local, [
    {
      url: 'https://valley.example/news/bridge-closed',
      title: 'Cracks shut Tarn river bridge',
      publishedAt: day('2025-03-04'),
      content: wireStory + p('The Valley Post will follow the repairs.'),
    },
    {
      url: 'https://valley.example/news/ferry',
      title: 'Ferry road busy as Tarn river bridge shuts',
      publishedAt: day('2025-03-05'),
      content: p(
        'Drivers queued on the ferry road on Wednesday, a day after the Tarn river bridge was closed for repairs.',
        'Shops near the ferry landing said they had their busiest morning in years.',
      ),
    },
  ]);
});

after(() => app.close());

test('a story carried by two feeds is one source; the other stories about the bridge are still listed', async () => {
  const r = await answerService(app).complete({
    model: 'sonar',
    messages: [{ role: 'user', content: 'Why was the Tarn river bridge closed?' }],
    scope: { kind: 'instance' },
    filters: {},
    searchContextSize: 'low',
  });
  const copies = r.citations.filter(
    (u) => u === 'https://wire.example/tarn-bridge' || u === 'https://valley.example/news/bridge-closed',
  );
  assert.equal(copies.length, 1, `one copy of the wire story among ${r.citations.join(', ')}`);
  for (const other of ['https://wire.example/tarn-budget', 'https://valley.example/news/ferry'])
    assert.ok(r.citations.includes(other), `${other} is listed`);
  assert.equal(r.citations.length, 3);
});
