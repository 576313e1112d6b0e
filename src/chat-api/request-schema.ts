// Validation of a chat completions request body: the seed's parameters with their ranges and the
// spec's extras. Unknown keys are ignored (zod strips them). Every message names the parameter and
// the accepted range, because that is what the caller reads. Null counts as "not given" (some
// OpenAI-compatible callers send explicit nulls).
import { z } from 'zod';
import type { AnswerRequest, ChatMessage, SearchFilters, SearchScope } from '../answer/types.ts';
import { SONAR_MODELS, MODEL_INFO, isSonarModel, type SonarModel } from './models.ts';
import { ApiError } from './errors.ts';
import type { BetaFeature } from '../model/chat.ts';

const show = (v: unknown): string => {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 60 ? s.slice(0, 57) + '...' : s;
};
type Iss = { input?: unknown };

/** A number parameter whose every failure (type or range) reports the accepted range. */
function numberParam(name: string, range: string, build: (n: z.ZodNumber) => z.ZodNumber) {
  return build(z.number({ error: (iss: Iss) => `${name} must be ${range} (got ${show(iss.input)})` })).nullish();
}
function boolParam(name: string) {
  return z.boolean({ error: (iss: Iss) => `${name} must be true or false (got ${show(iss.input)})` }).nullish();
}
function enumParam<const T extends readonly [string, ...string[]]>(name: string, values: T) {
  return z
    .enum(values, { error: (iss: Iss) => `${name} must be one of ${values.join(', ')} (got ${show(iss.input)})` })
    .nullish();
}

/** %m/%d/%Y as the vendor documents it (e.g. 3/1/2025); returns Unix seconds of that UTC day's start. */
function parseUsDate(s: string): number | undefined {
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(s);
  if (!m) return undefined;
  const [mo, d, y] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = Date.UTC(y, mo - 1, d);
  const back = new Date(t);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) return undefined;
  return t / 1000;
}
function dateParam(name: string) {
  return z
    .string({
      error: (iss: Iss) => `${name} must be a date string in %m/%d/%Y format, e.g. "3/1/2025" (got ${show(iss.input)})`,
    })
    .refine((s) => parseUsDate(s) !== undefined, {
      error: (iss: Iss) => `${name} must be a valid date in %m/%d/%Y format, e.g. "3/1/2025" (got ${show(iss.input)})`,
    })
    .nullish();
}

const DOMAIN_RE = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;
/** A domain ("nasa.gov") or URL ("https://nasa.gov/news"), optionally with a leading '-' (deny). */
function isDomainOrUrl(entry: string): boolean {
  const e = entry.startsWith('-') ? entry.slice(1) : entry;
  if (/^https?:\/\//i.test(e)) {
    try {
      return DOMAIN_RE.test(new URL(e).hostname);
    } catch {
      return false;
    }
  }
  const host = e.split('/')[0];
  return host.includes('.') && DOMAIN_RE.test(host);
}

const MAX_DOMAIN_FILTER = 3;
const domainList = (name: string, max: number) =>
  z
    .array(
      z
        .string({ error: (iss: Iss) => `${name} entries must be strings (got ${show(iss.input)})` })
        .refine(isDomainOrUrl, {
          error: (iss: Iss) =>
            `${name} entry ${show(iss.input)} is not a domain or URL: use entries like "nasa.gov", "https://nasa.gov/news" or "-reddit.com" (deny)`,
        }),
      { error: (iss: Iss) => `${name} must be an array of at most ${max} domains or URLs (got ${show(iss.input)})` },
    )
    .max(max, {
      error: (iss: Iss) =>
        `${name} accepts at most ${max} entries (got ${Array.isArray(iss.input) ? iss.input.length : show(iss.input)})`,
    })
    .refine((a) => a.every((d) => d.startsWith('-')) || a.every((d) => !d.startsWith('-')), {
      error: `${name} cannot mix allow and deny entries: either list domains to search ("nasa.gov") or domains to exclude ("-reddit.com"), not both`,
    })
    .nullish();

