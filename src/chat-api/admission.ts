// What a request must pass before any work: a live key, approval of the beta features it uses,
// and room in the key's rate-limit bucket for the model. The key's tier and features are read
// from the database on every request, so `tidings key tier|approve` and approved access requests
// apply at once without a restart.
import type { ApiKey, BetaFeature } from '../model/chat.ts';
import { ApiError } from './errors.ts';
import { formatReset } from './rate-limit.ts';
import type { ChatApi } from './context.ts';
import type { RateFamily } from './models.ts';

export async function checkBetaFeatures(api: ChatApi, key: ApiKey, used: BetaFeature[]): Promise<void> {
  if (api.app.config.betaOpenToAll) return;
  const missing = used.filter((f) => !key.features.includes(f));
  if (missing.length === 0) return;
  // The operator need not approve their own keys (a personal server's usual case).
  if ((await api.app.users.findById(key.userId))?.isAdmin) return;
  const f = missing[0];
  throw new ApiError(
    403,
    'forbidden',
    `${f} is a beta feature and API key ${key.id} is not approved for it. Ask the operator to run ` +
      `\`tidings key approve ${key.id} --feature ${f}\`, or send the request without ${f}.`,
  );
}

/** Takes one request from the key's bucket for `bucket`; returns the rate-limit headers, or throws 429 with them. */
export async function takeRateLimit(
  api: ChatApi,
  key: ApiKey,
  bucket: string,
  family: RateFamily,
): Promise<Record<string, string>> {
  const limit = api.rateLimits[family][key.tier] ?? api.rateLimits[family][0];
  const d = await api.limiter.take(JSON.stringify(['chat', key.id, bucket]), limit);
  const headers: Record<string, string> = {
    'x-ratelimit-limit-requests': String(d.limit),
    'x-ratelimit-remaining-requests': String(d.remaining),
    'x-ratelimit-reset-requests': formatReset(d.resetSeconds),
  };
  if (!d.allowed) {
    const retry = Math.max(1, Math.ceil(d.retryAfterSeconds));
    throw new ApiError(
      429,
      'rate_limit_exceeded',
      `Rate limit exceeded for ${bucket}: ${limit} requests per minute at tier ${key.tier}. Retry after ${retry} s, ` +
        `or ask for a higher tier with the access form at ${api.app.config.publicUrl.replace(/\/+$/, '')}/access-request.`,
      { ...headers, 'retry-after': String(retry) },
    );
  }
  return headers;
}
