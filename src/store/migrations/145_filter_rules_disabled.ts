// Migration 145: a filter rule whose regular expression keeps running out of time is disabled
// (src/rules, issue 25): `timeouts` counts its time-outs in a row (a batch it matches in time
// resets it), `disabled_at`/`disabled_reason` say since when and why; the user sees both and
// re-enables the rule (`tidings rule enable`, the web app).
import type { Migration } from './migration.ts';

const sqlite = `
ALTER TABLE filter_rules ADD COLUMN timeouts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE filter_rules ADD COLUMN disabled_at INTEGER;
ALTER TABLE filter_rules ADD COLUMN disabled_reason TEXT;
`;

const postgres = `
ALTER TABLE filter_rules ADD COLUMN timeouts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE filter_rules ADD COLUMN disabled_at BIGINT;
ALTER TABLE filter_rules ADD COLUMN disabled_reason TEXT;
`;

export const migration: Migration = { id: '145_filter_rules_disabled', sqlite, postgres };
