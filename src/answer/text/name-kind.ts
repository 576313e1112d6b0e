// What a capitalized span mined as an answer candidate is: a person, an organisation, a place, or
// not a name at all (a common word capitalized because it opens the sentence, a date, a ranking, a
// nationality used as an adjective). Cues only, no gazetteer and no model: a title in front of the
// name ("President", "Gov."), a head noun that says what it is ("… Agency", "… Island"), a
// preposition of place before it, and how the sources themselves write the word (a word they also
// write in lower case is a common word). What no cue decides stays 'unknown' and is scored as before.

import { STOPWORDS } from '../../text/stopwords.ts';

export type NameKind = 'person' | 'org' | 'place' | 'unknown' | 'not-a-name';

/** Titles that say the name after them is a person's ("French President Emmanuel Macron"). */
const PERSON_TITLES = new Set(
  `president vice prime minister chancellor secretary senator sen sen. rep rep. representative gov gov.
governor mayor king queen prince princess pope dr dr. mr mr. mrs mrs. ms ms. judge justice
gen gen. col col. lt lt. sgt sgt. capt capt. coach ceo chairman chairwoman chair premier
sheikh emir ayatollah rev rev. reverend sir lady lord dame speaker leader commissioner ambassador
attorney chief director founder actor actress singer rapper`.split(/\s+/),
);

/** Head nouns of organisations ("Central Intelligence Agency", "Wagner Group", "Apple Inc"). */
const ORG_WORDS = new Set(
  `inc inc. corp corp. corporation co co. company llc ltd ltd. plc group party agency department dept
ministry administration bureau office commission committee council court congress senate parliament
assembly university college school institute association federation league union bank airlines
airways motors foundation network club fc times news post journal tribune press survey navy army
force forces police guard service services organization organisation society fund board academy
authority reserve studios studio entertainment media labs laboratories technologies systems
pharmaceuticals holdings partners capital records brands industries enterprises alliance coalition
cabinet government church fbi cia nasa`.split(/\s+/),
);

/** Head nouns of places ("Gulf of Mexico", "Mount Etna", "Kennedy Space Center" is not one). */
const PLACE_WORDS = new Set(
  `city county island islands isle river lake mountain mountains mount mt mt. park street avenue bay sea
ocean gulf valley province coast beach canyon peninsula strait desert forest falls airport square
bridge region republic kingdom emirates state states territory village town district borough harbor
harbour cape glacier volcano`.split(/\s+/),
);

/** Short capitals that are places, not organisations. */
const PLACE_CAPITALS = new Set(['US', 'USA', 'U.S', 'UK', 'U.K', 'UAE', 'EU', 'DC', 'D.C', 'NYC', 'LA']);

