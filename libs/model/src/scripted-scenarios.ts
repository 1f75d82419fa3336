import type { ModelFailure, ModelFinishReason } from './model-provider.ts';

/**
 * One scripted output item; text and reasoning are streamed word by word. `hold` stops the
 * stream until the request is aborted, then ends it without a finish, as an aborted stream
 * ends: a test reaches a point of a turn by waiting for the event that proves it, and the
 * turn stays there until the test interrupts it or kills its runtime, whatever the CPU does.
 */
export type ScriptedItem =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'reasoning'; readonly text: string }
  | { readonly type: 'tool-call'; readonly toolName: string; readonly input: unknown }
  | { readonly type: 'error'; readonly error: ModelFailure }
  | { readonly type: 'hold' };

/** One scripted model step. */
export interface ScriptedStep {
  readonly items: readonly ScriptedItem[];
  /** Defaults to `tool-calls` when the step has tool calls, else `stop`. */
  readonly finishReason?: ModelFinishReason;
}

/** A named, deterministic conversation script: step N answers the Nth model call of a turn. */
export interface ScriptedScenario {
  readonly steps: readonly ScriptedStep[];
  /** Delay before each streamed part, in milliseconds (0 by default). */
  readonly chunkDelayMs?: number;
  /**
   * What a goal's completion verification (`querySource: "target_completion_verification"`)
   * answers, by the number of goal turns so far: the Nth answers the Nth verification, the
   * last every later one. Absent: the goal passes at once. A goal names its scenario in its
   * objective, which every continuation notice and verification repeats (0231).
   */
  readonly verdicts?: readonly string[];
}

/** The content `two_tools` writes with `write_file`, exported for tests. */
export const TWO_TOOLS_WRITTEN = 'hello from agentwire\n';

const longText = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');

/**
 * The command `long_command` runs: it lasts until it is killed (an interrupt aborts it) or
 * until the process that started it is gone (`$PPID` is the runtime), so a SIGKILLed
 * runtime leaves no command behind.
 */
export const LONG_COMMAND = 'while kill -0 $PPID 2>/dev/null; do sleep 0.1; done';

/**
 * The built-in scenarios of the scripted provider (issue 6: streamed text, reasoning, tool
 * calls, errors). A prompt selects one with a `[scenario:<name>]` directive; otherwise the
 * provider's default applies.
 */
