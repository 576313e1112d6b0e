// Filter rules and the items they hid (src/rules). Hiding moves the user's user_items row into
// rule_hidden_items (flags kept), so the item leaves every stream, count and API at once (the
// unread counter triggers follow), and removing the rule moves it back.
import type { Sql } from '../sql.ts';
import type { FilterRuleRepository } from '../repositories.ts';
import type { FilterRule, FilterRuleView, NewFilterRule, RuleItem } from '../../model/rule.ts';
import { type Row, COLUMNS, toRule } from '../rows/filter-rules.ts';

export class SqlFilterRuleRepository implements FilterRuleRepository {
  private readonly s: Sql;
  constructor(sql: Sql) {
    this.s = sql;
  }

  async create(rule: NewFilterRule, now: number): Promise<FilterRule> {
    const row = (await this.s
      .prepare(`INSERT INTO filter_rules (user_id, scope, feed_id, label_id, conditions, action, action_label, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id, user_id, scope, feed_id, label_id, conditions, action, action_label, created_at, timeouts`)
      .get(
        rule.userId,
        rule.scope.kind,
        rule.scope.kind === 'feed' ? rule.scope.feedId : null,
        rule.scope.kind === 'folder' ? rule.scope.labelId : null,
        JSON.stringify(rule.conditions),
        rule.action,
        rule.label,
        now,
      )) as unknown as Row;
    return toRule(row);
  }

  async list(userId: number): Promise<FilterRuleView[]> {
    const rows = (await this.s
      .prepare(`SELECT ${COLUMNS}, coalesce(f.url, l.name, '') AS scope_name, r.last_error, r.last_error_at, r.disabled_at, r.disabled_reason FROM filter_rules r
      LEFT JOIN feeds f ON f.id = r.feed_id LEFT JOIN labels l ON l.id = r.label_id WHERE r.user_id = ? ORDER BY r.id`)
      .all(userId)) as unknown as (Row & {
      scope_name: string;
      last_error: string | null;
      last_error_at: number | null;
      disabled_at: number | null;
      disabled_reason: string | null;
    })[];
    return rows.map((r) => ({
      ...toRule(r),
      scopeName: r.scope_name,
      lastError: r.last_error,
      lastErrorAt: r.last_error_at,
      disabledAt: r.disabled_at,
      disabledReason: r.disabled_reason,
    }));
  }

  async find(userId: number, id: number): Promise<FilterRule | undefined> {
    const r = (await this.s
      .prepare(`SELECT ${COLUMNS} FROM filter_rules r WHERE r.user_id = ? AND r.id = ?`)
      .get(userId, id)) as Row | undefined;
    return r && toRule(r);
  }

  async delete(userId: number, id: number): Promise<{ deleted: boolean; restored: number }> {
    return this.s.transaction(async () => {
      if (!(await this.s.prepare('SELECT 1 FROM filter_rules WHERE user_id = ? AND id = ?').get(userId, id)))
        return { deleted: false, restored: 0 };
      // Back into the user's streams, unread counters through the insert trigger; items of feeds
      // the user left meanwhile stay out, as unsubscribing would have removed them.
      const restored = Number(
        (
          await this.s
            .prepare(`INSERT OR IGNORE INTO user_items (user_id, item_id, feed_id, crawled_us, read, liked, broadcast, saved)
        SELECT h.user_id, h.item_id, h.feed_id, h.crawled_us, h.read, h.liked, h.broadcast, h.saved FROM rule_hidden_items h
        WHERE h.rule_id = ? AND EXISTS (SELECT 1 FROM subscriptions s WHERE s.user_id = h.user_id AND s.feed_id = h.feed_id)`)
            .run(id)
        ).changes,
      );
      await this.s.prepare('DELETE FROM filter_rules WHERE id = ?').run(id); // hidden rows go by cascade
      return { deleted: true, restored };
    });
  }

  async rulesCoveringFeed(feedId: number): Promise<FilterRule[]> {
    return (
      (await this.s
        .prepare(`SELECT ${COLUMNS} FROM subscriptions s JOIN filter_rules r ON r.user_id = s.user_id
      WHERE s.feed_id = ?1 AND r.disabled_at IS NULL AND (r.scope = 'all' OR r.feed_id = ?1
        OR r.label_id IN (SELECT label_id FROM subscription_labels WHERE subscription_id = s.id)) ORDER BY r.user_id, r.id`)
        .all(feedId)) as unknown as Row[]
    ).map(toRule);
  }

  async userRulesCoveringFeed(userId: number, feedId: number): Promise<FilterRule[]> {
    return (
      (await this.s
        .prepare(`SELECT ${COLUMNS} FROM subscriptions s JOIN filter_rules r ON r.user_id = s.user_id
      WHERE s.user_id = ?1 AND s.feed_id = ?2 AND r.disabled_at IS NULL AND (r.scope = 'all' OR r.feed_id = ?2
        OR r.label_id IN (SELECT label_id FROM subscription_labels WHERE subscription_id = s.id)) ORDER BY r.id`)
        .all(userId, feedId)) as unknown as Row[]
    ).map(toRule);
  }

