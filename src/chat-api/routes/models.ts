// GET /models and /v1/models: the OpenAI list shape that OpenAI-compatible tools probe.
import type { FastifyInstance } from 'fastify';
import { SONAR_MODELS, MODEL_INFO } from '../models.ts';

// A fixed date (the API's first release) rather than the server start, so the list is stable.
const CREATED = 1767225600;

export function registerModelRoutes(server: FastifyInstance): void {
  const body = {
    object: 'list',
    data: SONAR_MODELS.map((id) => ({
      id,
      object: 'model',
      created: CREATED,
      owned_by: 'tidings',
      context_length: MODEL_INFO[id].contextLength,
      max_output_tokens: MODEL_INFO[id].maxOutputTokens,
    })),
  };
  const byId = new Map(body.data.map((m) => [m.id, m]));
  for (const prefix of ['', '/v1']) {
    server.get(`${prefix}/models`, async () => body);
    server.get<{ Params: { id: string } }>(`${prefix}/models/:id`, async (req, reply) => {
      const m = byId.get(req.params.id as never);
      if (m) return m;
      return reply.code(404).send({
        error: {
          message: `Unknown model '${req.params.id}'. Permitted models: ${SONAR_MODELS.join(', ')}`,
          type: 'invalid_model',
          code: 404,
        },
      });
    });
  }
}
