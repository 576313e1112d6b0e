// The filter rules repository for one App.
import { perApp, type App } from '../app.ts';
import type { FilterRuleRepository } from '../store/repositories.ts';
import { SqliteFilterRuleRepository } from '../store/sqlite/filter-rules.ts';

export const ruleStore: (app: App) => FilterRuleRepository = perApp((app) => new SqliteFilterRuleRepository(app.db));
