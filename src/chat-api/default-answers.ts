// The App's answer pipeline (src/answer/service.ts), unless the plugin was given another.
import type { App } from '../runtime/app.ts';
import type { AnswerService } from '../answer/types.ts';
import { answerService } from '../answer/service.ts';

export async function defaultAnswerService(app: App): Promise<AnswerService> {
  return answerService(app);
}
