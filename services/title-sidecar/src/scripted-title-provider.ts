import {
  createScriptedProvider,
  type ModelProvider,
  type ScriptedScenario,
} from '@agentwire/model';

/** Scenario name a title request uses when its input names none: a title from the input. */
const TITLE_FROM_INPUT_SCENARIO = 'title_from_input';

/**
 * Title scenarios for tests and demos, picked by a `[scenario:<name>]` directive in the
 * first input (the scripted provider of `@agentwire/model` would answer with chat text):
 * - `title_slow`: the derived-looking title, one word every 150 ms (about 0.75 s in all);
 * - `title_stall`: no output for 30 s (a model timeout);
 * - `title_tool_call`: a tool call instead of text (no title, R16.5);
 * - `title_empty`: `{"title":"  "}` (no title);
 * - `title_fenced`: a thinking block and a fenced JSON reply (cleaned, R9.8);
 * - `title_model_error`: a provider outage (`provider_unavailable`, retryable).
 * Only `title_*` directives are honoured: the main-turn scenarios (`two_tools`, ...) name
 * what the session's turn plays, so the title model ignores them and titles the input.
 */
const TITLE_SCENARIOS = {
  title_slow: {
    chunkDelayMs: 150,
    steps: [{ items: [{ type: 'text', text: '{"title": "Slowly generated session title"}' }] }],
  },
  title_stall: {
    chunkDelayMs: 30_000,
    steps: [{ items: [{ type: 'text', text: '{"title":"Too late"}' }] }],
  },
  title_tool_call: {
    steps: [{ items: [{ type: 'tool-call', toolName: 'read_file', input: { path: 'x' } }] }],
  },
  title_empty: { steps: [{ items: [{ type: 'text', text: '{"title":"  "}' }] }] },
  title_model_error: {
    steps: [
      {
        items: [
          {
            type: 'error',
            error: {
              message: 'scripted title provider outage',
              code: 'provider_unavailable',
              retryable: true,
              statusCode: 503,
            },
          },
        ],
      },
    ],
  },
  title_fenced: {
    steps: [
      {
        items: [
          {
            type: 'text',
            text: '<think>name it</think>\n```json\n{"title": "Fenced reply title."}\n```',
          },
        ],
      },
    ],
  },
} as const satisfies Record<string, ScriptedScenario>;

const MAX_WORDS = 6;
const MAX_UNSPACED = 24;
const DIRECTIVE = /\[scenario:[A-Za-z0-9_-]+\]/gu;
const OTHER_DIRECTIVE = /\[scenario:(?!title_)[A-Za-z0-9_-]+\]/gu;

/**
 * `text` without the `[scenario:...]` directives that do not name a `title_*` scenario.
 *
 * @internal Exported for its tests.
 */
export function withoutMainTurnDirectives(text: string): string {
  return text.replace(OTHER_DIRECTIVE, ' ').trim();
}
const EDGE_PUNCTUATION = /^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu;

/**
 * The title the scripted model gives an input, deterministically: its first six words
 * (edge punctuation dropped), or its first 24 characters when it has fewer than three
 * words (unspaced scripts), first letter upper-cased. Exported for tests.

 *
 * @internal Exported for its tests.
 */
export function scriptedTitleOf(input: string): string {
  const words = input
    .replace(DIRECTIVE, ' ')
    .split(/\s+/u)
    .map((w) => w.replace(EDGE_PUNCTUATION, ''))
    .filter((w) => w !== '');
  const title =
    words.length >= 3
      ? words.slice(0, MAX_WORDS).join(' ')
      : Array.from(words.join(' ')).slice(0, MAX_UNSPACED).join('');
  return title.charAt(0).toUpperCase() + title.slice(1);
}

/** Options of {@link createScriptedTitleProvider}. */
export interface ScriptedTitleProviderOptions {
  readonly providerId?: string;
  readonly modelId?: string;
}

/**
 * A deterministic title model for local runs and tests (R9.6): it answers
 * `{"title":"<scriptedTitleOf(input)>"}` for the request's user message, or plays the
 * {@link TITLE_SCENARIOS} its input names; any other `[scenario:...]` directive is stripped
 * first. Streaming, usage and abort handling are the scripted provider's of
 * `@agentwire/model`.
 */
export function createScriptedTitleProvider(
  options: ScriptedTitleProviderOptions = {},
): ModelProvider {
  const providerId = options.providerId ?? 'scripted';
  const modelId = options.modelId ?? 'scripted-title-1';
  return {
    providerId,
    modelId,
    stream(request, signal) {
      const lastUser = request.messages.findLastIndex((m) => m.role === 'user');
      const user = request.messages[lastUser]?.content ?? '';
      const fromInput: ScriptedScenario = {
        steps: [
          { items: [{ type: 'text', text: JSON.stringify({ title: scriptedTitleOf(user) }) }] },
        ],
      };
      const provider = createScriptedProvider({
        providerId,
        modelId,
        scenarios: { ...TITLE_SCENARIOS, [TITLE_FROM_INPUT_SCENARIO]: fromInput },
        defaultScenario: TITLE_FROM_INPUT_SCENARIO,
      });
      const messages = request.messages.map((m, i) =>
        i === lastUser ? { ...m, content: withoutMainTurnDirectives(m.content) } : m,
      );
      return provider.stream({ ...request, messages }, signal);
    },
  };
}
