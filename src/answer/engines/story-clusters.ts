// Which retrieved articles tell the same story (a digest quotes each story once) and which belong
// to the same subtopic (a deep-research report gives each its section). Each article is a vector
// of its terms — the title twice, then its first sentences — weighted by rarity among the
// retrieved articles; terms of the question and terms every article shares are left out, since
// they tell no story apart. Articles are taken in search order and join the
// cluster whose centroid they are most similar to (cosine) above a threshold, else open a new
// one: deterministic, and the best-ranked article of a cluster is its first member.
import type { GroundingSource } from './engine.ts';
import { terms } from '../text/terms.ts';
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
function cleanTitle(title: string): string {
  return title
    .replace(/\s+[|–—-]\s+[^|–—-]{2,40}$/u, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * A section heading written from the cluster's content: the headline of its most central article
 * (the one most like the others), without the site's suffix. A headline is a heading a person
 * wrote, so it reads as one and never cuts a name; a heading stitched from the cluster's frequent
 * words ("IPCC: report, tackle and last") was tried first and read as noise.
 */
export function clusterHeading(question: string, cluster: StoryCluster): string {
  if (cluster.members.length === 1) return cleanTitle(cluster.members[0]!.hit.title);
  const asked = new Set(terms(question));
  const vectors = cluster.members.map((m) => {
    const v: Vector = new Map();
    for (const [t, tf] of bag(m)) if (!asked.has(t)) v.set(t, tf);
    return v;
  });
  let best = 0;
  let bestScore = -1;
  vectors.forEach((v, i) => {
    // Ties go to the better-ranked article (members are in search order).
    const score = vectors.reduce((sum, w, j) => (i === j ? sum : sum + cosine(v, w)), 0);
    if (score > bestScore + 1e-9) {
      best = i;
      bestScore = score;
    }
  });
  return cleanTitle(cluster.members[best]!.hit.title);
}
