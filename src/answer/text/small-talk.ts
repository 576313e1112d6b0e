// Greetings, thanks and "what can you do": messages with nothing to search for. Searching them
// quotes whatever article happens to contain the word ("Hello, Molly!", a memoir), so they get a
// reply that says what Tidings does instead. The list is closed on purpose: a message is small talk
// only when all of it is one of these phrases, so no real question is ever caught.

const GREETING = `(hi|hello|hey|hiya|howdy|yo|greetings|good (morning|afternoon|evening|day)|hi there|hello there|hey there)`;
const THANKS = `(thanks|thank you|thank you very much|thanks a lot|many thanks|cheers|ta|thx|ty)`;
const HOW_ARE_YOU = `(how are you( doing)?( today)?|how's it going|how are things|what's up|sup)`;
const ABOUT_YOU = `(who are you|what are you|what can you do|what do you do|how do you work|help|help me|what can i ask( you)?)`;
const BYE = `(bye|goodbye|good bye|see you|see ya|good night)`;
const ACK = `(ok|okay|cool|great|nice|got it|sounds good|awesome|perfect)`;

const SMALL_TALK = new RegExp(
  String.raw`^(?:${GREETING}|${THANKS}|${HOW_ARE_YOU}|${ABOUT_YOU}|${BYE}|${ACK})(?:[\s,]+(?:${GREETING}|${THANKS}|${HOW_ARE_YOU}|${ABOUT_YOU}|${BYE}|tidings|there|friend|everyone))*$`,
  'i',
);

/** What is left of a message without punctuation, emoji and extra space, lower-cased. */
function bare(message: string): string {
  return message
    .toLowerCase()
    .replace(/[’]/g, "'")
    .replace(/[^\p{L}\p{N}'\s,]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^,+|,+$/g, '')
    .trim();
}

export function isSmallTalk(message: string): boolean {
  const m = bare(message);
  return m.length > 0 && m.length <= 60 && SMALL_TALK.test(m);
}

/** The reply: what Tidings can do, in the register of the message. */
export function smallTalkReply(message: string): string {
  const m = bare(message);
  const offer =
    'I answer questions from the articles in your feeds and cite them with numbered sources. Ask about a story ("What did NASA announce this week?"), a person or a company, or ask for a summary ("Summarize the news about Ukraine").';
  if (new RegExp(`^${THANKS}\\b`, 'i').test(m)) return `You're welcome. ${offer}`;
  if (new RegExp(`^${BYE}\\b`, 'i').test(m)) return `Goodbye. ${offer}`;
  if (new RegExp(`^${GREETING}\\b`, 'i').test(m)) return `Hello. ${offer}`;
  return offer;
}