const responseFormat = z
  .discriminatedUnion(
    'type',
    [
      z.object({ type: z.literal('text') }),
      z.object({
        type: z.literal('json_schema'),
        json_schema: z.object(
          { schema: z.record(z.string(), z.unknown()), name: z.string().optional(), strict: z.boolean().optional() },
          { error: 'response_format.json_schema must be an object with a "schema" object' },
        ),
      }),
      z.object({
        type: z.literal('regex'),
        regex: z.object(
          { regex: z.string() },
          { error: 'response_format.regex must be an object {"regex": "<pattern>"}' },
        ),
      }),
    ],
    {
      error: (iss: Iss) =>
        `response_format must be {"type":"json_schema","json_schema":{"schema":{...}}}, {"type":"regex","regex":{"regex":"..."}} or {"type":"text"} (got ${show(iss.input)})`,
    },
  )
  .nullish();

const stop = z
  .union([z.string(), z.array(z.string()).min(1).max(4)], {
    error: (iss: Iss) => `stop must be a string or an array of 1 to 4 strings (got ${show(iss.input)})`,
  })
  .nullish();

/** Our extension: search only these Google Reader streams of the key owner (README.md, "search_streams"). */
const STREAMS_HELP =
  'search_streams must be an array of 1 to 50 Google Reader stream ids like "feed/<url>", "user/-/label/<name>" or "user/-/state/com.google/starred"';
const searchStreams = z
  .array(
    z
      .string({ error: (iss: Iss) => `${STREAMS_HELP} (got the entry ${show(iss.input)})` })
      .regex(/^(feed\/|user\/)/, { error: (iss: Iss) => `${STREAMS_HELP} (got the entry ${show(iss.input)})` }),
    {
      error: (iss: Iss) =>
        `search_streams must be an array of 1 to 50 Google Reader stream ids like "feed/<url>", "user/-/label/<name>" or "user/-/state/com.google/starred" (got ${show(iss.input)})`,
    },
  )
  .min(1)
  .max(50)
  .nullish();

const parameters = z.object({
  stream: boolParam('stream'),
  max_tokens: z
    .number({ error: (iss: Iss) => `max_tokens must be a positive integer (got ${show(iss.input)})` })
    .int()
    .positive()
    .nullish(),
  /** OpenAI's newer name for max_tokens, sent by some OpenAI-compatible tools; max_tokens wins. */
  max_completion_tokens: z
    .number({ error: (iss: Iss) => `max_completion_tokens must be a positive integer (got ${show(iss.input)})` })
    .int()
    .positive()
    .nullish(),
  temperature: numberParam('temperature', 'a number from 0 to 2', (n) => n.min(0).max(2)),
  top_p: numberParam('top_p', 'a number from 0 to 1', (n) => n.min(0).max(1)),
  top_k: numberParam('top_k', 'an integer from 0 to 2048', (n) => n.int().min(0).max(2048)),
  presence_penalty: numberParam('presence_penalty', 'a number from -2 to 2', (n) => n.min(-2).max(2)),
  // The seed says "greater than 0"; 0 is accepted as "no penalty" because OpenAI-style callers
  // (LangChain's ChatOpenAI) send frequency_penalty: 0 by default, and existing clients win.
  frequency_penalty: numberParam('frequency_penalty', 'a number greater than 0 (or 0 for none)', (n) => n.min(0)),
  search_domain_filter: domainList('search_domain_filter', MAX_DOMAIN_FILTER),
  return_images: boolParam('return_images'),
  return_related_questions: boolParam('return_related_questions'),
  search_recency_filter: enumParam('search_recency_filter', ['hour', 'day', 'week', 'month', 'year']),
  search_mode: enumParam('search_mode', ['web', 'academic', 'sec']),
  search_after_date_filter: dateParam('search_after_date_filter'),
  search_before_date_filter: dateParam('search_before_date_filter'),
  last_updated_after_filter: dateParam('last_updated_after_filter'),
  last_updated_before_filter: dateParam('last_updated_before_filter'),
  web_search_options: z
    .object(
      {
        search_context_size: enumParam('web_search_options.search_context_size', ['low', 'medium', 'high']),
        user_location: z
          .record(z.string(), z.unknown(), { error: 'web_search_options.user_location must be an object' })
          .nullish(),
      },
      {
        error: (iss: Iss) =>
          `web_search_options must be an object like {"search_context_size": "low"} (got ${show(iss.input)})`,
      },
    )
    .nullish(),
  disable_search: boolParam('disable_search'),
  response_format: responseFormat,
  stop,
  reasoning_effort: enumParam('reasoning_effort', ['minimal', 'low', 'medium', 'high']),
  image_domain_filter: domainList('image_domain_filter', 10),
  search_streams: searchStreams,
});

