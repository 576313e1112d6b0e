// The Fever API's repository, taken from the App's store.
import type { App } from '../runtime/app.ts';
import type { FeverRepository } from '../store/repositories.ts';

export const feverStore = (app: App): FeverRepository => app.store.fever;
