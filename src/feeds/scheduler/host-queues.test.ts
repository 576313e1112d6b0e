import test from 'node:test';
import assert from 'node:assert/strict';
import { fetchHostOf, HostQueues } from './host-queues.ts';

test('fetchHostOf gives host[:port] lower-cased, as the fetch_host column', () => {
  assert.equal(fetchHostOf('https://One.example/a.xml'), 'one.example');
  assert.equal(fetchHostOf('http://two.example:8080/c.xml?x=1'), 'two.example:8080');
  assert.equal(fetchHostOf('https://three.example#f'), 'three.example');
  assert.equal(fetchHostOf('https://four.example?q'), 'four.example');
});

test('each feed is asked for once, no host beyond its free places, hosts taking turns', () => {
  const feeds = [
    ...Array.from({ length: 1000 }, (_, i) => ({ id: i + 1, url: `https://big.example/${i}.xml` })),
    { id: 5001, url: 'https://small.example/a.xml' },
    { id: 5002, url: 'https://other.example/a.xml' },
  ];
  const q = new HostQueues(feeds, 4);
  const first = q.ask(32);
  assert.deepEqual(first, [1, 5001, 5002, 2, 3, 4], 'one feed a host in turn, the big host up to its four places');
  q.answered(first, new Set(first));
  assert.equal(q.hasReady(), false, 'the big host is full, the others are done');
  assert.deepEqual(q.ask(32), []);
  let asked = first.length;
  // Each fetch that ends lets exactly one more feed of its host be asked for: 1,000 asks of one
  // feed, never the waiting list again.
  for (let done = 1; done <= 1000; done++) {
    q.done(done);
    const next = q.ask(32);
    if (done <= 996) assert.deepEqual(next, [done + 4]);
    else assert.deepEqual(next, []);
    asked += next.length;
    q.answered(next, new Set(next));
  }
  assert.equal(asked, feeds.length);
  assert.equal(q.pending, 0);
});

test('a host that refused a feed is left alone until the retry; a feed not claimed can be asked for once its host is free', () => {
  const feeds = Array.from({ length: 6 }, (_, i) => ({ id: i + 1, url: `https://h${i % 2}.example/${i}` }));
  const q = new HostQueues(feeds, 2);
  const a = [...q.ask(1), ...q.ask(3)];
  assert.deepEqual(a, [1, 2, 3, 4]);
  // h0 is full elsewhere: its feeds come back held; h1's are claimed.
  q.answered(a, new Set([2, 4]));
  // (a claim made of two asks: the first asked for one feed only)
  q.block(1);
  q.block(3);
  assert.deepEqual(q.ask(10), [], 'h0 blocked, h1 at its limit');
  q.done(2);
  assert.deepEqual(q.ask(10), [6], 'only h1, which has a place again');
  q.answered([6], new Set([6]));
  q.unblockAll();
  assert.deepEqual(q.ask(10), [5], "h0's feed not yet asked for (its refused ones are retried by the caller)");
});
