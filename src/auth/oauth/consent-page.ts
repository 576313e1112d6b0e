// The login + consent page and the error page of the authorization endpoint: plain HTML forms that
// work without JavaScript. Every value placed in the page goes through escapeHtml.
import type { AuthorizationRequest } from './authorize.ts';
import { AUTHORIZATION_PARAMS } from './authorize.ts';
import { escapeHtml } from '../../text/escape-html.ts';

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;color:#222}
h1{font-size:1.4rem}ul{padding-left:1.2rem}label{display:block;margin:.8rem 0 .2rem}
input[type=text],input[type=password]{width:100%;padding:.5rem;font:inherit;box-sizing:border-box}
.buttons{margin-top:1.2rem;display:flex;gap:.8rem}button{padding:.5rem 1.2rem;font:inherit}
.error{background:#fde8e8;border:1px solid #f5a3a3;padding:.6rem;border-radius:4px}.muted{color:#666;font-size:.9rem}`;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${escapeHtml(title)} · Tidings</title><style>${STYLE}</style></head>
<body>${body}</body></html>
`;
}

const SCOPE_TEXT = {
  read: 'Read your subscriptions, folders, tags and articles',
  write: 'Change them: subscribe and unsubscribe, organise folders, mark articles read or starred',
};

export function consentPage(o: {
  request: AuthorizationRequest;
  csrfToken: string;
  formAction: string;
  error?: string;
  username?: string;
}): string {
  const { request: r } = o;
  const hidden = AUTHORIZATION_PARAMS.filter((k) => r.params[k] !== undefined)
    .map((k) => `<input type="hidden" name="${k}" value="${escapeHtml(r.params[k]!)}">`)
    .join('\n');
  let target: string;
  try {
    target = new URL(r.redirectUri).host || r.redirectUri;
  } catch {
    target = r.redirectUri;
  }
  const scopes = [...r.scopes].map((s) => `<li>${escapeHtml(SCOPE_TEXT[s])}</li>`).join('');
  return page(
    `Authorize ${r.client.name}`,
    `
<h1>Authorize <strong>${escapeHtml(r.client.name)}</strong></h1>
<p>${escapeHtml(r.client.name)} asks to use your Tidings account. It will be able to:</p>
<ul>${scopes}</ul>
${o.error ? `<p class="error" role="alert">${escapeHtml(o.error)}</p>` : ''}
<form method="post" action="${escapeHtml(o.formAction)}">
${hidden}
<input type="hidden" name="csrf_token" value="${escapeHtml(o.csrfToken)}">
<label for="username">Username</label>
<input type="text" id="username" name="username" autocomplete="username" autocapitalize="none" value="${escapeHtml(o.username ?? '')}">
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password">
<div class="buttons">
<button type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</div>
</form>
<p class="muted">You will be sent back to ${escapeHtml(target)}.</p>`,
  );
}

export function errorPage(title: string, message: string): string {
  return page(title, `<h1>${escapeHtml(title)}</h1>\n<p class="error" role="alert">${escapeHtml(message)}</p>`);
}
