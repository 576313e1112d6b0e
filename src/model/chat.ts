// Plain types of the chat completions API's stored records (API keys, usage, async jobs, access
// requests). Times are Unix seconds.

/** Beta features that need approval per key (seed rule 2). */
export const BETA_FEATURES = ['search_domain_filter', 'return_images', 'return_related_questions'] as const;
export type BetaFeature = (typeof BETA_FEATURES)[number];

export interface ApiKey {
  /** Public id, embedded in the key (`tdg_<id>_<secret>`) and shown by `tidings key list`. */
  id: string;
  userId: number;
  name: string;
  /** Rate-limit tier 0-5. */
  tier: number;
  features: BetaFeature[];
  disabled: boolean;
  createdAt: number;
  revokedAt: number | null;
}

/** A key as read to authenticate: with the SHA-256 of the whole key, to compare with the one presented. */
export type StoredApiKey = ApiKey & { keyHash: string };

export interface UsageRecord {
  createdAt: number;
  keyId: string;
  userId: number;
  endpoint: 'chat' | 'async';
  model: string;
  status: number;
  errorType: string | null;
  stream: boolean;
  promptTokens: number;
  completionTokens: number;
  reasoningTokens: number;
  citationTokens: number;
  searchQueries: number;
  cost: CostBreakdown;
  latencyMs: number;
}

/** US dollars. */
export interface CostBreakdown {
  input: number;
  output: number;
  reasoning: number;
  citation: number;
  searchQueries: number;
  request: number;
  total: number;
}

export interface UsageTotals {
  keyId: string;
  keyName: string;
  username: string;
  model: string;
  requests: number;
  errors: number;
  promptTokens: number;
  completionTokens: number;
  reasoningTokens: number;
  citationTokens: number;
  searchQueries: number;
  cost: number;
}

export const JOB_STATUSES = ['CREATED', 'IN_PROGRESS', 'COMPLETED', 'FAILED'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export interface AsyncJob {
  id: string;
  keyId: string;
  userId: number;
  model: string;
  /** The validated chat request body as the client sent it. */
  request: unknown;
  idempotencyKey: string | null;
  status: JobStatus;
  attempts: number;
  progress: unknown;
  createdAt: number;
  startedAt: number | null;
  completedAt: number | null;
  failedAt: number | null;
  /** The completion object once COMPLETED. */
  response: unknown;
  errorMessage: string | null;
}

export type AccessRequestStatus = 'pending' | 'approved' | 'denied';

export interface AccessRequest {
  id: number;
  keyId: string;
  userId: number;
  username: string;
  currentTier: number;
  requestedTier: number;
  reason: string;
  status: AccessRequestStatus;
  grantedTier: number | null;
  note: string | null;
  createdAt: number;
  decidedAt: number | null;
}
