// Validation of an AnswerRequest before anything runs (AnswerError 'invalid_request' naming the
// wire parameter to fix). Filter values are checked by the search subsystem's own rules
// (compileFilters), so the API, the CLI and the search index agree on what is valid.
import { AnswerError, SONAR_MODELS, type AnswerRequest } from './types.ts';
import { PROFILES } from './pipelines/profiles.ts';
import { compileFilters } from '../search/filters.ts';
import { SearchFilterError } from '../search/types.ts';
import { countTokens, MAX_TOKEN_BYTES } from './tokens.ts';

const ROLES = new Set(['system', 'user', 'assistant']);
const CONTEXT_SIZES = new Set(['low', 'medium', 'high']);
const EFFORTS = new Set(['minimal', 'low', 'medium', 'high']);

function invalid(param: string, message: string): never {
  throw new AnswerError('invalid_request', message, param);
}

/** The default of TIDINGS_ANSWER_MAX_CONVERSATION_BYTES (src/config/config.ts). */
export const MAX_CONVERSATION_BYTES = 256 * 1024;

export function validateAnswerRequest(
  req: AnswerRequest,
  nowSeconds = Math.floor(Date.now() / 1000),
  maxConversationBytes = MAX_CONVERSATION_BYTES,
): void {
  if (!(SONAR_MODELS as readonly string[]).includes(req.model)) {
    invalid('model', `Invalid model '${String(req.model)}'. Permitted models: ${SONAR_MODELS.join(', ')}`);
  }
  const profile = PROFILES[req.model];
  validateMessages(req, profile.contextTokens, maxConversationBytes);

  if (!CONTEXT_SIZES.has(req.searchContextSize)) {
    invalid(
      'web_search_options.search_context_size',
      `web_search_options.search_context_size must be low, medium or high, got ${JSON.stringify(req.searchContextSize)}`,
    );
  }
  if (req.reasoningEffort !== undefined && !EFFORTS.has(req.reasoningEffort)) {
    invalid(
      'reasoning_effort',
      `reasoning_effort must be minimal, low, medium or high, got ${JSON.stringify(req.reasoningEffort)}`,
    );
  }
  if (
    req.maxTokens !== undefined &&
    (!Number.isInteger(req.maxTokens) || req.maxTokens < 1 || req.maxTokens > profile.maxOutputTokens)
  ) {
    invalid(
      'max_tokens',
      `max_tokens must be a whole number from 1 to ${profile.maxOutputTokens} for ${req.model}, got ${String(req.maxTokens)}`,
    );
  }
  range('temperature', req.temperature, 0, 2);
  range('top_p', req.topP, 0, 1);
  range('presence_penalty', req.presencePenalty, -2, 2);
  if (req.topK !== undefined && (!Number.isInteger(req.topK) || req.topK < 0 || req.topK > 2048)) {
    invalid('top_k', `top_k must be a whole number from 0 to 2048, got ${String(req.topK)}`);
  }
  if (req.frequencyPenalty !== undefined && !(Number.isFinite(req.frequencyPenalty) && req.frequencyPenalty > 0)) {
    invalid('frequency_penalty', `frequency_penalty must be greater than 0, got ${String(req.frequencyPenalty)}`);
  }
  try {
    compileFilters(req.filters ?? {}, nowSeconds);
  } catch (e) {
    if (e instanceof SearchFilterError) invalid(e.param, e.message);
    throw e;
  }
}

function range(param: string, v: number | undefined, min: number, max: number): void {
  if (v !== undefined && !(Number.isFinite(v) && v >= min && v <= max))
    invalid(param, `${param} must be a number from ${min} to ${max}, got ${String(v)}`);
}

function validateMessages(req: AnswerRequest, contextTokens: number, maxBytes: number): void {
  const msgs = req.messages;
  if (!Array.isArray(msgs) || msgs.length === 0) invalid('messages', 'messages: send at least one user message');
  msgs.forEach((m, i) => {
    if (!m || !ROLES.has(m.role))
      invalid('messages', `messages[${i}].role must be system, user or assistant, got ${JSON.stringify(m?.role)}`);
    if (typeof m.content !== 'string') invalid('messages', `messages[${i}].content must be a string`);
  });
  const last = msgs[msgs.length - 1];
  if (last.role !== 'user' || !last.content.trim())
    invalid('messages', 'messages: the last message must be a non-empty user message');
  // After optional system messages, user and assistant alternate.
  let expected: 'user' | 'assistant' = 'user';
  let seenTurn = false;
  msgs.forEach((m, i) => {
    if (m.role === 'system') {
      if (seenTurn)
        invalid('messages', `messages[${i}]: system messages must come before the user and assistant turns`);
      return;
    }
    seenTurn = true;
    if (m.role !== expected)
      invalid(
        'messages',
        `messages[${i}]: user and assistant messages must alternate (expected ${expected}, got ${m.role})`,
      );
    expected = expected === 'user' ? 'assistant' : 'user';
  });
  // Counting runs on the server's one thread, so the cheap bounds come first. Every token is at
  // least one UTF-8 byte and at most MAX_TOKEN_BYTES: a conversation of no more bytes than the
  // context fits without counting, one of more than context x MAX_TOKEN_BYTES cannot fit; and no
  // conversation over maxBytes is counted at all.
  const bytes = msgs.reduce((n, m) => n + Buffer.byteLength(m.content), 0);
  if (bytes <= contextTokens) return;
  if (bytes > contextTokens * MAX_TOKEN_BYTES)
    tooLong(req, contextTokens, `${bytes} bytes, at least ${Math.ceil(bytes / MAX_TOKEN_BYTES)} tokens`);
  if (bytes > maxBytes) {
    invalid(
      'messages',
      `messages: the conversation is ${bytes} bytes, more than the ${maxBytes} bytes this server accepts (TIDINGS_ANSWER_MAX_CONVERSATION_BYTES); shorten it`,
    );
  }
  const tokens = msgs.reduce((n, m) => n + countTokens(m.content), 0);
  if (tokens > contextTokens) tooLong(req, contextTokens, `${tokens} tokens`);
}

function tooLong(req: AnswerRequest, contextTokens: number, size: string): never {
  invalid(
    'messages',
    `messages: the conversation is ${size}, more than the ${contextTokens}-token context of ${req.model}; shorten it`,
  );
}
