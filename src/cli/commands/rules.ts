// `tidings rule add|list|remove|apply`: per-user filter rules (src/rules).
import type { Command } from 'commander';
import { type CliContext, CliError } from '../context.ts';
import type { App } from '../../runtime/app.ts';
import {
  addRule,
  applyRuleRetroactively,
  enableRule,
  listRules,
  removeRule,
  RuleInputError,
  RuleNotFoundError,
} from '../../rules/rules.ts';
import {
  RULE_ACTIONS,
  RULE_FIELDS,
  type RuleCondition,
  type RuleField,
  type FilterRuleView,
} from '../../model/rule.ts';

async function userId(app: App, name: string): Promise<number> {
  const u = await app.users.findByName(name);
  if (!u) throw new CliError(`no user "${name}" (see tidings user list)`, 2);
  return u.id;
}

function ruleId(raw: string): number {
  if (!/^\d+$/.test(raw))
    throw new CliError(`rule id must be a number (see tidings rule list <user>), got "${raw}"`, 2);
  return Number(raw);
}

async function cliErrors<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof RuleNotFoundError) throw new CliError(`${e.message} (see tidings rule list <user>)`, 2);
    if (e instanceof RuleInputError) throw new CliError(e.message, 2);
    throw e;
  }
}

function describe(r: FilterRuleView): string {
  const scope =
    r.scope.kind === 'all' ? 'everything' : r.scope.kind === 'feed' ? `feed ${r.scopeName}` : `folder ${r.scopeName}`;
  const conds = r.conditions
    .map((c) => `${c.field} ${c.kind === 'regex' ? 'matches' : 'has'} ${JSON.stringify(c.pattern)}`)
    .join(' and ');
  const action = r.action === 'label' ? `label ${JSON.stringify(r.label)}` : r.action;
  const state = r.disabledAt !== null ? `\tDISABLED: ${r.disabledReason}` : '';
  return `${r.id}\t${scope}\t${conds}\t-> ${action}${state}${r.lastError ? `\t(skipped: ${r.lastError})` : ''}`;
}

export function registerRuleCommands(program: Command, ctx: CliContext): void {
  const rule = program
    .command('rule')
    .description("filter rules: hide, keep only, mark read, star or label a user's new items by their words");
  const add = rule
    .command('add <user>')
    .description(
      'add a rule; it applies to new items of the feeds in its scope (use --apply for the items already there)',
    )
    .option('--feed <url-or-id>', 'only this subscribed feed')
    .option('--folder <name>', 'only the feeds in this folder')
    .requiredOption('--action <action>', `what to do with a matching item: ${RULE_ACTIONS.join(', ')}`)
    .option('--label <name>', 'the label to add (with --action label)')
    .option('--apply', 'also apply the rule now to the items already stored');
  for (const f of RULE_FIELDS) {
    add.option(`--${f}-matches <regex>`, `${f} matches this regular expression (case-insensitive)`);
    add.option(`--${f}-has <words>`, `${f} contains any of these whole words (space- or comma-separated)`);
  }
  add.action(async (user: string, o: Record<string, string | boolean | undefined>) => {
    const app = await ctx.app();
    const id = await userId(app, user);
    const conditions: RuleCondition[] = [];
    for (const f of RULE_FIELDS) {
      const regex = o[`${f}Matches`],
        words = o[`${f}Has`];
      if (typeof regex === 'string') conditions.push({ field: f as RuleField, kind: 'regex', pattern: regex });
      if (typeof words === 'string') conditions.push({ field: f as RuleField, kind: 'words', pattern: words });
    }
    const r = await cliErrors(() =>
      addRule(app, id, {
        feed: o.feed as string | undefined,
        folder: o.folder as string | undefined,
        conditions,
        action: String(o.action),
        label: o.label as string | undefined,
      }),
    );
    let applied = '';
    if (o.apply) {
      const a = await cliErrors(() => applyRuleRetroactively(app, id, r.id));
      applied = `; applied to stored items: ${a.matched} matched, ${a.changed} changed`;
    }
    ctx.out(`added rule ${r.id}${applied}`);
  });
  rule
    .command('list <user>')
    .description("list a user's rules")
    .option('--json', 'JSON output')
    .action(async (user: string, o: { json?: boolean }) => {
      const app = await ctx.app();
      const rules = await listRules(app, await userId(app, user));
      ctx.out(o.json ? JSON.stringify(rules) : rules.map(describe).join('\n') || '(no rules)');
    });
  rule
    .command('remove <user> <id>')
    .description('remove a rule; the items it hid come back')
    .action(async (user: string, raw: string) => {
      const app = await ctx.app();
      const uid = await userId(app, user);
      const r = await cliErrors(() => removeRule(app, uid, ruleId(raw)));
      ctx.out(`removed rule ${raw}${r.restored ? `; ${r.restored} hidden item(s) are back` : ''}`);
    });
  rule
    .command('enable <user> <id>')
    .description('enable a rule that was disabled for running out of time again and again')
    .action(async (user: string, raw: string) => {
      const app = await ctx.app();
      const uid = await userId(app, user);
      await cliErrors(() => enableRule(app, uid, ruleId(raw)));
      ctx.out(`enabled rule ${raw}`);
    });
  rule
    .command('apply <user> <id>')
    .description('apply a rule to the items already stored in its scope')
    .action(async (user: string, raw: string) => {
      const app = await ctx.app();
      const uid = await userId(app, user);
      const r = await cliErrors(() => applyRuleRetroactively(app, uid, ruleId(raw)));
      ctx.out(`rule ${raw}: ${r.matched} item(s) matched, ${r.changed} changed`);
    });
}
