// What kind of answer a question asks for ("when" → a date, "how many" → a number, "who" → a
// person, "which company" → an organisation, "why" → a reason, "summarize" → a digest), and the
// typed candidates a sentence offers: the classic question-answering cue (AskMSR; Brill, Dumais &
// Banko 2002) that finds the answer by what the sources name, not by how many question words a
// sentence repeats.

export type AnswerType =
  | 'person'
  | 'place'
  | 'org'
  | 'number'
  | 'date'
  | 'yesno'
  | 'reason'
  | 'summary'
  | 'thing'
  /** "What is the Anker 3D printer called?": the name of a thing, whatever kind of thing. */
  | 'name'
  | 'none';

// "What's new with X", "what is the latest on X", "what's the latest?" ask for a digest; "what is the
// new price of …", "what is the latest version of …", "what is the new Pixel called?" ask for a fact,
// so after new/latest only the end of the question, a news word or a preposition reads as a digest.
const SUMMARY =
  /^\s*(summari[sz]e|give me (a |an )?(summary|overview|rundown|digest)|overview of|catch me up|brief me|(what'?s|what is|what are) ((the )?latest|new)( (news|updates?|developments?|headlines|stories))?\s*($|[?.!,]|(on|about|with|in|at|from|for|regarding|around|across|since)\b)|(what'?s|what is|what are) (happening|going on)\b|(what|any) (news|updates?)\b|news (about|on)|tell me (about|the news)|latest (news )?(on|about))/i;
const ORG_NOUN =
  /\b(company|companies|firm|business|retailer|chain|brand|bank|party|team|club|airline|carrier|network|agency|organi[sz]ation|group|university|college|school|newspaper|outlet|publisher|automaker|maker|manufacturer|startup|app|platform|service|union|league|band|institution|giant|corporation|studio|channel)\b/i;
const PLACE_NOUN =
  /\b(city|cities|state|states|country|countries|nation|place|location|island|region|county|province|town|village|continent|capital|area|park|airport|port|river|sea|ocean|mountain|volcano|neighborhood|district)\b/i;
const PERSON_NOUN =
  /\b(person|man|woman|actor|actress|singer|rapper|player|athlete|star|celebrity|president|leader|politician|senator|governor|mayor|judge|ceo|founder|author|artist|musician|director|coach|minister|official|figure|astronaut|pope|king|queen|prince|princess|icon|candidate|host|comedian|chef|scientist|billionaire|entrepreneur|footballer|quarterback|pitcher|golfer|driver|rapper|journalist|anchor)\b/i;
const NUMBER_NOUN =
  /\b(percentage|percent|share|number|amount|price|cost|rate|age|total|sum|figure|fine|salary|score|count|population|temperature|distance|speed|height|weight)\b/i;
const NAME_ASKED =
  /\bwhat(?:'s| is| was| are| were| will be)\b.*\b(?:called|named|dubbed|known as)\s*\??\s*$|\bwhat(?:'s| is| was)? the (?:new |full |official |real )?name of\b/;
const DATE_NOUN = /\b(year|date|day|month|time|decade|century|season)\b/i;

