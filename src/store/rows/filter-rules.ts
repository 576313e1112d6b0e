// Row shape and mapping of filter rules, shared by the SQLite and PostgreSQL repositories.
import type { FilterRule, RuleAction } from '../../model/rule.ts';

export interface Row {
  id: number;
  user_id: number;
  scope: 'all' | 'feed' | 'folder';
  feed_id: number | null;
  label_id: number | null;
  conditions: string;
  action: RuleAction;
  action_label: string | null;
  created_at: number;
  timeouts: number;
}
export const COLUMNS =
  'r.id, r.user_id, r.scope, r.feed_id, r.label_id, r.conditions, r.action, r.action_label, r.created_at, r.timeouts';
export function toRule(r: Row): FilterRule {
  return {
    id: r.id,
    userId: r.user_id,
    scope:
      r.scope === 'feed'
        ? { kind: 'feed', feedId: r.feed_id! }
        : r.scope === 'folder'
          ? { kind: 'folder', labelId: r.label_id! }
          : { kind: 'all' },
    conditions: JSON.parse(r.conditions),
    action: r.action,
    label: r.action_label,
    createdAt: r.created_at,
    timeouts: r.timeouts,
  };
}