  async scopeFeedIds(rule: FilterRule): Promise<number[]> {
    const rows =
      rule.scope.kind === 'all'
        ? await this.s.prepare('SELECT feed_id AS id FROM subscriptions WHERE user_id = ?').all(rule.userId)
        : rule.scope.kind === 'feed'
          ? await this.s
              .prepare('SELECT feed_id AS id FROM subscriptions WHERE user_id = ? AND feed_id = ?')
              .all(rule.userId, rule.scope.feedId)
          : await this.s
              .prepare(`SELECT s.feed_id AS id FROM subscriptions s JOIN subscription_labels sl ON sl.subscription_id = s.id
            WHERE s.user_id = ? AND sl.label_id = ?`)
              .all(rule.userId, rule.scope.labelId);
    return (rows as { id: number }[]).map((r) => r.id);
  }

  async ruleItems(itemIds: number[]): Promise<RuleItem[]> {
    if (!itemIds.length) return [];
    return (await this.s
      .prepare(`SELECT id, feed_id AS feedId, title, author, url, content, summary FROM items
      WHERE id IN (SELECT value FROM json_each(?))`)
      .all(JSON.stringify(itemIds))) as unknown as RuleItem[];
  }

  async userItemIds(userId: number, feedIds: number[], afterId: number, limit: number): Promise<number[]> {
    if (!feedIds.length) return [];
    return (
      (await this.s
        .prepare(`SELECT item_id AS id FROM user_items WHERE user_id = ? AND feed_id IN (SELECT value FROM json_each(?))
      AND item_id > ? ORDER BY item_id LIMIT ?`)
        .all(userId, JSON.stringify(feedIds), afterId, limit)) as { id: number }[]
    ).map((r) => r.id);
  }

  async setError(ruleId: number, error: string | null, at: number): Promise<void> {
    await this.s
      .prepare(
        `UPDATE filter_rules SET last_error = ?, last_error_at = ?${error === null ? ', timeouts = 0' : ''} WHERE id = ?`,
      )
      .run(error, error === null ? null : at, ruleId);
  }

  async recordTimeout(
    ruleId: number,
    error: string,
    at: number,
    disableAfter: number,
    reason: string,
  ): Promise<boolean> {
    const row = (await this.s
      .prepare(`UPDATE filter_rules SET timeouts = timeouts + 1, last_error = ?1, last_error_at = ?2,
        disabled_at = CASE WHEN timeouts + 1 >= ?3 THEN coalesce(disabled_at, ?2) ELSE disabled_at END,
        disabled_reason = CASE WHEN timeouts + 1 >= ?3 THEN coalesce(disabled_reason, ?4) ELSE disabled_reason END
        WHERE id = ?5 RETURNING disabled_at`)
      .get(error, at, disableAfter, reason, ruleId)) as { disabled_at: number | null } | undefined;
    return row?.disabled_at != null;
  }

  async enable(userId: number, id: number): Promise<boolean> {
    const r = await this.s
      .prepare(`UPDATE filter_rules SET disabled_at = NULL, disabled_reason = NULL, timeouts = 0, last_error = NULL,
        last_error_at = NULL WHERE user_id = ? AND id = ?`)
      .run(userId, id);
    return Number(r.changes) > 0;
  }

  async hide(userId: number, ruleId: number, itemIds: number[]): Promise<number> {
    if (!itemIds.length) return 0;
    return this.s.transaction(async () => {
      const ids = JSON.stringify(itemIds);
      // Starred or tagged items were kept on purpose by the user: a rule never hides them.
      const keep = `ui.user_id = ?1 AND ui.item_id IN (SELECT value FROM json_each(?2)) AND ui.starred = 0
        AND NOT EXISTS (SELECT 1 FROM item_labels il WHERE il.user_id = ui.user_id AND il.item_id = ui.item_id)`;
      await this.s
        .prepare(`INSERT OR IGNORE INTO rule_hidden_items (user_id, item_id, rule_id, feed_id, crawled_us, read, liked, broadcast, saved)
        SELECT ui.user_id, ui.item_id, ?3, ui.feed_id, ui.crawled_us, ui.read, ui.liked, ui.broadcast, ui.saved FROM user_items ui WHERE ${keep}`)
        .run(userId, ids, ruleId);
      return Number(
        (
          await this.s
            .prepare(`DELETE FROM user_items AS ui WHERE ${keep}
        AND EXISTS (SELECT 1 FROM rule_hidden_items h WHERE h.user_id = ui.user_id AND h.item_id = ui.item_id)`)
            .run(userId, ids)
        ).changes,
      );
    });
  }
}
