// Resolves a SearchScope to what the index filters on. Stream ids are Google Reader's
// (feed/<url>, user/-/label/<name>, user/-/state/com.google/<state>), always read relative to the
// requesting user: a user can only name feeds they subscribe to and their own labels, so one user
// never reaches another user's folders, tags or private feeds.
import type { SearchScope } from './types.ts';
import type { PassageScope, SearchIndexRepository } from '../store/repositories.ts';
import { SearchFilterError } from './types.ts';

/** The parameter named in errors about stream ids (the chat API's extension parameter). */
export const STREAMS_PARAM = 'search_streams';

const STATES: Record<string, 'starred' | 'read' | 'liked' | 'reading-list'> = {
  starred: 'starred',
  read: 'read',
  like: 'liked',
  'reading-list': 'reading-list',
};

export async function resolveScope(scope: SearchScope, repo: SearchIndexRepository): Promise<PassageScope> {
  if (scope.kind === 'instance') return { kind: 'instance' };
  if (scope.kind === 'subscriptions') return { kind: 'subscriptions', userId: scope.userId };
  if (!Array.isArray(scope.streamIds) || scope.streamIds.length === 0) {
    throw new SearchFilterError(
      STREAMS_PARAM,
      `${STREAMS_PARAM} must list at least one stream id (feed/<url>, user/-/label/<name>, user/-/state/com.google/starred)`,
    );
  }
  const userId = scope.userId;
  const feedIds = new Set<number>();
  const taggedLabelIds = new Set<number>();
  const states = new Set<'starred' | 'read' | 'liked'>();
  for (const id of scope.streamIds) {
    if (typeof id !== 'string') throw new SearchFilterError(STREAMS_PARAM, `${STREAMS_PARAM} entries must be strings`);
    if (id.startsWith('feed/')) {
      const feedId = await repo.subscribedFeedIdByUrl(userId, id.slice(5));
      if (feedId === undefined) throw new SearchFilterError(STREAMS_PARAM, `${STREAMS_PARAM}: not subscribed to ${id}`);
      feedIds.add(feedId);
      continue;
    }
    const user = /^user\/(-|\d+)\/(label|state\/com\.google)\/(.+)$/.exec(id);
    if (!user || (user[1] !== '-' && Number(user[1]) !== userId)) {
      throw new SearchFilterError(
        STREAMS_PARAM,
        `${STREAMS_PARAM}: ${JSON.stringify(id)} is not a stream id of yours (use feed/<url>, user/-/label/<name> or user/-/state/com.google/starred)`,
      );
    }
    if (user[2] === 'label') {
      const label = await repo.label(userId, user[3]!);
      if (!label)
        throw new SearchFilterError(
          STREAMS_PARAM,
          `${STREAMS_PARAM}: no folder or tag named ${JSON.stringify(user[3])}`,
        );
      // A label is a folder (the feeds in it) and a tag (the items tagged with it) at once.
      for (const f of label.folderFeedIds) feedIds.add(f);
      taggedLabelIds.add(label.id);
      continue;
    }
    const state = STATES[user[3]!];
    if (!state)
      throw new SearchFilterError(
        STREAMS_PARAM,
        `${STREAMS_PARAM}: unsupported state ${JSON.stringify(id)} (use starred, read, like or reading-list)`,
      );
    if (state === 'reading-list') return { kind: 'subscriptions', userId };
    states.add(state);
  }
  return { kind: 'streams', userId, feedIds: [...feedIds], taggedLabelIds: [...taggedLabelIds], states: [...states] };
}
