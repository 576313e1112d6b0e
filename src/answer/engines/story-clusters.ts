// Which retrieved articles tell the same story (a digest quotes each story once) and which belong
// to the same subtopic (a deep-research report gives each its section). Each article is a vector
// of its terms — the title twice, then its first sentences — weighted by rarity among the
// retrieved articles; terms of the question and terms every article shares are left out, since
// they tell no story apart. Articles are taken in search order and join the
// cluster whose centroid they are most similar to (cosine) above a threshold, else open a new
// one: deterministic, and the best-ranked article of a cluster is its first member.
import type { GroundingSource } from './engine.ts';
import { entities, terms, words } from '../text/terms.ts';
import { splitSentences } from '../../text/sentences.ts';

export interface StoryCluster {
  /** Members in search order (the first is the best-ranked). */
  members: GroundingSource[];
  /** Terms weighing most in the cluster, heaviest first (stemmed). */
  topTerms: string[];
  /** Newest publication date among the members (unix seconds), 0 when none is dated. */
  newest: number;
  oldest: number;
}

type Vector = Map<string, number>;

/** Same story: wire copies and follow-ups of one event. */
export const SAME_STORY = 0.3;
/** Same subtopic: broader, for report sections. */
export const SAME_SUBTOPIC = 0.12;

/** The text a story is recognised by: its title and its opening. */
function opening(s: GroundingSource): string {
  const first = s.texts
    .join('\n')
    .split('\n')
    .flatMap((p) => splitSentences(p))
    .slice(0, 4)
    .join(' ');
  return first;
}

function bag(s: GroundingSource): Map<string, number> {
  const out = new Map<string, number>();
  for (const t of terms(s.hit.title)) out.set(t, (out.get(t) ?? 0) + 2);
  for (const t of terms(opening(s))) out.set(t, (out.get(t) ?? 0) + 1);
  return out;
}

function cosine(a: Vector, b: Vector): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (const [t, v] of a) {
    na += v * v;
    const w = b.get(t);
    if (w) dot += v * w;
  }
  for (const v of b.values()) nb += v * v;
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

export function clusterStories(question: string, sources: GroundingSource[], threshold: number): StoryCluster[] {
  const asked = new Set(terms(question));
  const bags = sources.map(bag);
  const df = new Map<string, number>();
  for (const b of bags) for (const t of b.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const n = sources.length;
  const vectors: Vector[] = bags.map((b) => {
    const v: Vector = new Map();
    for (const [t, tf] of b) {
      const d = df.get(t)!;
      // Terms every article has (the topic itself) say nothing about which story an article tells.
      if (asked.has(t) || (n >= 3 && d === n) || /^\d+$/.test(t)) continue;
      v.set(t, (1 + Math.log(tf)) * Math.log(1 + n / d));
    }
    return v;
  });
  const clusters: { members: number[]; centroid: Vector }[] = [];
  vectors.forEach((v, i) => {
    let best = -1;
    let bestSim = threshold;
    clusters.forEach((c, k) => {
      const sim = cosine(v, c.centroid);
      if (sim >= bestSim) {
        best = k;
        bestSim = sim;
      }
    });
    if (best < 0) {
      clusters.push({ members: [i], centroid: new Map(v) });
      return;
    }
    const c = clusters[best]!;
    c.members.push(i);
    for (const [t, w] of v) c.centroid.set(t, (c.centroid.get(t) ?? 0) + w);
  });
  return clusters.map((c) => {
    const members = c.members.map((i) => sources[i]!);
    const dates = members.map((m) => m.hit.publishedAt ?? 0).filter((d) => d > 0);
    return {
      members,
      topTerms: [...c.centroid.entries()].sort((a, b) => b[1] - a[1]).map(([t]) => t),
      newest: dates.length ? Math.max(...dates) : 0,
      oldest: dates.length ? Math.min(...dates) : 0,
    };
  });
}

/** A title without its site suffix ("… | Reuters", "… - BBC News") and section prefix ("Ukraine war: "). */
export function cleanTitle(title: string): string {
  return title
    .replace(/\s+[|–—-]\s+[^|–—-]{2,40}$/u, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * A section heading written from the cluster's content: the names most of its articles mention
 * (whole, as written: never a name cut at an accent or a word), then the words they share most.
 * A one-article cluster is headed by its own title. Undefined when nothing better than the
 * question's own words is shared.
 */
export function clusterHeading(question: string, cluster: StoryCluster): string {
  const asked = new Set(words(question));
  if (cluster.members.length === 1) return cleanTitle(cluster.members[0]!.hit.title);
  const texts = cluster.members.map((m) => `${m.hit.title}. ${opening(m)}`);
  const nameCount = new Map<string, { name: string; n: number }>();
  for (const t of texts) {
    const seen = new Set<string>();
    for (const name of entities(t, { strict: true })) {
      const key = name.toLowerCase();
      if (seen.has(key) || words(name).every((w) => asked.has(w)) || name.split(' ').length > 4) continue;
      seen.add(key);
      const e = nameCount.get(key) ?? { name, n: 0 };
      e.n++;
      nameCount.set(key, e);
    }
  }
  const names = [...nameCount.values()]
    .filter((e) => e.n >= 2)
    .sort((a, b) => b.n - a.n || b.name.length - a.name.length)
    .slice(0, 2)
    .map((e) => e.name);
  // The shared words in their commonest written form ("shelling", not the stem "shell").
  const surface = new Map<string, Map<string, number>>();
  for (const t of texts)
    for (const w of words(t)) {
      const st = terms(w)[0];
      if (!st) continue;
      const forms = surface.get(st) ?? new Map<string, number>();
      forms.set(w, (forms.get(w) ?? 0) + 1);
      surface.set(st, forms);
    }
  const inNames = new Set(names.flatMap((n) => terms(n)));
  const shared = cluster.topTerms
    .filter((t) => !inNames.has(t) && !asked.has(t) && surface.has(t) && !/^\d/.test(t))
    .filter((t) => cluster.members.filter((m) => terms(`${m.hit.title} ${opening(m)}`).includes(t)).length >= 2)
    .map((t) => [...surface.get(t)!.entries()].sort((a, b) => b[1] - a[1])[0]![0])
    // Verb forms ("forcing", "reported") make a heading read like a broken sentence.
    .filter((w) => !/(ing|ed|ly)$/.test(w))
    .slice(0, 3);
  if (!names.length && !shared.length) return cleanTitle(cluster.members[0]!.hit.title);
  const head = names.join(' and ');
  const tail = shared.length > 1 ? `${shared.slice(0, -1).join(', ')} and ${shared[shared.length - 1]}` : shared[0];
  const text = head ? (tail ? `${head}: ${tail}` : head) : tail!;
  return text[0]!.toUpperCase() + text.slice(1);
}
