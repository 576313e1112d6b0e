// Which search hits become an answer's sources: one story syndicated on two sites, or stored under
// two URLs, is listed once (at its better rank), over a real App and its index.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { App } from '../../runtime/app.ts';
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

// sonar-pro searches the question, its keywords and its names. Fused by rank alone, articles that
// merely name the town the question names outranked the one article that answers it (found first
// by the question as asked): the question's own best hits keep their places.
test('sonar-pro lists the question’s own best hit first, ahead of hits of its names-only search', async () => {
  const lib = await testApp();
  try {
    const town = await addFeed(lib, 'https://marlow.example/feed.xml', 'Marlow Herald');
    const elsewhere = await addFeed(lib, 'https://elsewhere.example/feed.xml', 'Elsewhere');
    await ingest(lib, town, [
      {
        url: 'https://marlow.example/ferry-fares-frozen',
        title: 'Council freezes ferry fares',
        publishedAt: day('2025-05-02'),
        content: p(
          'The town council decided on Monday to freeze ferry fares for another year, after a long debate.',
          'Commuters in Marlow had asked the council to hold the fares while the ferry timetable is rebuilt.',
        ),
      },
      {
        url: 'https://marlow.example/regatta',
        title: 'Marlow regatta draws record crowds',
        publishedAt: day('2025-04-01'),
        content: p(
          'Rowers from across the county raced at the Marlow regatta, watched by record crowds along the Marlow bank.',
          'Marlow shops stayed open late, and the organisers said Marlow would host the regatta again next summer.',
        ),
      },
      {
        url: 'https://marlow.example/market',
        title: 'Marlow market moves to the square',
        publishedAt: day('2025-04-02'),
        content: p(
          'Stallholders of the Marlow market set up in the square for the first time, selling cheese, bread and flowers.',
          'Marlow traders hope the new spot brings more shoppers from the villages around Marlow.',
        ),
      },
      {
        url: 'https://marlow.example/museum',
        title: 'Marlow museum reopens',
        publishedAt: day('2025-04-03'),
        content: p(
          'The Marlow museum reopened after a year of repairs to its roof, with a new room on Marlow boatbuilders.',
          'Entry stays free for Marlow residents, the trustees said.',
        ),
      },
    ]);
    await ingest(
      lib,
      elsewhere,
      ['orchard', 'library', 'stadium', 'harbour', 'railway', 'bakery'].map((what) => ({
        url: `https://elsewhere.example/${what}`,
        title: `A new ${what} opens`,
        publishedAt: day('2025-03-01'),
        content: p(`The new ${what} opened its doors on Friday to a small crowd of neighbours.`),
      })),
    );
    const ask = (model: 'sonar' | 'sonar-pro') =>
      answerService(lib).complete({
        model,
        messages: [{ role: 'user', content: 'What did the Marlow council decide about the ferry fares?' }],
        scope: { kind: 'instance' },
        filters: {},
        searchContextSize: 'low',
      });
    const [sonar, pro] = [await ask('sonar'), await ask('sonar-pro')];
    assert.equal(
      sonar.citations[0],
      'https://marlow.example/ferry-fares-frozen',
      'the question as asked finds it first',
    );
    assert.equal(
      pro.citations[0],
      'https://marlow.example/ferry-fares-frozen',
      `sonar-pro lists ${pro.citations.join(', ')}`,
    );
    assert.ok(pro.citations.includes('https://marlow.example/regatta'), 'the other searches still add sources');
  } finally {
    await lib.close();
  }
});
