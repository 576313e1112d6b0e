import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isSmallTalk, smallTalkReply } from './small-talk.ts';

test('greetings, thanks and questions about Tidings itself are small talk', () => {
  for (const m of [
    'hello',
    'Hello!',
    'hi there',
    'Hey, Tidings',
    'good morning',
    'thanks!',
    'Thank you 🙏',
    'how are you?',
    'What can you do?',
    'help',
    'bye',
    'ok',
  ])
    assert.ok(isSmallTalk(m), m);
});

test('a real question is never small talk, even one that opens with a greeting word', () => {
  for (const m of [
    'Hello, Molly! by Molly Shannon: what is the memoir about?',
    'hello world',
    'Who won Liverpool vs Benfica?',
    'help with the Ukraine refugee crisis',
    'What can you tell me about NASA?',
    'thanks to whom did the bill pass?',
    'Summarize the news about Ukraine',
    '',
  ])
    assert.ok(!isSmallTalk(m), m);
});

test('the reply says what Tidings does, in the register of the message', () => {
  assert.match(smallTalkReply('hello'), /^Hello\. I answer questions from the articles in your feeds/);
  assert.match(smallTalkReply('thanks'), /^You're welcome\./);
  assert.match(smallTalkReply('what can you do?'), /^I answer questions/);
});
