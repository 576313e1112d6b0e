// The App's answer pipeline (src/answer/service.ts), loaded when the plugin starts.
import type { App } from '../app.ts';
import type { AnswerService } from '../answer/types.ts';

export async function defaultAnswerService(app: App): Promise<AnswerService> {
  // TEMPORARY: a computed specifier until src/answer/service.ts lands (then a static import).
  const spec = '../answer/service.ts';
  const m = await import(spec) as { answerService(app: App): AnswerService };
  return m.answerService(app);
}
