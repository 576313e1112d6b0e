// The OpenAPI 3.1 document of /api/v1, generated from the route table (./routes.ts).
import type { RouteSpec } from './routes.ts';

const ERROR_SCHEMA = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      properties: { code: { type: 'string' }, message: { type: 'string' }, field: { type: 'string' } },
      required: ['code', 'message'],
    },
  },
};

export function openApiDocument(routes: RouteSpec[], prefix: string): unknown {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const path = prefix + r.path.replace(/:(\w+)/g, '{$1}');
    const params = [...r.path.matchAll(/:(\w+)/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    for (const [name, description] of Object.entries(r.query ?? {}))
      params.push({ name, in: 'query', required: false, schema: { type: 'string' }, description } as never);
    const op: Record<string, unknown> = {
      summary: r.summary,
      tags: [r.path.split('/')[1]],
      security: r.access === 'public' ? [] : [{ session: [], csrf: [] }, { bearer: [] }],
      responses: {
        ...(r.created
          ? { '201': { description: 'Created (JSON)' } }
          : { '200': { description: 'OK (JSON; 204 when there is nothing to return)' } }),
        '4XX': { description: 'What to fix', content: { 'application/json': { schema: ERROR_SCHEMA } } },
      },
    };
    if (r.access === 'admin') op.description = 'Administrators only.';
    if (params.length) op.parameters = params;
    if (r.body) {
      op.requestBody = {
        content: {
          'application/json': {
            schema: {
              type: 'object',
              properties: Object.fromEntries(Object.entries(r.body).map(([k, d]) => [k, { description: d }])),
            },
          },
        },
      };
    }
    (paths[path] ??= {})[r.method.toLowerCase()] = op;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Tidings web API',
      version: '1',
      description:
        'The JSON API of the Tidings web app. Browsers use the session cookie and send X-CSRF-Token (from GET /session) on every change; ' +
        'scripts send Authorization: Bearer <app token> (Settings > App tokens, or `tidings token create`). Errors: {"error":{"code","message","field"}}.',
    },
    components: {
      securitySchemes: {
        session: { type: 'apiKey', in: 'cookie', name: 'tidings_session' },
        csrf: { type: 'apiKey', in: 'header', name: 'X-CSRF-Token' },
        bearer: { type: 'http', scheme: 'bearer' },
      },
    },
    paths,
  };
}
