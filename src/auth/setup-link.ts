// The first-run setup link, issued and printed (src/web/setup.ts says what it is for and checks
// it): kept apart from the web app so that the supervisor of `serve --workers N`, which issues and
// prints the one link of a start, loads no web code.
import type { Config } from '../config/config.ts';
import type { Logger } from '../log/logger.ts';
import type { WebAccountRepository } from '../store/repositories.ts';
import { hashToken, newSecret } from './passwords.ts';

/**
 * Issues a new setup secret while no account exists: stores its hash, replacing an unused one,
 * and returns it to print. Undefined (and any stale secret forgotten) once an account exists.
 */
export async function issueSetupSecret(accounts: WebAccountRepository, now = Date.now()): Promise<string | undefined> {
  if ((await accounts.userCount()) > 0) {
    await accounts.clearSetupToken();
    return undefined;
  }
  const secret = newSecret('', 24);
  await accounts.replaceSetupToken(hashToken(secret), now);
  return secret;
}

/** The link to print: the page reads the secret from the fragment, so it never reaches a log or a Referer. */
export function setupLink(baseUrl: string, secret: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/#setup=${secret}`;
}

/** Where a browser on this machine reaches the server on `port` (TIDINGS_PUBLIC_URL when set). */
export function setupBaseUrl(config: Config, port: number): string {
  if (config.publicUrl) return config.publicUrl;
  const host = ['0.0.0.0', '::', ''].includes(config.host)
    ? '127.0.0.1'
    : config.host.includes(':')
      ? `[${config.host}]`
      : config.host;
  return `http://${host}:${port}`;
}

/**
 * Prints the link: a warn-level log line with `setupUrl` (what log collectors and the tests read),
 * and on a terminal (pretty logs) a block of its own after it, so that it stands out from the
 * start-up lines around it.
 */
export function announceSetupLink(log: Logger, link: string, pretty: boolean): void {
  log.warn({ setupUrl: link }, 'no account yet: open setupUrl in a browser to create the first (admin) account');
  if (pretty)
    process.stderr.write(
      `\n  First run: open this link to create the administrator account (it works once):\n\n    ${link}\n\n`,
    );
}
