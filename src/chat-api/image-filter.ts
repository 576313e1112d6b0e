// image_domain_filter: keeps images whose page or image host matches the allow list, or drops
// those matching a deny list ('-' entries), the same syntax as search_domain_filter.
import type { ImageRef } from '../answer/types.ts';

function hostOf(entry: string): string {
  const e = entry.replace(/^-/, '');
  try {
    return new URL(/^https?:\/\//i.test(e) ? e : `https://${e}`).hostname.toLowerCase();
  } catch {
    return e.toLowerCase();
  }
}
const matches = (host: string, domain: string): boolean => host === domain || host.endsWith(`.${domain}`);

export function filterImages(images: ImageRef[], filter: string[] | undefined): ImageRef[] {
  if (!filter?.length) return images;
  const deny = filter[0].startsWith('-');
  const domains = filter.map(hostOf);
  return images.filter((img) => {
    const hosts = [img.image_url, img.origin_url].map((u) => {
      try {
        return new URL(u).hostname.toLowerCase();
      } catch {
        return '';
      }
    });
    const hit = hosts.some((h) => domains.some((d) => matches(h, d)));
    return deny ? !hit : hit;
  });
}
