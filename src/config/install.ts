// Where this copy of Tidings is installed, and the data folder it uses by default. The default
// must not depend on the current directory: a command run from elsewhere would otherwise create a
// fresh empty database and answer "no user". Inside a git checkout the data lives beside the code
// (<checkout>/data, as `npm start` always did); an installed package (npm install -g) uses the
// per-user data directory of the platform, as Miniflux/FreshRSS packages use a fixed state folder.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { homedir, platform } from 'node:os';

/** The folder holding Tidings' package.json (the checkout, or the installed package). */
const PACKAGE_ROOT: string = findPackageRoot(import.meta.dirname);

function findPackageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      try {
        if (JSON.parse(readFileSync(file, 'utf8')).name === 'tidings') return dir;
      } catch {
        /* keep looking up */
      }
    }
    if (dirname(dir) === dir) throw new Error(`cannot find Tidings' package.json above ${from}`);
  }
}

export const VERSION: string = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')).version;

/** True when running from a source checkout (git clone or worktree) rather than an installed package. */
export const IS_CHECKOUT: boolean = existsSync(join(PACKAGE_ROOT, '.git'));

/** The per-user data directory of the platform (XDG on Linux and BSDs). */
export function userDataDir(env: Record<string, string | undefined> = process.env): string {
  if (platform() === 'win32') return join(env.LOCALAPPDATA || join(homedir(), 'AppData', 'Local'), 'tidings');
  if (platform() === 'darwin') return join(homedir(), 'Library', 'Application Support', 'tidings');
  return join(env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'tidings');
}

/** The data folder used when neither TIDINGS_DATA, --data nor the config file names one. */
export function defaultDataDir(env: Record<string, string | undefined> = process.env): string {
  return IS_CHECKOUT ? join(PACKAGE_ROOT, 'data') : userDataDir(env);
}
