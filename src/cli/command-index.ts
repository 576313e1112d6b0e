// What `tidings --help` lists: every command's name, usage and description, so that printing the
// help (or the version, or "unknown command … Did you mean …") loads no command's module (main.ts).
// test/cli-start.test.ts fails when this table and the commands' own registrations differ: change
// both together (its message prints the table the registrations give).
export interface CommandSummary {
  name: string;
  /** As commander prints it in the list: the name, `[options]` when it has any, its arguments. */
  term: string;
  description: string;
}

export const COMMAND_INDEX: readonly CommandSummary[] = [
  { name: 'user', term: 'user', description: 'manage user accounts' },
  { name: 'feed', term: 'feed', description: 'manage feed subscriptions' },
  { name: 'opml', term: 'opml', description: 'import or export subscriptions as OPML' },
  {
    name: 'refresh',
    term: 'refresh [options]',
    description:
      'fetch every feed that is due now (with --all: every subscribed feed), then exit; exit code 0 when every feed was fetched (or none was due), 1 when some failed',
  },
  {
    name: 'oauth-client',
    term: 'oauth-client',
    description: 'register the OAuth 2.0 apps that may ask users for access',
  },
  { name: 'token', term: 'token', description: 'API tokens: create for scripts, list, revoke' },
  { name: 'key', term: 'key', description: 'manage chat completions API keys' },
  { name: 'access', term: 'access', description: 'review requests for higher rate limits (the access form)' },
  { name: 'usage', term: 'usage [options]', description: 'chat API usage and cost, totals by key and model' },
  {
    name: 'ask',
    term: 'ask [options] <question...>',
    description: 'answer a question from the stored articles, with [n] citations',
  },
  { name: 'search', term: 'search', description: 'the article search index' },
  {
    name: 'serve',
    term: 'serve [options]',
    description:
      'serve the Google Reader API and the chat completions API, and refresh feeds on schedule, until stopped (SIGINT/SIGTERM)',
  },
  {
    name: 'backup',
    term: 'backup [options] <file>',
    description: 'write a consistent copy of the database to <file>; safe while the server runs',
  },
  {
    name: 'restore',
    term: 'restore <file>',
    description:
      'replace the database with a backup made by `tidings backup`; stop the server first. The current database is kept beside it',
  },
  {
    name: 'prune',
    term: 'prune [options]',
    description:
      'delete read articles older than --days (default: retentionDays) unless starred, saved or tagged; the server does this hourly when retentionDays is set',
  },
  {
    name: 'migrate',
    term: 'migrate',
    description: 'apply pending database migrations now (start-up does it too); prints what was applied',
  },
  { name: 'db', term: 'db', description: 'database tools' },
  {
    name: 'fever-password',
    term: 'fever-password [options] <username>',
    description: 'enable the Fever API (/fever/) for a user with a separate Fever password; prints it when generated',
  },
  {
    name: 'rule',
    term: 'rule',
    description: "filter rules: hide, keep only, mark read, star or label a user's new items by their words",
  },
  {
    name: 'webhook',
    term: 'webhook',
    description: 'outgoing webhooks: POST signed JSON to a URL on new items or starring',
  },
  {
    name: 'model',
    term: 'model',
    description: 'models for answers written on this machine: download (pull), list, pick (use), remove',
  },
];
