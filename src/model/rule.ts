// Per-user filter rules (src/rules): conditions on an item's visible fields, and what to do with
// that user's copy of a matching item.

export type RuleField = 'title' | 'content' | 'author' | 'url';
export const RULE_FIELDS: RuleField[] = ['title', 'content', 'author', 'url'];

/** `regex`: a JavaScript regular expression (case-insensitive); `words`: any of these whole words. */
export interface RuleCondition {
  field: RuleField;
  kind: 'regex' | 'words';
  pattern: string;
}

export type RuleAction = 'block' | 'keep-only' | 'mark-read' | 'star' | 'label';
export const RULE_ACTIONS: RuleAction[] = ['block', 'keep-only', 'mark-read', 'star', 'label'];

export type RuleScope = { kind: 'all' } | { kind: 'feed'; feedId: number } | { kind: 'folder'; labelId: number };

export interface FilterRule {
  id: number;
  userId: number;
  scope: RuleScope;
  /** All must match. */
  conditions: RuleCondition[];
  action: RuleAction;
  /** The label added by action 'label'. */
  label: string | null;
  createdAt: number;
  /** Time-outs in a row of its regular expression (a batch matched in time resets it). */
  timeouts: number;
}

/** A rule as listed: its scope named (feed URL, folder name), and its last failure. */
export interface FilterRuleView extends FilterRule {
  scopeName: string;
  lastError: string | null;
  lastErrorAt: number | null;
  /** Set when the rule was disabled for running out of time again and again; null while active. */
  disabledAt: number | null;
  disabledReason: string | null;
}

export interface NewFilterRule {
  userId: number;
  scope: RuleScope;
  conditions: RuleCondition[];
  action: RuleAction;
  label: string | null;
}

/** What a rule looks at in an item. */
export interface RuleItem {
  id: number;
  feedId: number;
  title: string;
  author: string | null;
  url: string | null;
  content: string | null;
  summary: string | null;
}
