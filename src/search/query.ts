// Turns a natural-language question into query words. Questions are full sentences ("What was
// the outcome of …"), so function words are dropped (they match nearly every article and only
// add noise and cost); an article matching any remaining word is a candidate and BM25 rewards
// articles matching more and rarer words. Operators typed by users (AND, NEAR, "*") are words.

// Common English function words and question words (the usual IR stop list, plus words that
// are frequent in questions about news but carry no topic: "said", "according", "recently").
const STOPWORDS = new Set(`a about above according after again against all also am an and any are as at be because been
before being below between both but by can could did do does doing down during each few for from further had has have
having he her here hers herself him himself his how i if in into is it its itself just me more most my myself no nor not
now of off on once only or other our ours ourselves out over own same she should so some such than that the their theirs
them themselves then there these they this those through to too under until up very was we were what when where which
while who whom why will with would you your yours yourself yourselves did does according recently said says say new
latest many much whose yet ever s t don didn doesn isn wasn weren won wouldn shouldn couldn`.split(/\s+/));

/** Lowercased word tokens of the text (letters and digits, apostrophes split like unicode61 does). */
export function tokenize(text: string): string[] {
  return text.toLowerCase().normalize('NFKC').match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Distinct content words of a question, in order of first appearance. */
export function queryTerms(text: string): string[] {
  const seen = new Set<string>();
  const terms: string[] = [];
  for (const t of tokenize(text)) {
    if (STOPWORDS.has(t) || seen.has(t)) continue;
    seen.add(t);
    terms.push(t);
  }
  // A question made only of stopwords ("Who is he?") still searches for its words.
  if (!terms.length) for (const t of tokenize(text)) if (!seen.has(t)) { seen.add(t); terms.push(t); }
  return terms;
}

export function isStopword(t: string): boolean {
  return STOPWORDS.has(t);
}
