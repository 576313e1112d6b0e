// HTML escaping, once for the codebase. Two strengths on purpose: element text needs only & < >
// escaped, and the feed pipeline relies on that exact form (verbatim-safe.ts checks sanitized
// output byte for byte); values that may land in an attribute need quotes escaped too.

/** Escapes text for element content: & < >. */
export function escapeHtmlText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for element content or a quoted attribute value: & < > " '. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}
