// Reformulated search queries (sonar-pro and up): the question as asked, its keywords only (drops
// question phrasing that dilutes ranking), and its named entities only (finds articles that name
// the subject but word the rest differently).
import { entities, keywords } from '../text/terms.ts';

export function reformulate(query: string): string[] {
  const out = [query];
  const kw = keywords(query);
  if (kw.length) out.push(kw.join(' '));
  const ents = entities(query);
  if (ents.length) out.push(ents.join(' '));
  const seen = new Set<string>();
  return out.map((q) => q.trim()).filter((q) => q && !seen.has(q.toLowerCase()) && seen.add(q.toLowerCase()));
}
