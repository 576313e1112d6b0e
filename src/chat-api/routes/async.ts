// Async chat completions (deep research): submit, poll one, list.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { ChatApi } from '../context.ts';
import type { AsyncJobRunner } from '../async-jobs.ts';
import { toWireJob } from '../async-jobs.ts';
import { parseChatRequest } from '../request-schema.ts';
import { checkBetaFeatures, takeRateLimit } from '../admission.ts';
import { ApiError, toApiError } from '../errors.ts';
import { recordUsage } from '../usage.ts';
import { requestKey } from '../request-key.ts';

const submitBody = z.object(
  {
    request: z.record(z.string(), z.unknown(), {
      error: 'request must be a chat completions request object {"model": ..., "messages": [...]}',
    }),
    idempotency_key: z
      .string({ error: 'idempotency_key must be a string of 1 to 128 characters' })
      .min(1)
      .max(128, { error: 'idempotency_key must be a string of 1 to 128 characters' })
      .nullish(),
  },
  { error: 'The body must be a JSON object {"request": {...chat completions request...}, "idempotency_key"?: "..."}' },
);

const listQuery = z.object({
  limit: z.coerce.number({ error: 'limit must be an integer from 1 to 100' }).int().min(1).max(100).optional(),
  next_token: z.string().optional(),
});

/** Keyset cursor over (created_at, id), opaque to callers. */
const encodeToken = (createdAt: number, id: string) => Buffer.from(`${createdAt}:${id}`).toString('base64url');
function decodeToken(t: string): { createdAt: number; id: string } {
  const m = /^(\d+):([0-9a-f-]{36})$/.exec(Buffer.from(t, 'base64url').toString());
  if (!m)
    throw new ApiError(
      400,
      'bad_request',
      'next_token is not a token returned by this API; omit it to start from the newest job',
    );
  return { createdAt: Number(m[1]), id: m[2] };
}

export function registerAsyncRoutes(server: FastifyInstance, api: ChatApi, runner: AsyncJobRunner): void {
  for (const prefix of ['', '/v1']) {
    server.post(`${prefix}/async/chat/completions`, async (request: FastifyRequest, reply: FastifyReply) => {
      const startedAt = performance.now();
      const key = requestKey(request);
      let model = '';
      try {
        const b = submitBody.safeParse(request.body);
        if (!b.success) throw new ApiError(400, 'bad_request', b.error.issues[0].message);
        const idem = b.data.idempotency_key ?? null;
        if (idem) {
          const existing = await api.store.jobs.findByIdempotencyKey(key.id, idem);
          if (existing) return toWireJob(existing, true);
        }
        const parsed = parseChatRequest(b.data.request);
        model = parsed.model;
        await checkBetaFeatures(api, key, parsed.betaFeatures);
        const rl = await takeRateLimit(api, key, 'async', 'deep-research');
        // Stored as sent minus `stream` (jobs never stream); re-validated when the job runs.
        const { stream: _, ...stored } = b.data.request;
        const job = await api.store.jobs.create({
          id: randomUUID(),
          keyId: key.id,
          userId: key.userId,
          model: parsed.model,
          request: stored,
          idempotencyKey: idem,
          createdAt: Math.floor(Date.now() / 1000),
        });
        runner.wake();
        return reply.headers(rl).send(toWireJob(job, true));
      } catch (e) {
        const err = toApiError(e);
        recordUsage(api, key, { endpoint: 'async', model, status: err.status, errorType: err.type, startedAt });
        throw err;
      }
    });

    server.get<{ Params: { id: string } }>(`${prefix}/async/chat/completions/:id`, async (request) => {
      const key = requestKey(request);
      const job = await api.store.jobs.find(request.params.id);
      // Another user's job is reported as missing: ids must not leak across accounts.
      if (!job || job.userId !== key.userId)
        throw new ApiError(
          404,
          'not_found',
          `No async chat completion with id '${request.params.id}' (jobs are kept ${api.app.config.asyncJobRetentionDays} days)`,
        );
      return toWireJob(job, true);
    });

    server.get(`${prefix}/async/chat/completions`, async (request) => {
      const key = requestKey(request);
      const q = listQuery.safeParse(request.query);
      if (!q.success) throw new ApiError(400, 'bad_request', q.error.issues[0].message);
      const limit = q.data.limit ?? 50;
      const before = q.data.next_token ? decodeToken(q.data.next_token) : undefined;
      const jobs = await api.store.jobs.listForUser(key.userId, limit + 1, before);
      const page = jobs.slice(0, limit);
      const last = page[page.length - 1];
      return {
        requests: page.map((j) => toWireJob(j, false)),
        next_token: jobs.length > limit && last ? encodeToken(last.createdAt, last.id) : null,
      };
    });
  }
}
