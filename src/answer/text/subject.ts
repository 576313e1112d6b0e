// What an article is about, by its own words: the headline and the address (news addresses carry
// the headline's words, "…/anker-first-3d-printer-ankermake-m5-price-specs-launch"). A name all of
// whose words are there is the article's subject: what a "what is X called" question asks for,
// where the article's quotes name its spokesman more often than the thing itself.
import { entities, words } from './terms.ts';

/** The words of a source's title and of its address's path. */
export function subjectWords(title: string, url: string): Set<string> {
  let path = '';
  try {
    path = decodeURIComponent(new URL(url).pathname);
  } catch {
    // Not a URL (a test's source): the title alone.
  }
  return new Set(words(`${title} ${path.replace(/[-_/.]+/g, ' ')}`));
}

/** Whether every word of `name` is among the subject's words. */
export function isSubjectName(name: string, subject: ReadonlySet<string>): boolean {
  const parts = words(name);
  return parts.length > 0 && parts.every((x) => subject.has(x));
}

/**
 * Whether a text names the subject by a name that is not only the question's words ("AnkerMake
 * M5" for "What is the Anker 3D printer called?", not "Anker").
 */
export function namesSubjectIn(text: string, subject: ReadonlySet<string>, asked: ReadonlySet<string>): boolean {
  return entities(text).some((name) => isSubjectName(name, subject) && words(name).some((x) => !asked.has(x)));
}