const textPart = z.object({ type: z.literal('text'), text: z.string() });
const message = z.object(
  {
    role: z.enum(['system', 'user', 'assistant'], {
      error: (iss: Iss) => `role must be one of system, user, assistant (got ${show(iss.input)})`,
    }),
    content: z.union([z.string(), z.array(z.unknown())], {
      error: 'content must be a string or an array of {"type":"text","text":"..."} parts',
    }),
  },
  { error: 'each message must be an object {"role": "...", "content": "..."}' },
);

export interface ParsedChatRequest {
  model: SonarModel;
  stream: boolean;
  /** The AnswerRequest without the caller-specific scope, signal and progress hook. */
  answer: Omit<AnswerRequest, 'scope' | 'signal' | 'onProgress'>;
  /** Beta features this request uses (need approval per key). */
  betaFeatures: BetaFeature[];
  imageDomainFilter?: string[];
  /** null: the key owner's subscriptions. */
  streamIds: string[] | null;
}

const permitted = `Permitted models: ${SONAR_MODELS.join(', ')}`;

function firstIssue(err: z.ZodError): string {
  const i = err.issues[0];
  const path = i.path.join('.');
  // Our messages name the parameter; zod's own (nested parts) get the path in front.
  return path && !i.message.includes(String(i.path[0])) ? `${path}: ${i.message}` : i.message;
}

function validateModel(model: unknown): SonarModel {
  if (model === undefined || model === null || model === '')
    throw new ApiError(400, 'invalid_model', `The "model" parameter is required. ${permitted}`);
  if (!isSonarModel(model))
    throw new ApiError(
      400,
      'invalid_model',
      `Invalid model '${typeof model === 'string' ? model : show(model)}'. ${permitted}`,
    );
  return model;
}

function textOf(content: string | unknown[], index: number): string {
  if (typeof content === 'string') return content;
  const parts: string[] = [];
  for (const [j, p] of content.entries()) {
    const r = textPart.safeParse(p);
    if (!r.success)
      throw new ApiError(
        400,
        'invalid_message',
        `messages[${index}].content[${j}] must be a text part {"type":"text","text":"..."}; other part types are not supported`,
      );
    parts.push(r.data.text);
  }
  return parts.join('\n');
}

export function validateMessages(raw: unknown): ChatMessage[] {
  if (!Array.isArray(raw) || raw.length === 0)
    throw new ApiError(
      400,
      'invalid_message',
      'messages must be a non-empty array of {"role": "system"|"user"|"assistant", "content": "..."}',
    );
  const out: ChatMessage[] = [];
  for (const [i, m] of raw.entries()) {
    const r = message.safeParse(m);
    if (!r.success) throw new ApiError(400, 'invalid_message', `messages[${i}]: ${r.error.issues[0].message}`);
    const content = textOf(r.data.content, i);
    if (content.trim() === '')
      throw new ApiError(400, 'invalid_message', `messages[${i}] has empty content: every message needs text`);
    out.push({ role: r.data.role, content });
  }
  // After optional system messages, user and assistant alternate, starting and ending with user.
  let i = 0;
  while (i < out.length && out[i].role === 'system') i++;
  if (i === out.length)
    throw new ApiError(
      400,
      'invalid_message',
      'messages must contain at least one user message after the system message(s)',
    );
  for (let j = i; j < out.length; j++) {
    const expected = (j - i) % 2 === 0 ? 'user' : 'assistant';
    if (out[j].role !== expected) {
      throw new ApiError(
        400,
        'invalid_message',
        out[j].role === 'system'
          ? `messages[${j}]: system messages are only allowed at the start of the conversation`
          : `messages[${j}] has role '${out[j].role}' but '${expected}' was expected: after the optional system message(s), user and assistant messages must alternate, starting with user`,
      );
    }
  }
  if (out[out.length - 1].role !== 'user')
    throw new ApiError(400, 'invalid_message', "The last message must have role 'user'");
  return out;
}

