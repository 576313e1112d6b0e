// The models Tidings suggests: a few instruct models in GGUF, small ones for CPU-only home
// servers and larger ones for a GPU, with a thinking mode where the reasoning models can use it.
// Data only: nothing here downloads anything (`tidings model pull <name>` does, when asked).
//
// Where the numbers come from: repository, file and size are those the publishers list on
// Hugging Face (bartowski's and LM Studio community's quantizations, whose files are single,
// unsplit GGUFs); sizes are rounded as listed there, so they are for choosing, not for checking.
// The download checks the exact size the server announces, and the content against the SHA-256
// Hugging Face publishes for each LFS file (its `X-Linked-ETag` header), so no hash is copied
// here: none could be verified from this machine, and a wrong one would refuse a good file.
// "Memory" is the file plus the KV cache of an 8k-token context and the runtime's own buffers,
// rounded up: what the machine (RAM, or VRAM with every layer on the GPU) should have free.

export interface CatalogueModel {
  /** Short name for `tidings model pull <name>`. */
  name: string;
  /** Hugging Face repository (owner/name) and the file in it. */
  repo: string;
  file: string;
  /** Approximate download size, bytes (the publisher's listing). */
  sizeBytes: number;
  /** Approximate memory needed to run it, bytes. */
  memoryBytes: number;
  /** Context window the model was trained for, tokens. */
  contextTokens: number;
  licence: string;
  /** Writes its own reasoning (<think>) before answering: used by the sonar-reasoning models. */
  thinking: boolean;
  /** Where it fits: a CPU-only home server, or a machine with a GPU. */
  hardware: 'cpu' | 'gpu';
  /** Known SHA-256 of the file; when absent the download checks the hash the source publishes. */
  sha256?: string;
  description: string;
}

const GB = 1e9;

export const CATALOGUE: readonly CatalogueModel[] = [
  {
    name: 'qwen2.5-0.5b',
    repo: 'lmstudio-community/Qwen2.5-0.5B-Instruct-GGUF',
    file: 'Qwen2.5-0.5B-Instruct-Q4_K_M.gguf',
    sizeBytes: 0.4 * GB,
    memoryBytes: 1 * GB,
    contextTokens: 32768,
    licence: 'Apache-2.0',
    thinking: false,
    hardware: 'cpu',
    description: 'the smallest: any machine, quick but often imprecise',
  },
  {
    name: 'llama3.2-1b',
    repo: 'bartowski/Llama-3.2-1B-Instruct-GGUF',
    file: 'Llama-3.2-1B-Instruct-Q4_K_M.gguf',
    sizeBytes: 0.81 * GB,
    memoryBytes: 1.5 * GB,
    contextTokens: 131072,
    licence: 'Llama 3.2 Community License',
    thinking: false,
    hardware: 'cpu',
    description: 'small and fast on a CPU, long context',
  },
  {
    name: 'qwen2.5-1.5b',
    repo: 'lmstudio-community/Qwen2.5-1.5B-Instruct-GGUF',
    file: 'Qwen2.5-1.5B-Instruct-Q4_K_M.gguf',
    sizeBytes: 0.99 * GB,
    memoryBytes: 2 * GB,
    contextTokens: 32768,
    licence: 'Apache-2.0',
    thinking: false,
    hardware: 'cpu',
    description: 'a good default for a CPU-only home server',
  },
  {
    name: 'qwen3-1.7b',
    repo: 'bartowski/Qwen_Qwen3-1.7B-GGUF',
    file: 'Qwen_Qwen3-1.7B-Q8_0.gguf',
    sizeBytes: 2.17 * GB,
    memoryBytes: 3 * GB,
    contextTokens: 32768,
    licence: 'Apache-2.0',
    thinking: true,
    hardware: 'cpu',
    description: 'small with a thinking mode: the reasoning models show its own <think>',
  },
  {
    name: 'llama3.2-3b',
    repo: 'bartowski/Llama-3.2-3B-Instruct-GGUF',
    file: 'Llama-3.2-3B-Instruct-Q4_K_M.gguf',
    sizeBytes: 2.02 * GB,
    memoryBytes: 3.5 * GB,
    contextTokens: 131072,
    licence: 'Llama 3.2 Community License',
    thinking: false,
    hardware: 'cpu',
    description: 'better answers on a CPU with 8 GB of RAM, slower',
  },
  {
    name: 'qwen3-4b',
    repo: 'bartowski/Qwen_Qwen3-4B-GGUF',
    file: 'Qwen_Qwen3-4B-Q4_K_M.gguf',
    sizeBytes: 2.5 * GB,
    memoryBytes: 4 * GB,
    contextTokens: 32768,
    licence: 'Apache-2.0',
    thinking: true,
    hardware: 'gpu',
    description: 'thinking mode; a small GPU (6 GB) or a patient CPU',
  },
  {
    name: 'qwen3-8b',
    repo: 'bartowski/Qwen_Qwen3-8B-GGUF',
    file: 'Qwen_Qwen3-8B-Q6_K.gguf',
    sizeBytes: 6.73 * GB,
    memoryBytes: 8.5 * GB,
    contextTokens: 32768,
    licence: 'Apache-2.0',
    thinking: true,
    hardware: 'gpu',
    description: 'the best here: a GPU with 10 GB or more',
  },
];

export function catalogueModel(name: string): CatalogueModel | undefined {
  const n = name.trim().toLowerCase();
  return CATALOGUE.find((m) => m.name === n);
}

/**
 * The model suggested wherever answers are still quotes (the Ask page, `tidings ask`, `model list`):
 * small enough for a home server's CPU (1 GB, 2 GB of memory), written answers in every language
 * the feeds are likely in. The reasoning models show the pipeline's steps with it (no thinking mode).
 */
export const SUGGESTED_MODEL = 'qwen2.5-1.5b';
