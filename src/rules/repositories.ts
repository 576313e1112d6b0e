// The filter rules repository, taken from the App's store.
import type { App } from '../runtime/app.ts';
import type { FilterRuleRepository } from '../store/repositories.ts';

export const ruleStore = (app: App): FilterRuleRepository => app.store.filterRules;
