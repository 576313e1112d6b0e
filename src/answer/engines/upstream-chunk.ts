// The shape of a streamed chat.completion.chunk as OpenAI-compatible servers send it, checked on
// every chunk (zod: the runtime check and the type come from one definition). Only the fields
// the engine reads are constrained; servers add others freely (vLLM, Ollama, llama.cpp all do).
import { z } from 'zod';

const nullableText = z.string().nullish();

export const upstreamChunkSchema = z
  .object({
    choices: z
      .array(
        z.object({
          delta: z
            .object({
              content: nullableText,
              reasoning_content: nullableText,
              reasoning: nullableText,
            })
            .nullish(),
          finish_reason: z.string().nullish(),
        }),
      )
      .nullish(),
    usage: z
      .object({
        prompt_tokens: z.number().int().nonnegative(),
        completion_tokens: z.number().int().nonnegative(),
        completion_tokens_details: z.object({ reasoning_tokens: z.number().int().nonnegative().nullish() }).nullish(),
      })
      .nullish(),
  })
  .refine((c) => c.choices != null || c.usage != null, 'neither choices nor usage');
