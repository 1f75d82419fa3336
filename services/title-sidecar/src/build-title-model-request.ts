import { type TitleRequest, titleModelMessages, titleOutputLimit } from '@agentwire/contracts';
import type { ModelRequest } from '@agentwire/model';

/** The lowest reasoning effort, asked of every title request (R9.6). */
const TITLE_REASONING_EFFORT = 'lowest';

/**
 * A title model request: the port's request with the reasoning effort R9.6 asks for always
 * set; the AI SDK adapter sends it as the SDK's `reasoning` option (docs/decisions/0080).
 */
export interface TitleModelRequest extends ModelRequest {
  readonly reasoningEffort: typeof TITLE_REASONING_EFFORT;
}

/**
 * Builds the model request of a title request (R9.6, R16.5): the system prompt and one
 * user message with the input cut to 1,200 characters (`titleModelMessages`), no tools,
 * output limit min(5000, the model's limit), lowest reasoning effort. The request's
 * `modelOutputLimit` wins over the sidecar's configured one.
 */
export function buildTitleModelRequest(
  request: Pick<TitleRequest, 'input' | 'modelOutputLimit'>,
  configuredOutputLimit?: number,
): TitleModelRequest {
  return {
    messages: titleModelMessages(request.input).map((m) => ({ role: m.role, content: m.content })),
    tools: [],
    maxTokens: titleOutputLimit(request.modelOutputLimit ?? configuredOutputLimit),
    reasoningEffort: TITLE_REASONING_EFFORT,
  };
}
