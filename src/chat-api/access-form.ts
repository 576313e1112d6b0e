// The access form (seed: "Elevated rate limits are requested through an access form"): a plain
// HTML page, no JavaScript, where a key holder asks for a higher rate-limit tier with a reason.
// The key in the form is the credential (no session, so no CSRF surface). Operators decide with
// `tidings access list|approve|deny`; approval sets the key's tier, which the API reads on every
// request, so the new limits apply at once.
import type { FastifyInstance } from 'fastify';
import { FormBody, paramsFromRequest } from '../http/params.ts';
import type { ChatApi } from './context.ts';
import { findLiveKey } from '../auth/api-keys.ts';
import type { DEFAULT_RATE_LIMITS } from './rate-limit.ts';
import { escapeHtml } from '../text/escape-html.ts';

export const ACCESS_FORM_PATH = '/access-request';
const MAX_REASON = 2000;
const ACCESS_FORM_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Tidings</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#222}
label{display:block;margin-top:1rem;font-weight:600}input,select,textarea{width:100%;font:inherit;padding:.4rem;box-sizing:border-box}
button{margin-top:1rem;font:inherit;padding:.5rem 1.2rem}.error{color:#a00;border-left:4px solid #a00;padding-left:.6rem}
table{border-collapse:collapse}td,th{padding:.15rem .6rem;border-bottom:1px solid #ddd;text-align:right}</style>
</head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}

function limitsTable(limits: typeof DEFAULT_RATE_LIMITS): string {
  const row = (name: string, l: number[]) =>
    `<tr><th scope="row">${escapeHtml(name)}</th>${l.map((n) => `<td>${n}</td>`).join('')}</tr>`;
  return `<table><tr><th>requests per minute</th>${[0, 1, 2, 3, 4, 5].map((t) => `<th>tier ${t}</th>`).join('')}</tr>
${row('sonar models', limits.sonar)}${row('sonar-deep-research and async', limits['deep-research'])}</table>`;
}

function formPage(api: ChatApi, error?: string, values: { tier?: string; reason?: string } = {}): string {
  const tiers = [1, 2, 3, 4, 5]
    .map((t) => `<option value="${t}"${values.tier === String(t) ? ' selected' : ''}>tier ${t}</option>`)
    .join('');
  return page(
    'Request higher rate limits',
    `
<p>Rate limits apply per API key and model. Ask for a higher tier below; an operator reviews the request and the new limits apply as soon as it is approved.</p>
${limitsTable(api.rateLimits)}
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="${ACCESS_FORM_PATH}">
<label for="key">API key</label><input id="key" name="key" type="password" autocomplete="off" required placeholder="tdg_…">
<label for="tier">Requested tier</label><select id="tier" name="tier">${tiers}</select>
<label for="reason">Reason (what you build, expected traffic)</label><textarea id="reason" name="reason" rows="5" maxlength="${MAX_REASON}" required>${escapeHtml(values.reason ?? '')}</textarea>
<button type="submit">Send request</button>
</form>`,
  );
}

export async function registerAccessForm(server: FastifyInstance, api: ChatApi): Promise<void> {
  await server.register(async (f) => {
    if (f.hasContentTypeParser('application/x-www-form-urlencoded'))
      f.removeContentTypeParser('application/x-www-form-urlencoded');
    f.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 64 * 1024 },
      (_req, body, done) => done(null, new FormBody(body as string)),
    );
    // The headers of the other HTML pages (the OAuth consent page, the web app): no framing
    // (clickjacking the key field), no script at all, the form posting only here; no-store, as a
    // rejected POST shows the reason typed back.
    f.addHook('onSend', async (_req, reply, payload) => {
      reply
        .header('Content-Security-Policy', ACCESS_FORM_CSP)
        .header('X-Frame-Options', 'DENY')
        .header('X-Content-Type-Options', 'nosniff')
        .header('Referrer-Policy', 'no-referrer')
        .header('Cache-Control', 'no-store');
      return payload;
    });
    f.get(ACCESS_FORM_PATH, async (_req, reply) => reply.type('text/html; charset=utf-8').send(formPage(api)));
    f.post(ACCESS_FORM_PATH, async (req, reply) => {
      const p = paramsFromRequest(req.url, req.body, { query: false, body: true });
      const values = { tier: p.get('tier') ?? '', reason: p.get('reason') ?? '' };
      const fail = (msg: string) =>
        reply
          .code(400)
          .type('text/html; charset=utf-8')
          .send(formPage(api, msg, values));
      const key = await findLiveKey(api.store.keys, p.get('key') ?? '');
      if (!key) return fail('That API key is not valid (or was revoked). Paste the whole key, starting with "tdg_".');
      const tier = /^[1-5]$/.test(values.tier.trim()) ? Number(values.tier) : NaN;
      if (Number.isNaN(tier)) return fail('Choose a tier from 1 to 5.');
      if (tier <= key.tier) return fail(`This key is already at tier ${key.tier}; choose a higher tier.`);
      const reason = values.reason.trim();
      if (!reason) return fail('Tell the operator why you need the higher limits.');
      if (reason.length > MAX_REASON) return fail(`The reason is too long: at most ${MAX_REASON} characters.`);
      const pending = (await api.store.access.list('pending')).find((r) => r.keyId === key.id);
      if (pending)
        return fail(`Request #${pending.id} for this key is still pending; wait for the operator's decision.`);
      const r = await api.store.access.create({ keyId: key.id, requestedTier: tier, reason });
      api.app.log.info({ requestId: r.id, keyId: key.id, tier }, 'rate-limit access requested');
      return reply
        .code(201)
        .type('text/html; charset=utf-8')
        .send(
          page(
            'Request received',
            `
<p>Your request <strong>#${r.id}</strong> for tier ${tier} on key <code>${escapeHtml(key.id)}</code> has been recorded.</p>
<p>An operator approves it with <code>tidings access approve ${r.id}</code>; the new limits apply to your key immediately after.</p>`,
          ),
        );
    });
  });
}
