// Checking and running the conditions of filter rules. Hostile regular expressions are stopped
// twice: at creation, safe-regex2 (the checker Fastify uses for its routes) refuses patterns with
// nested quantifiers — the classic exponential backtracking shape — and regex-shape.ts refuses
// unbounded repetitions in a row that overlap (polynomial: (.*)(.*)x$); at run time every rule's
// matching over a batch of items runs on a worker thread (match-worker.ts) inside node:vm with a
// time limit, which interrupts V8's regex engine, for the shapes a static check cannot see
// (overlapping alternatives like (a|a)*b). A rule that runs out of time is skipped and its error
// recorded; one that keeps doing so is disabled (rules.ts).
//
// V8's backtracking engine rather than a linear-time one: measured on 64 KiB of text (issue 25),
// re2-wasm 1.0.2 took 0.5-1.8 ms per ordinary pattern (V8: 0.01-0.04 ms) and re2js 2.10.0 9-18 ms,
// 50-1000x slower on every rule of every user to protect against the rare hostile one, which the
// worker, the time limits and the budget already bound; re2-wasm also frees no compiled pattern
// (no delete on its embind object) and knows no lookbehind, which word conditions use; the native
// re2 package builds or downloads a binary at install.
import vm from 'node:vm';
import safeRegex from 'safe-regex2';
import { polynomialShape } from './regex-shape.ts';
import { htmlToText } from '../text/html-to-text.ts';
import { RULE_FIELDS, type RuleCondition, type RuleField, type RuleItem } from '../model/rule.ts';

const MAX_PATTERN_CHARS = 500;
/** Characters of an item's text that rules look at (the start of a long article says what it is). */
const MAX_MATCH_CHARS = 64 * 1024;
/** Time limit of one rule over one batch of items. */
export const RULE_TIME_LIMIT_MS = 250;

export class RuleInputError extends Error {}
/** The user has no rule with that id (another user's rule counts as none). */
export class RuleNotFoundError extends RuleInputError {}
export class RuleTimeoutError extends Error {}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The RegExp a condition stands for (case-insensitive, Unicode); throws RuleInputError when unusable. */
export function conditionRegex(c: RuleCondition): RegExp {
  if (!RULE_FIELDS.includes(c.field))
    throw new RuleInputError(`unknown field "${c.field}": use ${RULE_FIELDS.join(', ')}`);
  const pattern = c.pattern ?? '';
  if (!pattern.trim())
    throw new RuleInputError(`the ${c.field} condition is empty: give words or a regular expression`);
  if (pattern.length > MAX_PATTERN_CHARS)
    throw new RuleInputError(
      `the ${c.field} pattern is ${pattern.length} characters long: at most ${MAX_PATTERN_CHARS}`,
    );
  if (c.kind === 'words') {
    const words = pattern
      .split(/[\s,]+/)
      .filter(Boolean)
      .map(escapeRegex);
    // Whole words in any script: not preceded or followed by a letter or digit.
    return new RegExp(`(?<![\\p{L}\\p{N}])(?:${words.join('|')})(?![\\p{L}\\p{N}])`, 'iu');
  }
  if (c.kind !== 'regex') throw new RuleInputError(`unknown condition kind "${c.kind}": use regex or words`);
  let re: RegExp;
  try {
    re = new RegExp(pattern, 'iu');
  } catch (e) {
    throw new RuleInputError(
      `the ${c.field} pattern is not a valid regular expression: ${(e as Error).message.replace(/^Invalid regular expression: /, '')}`,
    );
  }
  if (!safeRegex(re, { limit: 25 })) {
    throw new RuleInputError(
      `the ${c.field} pattern ${JSON.stringify(pattern)} could take exponential time (nested repetition like (a+)+): simplify it, e.g. list words with | instead of repeating a group`,
    );
  }
  const shape = polynomialShape(pattern);
  if (shape) {
    throw new RuleInputError(
      `the ${c.field} pattern ${JSON.stringify(pattern)} could take polynomial time: it repeats without bound twice in a row over the same characters (${shape}), so a text that does not match is split every possible way between them. Merge them into one, or require something between them that neither matches (e.g. \\w+\\s+\\w+ rather than \\w+\\s*\\w+)`,
    );
  }
  return re;
}

/** The text of one field of an item, as rules see it (plain text, capped). */
function fieldText(item: RuleItem, field: RuleField): string {
  switch (field) {
    case 'title':
      return item.title.slice(0, MAX_MATCH_CHARS);
    case 'author':
      return (item.author ?? '').slice(0, MAX_MATCH_CHARS);
    case 'url':
      return (item.url ?? '').slice(0, MAX_MATCH_CHARS);
    case 'content': {
      // Content and summary both: a full-text article keeps the feed's summary beside it.
      const text = htmlToText(item.content ?? '', { singleLine: true });
      const summary =
        item.summary && item.summary !== item.content ? htmlToText(item.summary, { singleLine: true }) : '';
      return (summary ? `${text} ${summary}` : text).slice(0, MAX_MATCH_CHARS);
    }
  }
}

function matchAll(regexes: RegExp[], texts: string[][]): number[] {
  const out: number[] = [];
  outer: for (let i = 0; i < texts.length; i++) {
    for (let c = 0; c < regexes.length; c++) if (!regexes[c]!.test(texts[i]![c]!)) continue outer;
    out.push(i);
  }
  return out;
}

// One context for the process; each call only swaps its inputs (creating a context costs ~1 ms).
const sandbox = vm.createContext({ regexes: [] as RegExp[], texts: [] as string[][] });
vm.runInContext(`globalThis.matchAll = ${matchAll.toString()}`, sandbox);
const runMatchAll = new vm.Script('matchAll(regexes, texts)');

/**
 * Indexes of the items matching every condition. Word lists are built from escaped literals
 * (linear time) and run directly; rules with a user regex run under the time limit and throw
 * RuleTimeoutError when they exceed it over this batch.
 */
export function matchingItems(
  conditions: RuleCondition[],
  items: RuleItem[],
  texts: Map<RuleItem, Map<RuleField, string>>,
  timeLimitMs = RULE_TIME_LIMIT_MS,
): number[] {
  if (!items.length) return [];
  const regexes = conditions.map(conditionRegex);
  const fieldTexts = items.map((item) =>
    conditions.map((c) => {
      let byField = texts.get(item);
      if (!byField) {
        byField = new Map();
        texts.set(item, byField);
      }
      let t = byField.get(c.field);
      if (t === undefined) {
        t = fieldText(item, c.field);
        byField.set(c.field, t);
      }
      return t;
    }),
  );
  if (conditions.every((c) => c.kind === 'words')) return matchAll(regexes, fieldTexts);
  sandbox.regexes = regexes;
  sandbox.texts = fieldTexts;
  try {
    return [...(runMatchAll.runInContext(sandbox, { timeout: timeLimitMs }) as number[])];
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') {
      throw new RuleTimeoutError(
        `the rule's regular expression took longer than ${timeLimitMs} ms over ${items.length} item(s) and was stopped: simplify it`,
      );
    }
    throw e;
  } finally {
    sandbox.regexes = [];
    sandbox.texts = [];
  }
}
