// The Fever API's repository for one App (prepared statements live with it).
import { perApp, type App } from '../app.ts';
import type { FeverRepository } from '../store/repositories.ts';
import { SqliteFeverRepository } from '../store/sqlite/fever.ts';

export const feverStore: (app: App) => FeverRepository = perApp((app) => new SqliteFeverRepository(app.db));
