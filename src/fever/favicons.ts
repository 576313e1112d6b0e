// Favicons in the Fever shape: favicon ids are feed ids (one icon per feed), data is
// "<mime>;base64,<bytes>" as the spec shows (a client prefixes "data:").
import type { App } from '../runtime/app.ts';
import { feedIcons } from '../feeds/favicons.ts';

export async function feverFaviconIds(app: App, userId: number): Promise<Map<number, number>> {
  const ids = await feedIcons(app).feedIdsWithIcon(userId);
  return new Map(ids.map((id) => [id, id]));
}

export async function feverFavicons(app: App, userId: number): Promise<{ id: number; data: string }[]> {
  return (await feedIcons(app).forUser(userId)).map((i) => ({
    id: i.feedId,
    data: `${i.mime};base64,${Buffer.from(i.data).toString('base64')}`,
  }));
}
