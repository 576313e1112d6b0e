/** Resolves a possibly relative URL against a base; returns null for empty input or unusable results. */
export function resolveUrl(value: string | null | undefined, base: string | null | undefined): string | null {
  if (!value) return null;
  const v = value.trim();
  if (!v) return null;
  try {
    return base ? new URL(v, base).href : new URL(v).href;
  } catch {
    // Unresolvable (no valid base): keep an absolute-looking value, drop garbage.
    return /^[a-z][a-z0-9+.-]*:/i.test(v) ? v : null;
  }
}

/** Resolves a base (xml:base) against an outer base, falling back to the outer one. */
export function resolveBase(xmlBase: string | null | undefined, outer: string | null): string | null {
  return resolveUrl(xmlBase, outer) ?? outer;
}