const MONTH =
  /^(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?$/i;

/** An adverb by its ending ("Politically", "Ultimately"; not "Italy", "Kelly"). */
const ADVERB = /^\p{L}{3,}(?:al|e|ous|ent|ant|ed|ar|ful|ing|ib|ab|ess|ct|ght|ck|rt|ain|ear|id|ong|ive|ic)ly$/u;

const LOWER_WORD = /(?<![\p{L}\p{N}'’-])\p{Ll}[\p{Ll}'’-]*/gu;

/** Whether the texts write a word in lower case (lowerCaseWords(texts).has, or a lookup that answers the same). */
export interface LowerCaseWords {
  has(word: string): boolean;
}

/**
 * lowerCaseWords(texts).has(word), worked out for the words asked about only: each occurrence of
 * the word (indexOf) is checked to be a whole match of the same pattern there. An answer asks about
 * a few sentence-opening words, where listing every lower-case word of its sources made a string
 * per word and a tenth of the candidates' mining time. Each answer is remembered.
 */
export function lowerCaseLookup(texts: Iterable<string>): LowerCaseWords {
  const list = [...texts];
  const known = new Map<string, boolean>();
  return {
    has(word: string): boolean {
      let yes = known.get(word);
      if (yes === undefined) known.set(word, (yes = writesInLowerCase(list, word)));
      return yes;
    },
  };
}

/** LOWER_WORD where lastIndex says, and a whole word of its shape. */
const LOWER_WORD_AT = new RegExp(LOWER_WORD.source, 'uy');
const LOWER_WORD_SHAPE = new RegExp(`^(?:${LOWER_WORD.source})$`, 'u');

// A match of LOWER_WORD never starts inside another (its first character would continue that one,
// which the look-behind forbids), so a whole match starting at an occurrence is one lowerCaseWords finds.
function writesInLowerCase(texts: string[], word: string): boolean {
  if (!LOWER_WORD_SHAPE.test(word)) return false;
  for (const t of texts)
    for (let at = t.indexOf(word); at >= 0; at = t.indexOf(word, at + 1)) {
      LOWER_WORD_AT.lastIndex = at;
      if (LOWER_WORD_AT.test(t) && LOWER_WORD_AT.lastIndex === at + word.length) return true;
    }
  return false;
}

/** The words the texts write in lower case (case-sensitive): a capitalized one of them is a common word. */
export function lowerCaseWords(texts: Iterable<string>): Set<string> {
  const out = new Set<string>();
  // One pattern run with exec, not matchAll (which clones it and makes an iterator per text).
  const re = LOWER_WORD;
  for (const t of texts) {
    re.lastIndex = 0;
    for (let m = re.exec(t); m !== null; m = re.exec(t)) out.add(m[0]);
  }
  return out;
}

/**
 * The kind of a name found in `sentence`. `lower`: the words the sources write in lower case
 * (lowerCaseWords), which tells a sentence-opening common word ("Politically", "Thousands") from a
 * name ("Zelensky", "Apple").
 */
export function nameKind(name: string, sentence: string, lower: LowerCaseWords): NameKind {
  const parts = name.split(/\s+/);
  const first = parts[0]!;
  // "Feb. 11", "Oct. 3", "No. 1": a date or a ranking, not a name.
  if (parts.length <= 3 && (MONTH.test(first) || /^no\.?$/i.test(first)) && /^\d/.test(parts[1] ?? ''))
    return 'not-a-name';
  if (parts.length === 1) {
    const word = first.replace(/['’]s$/, '');
    const l = word.toLowerCase();
    const at = sentence.indexOf(word);
    const opens = at >= 0 && /^[\s"“‘'(]*$/.test(sentence.slice(0, at));
    // A sentence-opening word that is a common word elsewhere: capitalized only because it comes first.
    if (opens && word !== word.toUpperCase() && (STOPWORDS.has(l) || ADVERB.test(l) || lower.has(l)))
      return 'not-a-name';
  }
  const lowerParts = parts.map((p) => p.toLowerCase().replace(/['’]s$/, ''));
  // An organisation's head noun last ("General Motors"), else a title before the last word
  // ("Secretary of State Marco Rubio", "Gov. Andrew Cuomo").
  if (ORG_WORDS.has(lowerParts[lowerParts.length - 1]!)) return 'org';
  if (parts.length > 1 && lowerParts.slice(0, -1).some((p) => PERSON_TITLES.has(p))) return 'person';
  if (lowerParts.some((p) => ORG_WORDS.has(p))) return 'org';
  if (lowerParts.some((p) => PLACE_WORDS.has(p)) || PLACE_CAPITALS.has(name.replace(/\.$/, ''))) return 'place';
  if (/^[A-Z]{2,6}$/.test(name)) return 'org';
  // A title just before the name in the sentence ("… said Sen. Warren").
  const at = sentence.indexOf(name);
  if (at > 0) {
    const before = /([\p{L}.]+)\s+$/u.exec(sentence.slice(Math.max(0, at - 20), at))?.[1]?.toLowerCase();
    if (before && PERSON_TITLES.has(before)) return 'person';
    if (before && /^(in|at|near|across|outside|inside)$/.test(before)) return 'place';
  }
  return 'unknown';
}