export const SCRIPTED_SCENARIOS = {
  streamed_text: {
    steps: [{ items: [{ type: 'text', text: 'Hello from the scripted model.' }] }],
  },
  two_tools: {
    steps: [
      {
        items: [
          { type: 'text', text: 'Let me look at the workspace.' },
          { type: 'tool-call', toolName: 'read_file', input: { path: 'README.md' } },
          {
            type: 'tool-call',
            toolName: 'write_file',
            input: { path: 'notes.txt', content: TWO_TOOLS_WRITTEN },
          },
        ],
      },
      { items: [{ type: 'text', text: 'Done: read README.md and wrote notes.txt.' }] },
    ],
  },
  /** Undo turn 1 (docs/decisions/0225): creates two files. */
  undo_create: {
    steps: [
      {
        items: [
          {
            type: 'tool-call',
            toolName: 'write_file',
            input: { path: 'src/a.txt', content: 'a1\n' },
          },
          { type: 'tool-call', toolName: 'write_file', input: { path: 'b.txt', content: 'b1\n' } },
        ],
      },
      { items: [{ type: 'text', text: 'Created src/a.txt and b.txt.' }] },
    ],
  },
  /** Undo turn 2: edits a file, and a command deletes one and creates another. */
  undo_change: {
    steps: [
      {
        items: [
          {
            type: 'tool-call',
            toolName: 'write_file',
            input: { path: 'src/a.txt', content: 'a2\n' },
          },
          {
            type: 'tool-call',
            toolName: 'run_command',
            input: { command: 'rm b.txt && mkdir -p out && printf c > out/c.txt' },
          },
        ],
      },
      { items: [{ type: 'text', text: 'Edited src/a.txt, removed b.txt, wrote out/c.txt.' }] },
    ],
  },
  /** Undo turn 3: one more file. */
  undo_more: {
    steps: [
      {
        items: [
          { type: 'tool-call', toolName: 'write_file', input: { path: 'd.txt', content: 'd\n' } },
        ],
      },
      { items: [{ type: 'text', text: 'Wrote d.txt.' }] },
    ],
  },
  /** Reads README.md and says so, asking no permission: one turn of a long session (issue 18). */
  read_readme: {
    steps: [
      { items: [{ type: 'tool-call', toolName: 'read_file', input: { path: 'README.md' } }] },
      { items: [{ type: 'text', text: 'Read README.md.' }] },
    ],
  },
  reasoning: {
    steps: [
      {
        items: [
          { type: 'reasoning', text: 'The user wants a short answer.' },
          { type: 'text', text: 'Here is a short answer.' },
        ],
      },
    ],
  },
  model_error: {
    steps: [
      {
        items: [
          { type: 'text', text: 'Starting' },
          {
            type: 'error',
            error: {
              message: 'scripted provider outage',
              code: 'provider_unavailable',
              retryable: true,
              statusCode: 503,
            },
          },
        ],
      },
    ],
  },
  /**
   * Plan mode's way out (docs/decisions/0227): the model presents a plan with
   * `exit_plan_mode`, then writes the file the plan names, then ends.
   */
  plan_approval: {
    steps: [
      {
        items: [
          { type: 'text', text: 'I have a plan.' },
          {
            type: 'tool-call',
            toolName: 'exit_plan_mode',
            input: { plan: '1. Write notes.txt with a greeting.' },
          },
        ],
      },
      {
        items: [
          {
            type: 'tool-call',
            toolName: 'write_file',
            input: { path: 'notes.txt', content: TWO_TOOLS_WRITTEN },
          },
        ],
      },
      { items: [{ type: 'text', text: 'Done: wrote notes.txt.' }] },
    ],
  },
  run_command: {
    steps: [
      {
        items: [
          { type: 'tool-call', toolName: 'run_command', input: { command: 'echo scripted' } },
        ],
      },
      { items: [{ type: 'text', text: 'The command ran.' }] },
    ],
  },
  /** Prints the command's environment: the tool sandbox's end-to-end check (issue 15). */
  print_env: {
    steps: [
      { items: [{ type: 'tool-call', toolName: 'run_command', input: { command: 'env' } }] },
      { items: [{ type: 'text', text: 'That is the environment.' }] },
    ],
  },
  outside_path: {
    steps: [
      {
        items: [
          { type: 'tool-call', toolName: 'read_file', input: { path: '../../../etc/passwd' } },
        ],
      },
      { items: [{ type: 'text', text: 'That path is not allowed.' }] },
    ],
  },
  empty_tool_name: {
    steps: [
      { items: [{ type: 'tool-call', toolName: '', input: {} }] },
      { items: [{ type: 'text', text: 'Recovered.' }] },
    ],
  },
  /** Ends without a word: an empty answer (a compaction's summary that says nothing). */
  empty_text: {
    steps: [{ items: [] }],
  },
  slow_text: {
    chunkDelayMs: 50,
    steps: [{ items: [{ type: 'text', text: longText }] }],
  },
  /** Thinks, then streams a Markdown answer word by word: a web client renders it live (issue 14). */
  markdown: {
    chunkDelayMs: 40,
    steps: [
      {
        items: [
          { type: 'reasoning', text: 'A short plan first, then the answer in Markdown.' },
          {
            type: 'text',
            text: '## Plan\n\nFirst **read** the `README.md`, then:\n\n- write a note\n- say what changed\n\n```sh\ncat README.md\n```\n\nSee [the guide](https://example.com/guide), <span onmouseover="alert(1)">safely</span>.',
          },
        ],
      },
    ],
  },
  /** A goal that takes three turns: the verifier passes it after the third (0231). */
  goal_three_turns: {
    steps: [{ items: [{ type: 'text', text: 'Worked toward the goal.' }] }],
    verdicts: [
      '{"passed": false, "reason": "the tests do not run yet", "nextAction": "add the test runner"}',
      '{"passed": false, "reason": "one test fails", "nextAction": "fix the failing test"}',
      '{"passed": true, "reason": "every test passes"}',
    ],
  },
  /** A goal the verifier never passes: it runs until its budget is spent. */
  goal_never_done: {
    steps: [{ items: [{ type: 'text', text: 'Worked toward the goal, not there yet.' }] }],
    verdicts: ['{"passed": false, "reason": "not done", "nextAction": "keep going"}'],
  },
  /** A verifier that answers something that is not a verdict. */
  goal_bad_verdict: {
    steps: [{ items: [{ type: 'text', text: 'Worked toward the goal.' }] }],
    verdicts: ['I think it is probably fine?'],
  },
  /** Streams a few words, then holds: the turn is "streaming" until it is ended. */
  held_stream: {
    steps: [{ items: [{ type: 'text', text: 'Thinking it over' }, { type: 'hold' }] }],
  },
  /** Reads README.md, then the second step holds before its first word: between two steps. */
  held_second_step: {
    steps: [
      { items: [{ type: 'tool-call', toolName: 'read_file', input: { path: 'README.md' } }] },
      { items: [{ type: 'hold' }, { type: 'text', text: 'Never said.' }] },
    ],
  },
  /** A `run_command` (asks first) that runs until it is interrupted: a tool running. */
  long_command: {
    steps: [
      { items: [{ type: 'tool-call', toolName: 'run_command', input: { command: LONG_COMMAND } }] },
      { items: [{ type: 'text', text: 'The command ended.' }] },
    ],
  },
} as const satisfies Record<string, ScriptedScenario>;
