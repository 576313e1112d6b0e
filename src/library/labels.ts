// The rules of the user's labels (a folder is a label on feeds, a tag a label on items; one name
// can be both), the same from every client.
import type { App } from '../runtime/app.ts';
import { labelNameProblem } from '../feeds/index.ts';

/**
 * Why a name cannot be given to a new folder or tag (too long, line breaks, control or bidi
 * override characters), as a phrase, or null. Only names being created are checked, so an old odd
 * label can still be renamed or deleted.
 */
export function newLabelProblem(app: App, name: string): string | null {
  return labelNameProblem(name, app.config.maxLabelLength);
}

/** Renames a folder or tag; renaming onto an existing name merges the two. */
export function renameLabel(app: App, userId: number, labelId: number, newName: string): Promise<void> {
  return app.store.readerLabels.renameLabel(userId, labelId, newName);
}

/** Deletes a folder or tag: subscriptions stay (unfiled), items lose the tag. */
export function deleteLabel(app: App, userId: number, labelId: number): Promise<void> {
  return app.store.readerLabels.deleteLabel(userId, labelId);
}