/** Validates a request body; throws ApiError (400) naming the parameter to fix. */
export function parseChatRequest(body: unknown): ParsedChatRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new ApiError(400, 'bad_request', 'The request body must be a JSON object with "model" and "messages"');
  const b = body as Record<string, unknown>;
  const model = validateModel(b.model);
  const messages = validateMessages(b.messages);
  const r = parameters.safeParse(b);
  if (!r.success) throw new ApiError(400, 'bad_request', firstIssue(r.error));
  const p = r.data;

  const cap = MODEL_INFO[model].maxOutputTokens;
  const maxTokensParam = p.max_tokens != null ? 'max_tokens' : 'max_completion_tokens';
  const maxTokens = p.max_tokens ?? p.max_completion_tokens;
  if (maxTokens != null && maxTokens > cap)
    throw new ApiError(
      400,
      'bad_request',
      `${maxTokensParam} must be an integer from 1 to ${cap} for ${model} (got ${maxTokens})`,
    );

  const filters: SearchFilters = {};
  if (p.search_domain_filter?.length) filters.domainFilter = p.search_domain_filter;
  if (p.search_recency_filter) filters.recency = p.search_recency_filter;
  const day = 86400;
  if (p.search_after_date_filter) filters.publishedAfter = parseUsDate(p.search_after_date_filter);
  if (p.search_before_date_filter) filters.publishedBefore = parseUsDate(p.search_before_date_filter)! + day - 1;
  if (p.last_updated_after_filter) filters.updatedAfter = parseUsDate(p.last_updated_after_filter);
  if (p.last_updated_before_filter) filters.updatedBefore = parseUsDate(p.last_updated_before_filter)! + day - 1;
  if (
    filters.publishedAfter !== undefined &&
    filters.publishedBefore !== undefined &&
    filters.publishedAfter > filters.publishedBefore
  ) {
    throw new ApiError(400, 'bad_request', 'search_after_date_filter must not be later than search_before_date_filter');
  }
  if (
    filters.updatedAfter !== undefined &&
    filters.updatedBefore !== undefined &&
    filters.updatedAfter > filters.updatedBefore
  ) {
    throw new ApiError(
      400,
      'bad_request',
      'last_updated_after_filter must not be later than last_updated_before_filter',
    );
  }

  const betaFeatures: BetaFeature[] = [];
  if (p.search_domain_filter?.length) betaFeatures.push('search_domain_filter');
  if (p.return_images) betaFeatures.push('return_images');
  if (p.return_related_questions) betaFeatures.push('return_related_questions');

  const answer: ParsedChatRequest['answer'] = {
    model,
    messages,
    filters,
    searchContextSize: p.web_search_options?.search_context_size ?? 'low',
    temperature: p.temperature ?? 0.2,
    topP: p.top_p ?? 0.9,
    topK: p.top_k ?? 0,
  };
  if (p.disable_search) answer.disableSearch = true;
  if (maxTokens != null) answer.maxTokens = maxTokens;
  if (p.presence_penalty != null) answer.presencePenalty = p.presence_penalty;
  if (p.frequency_penalty) answer.frequencyPenalty = p.frequency_penalty;
  if (p.stop != null) answer.stop = typeof p.stop === 'string' ? [p.stop] : p.stop;
  if (p.reasoning_effort) answer.reasoningEffort = p.reasoning_effort;
  if (p.return_images) answer.returnImages = true;
  if (p.return_related_questions) answer.returnRelatedQuestions = true;
  if (p.response_format && p.response_format.type !== 'text') answer.responseFormat = p.response_format;

  return {
    model,
    stream: p.stream ?? false,
    answer,
    betaFeatures,
    imageDomainFilter: p.image_domain_filter?.length ? p.image_domain_filter : undefined,
    streamIds: p.search_streams ?? null,
  };
}

/** The AnswerRequest scope of a validated request for the key owner. */
export function scopeFor(userId: number, streamIds: string[] | null): SearchScope {
  return streamIds ? { kind: 'streams', userId, streamIds } : { kind: 'subscriptions', userId };
}
