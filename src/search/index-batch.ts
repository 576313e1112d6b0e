// Turns a batch of articles into postings: every article's words are counted per field (title,
// body, URL path), stemmed, and appended to its terms' postings lists for the batch; write()
// stores one encoded segment per term (./postings.ts).
//
// This runs for every word of every indexed article (millions per refresh of a large instance),
// so each distinct word is resolved once to a shared slot that carries its stem and the running
// counts: the per-word work is one Map lookup and a field increment (a first version built a Map
// of counts per article and was half of the index build).
import type { SearchIndexRepository } from '../store/repositories.ts';
import { encodeSegment, type FieldLengths } from './postings.ts';
import { stem, wordTokens } from './tokenizer.ts';

/** What an article contributes to the index. */
export interface ArticleText {
  title: string;
  body: string;
  url: string | null;
}

/** A stemmed term's counts in the article being added and its postings in the current batch. */
interface TermSlot {
  term: string;
  /** Which article the counts are of (a stamp, not the document number: numbers restart after a rebuild). */
  article: number;
  title: number;
  body: number;
  url: number;
  batch: number;
  postings: number[];
}

/** Words (and terms) remembered between batches; both maps are dropped together when full. */
const SLOT_LIMIT = 300_000;
const slotByWord = new Map<string, TermSlot>();
const slotByTerm = new Map<string, TermSlot>();
let batches = 0;

function slotOf(word: string): TermSlot {
  let slot = slotByWord.get(word);
  if (slot) return slot;
  const term = stem(word);
  slot = slotByTerm.get(term);
  if (!slot) slotByTerm.set(term, (slot = { term, article: 0, title: 0, body: 0, url: 0, batch: 0, postings: [] }));
  slotByWord.set(word, slot);
  return slot;
}

const TITLE = 0,
  BODY = 1,
  URL_PATH = 2;

/**
 * An article's terms with their counts per field, counted apart from any batch: a worker thread
 * counts the next batch's articles while the current one is written (indexing.ts, PrepareAhead),
 * and `IndexBatch.addCounted` then only files them under their document number.
 */
export interface CountedArticle {
  terms: string[];
  /** Title, body and URL-path counts of each term, three per term in the order of `terms`. */
  counts: Int32Array;
  lengths: FieldLengths;
}

let counting = 0;

/** Counts an article's terms per field (tokenizing, stemming: the per-word work of indexing). */
export function countArticle(article: ArticleText): CountedArticle {
  const inArticle: TermSlot[] = [];
  const stamp = ++counting;
  const count = (text: string, field: number): number => {
    const words = wordTokens(text);
    for (let i = 0; i < words.length; i++) {
      const slot = slotOf(words[i]!);
      if (slot.article !== stamp) {
        slot.article = stamp;
        slot.title = 0;
        slot.body = 0;
        slot.url = 0;
        inArticle.push(slot);
      }
      if (field === BODY) slot.body++;
      else if (field === TITLE) slot.title++;
      else slot.url++;
    }
    return words.length;
  };
  const lengths = {
    title: count(article.title, TITLE),
    body: count(article.body, BODY),
    url: count(urlWords(article.url), URL_PATH),
  };
  const terms = new Array<string>(inArticle.length);
  const counts = new Int32Array(inArticle.length * 3);
  inArticle.forEach((slot, i) => {
    terms[i] = slot.term;
    counts[i * 3] = slot.title;
    counts[i * 3 + 1] = slot.body;
    counts[i * 3 + 2] = slot.url;
  });
  return { terms, counts, lengths };
}

export class IndexBatch {
  private readonly id: number;
  private readonly slots: TermSlot[] = [];
  private lastDoc = 0;

  constructor() {
    // Only between batches: a batch's slots must stay the one slot of their term.
    if (slotByWord.size > SLOT_LIMIT || slotByTerm.size > SLOT_LIMIT) {
      slotByWord.clear();
      slotByTerm.clear();
    }
    this.id = ++batches;
  }

  /** Adds an article under its document number (increasing); returns its field lengths in terms. */
  add(docNo: number, article: ArticleText): FieldLengths {
    const counted = countArticle(article);
    this.addCounted(docNo, counted);
    return counted.lengths;
  }

  /** Adds an article counted before (`countArticle`, maybe on another thread) under its document number. */
  addCounted(docNo: number, article: CountedArticle): void {
    if (docNo <= this.lastDoc) throw new Error(`document numbers must increase (${docNo} after ${this.lastDoc})`);
    this.lastDoc = docNo;
    const { terms, counts } = article;
    for (let i = 0; i < terms.length; i++) {
      const term = terms[i]!;
      let slot = slotByTerm.get(term);
      if (!slot) slotByTerm.set(term, (slot = { term, article: 0, title: 0, body: 0, url: 0, batch: 0, postings: [] }));
      if (slot.batch !== this.id) {
        slot.batch = this.id;
        slot.postings = [];
        this.slots.push(slot);
      }
      slot.postings.push(docNo, counts[i * 3]!, counts[i * 3 + 1]!, counts[i * 3 + 2]!);
    }
  }

  /** Appends the batch's postings to the store (inside the caller's transaction). */
  async write(repo: SearchIndexRepository): Promise<void> {
    await repo.appendPostings(this.detach().encode(0));
  }

  /**
   * Takes the batch's postings out of the shared slots, so another batch may start while these
   * wait for their document numbers: the indexer counts words with numbers 1..n before it holds
   * the index lock, and encodes them once it has reserved the real ones (`encode(first - 1)`).
   * Call it in the same synchronous run as the `add` calls: slots are shared by every batch.
   */
  detach(): DetachedPostings {
    const terms = this.slots.map((slot) => slot.term);
    const lists = this.slots.map((slot) => slot.postings);
    for (const slot of this.slots) slot.postings = [];
    this.slots.length = 0;
    return {
      encode: (offset) =>
        terms.map((term, i) => ({ term, bytes: encodeSegment(lists[i]!, offset), count: lists[i]!.length / 4 })),
    };
  }
}

/** A batch's postings, counted under document numbers to be shifted by `offset` when encoded. */
export interface DetachedPostings {
  encode(offset: number): { term: string; bytes: Uint8Array; count: number }[];
}

/**
 * The words of a URL's path ("/2022/06/09/is-de-department-corrections-handcuffing-inmates/"):
 * publishers' slugs often carry words the title lacks. Numbers and id-like tokens are left out.
 */
export function urlWords(url: string | null): string {
  if (!url) return '';
  let path: string;
  try {
    path = decodeURIComponent(new URL(url).pathname);
  } catch {
    return '';
  }
  return (path.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])
    .filter((w) => !/\d/.test(w) && w.length > 1 && w.length <= 30 && !FILE_EXTENSIONS.has(w))
    .join(' ');
}

const FILE_EXTENSIONS = new Set(['html', 'htm', 'php', 'asp', 'aspx', 'jsp', 'shtml', 'cms']);
