// Per-user reading preferences of the web app. Stored as one JSON object; unknown keys are refused
// so a typo in a script's PUT is not silently ignored.
import type { App } from '../runtime/app.ts';
import { webStore } from './repositories.ts';
import { badRequest } from './errors.ts';

export interface WebSettings {
  /** Opening an article marks it read (Miniflux, Inoreader default). */
  markReadOnOpen: boolean;
  /** Article lists oldest first instead of newest first. */
  oldestFirst: boolean;
  /** Feed and folder views show unread articles only. */
  unreadOnly: boolean;
  /**
   * How lists look: `list` (title, source, two lines of text), `compact` (one line per article,
   * FreshRSS/Inoreader density), `cards` (a grid with each article's lead image). Kept per user on
   * the server, so it follows the user to another browser.
   */
  listView: ListView;
}

export const LIST_VIEWS = ['list', 'compact', 'cards'] as const;
export type ListView = (typeof LIST_VIEWS)[number];

const DEFAULT_SETTINGS: WebSettings = { markReadOnOpen: true, oldestFirst: false, unreadOnly: false, listView: 'list' };

export async function loadSettings(app: App, userId: number): Promise<WebSettings> {
  const raw = await webStore(app).accounts.settings(userId);
  if (!raw) return { ...DEFAULT_SETTINGS };
  try {
    return { ...DEFAULT_SETTINGS, ...(JSON.parse(raw) as Partial<WebSettings>) };
  } catch {
    return { ...DEFAULT_SETTINGS };
  }
}

export async function updateSettings(app: App, userId: number, patch: unknown): Promise<WebSettings> {
  if (!patch || typeof patch !== 'object' || Array.isArray(patch))
    throw badRequest('send a JSON object of settings, e.g. {"markReadOnOpen": false}');
  const next = await loadSettings(app, userId);
  for (const [k, v] of Object.entries(patch)) {
    if (!(k in DEFAULT_SETTINGS))
      throw badRequest(`unknown setting "${k}": settings are ${Object.keys(DEFAULT_SETTINGS).join(', ')}`, k);
    if (k === 'listView') {
      if (!LIST_VIEWS.includes(v as ListView)) throw badRequest(`listView must be one of ${LIST_VIEWS.join(', ')}`, k);
    } else if (typeof v !== 'boolean') throw badRequest(`${k} must be true or false`, k);
    (next as unknown as Record<string, unknown>)[k] = v;
  }
  await webStore(app).accounts.saveSettings(userId, JSON.stringify(next));
  return next;
}
