// What kind of answer a question asks for ("when" → a date, "how many" → a number, "who" → a
// name), and whether a sentence contains one: a classic extractive-QA cue that lifts the sentence
// holding the answer over sentences that merely repeat the question's words.

export type AnswerType = 'date' | 'number' | 'person' | 'place' | 'none';

export function answerTypeOf(question: string): AnswerType {
  const q = question.toLowerCase();
  if (/\b(when|what (year|date|day|month|time)|how long ago|since when)\b/.test(q)) return 'date';
  if (/\b(how (many|much|often|far|long|old|big|large|tall|fast)|what (percentage|percent|share|number|amount|price|cost|rate|age)|how much)\b/.test(q)) return 'number';
  if (/\b(who|whom|whose|which (person|company|team|group|country|organization|organisation))\b/.test(q)) return 'person';
  if (/\b(where|which (city|state|place|location|country))\b/.test(q)) return 'place';
  return 'none';
}

const MONTH = /\b(jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|may|june?|july?|aug(ust)?|sep(t(ember)?)?|oct(ober)?|nov(ember)?|dec(ember)?|monday|tuesday|wednesday|thursday|friday|saturday|sunday|yesterday|today|tomorrow|last (week|month|year)|next (week|month|year))\b/i;
const YEAR = /\b(1[89]\d\d|20\d\d)\b/;
const NUMBER = /(\d|\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred|thousand|million|billion|dozen|half|percent)\b)/i;
const NAME = /\b\p{Lu}[\p{L}'’-]+\s+\p{Lu}[\p{L}'’-]+/u;
const PLACE = /\b(in|at|from|near|to)\s+(the\s+)?\p{Lu}[\p{L}'’-]+/u;

/** Whether a sentence contains something of the wanted answer type. */
export function hasAnswerType(sentence: string, type: AnswerType): boolean {
  switch (type) {
    case 'date': return MONTH.test(sentence) || YEAR.test(sentence);
    case 'number': return NUMBER.test(sentence);
    case 'person': return NAME.test(sentence.slice(1));
    case 'place': return PLACE.test(sentence);
    case 'none': return false;
  }
}
