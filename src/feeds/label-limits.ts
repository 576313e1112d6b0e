// How many folders and tags (Reader labels) a user may have, and may name in one request: 10,000
// new tags in one edit-tag call were accepted and stored (issue 25). Every way of creating labels
// from a user's input checks here first: Reader edit-tag and subscription/edit, subscribing into
// a folder (quickadd, OPML import), the web app's tags and folders.
import type { App } from '../runtime/app.ts';

/** Tag or folder names one request may name (add and remove together). */
export const MAX_LABELS_PER_REQUEST = 100;

/** Why a request naming `count` tags or folders is refused, or null. */
export function labelsPerRequestProblem(count: number): string | null {
  return count > MAX_LABELS_PER_REQUEST
    ? `too many tags or folders in one request (${count}): at most ${MAX_LABELS_PER_REQUEST}`
    : null;
}

/**
 * Why the user may not get these labels (those they lack would be created), or null: past
 * TIDINGS_MAX_LABELS_PER_USER in all.
 */
export async function labelLimitProblem(app: App, userId: number, names: readonly string[]): Promise<string | null> {
  const max = app.config.maxLabelsPerUser;
  const wanted = [...new Set(names.map((n) => n.trim()).filter(Boolean))];
  if (max <= 0 || !wanted.length) return null;
  const labels = app.store.readerLabels;
  let adding = 0;
  for (const name of wanted) if ((await labels.findLabel(userId, name)) === undefined) adding++;
  if (!adding) return null;
  const have = await labels.countLabels(userId);
  if (have + adding <= max) return null;
  return `you have ${have} folders and tags and this would add ${adding}; one user may have at most ${max} (TIDINGS_MAX_LABELS_PER_USER): delete some first`;
}
