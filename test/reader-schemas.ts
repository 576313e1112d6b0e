// What real Google Reader clients require of each response, as zod schemas: strings where Swift and
// Rust clients decode strings (ids, timestampUsec, crawlTimeMsec, continuation, sortid), numbers
// where they decode numbers (published, updated, count, max, firstitemmsec).
import { z } from 'zod';

const digits = z.string().regex(/^\d+$/);
export const LONG_ID = /^tag:google\.com,2005:reader\/item\/[0-9a-f]{16}$/;

export const UserInfo = z.object({
  userId: z.string(),
  userName: z.string(),
  userProfileId: z.string(),
  userEmail: z.string(),
  isBloggerUser: z.boolean(),
  signupTimeSec: z.number().int(),
  isMultiLoginEnabled: z.boolean(),
});

export const Category = z.object({ id: z.string().startsWith('user/-/label/'), label: z.string() });
export const SubscriptionList = z.object({
  subscriptions: z.array(
    z.object({
      id: z.string().startsWith('feed/'),
      title: z.string(),
      categories: z.array(Category),
      sortid: z.string(),
      firstitemmsec: z.number(),
      url: z.string(),
      htmlUrl: z.string(),
      iconUrl: z.string(),
    }),
  ),
});

export const UnreadCount = z.object({
  max: z.number().int(),
  unreadcounts: z.array(z.object({ id: z.string(), count: z.number().int().min(0), newestItemTimestampUsec: digits })),
});

export const TagList = z.object({
  tags: z.array(
    z.object({ id: z.string(), type: z.enum(['folder', 'tag']).optional(), unread_count: z.number().int().optional() }),
  ),
});

export const Item = z.object({
  id: z.string().regex(LONG_ID),
  crawlTimeMsec: digits,
  timestampUsec: digits,
  categories: z.array(z.string()),
  title: z.string(),
  published: z.number().int(),
  updated: z.number().int(),
  canonical: z.array(z.object({ href: z.string() })),
  alternate: z.array(z.object({ href: z.string(), type: z.string() })),
  summary: z.object({ direction: z.string(), content: z.string() }),
  author: z.string(),
  enclosure: z.array(z.object({ href: z.string(), type: z.string().optional(), length: digits.optional() })).optional(),
  origin: z.object({ streamId: z.string().startsWith('feed/'), title: z.string(), htmlUrl: z.string() }),
});

export const StreamContents = z.object({
  direction: z.literal('ltr'),
  id: z.string(),
  title: z.string(),
  description: z.string(),
  self: z.object({ href: z.string() }),
  updated: z.number().int(),
  updatedUsec: digits,
  items: z.array(Item),
  continuation: z
    .string()
    .regex(/^[A-Za-z0-9_.~-]+$/)
    .optional(),
});

export const ItemIds = z.object({
  itemRefs: z.array(
    z.object({ id: z.string().regex(/^\d{1,15}$/), directStreamIds: z.array(z.string()), timestampUsec: digits }),
  ),
  continuation: z
    .string()
    .regex(/^[A-Za-z0-9_.~-]+$/)
    .optional(),
});

export const QuickAdd = z.object({
  query: z.string(),
  numResults: z.literal(1),
  streamId: z.string().startsWith('feed/'),
  streamName: z.string(),
});

/** Parses with the schema and fails the test with zod's explanation. */
export function check<T extends z.ZodType>(schema: T, value: unknown, what: string): z.infer<T> {
  const r = schema.safeParse(value);
  if (!r.success) throw new Error(`${what}: response does not match what clients require: ${r.error.message}`);
  return r.data;
}
