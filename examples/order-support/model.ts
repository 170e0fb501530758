import type { LanguageModel } from '../../src/index.ts';
import { orderSupportScriptedModel } from './scripted-support-model.ts';

/**
 * The example's model: OpenAI or Anthropic when their API key is set
 * (`INTERLOCK_MODEL` picks the model id), else the offline scripted model.
 */
export async function pickModel(
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ model: LanguageModel; description: string }> {
  if (env.OPENAI_API_KEY) {
    const { createOpenAI } = await import('@ai-sdk/openai');
    const id = env.INTERLOCK_MODEL ?? 'gpt-4o-mini';
    // OPENAI_BASE_URL: any OpenAI-compatible Responses endpoint (a gateway, a local server).
    const baseURL = env.OPENAI_BASE_URL;
    return {
      model: createOpenAI({ apiKey: env.OPENAI_API_KEY, ...(baseURL ? { baseURL } : {}) })(
        id,
      ) as unknown as LanguageModel,
      description: `OpenAI ${id}${baseURL ? ` at ${baseURL}` : ''}`,
    };
  }
  if (env.ANTHROPIC_API_KEY) {
    const { createAnthropic } = await import('@ai-sdk/anthropic');
    const id = env.INTERLOCK_MODEL ?? 'claude-3-5-haiku-latest';
    const baseURL = env.ANTHROPIC_BASE_URL;
    return {
      model: createAnthropic({ apiKey: env.ANTHROPIC_API_KEY, ...(baseURL ? { baseURL } : {}) })(
        id,
      ) as unknown as LanguageModel,
      description: `Anthropic ${id}${baseURL ? ` at ${baseURL}` : ''}`,
    };
  }
  return {
    model: orderSupportScriptedModel(),
    description: 'scripted offline model (set OPENAI_API_KEY or ANTHROPIC_API_KEY for a real one)',
  };
}
