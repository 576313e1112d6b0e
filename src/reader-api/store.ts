// The Reader API's repositories for one App, created once (prepared statements live with them).
import type { App } from '../app.ts';
import type { ItemStateRepository, ReaderLabelRepository, StreamRepository } from '../store/repositories.ts';
import { SqliteStreamRepository } from '../store/sqlite/streams.ts';
import { SqliteItemStateRepository } from '../store/sqlite/item-states.ts';
import { SqliteReaderLabelRepository } from '../store/sqlite/reader-labels.ts';

export interface ReaderStore {
  streams: StreamRepository;
  states: ItemStateRepository;
  labels: ReaderLabelRepository;
}

const stores = new WeakMap<App, ReaderStore>();

export function readerStore(app: App): ReaderStore {
  let s = stores.get(app);
  if (!s) {
    s = {
      streams: new SqliteStreamRepository(app.db),
      states: new SqliteItemStateRepository(app.db),
      labels: new SqliteReaderLabelRepository(app.db),
    };
    stores.set(app, s);
  }
  return s;
}
