// The one way a domain keeps services per App (repositories' users, caches, background runners):
// `export const fooService = perApp((app) => new FooService(app))`. The server, the CLI and tests
// share one instance per App, nothing leaks between Apps, and app.ts does not grow with each domain.
import type { App } from './app.ts';

/** Memoizes create(app) per App (weakly: a closed App's services are collected with it). */
export function perApp<T>(create: (app: App) => T): (app: App) => T {
  const cache = new WeakMap<App, T>();
  return (app) => {
    let value = cache.get(app);
    if (value === undefined) {
      value = create(app);
      cache.set(app, value);
    }
    return value;
  };
}