export function answerTypeOf(question: string): AnswerType {
  const q = question.trim();
  const l = q.toLowerCase();
  if (SUMMARY.test(q)) return 'summary';
  if (
    /\b(why|how come|for what reason|what (caused|led to|prompted|is behind|was behind)|what was the reason|reason for)\b/.test(
      l,
    )
  )
    return 'reason';
  // "Which country … passengers who …": a who/when/where after a which/what head is a relative
  // pronoun, so the head noun decides.
  const relative = /\b(?:which|what)\b.*\b(?:who|whom|whose|when|where)\b/.test(l);
  const headType = relative ? typeOfHead(l) : undefined;
  if (headType) return headType;
  if (/\b(when|how long ago|since when|what (year|date|day|month|time))\b/.test(l)) return 'date';
  if (
    /\b(how (many|much|often|far|long|old|big|large|tall|fast|high|deep)|what (percentage|percent|share|number|amount|price|cost|rate|age|proportion|fraction))\b/.test(
      l,
    )
  )
    return 'number';
  // "What is the (new) price of …", "How much does … cost": an amount.
  if (
    /\b(what(?:'s| is| was| are| were| will be)|how much is|how much was)\s+(?:the\s+)?(?:(?:new|current|latest|proposed|updated)\s+)?(price|cost|fee|fare)s?\b/.test(
      l,
    )
  )
    return 'number';
  if (/\bhow much\b.*\b(cost|costs|sell|sells|sold|charge|charges|pay|priced)\b/.test(l)) return 'number';
  if (/\b(who|whom|whose)\b/.test(l)) return 'person';
  if (/\bwhere\b/.test(l)) return 'place';
  const typed = typeOfHead(l);
  if (typed) return typed;
  // "What is the Anker 3D printer called?": a name (a person's when the question names one).
  if (NAME_ASKED.test(l)) return PERSON_NOUN.test(l) ? 'person' : 'name';
  if (/^(is|are|was|were|did|does|do|has|have|had|will|would|can|could|should)\b/.test(l)) return 'yesno';
  if (/\b(which|what)\b/.test(l)) return 'thing';
  return 'none';
}

/** "which company …", "what city …", "name of the volcano …": the noun after which/what decides. */
function typeOfHead(l: string): AnswerType | undefined {
  const head =
    /\b(?:which|what)\s+(?:(?:two|three|of these|one of these|us|u\.s\.|new|major|former|popular|famous|tech|fast-food|social media|once popular)\s+)*([\p{L}-]+(?:\s+[\p{L}-]+)?)/u.exec(
      l,
    )?.[1] ?? '';
  const named = /\bname of (?:the |a |an )?([\p{L}-]+(?:\s+[\p{L}-]+)?)/u.exec(l)?.[1] ?? '';
  const noun = `${head} ${named}`;
  if (PERSON_NOUN.test(noun)) return 'person';
  if (PLACE_NOUN.test(noun)) return 'place';
  if (ORG_NOUN.test(noun)) return 'org';
  if (NUMBER_NOUN.test(noun)) return 'number';
  if (DATE_NOUN.test(noun)) return 'date';
  if (/^reasons?\b/.test(head)) return 'reason';
  return undefined;
}

const MONTH =
  /\b(jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|may|june?|july?|aug(ust)?|sep(t(ember)?)?|oct(ober)?|nov(ember)?|dec(ember)?|monday|tuesday|wednesday|thursday|friday|saturday|sunday|yesterday|today|tomorrow|last (week|month|year)|next (week|month|year))\b/i;
const YEAR = /\b(1[89]\d\d|20\d\d)\b/;
const NUMBER =
  /(\d|\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred|thousand|million|billion|dozen|half|percent)\b)/i;
const NAME = /\b\p{Lu}[\p{L}'’-]+\s+\p{Lu}[\p{L}'’-]+/u;
/** A product's name: a model number ("M5", "S22") or a capital inside a word ("AnkerMake", "PlayStation"). */
const PRODUCT_NAME = /\b\p{Lu}\p{N}[\p{L}\p{N}]*\b|\b\p{Lu}\p{Ll}+\p{Lu}\p{L}+/u;
const PLACE = /\b(in|at|from|near|to)\s+(the\s+)?\p{Lu}[\p{L}'’-]+/u;
const CAUSE =
  /\b(because|due to|owing to|as a result|result(ed)? of|after|amid|caused by|led to|leading to|since|so that|in order to|the reason|blamed|citing|cited|prompted|in response to|following)\b/i;

/** Whether a sentence contains something of the wanted answer type. */
export function hasAnswerType(sentence: string, type: AnswerType): boolean {
  switch (type) {
    case 'date':
      return MONTH.test(sentence) || YEAR.test(sentence);
    case 'number':
      return NUMBER.test(sentence);
    case 'person':
    case 'org':
      return NAME.test(sentence.slice(1));
    case 'name':
      return NAME.test(sentence.slice(1)) || PRODUCT_NAME.test(sentence);
    case 'place':
      return PLACE.test(sentence);
    case 'reason':
      return CAUSE.test(sentence);
    default:
      return false;
  }
}
