// The streams of a user's library: the system states, a label (folder or tag) and a feed, and
// their names. Tidings names streams as Google Reader does (`user/-/state/com.google/<state>`,
// `user/-/label/<name>`, `feed/<url>`), so the catalogue and every client share one spelling;
// reading the forms clients send (and the item id syntax) is the Reader API's (reader-api/ids.ts).

export const SYSTEM_STATES = ['read', 'starred', 'broadcast', 'like', 'saved-web-pages', 'reading-list'] as const;
export type SystemState = (typeof SYSTEM_STATES)[number];

export type StreamId =
  | { kind: 'state'; state: SystemState }
  | { kind: 'label'; name: string }
  | { kind: 'feed'; url: string };

export const READING_LIST: StreamId = { kind: 'state', state: 'reading-list' };

export function stateStreamId(state: SystemState): string {
  return `user/-/state/com.google/${state}`;
}
export function labelStreamId(name: string): string {
  return `user/-/label/${name}`;
}
export function feedStreamId(url: string): string {
  return `feed/${url}`;
}
export function formatStreamId(s: StreamId): string {
  return s.kind === 'state' ? stateStreamId(s.state) : s.kind === 'label' ? labelStreamId(s.name) : feedStreamId(s.url);
}
