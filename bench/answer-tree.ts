// One checkout's sonar answers in this process, for bench/answer-cpu-pair.bench.ts (two checkouts
// in turn) and bench/answer-cpu-alone.bench.ts (one, in a process of its own).

/** The usage row a served sonar answer records (src/chat-api/usage.ts, recordUsage). */
function usageRow(userId: number, u: { promptTokens: number; completionTokens: number }) {
  return {
    createdAt: Math.floor(Date.now() / 1000),
    keyId: 'bench',
    userId,
    endpoint: 'chat' as const,
    model: 'sonar',
    status: 200,
    errorType: null,
    stream: false,
    promptTokens: u.promptTokens,
    completionTokens: u.completionTokens,
    reasoningTokens: 0,
    citationTokens: 0,
    searchQueries: 1,
    cost: { input: 0, output: 0, reasoning: 0, citation: 0, searchQueries: 0, request: 0, total: 0 },
    latencyMs: 1,
  };
}

export interface AnswerTree {
  ask(i: number): Promise<string>;
  close(): Promise<void>;
}

/**
 * A checkout's App on a chat-memory.bench.ts data folder, asking the news questions (i modulo 680)
 * as the bench user; each answer as JSON (text, citations, usage), with its usage row recorded if `usage`.
 */
export async function answerTree(root: string, data: string, usage = false): Promise<AnswerTree> {
  const { createApp } = await import(`${root}/src/server/create-app.ts`);
  const { loadConfig } = await import(`${root}/src/config/config.ts`);
  const { answerService } = await import(`${root}/src/answer/service.ts`);
  const { parseChatRequest } = await import(`${root}/src/chat-api/request-schema.ts`);
  const { readQuestions } = await import(`${root}/src/answer/testing/news-corpus.ts`);
  const app = await createApp(
    loadConfig({ env: {}, overrides: { dataDir: data, logLevel: 'silent', schedulerEnabled: false } }),
  );
  const user = await app.users.findByName('bench');
  if (!user) throw new Error(`${data} has no bench user: build it with bench/chat-memory.bench.ts`);
  const questions = (readQuestions() as { question: string }[]).map((q) => q.question);
  const service = answerService(app);
  return {
    async ask(i) {
      const parsed = parseChatRequest({
        model: 'sonar',
        messages: [{ role: 'user', content: questions[i % questions.length] }],
      });
      const r = await service.complete({ ...parsed.answer, scope: { kind: 'subscriptions', userId: user.id } });
      if (usage) await app.store.chatUsage.record(usageRow(user.id, r.usage));
      return JSON.stringify({ content: r.content, citations: r.citations, usage: r.usage });
    },
    close: () => app.close(),
  };
}
