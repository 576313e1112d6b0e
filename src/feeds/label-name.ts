// Folder and tag names (Reader labels) come from clients, OPML files and the CLI, and are shown in
// every client's sidebar: a 5,000-character name, a newline or a right-to-left override (which
// makes "gnp.exe" read "exe.png") would be stored and shown to the user as is. One rule for all
// ways in: at most `maxLabelLength` characters, and none of the characters below.

/**
 * Control characters (C0 with tab and newlines, DEL, C1), line/paragraph separators, the byte
 * order mark, the zero-width space, and every bidi control (marks, embeddings, overrides,
 * isolates). Zero-width (non-)joiners stay: emoji sequences and several scripts need them.
 */
const FORBIDDEN = /[\p{Cc}\u061c\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/u;
const FORBIDDEN_ALL = new RegExp(FORBIDDEN.source, 'gu');

/** Why the name cannot be a label, as a phrase ("is empty", "contains …"), or null when it can. */
export function labelNameProblem(name: string, maxLength: number): string | null {
  if (!name.trim()) return 'is empty';
  const length = [...name].length;
  if (length > maxLength)
    return `is ${length} characters long; at most ${maxLength} are allowed (TIDINGS_MAX_LABEL_LENGTH)`;
  const bad = FORBIDDEN.exec(name);
  if (bad) {
    const code = `U+${bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
    return `contains ${/[\n\r\u2028\u2029]/.test(bad[0]) ? 'a line break' : 'an invisible control character'} (${code}); labels cannot contain line breaks, control characters or text-direction overrides`;
  }
  return null;
}

/**
 * The closest acceptable name, for imports that should not fail on one odd folder name: forbidden
 * characters become spaces, runs of spaces one space, and the name is cut to `maxLength`.
 */
export function cleanLabelName(name: string, maxLength: number): string {
  const cleaned = name.replace(FORBIDDEN_ALL, ' ').replace(/\s+/g, ' ').trim();
  const chars = [...cleaned];
  return chars.length > maxLength ? chars.slice(0, maxLength).join('').trimEnd() : cleaned;
}
