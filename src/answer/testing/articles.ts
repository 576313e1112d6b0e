// A small, fixed set of news articles for the answer tests: stored through the same tables and
// index as ingested feeds (C1's fixtures), so tests exercise the real search and SQLite.
import type { App } from '../../runtime/app.ts';
import { testSql } from '../../store/testing.ts';
import { addFeed, ingest } from '../../search/testing/fixtures.ts';

export interface FixtureArticle {
  feed: string;
  url: string;
  title: string;
  paragraphs: string[];
  publishedAt: number;
  image?: string;
}

export const NOW = Math.floor(Date.now() / 1000);
const DAY = 86_400;

export const ARTICLES: FixtureArticle[] = [
  {
    feed: 'https://www.nasa.gov/feed/',
    url: 'https://www.nasa.gov/news/artemis-ii-crew-launch-date',
    publishedAt: NOW - 2 * DAY,
    title: 'NASA announces new launch date for Artemis II crewed Moon mission',
    image: 'https://www.nasa.gov/images/artemis-ii-crew.jpg',
    paragraphs: [
      'NASA announced on Tuesday that the Artemis II mission will launch no earlier than April 2026, giving engineers more time to study the Orion heat shield.',
      'The Artemis II crew of four astronauts will fly around the Moon and return to Earth on a ten-day mission.',
      'Agency officials said the heat shield lost more material than expected during the uncrewed Artemis I flight in 2022.',
      'The Space Launch System rocket is being stacked at the Kennedy Space Center in Florida.',
    ],
  },
  {
    feed: 'https://www.nasa.gov/feed/',
    url: 'https://www.nasa.gov/news/artemis-iii-landing-plans',
    publishedAt: NOW - 3 * DAY,
    title: 'Artemis III lunar landing moves to 2027 as NASA reviews lander progress',
    paragraphs: [
      'NASA said the Artemis III lunar landing is now planned for mid-2027, after the Artemis II flight.',
      'The landing depends on the SpaceX Starship human landing system, which still has to demonstrate refueling in orbit.',
      'NASA administrator Bill Nelson said safety remains the top priority for the Artemis campaign.',
    ],
  },
  {
    feed: 'https://space.example.com/rss',
    url: 'https://space.example.com/2025/starship-refueling-test',
    publishedAt: NOW - 5 * DAY,
    title: 'SpaceX prepares Starship refueling test needed for Artemis Moon landing',
    image: 'https://cdn.space.example.com/img/starship-1200x675.jpg',
    paragraphs: [
      'SpaceX is preparing a ship-to-ship propellant transfer test that NASA requires before Starship can land astronauts on the Moon.',
      'The company said the test could happen next year if the next Starship flights go well.',
      '<img src="https://cdn.space.example.com/img/starship-1200x675.jpg" width="1200" height="675">',
    ],
  },
  {
    feed: 'https://econ.example.org/feed',
    url: 'https://econ.example.org/ecb-cuts-rates',
    publishedAt: NOW - 1 * DAY,
    title: 'European Central Bank cuts interest rates for the third time this year',
    paragraphs: [
      'The European Central Bank cut its deposit rate by a quarter point to 3.25 percent on Thursday, citing slowing inflation in the euro zone.',
      'ECB president Christine Lagarde said further cuts would depend on incoming data.',
      'Economists expect another reduction in December if inflation keeps falling toward the two percent target.',
    ],
  },
  {
    feed: 'https://econ.example.org/feed',
    url: 'https://econ.example.org/euro-zone-inflation',
    publishedAt: NOW - 40 * DAY,
    title: 'Euro zone inflation falls below target for the first time since 2021',
    paragraphs: [
      'Inflation in the euro zone fell to 1.8 percent in September, below the European Central Bank target for the first time since 2021.',
      'Lower energy prices drove most of the decline, according to Eurostat.',
    ],
  },
  {
    feed: 'https://garden.example.net/feed',
    url: 'https://garden.example.net/tomato-blight',
    publishedAt: NOW - 4 * DAY,
    title: 'How to protect tomato plants from late blight',
    paragraphs: [
      'Late blight spreads quickly in cool, wet weather and can destroy tomato plants within days.',
      'Gardeners should water at the base of plants and remove infected leaves as soon as spots appear.',
    ],
  },
];

export interface LoadedFixture {
  ids: number[];
  userId: number;
}

/** Stores the fixture articles (one feed per site; user "alice" subscribes to the NASA feed only). */
export async function loadFixture(app: App): Promise<LoadedFixture> {
  const feeds = new Map<string, number>();
  const ids: number[] = [];
  const userId = (await app.users.create('alice', 'x')).id;
  for (const a of ARTICLES) {
    let feedId = feeds.get(a.feed);
    if (feedId === undefined) {
      feedId = await addFeed(app, a.feed, new URL(a.feed).hostname);
      feeds.set(a.feed, feedId);
      if (a.feed.includes('nasa.gov'))
        await testSql(app)
          .prepare('INSERT INTO subscriptions (user_id, feed_id, created_at) VALUES (?, ?, 0)')
          .run(userId, feedId);
    }
    const content = a.paragraphs.map((p) => (p.startsWith('<') ? p : `<p>${p}</p>`)).join('\n');
    const [id] = await ingest(app, feedId, [{ url: a.url, title: a.title, content, publishedAt: a.publishedAt }]);
    if (a.image) await testSql(app).prepare('UPDATE items SET image_url = ? WHERE id = ?').run(a.image, id);
    ids.push(id!);
  }
  return { ids, userId };
}
