// The Reader API's repositories, taken from the App's store.
import { perApp } from '../runtime/per-app.ts';
import type { App } from '../runtime/app.ts';
import type { ItemStateRepository, ReaderLabelRepository, StreamRepository } from '../store/repositories.ts';

export interface ReaderStore {
  streams: StreamRepository;
  states: ItemStateRepository;
  labels: ReaderLabelRepository;
}

export const readerStore: (app: App) => ReaderStore = perApp((app) => ({
  streams: app.store.streams,
  states: app.store.itemStates,
  labels: app.store.readerLabels,
}));
