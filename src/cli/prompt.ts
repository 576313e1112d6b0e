// Reads a secret from the terminal without echoing it (as passwd and sudo do), so a password never
// lands in the shell history or the process list.
import { CliError } from './context.ts';

/** True when a password can be asked for: both stdin and stderr are terminals. */
export function canPrompt(): boolean {
  return process.stdin.isTTY === true && process.stderr.isTTY === true;
}

function readHidden(prompt: string): Promise<string> {
  const stdin = process.stdin;
  // Echo goes off before the prompt shows: someone typing as soon as they see it is never echoed.
  stdin.setRawMode(true);
  process.stderr.write(prompt);
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = (err: Error | null) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      process.stderr.write('\n');
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (chunk: Buffer) => {
      for (const ch of chunk.toString('utf8')) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return finish(null);
        if (ch === '\u0003') return finish(new CliError('cancelled', 130));
        if (ch === '\u007f' || ch === '\b') value = [...value].slice(0, -1).join('');
        else if (ch >= ' ') value += ch;
      }
    };
    stdin.resume();
    stdin.on('data', onData);
  });
}

/** Asks twice on a terminal and checks both match; the caller checks the strength. */
export async function promptNewPassword(): Promise<string> {
  const first = await readHidden('Password: ');
  const second = await readHidden('Repeat the password: ');
  if (first !== second) throw new CliError('the two passwords differ; nothing was changed', 2);
  return first;
}
