// URLs that leave the parser: absolute, and only http(s). A hostile feed must not hand readers a
// javascript:, data: or file: link, icon or enclosure; tag: and urn: "links" are identifiers, not pages.

/** Resolves a possibly relative URL against a base; null for empty, unusable or non-http(s) results. */
export function resolveUrl(value: string | null | undefined, base: string | null | undefined): string | null {
  if (!value) return null;
  const v = value.trim();
  if (!v) return null;
  let url: URL;
  try {
    url = base ? new URL(v, base) : new URL(v);
  } catch {
    return null;
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
}

/** Resolves a base (xml:base) against an outer base, falling back to the outer one. */
export function resolveBase(xmlBase: string | null | undefined, outer: string | null): string | null {
  return resolveUrl(xmlBase, outer) ?? outer;
}
