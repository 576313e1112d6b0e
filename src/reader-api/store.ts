// The Reader API's repositories for one App, created once (prepared statements live with them).
import { perApp, type App } from '../app.ts';
import type { ItemStateRepository, ReaderLabelRepository, StreamRepository } from '../store/repositories.ts';
import { SqliteStreamRepository } from '../store/sqlite/streams.ts';
import { SqliteItemStateRepository } from '../store/sqlite/item-states.ts';
import { SqliteReaderLabelRepository } from '../store/sqlite/reader-labels.ts';

export interface ReaderStore {
  streams: StreamRepository;
  states: ItemStateRepository;
  labels: ReaderLabelRepository;
}

export const readerStore: (app: App) => ReaderStore = perApp((app) => ({
  streams: new SqliteStreamRepository(app.db),
  states: new SqliteItemStateRepository(app.db),
  labels: new SqliteReaderLabelRepository(app.db),
}));
