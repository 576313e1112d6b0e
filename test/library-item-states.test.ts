// The library raises each real change of item states once, whichever client made it: a flag set
// on an item that already had it, a tag the item already carried or an untag of one it lacked
// raise nothing; mark-all-as-read raises how many it marked.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, addUser, clientLogin, ReaderClient, S, type Harness } from './reader-harness.ts';
import { onAllRead, onFlagChange, onStarred, onTagged, onUntagged } from '../src/library/item-states.ts';
import { testSql } from '../src/store/testing.ts';

let h: Harness;
let alice: ReaderClient;
let userId: number;
let items: number[];
const heard: string[] = [];

before(async () => {
  h = await startHarness();
  h.feeds.addItems('news', 3, 'News');
  userId = await addUser(h.app, 'alice', 'pw-alice-secret');
  alice = new ReaderClient(h.url, `GoogleLogin auth=${await clientLogin(h.url, 'alice', 'pw-alice-secret')}`);
  await alice.post('subscription/quickadd', [['quickadd', h.feeds.url('news')]]);
  items = (
    await testSql(h.app)
      .prepare('SELECT item_id FROM user_items WHERE user_id = ? ORDER BY item_id')
      .all<{ item_id: number }>(userId)
  ).map((r) => r.item_id);
  onStarred(h.app, async (u, ids) => void heard.push(`${u} starred ${ids}`));
  onFlagChange(h.app, 'read', false, async (u, ids) => void heard.push(`${u} unread ${ids}`));
  onTagged(h.app, async (u, label, ids) => void heard.push(`${u} tagged ${label} ${ids}`));
  onUntagged(h.app, async (u, label, ids) => void heard.push(`${u} untagged ${label} ${ids}`));
  onAllRead(h.app, async (u, n) => void heard.push(`${u} all read ${n}`));
});
after(() => h.close());

const edit = (ids: number[], add: string[], remove: string[] = []) =>
  alice.post('edit-tag', [
    ...ids.map((i): [string, string] => ['i', String(i)]),
    ...add.map((a): [string, string] => ['a', a]),
    ...remove.map((r): [string, string] => ['r', r]),
  ]);

test('each real change is raised once, after the write; no change raises nothing', async () => {
  const [a, b, c] = items as [number, number, number];
  await edit([a], [S.starred]);
  await edit([a, b], [S.starred, S.label('Later')]);
  assert.deepEqual(heard.splice(0), [
    `${userId} starred ${a}`,
    `${userId} starred ${b}`,
    `${userId} tagged Later ${a},${b}`,
  ]);
  await edit([a, b], [S.starred, S.label('Later')]);
  assert.deepEqual(heard.splice(0), [], 'nothing changed');
  await edit([b, c], [], [S.label('Later')]);
  assert.deepEqual(heard.splice(0), [`${userId} untagged Later ${b}`]);
  const marked = await alice.post('mark-all-as-read', [['s', S.readingList]]);
  assert.equal(marked.status, 200);
  assert.deepEqual(heard.splice(0), [`${userId} all read 3`]);
  await edit([c], [], [S.read]);
  await edit([c], [], [S.read]);
  assert.deepEqual(heard.splice(0), [`${userId} unread ${c}`]);
});
