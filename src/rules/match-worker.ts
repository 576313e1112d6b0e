// Filter rule matching as a parse pool job (ParsePool.runModule): a user's rules over a batch of items,
// on a worker thread, so a slow regular expression never holds the thread serving HTTP. Each rule
// runs under its own time limit and all of them under the user's budget for the batch.
import type { RuleCondition, RuleItem, RuleField } from '../model/rule.ts';
import { matchingItems, RuleInputError, RuleTimeoutError } from './match.ts';

export interface RuleMatchJob {
  rules: { id: number; conditions: RuleCondition[] }[];
  items: RuleItem[];
  /** Time limit of one rule over the batch. */
  ruleLimitMs: number;
  /** Time all the rules of the job may take together. */
  budgetMs: number;
}

export type RuleMatchResult =
  | { id: number; matched: number[] }
  /** The rule alone ran out of its time limit: counts towards disabling it. */
  | { id: number; timedOut: string }
  /** Not run (or stopped) because the user's budget ran out; says why, counts against no rule. */
  | { id: number; skipped: string }
  | { id: number; invalid: string };

export function runInWorker(job: RuleMatchJob): RuleMatchResult[] {
  const deadline = performance.now() + job.budgetMs;
  const texts = new Map<RuleItem, Map<RuleField, string>>();
  const budgetGone = `not run on ${job.items.length} item(s): your rules used up their ${job.budgetMs} ms budget for one batch of new items (a slow rule before it; see the rules with errors)`;
  return job.rules.map((rule) => {
    const left = Math.floor(deadline - performance.now());
    if (left < 1) return { id: rule.id, skipped: budgetGone };
    const limit = Math.min(job.ruleLimitMs, left);
    try {
      return { id: rule.id, matched: matchingItems(rule.conditions, job.items, texts, limit) };
    } catch (e) {
      if (e instanceof RuleTimeoutError)
        return limit < job.ruleLimitMs ? { id: rule.id, skipped: budgetGone } : { id: rule.id, timedOut: e.message };
      if (e instanceof RuleInputError) return { id: rule.id, invalid: e.message };
      throw e;
    }
  });
}
