import { test } from 'node:test';
import assert from 'node:assert/strict';
import { capPersonFields, PERSON_MAX_CHARS } from './cap-person-fields.ts';
import { parseFeed } from './parse-feed.ts';

const rss = (channelExtra: string, itemAuthor: string) =>
  `<?xml version="1.0"?><rss version="2.0"><channel><title>T</title><link>https://e.org/</link>` +
  `<description>d</description>${channelExtra}<item><title>One</title><link>https://e.org/1</link>` +
  `<guid>1</guid><author>${itemAuthor}</author></item></channel></rss>`;

test('a feed with 400,000 unbalanced "(" in its person fields parses (feedsmith alone: quadratic, ~12 min)', () => {
  const hostile = '('.repeat(400_000);
  const feed = parseFeed(rss(`<managingEditor>${hostile}</managingEditor><webMaster>${hostile}</webMaster>`, hostile), {
    url: 'https://e.org/feed',
  });
  assert.equal(feed.title, 'T');
  assert.equal(feed.entries.length, 1);
  assert.ok((feed.entries[0]!.author ?? '').length <= 200);
});

test('person fields are cut only when long, never inside an entity, CDATA kept closed', () => {
  const normal = rss('<managingEditor>jane@example.com (Jane Doe)</managingEditor>', 'bob@example.com (Bob)');
  assert.equal(capPersonFields(normal), normal);
  const long = `${'a'.repeat(PERSON_MAX_CHARS - 2)}&amp;rest`;
  assert.equal(capPersonFields(`<author>${long}</author>`), `<author>${'a'.repeat(PERSON_MAX_CHARS - 2)}</author>`);
  assert.equal(
    capPersonFields(`<author attr="x"><![CDATA[${'('.repeat(5000)}]]></author><author>ok</author>`),
    `<author attr="x"><![CDATA[${'('.repeat(PERSON_MAX_CHARS)}]]></author><author>ok</author>`,
  );
  // Atom authors have child elements: left alone. An unclosed field is left alone too.
  const atom = `<author><name>${'x'.repeat(2000)}</name></author>`;
  assert.equal(capPersonFields(atom), atom);
  assert.equal(capPersonFields(`<author>${'('.repeat(2000)}`), `<author>${'('.repeat(2000)}`);
});
