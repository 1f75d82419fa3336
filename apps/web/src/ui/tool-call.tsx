import type { ToolView } from '../state/transcript.ts';

const STATUS_TEXT: Readonly<Record<ToolView['status'], string>> = {
  pending: 'Waiting',
  running: 'Running',
  completed: 'Done',
  failed: 'Failed',
  denied: 'Denied',
};

/** The argument a person recognises a call by: a path, a command, else the input as JSON. */
function headline(input: unknown): string {
  if (input !== null && typeof input === 'object') {
    const o = input as Record<string, unknown>;
    for (const key of ['path', 'command', 'pattern', 'url']) {
      if (typeof o[key] === 'string') return o[key];
    }
  }
  const json = JSON.stringify(input) ?? '';
  return json.length > 80 ? `${json.slice(0, 79)}…` : json;
}

/** A tool call: name, main argument and status; input and output behind a disclosure. */
export function ToolCall({ tool }: { readonly tool: ToolView }) {
  const output = tool.error ?? tool.output;
  return (
    <details
      class={`tool tool-${tool.status}`}
      data-tool-call={tool.toolCallId}
      data-tool-name={tool.toolName}
    >
      <summary>
        <span class="tool-name">{tool.toolName}</span>
        <span class="tool-arg">{headline(tool.input)}</span>
        <span class={`badge badge-${tool.status}`} data-status={tool.status}>
          {STATUS_TEXT[tool.status]}
        </span>
      </summary>
      <div class="tool-body">
        <h3>Input</h3>
        <pre>{JSON.stringify(tool.input, null, 2)}</pre>
        {output === undefined ? null : (
          <>
            <h3>{tool.error === undefined ? 'Output' : 'Error'}</h3>
            <pre class="tool-output">{output}</pre>
          </>
        )}
      </div>
    </details>
  );
}
