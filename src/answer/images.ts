// `images` of an answer: the stored lead images (items.image_url) of the articles, cited ones
// first. The API promises numeric width/height; feeds rarely state them, so they come from, in
// order: the article HTML's <img width height> for that image, size hints in the image URL
// (`?w=800&h=600`, `/800x600/`, `-1024x576.jpg`), else 0 meaning "unknown" (documented in the
// chat API reference) — never a made-up size.
import type { SearchHit } from '../search/types.ts';
import type { ImageRef } from './types.ts';

/** Width and height of an image as stored with an article, if recorded anywhere. */
export type ImageSizeLookup = (
  itemId: number,
  imageUrl: string,
) => Promise<{ width: number; height: number } | undefined>;

const MAX_IMAGES = 6;
/** Not a lead image: avatars, icons, logos, tracking pixels, spacers, badges. */
const NOT_A_PICTURE =
  /(?:avatar|gravatar|favicon|icon|logo|sprite|pixel|spacer|blank|badge|emoji|1x1|tracking|beacon)|\.(?:svg|ico)(?:$|\?)|[?&](?:s|size)=\d{1,2}(?:&|$)/i;
/** Images whose known size is this small are icons or pixels. */
const MIN_SIDE = 100;

export async function imagesFor(hits: SearchHit[], lookup?: ImageSizeLookup): Promise<ImageRef[]> {
  const out: ImageRef[] = [];
  const seen = new Set<string>();
  for (const hit of hits) {
    if (out.length >= MAX_IMAGES) break;
    const url = hit.imageUrl;
    if (!url || seen.has(url) || !/^https?:\/\//i.test(url) || NOT_A_PICTURE.test(url)) continue;
    seen.add(url);
    const size = (hit.itemId !== null ? await lookup?.(hit.itemId, url) : undefined) ??
      sizeFromUrl(url) ?? { width: 0, height: 0 };
    if ((size.width && size.width < MIN_SIDE) || (size.height && size.height < MIN_SIDE)) continue;
    out.push({ image_url: url, origin_url: hit.url, title: hit.title, width: size.width, height: size.height });
  }
  return out;
}

export function sizeFromUrl(url: string): { width: number; height: number } | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  const p = u.searchParams;
  const w = Number(p.get('w') ?? p.get('width') ?? NaN);
  const h = Number(p.get('h') ?? p.get('height') ?? NaN);
  if (w > 0 && h > 0) return { width: Math.round(w), height: Math.round(h) };
  const m = /(?:^|[/_-])(\d{2,5})x(\d{2,5})(?:[/._-]|$)/.exec(u.pathname);
  if (m) return { width: Number(m[1]), height: Number(m[2]) };
  return undefined;
}

/** Width/height attributes of the <img> whose src is imageUrl in an article's HTML. */
export function sizeFromHtml(html: string, imageUrl: string): { width: number; height: number } | undefined {
  for (const m of html.matchAll(/<img\b[^>]*>/gi)) {
    const tag = m[0];
    const src = /\bsrc\s*=\s*["']([^"']+)["']/i.exec(tag)?.[1]?.replace(/&amp;/g, '&');
    if (src !== imageUrl) continue;
    const w = Number(/\bwidth\s*=\s*["']?(\d+)/i.exec(tag)?.[1] ?? NaN);
    const h = Number(/\bheight\s*=\s*["']?(\d+)/i.exec(tag)?.[1] ?? NaN);
    if (w > 0 && h > 0) return { width: w, height: h };
  }
  return undefined;
}
