// OAuth scopes: "read" (every GET and read-only call) and "write" (changes). Write implies read.
// Requests may ask for "read", "read write" or "write" (treated as "read write"); an empty or
// absent scope means "read" (least privilege; the consent page shows what is granted).
import type { Scope } from '../model/auth.ts';

/** Parses a space-delimited scope string; undefined when it names an unknown scope. */
export function parseScopes(raw: string | undefined | null): Set<Scope> | undefined {
  const words = (raw ?? '').split(/[\s+,]+/).filter(Boolean);
  const out = new Set<Scope>(['read']);
  for (const w of words) {
    if (w === 'read') continue;
    if (w === 'write') {
      out.add('write');
      continue;
    }
    return undefined;
  }
  return out;
}

/** Canonical text form, as stored and returned in token responses: "read" or "read write". */
export function formatScopes(scopes: ReadonlySet<Scope>): string {
  return scopes.has('write') ? 'read write' : 'read';
}

export function isSubset(a: ReadonlySet<Scope>, b: ReadonlySet<Scope>): boolean {
  for (const s of a) if (!b.has(s)) return false;
  return true;
}
