import type { MessageView } from '../state/transcript.ts';
import { Markdown } from './markdown.tsx';
import { ToolCall } from './tool-call.tsx';

/** One message: the user's text as typed, the assistant's as Markdown, reasoning collapsed. */
export function MessageItem({ message }: { readonly message: MessageView }) {
  if (message.summary === true) {
    return (
      <article
        class="message message-summary"
        aria-label="Context compacted"
        data-message-id={message.id}
      >
        <details class="compact-summary">
          <summary>Context compacted</summary>
          {message.parts.map((part) =>
            part.kind === 'text' ? <Markdown key={part.id} text={part.text} /> : null,
          )}
        </details>
      </article>
    );
  }
  if (message.divider === true) {
    return (
      <div class="message-divider" role="note" data-message-id={message.id}>
        {message.parts.map((part) => (part.kind === 'text' ? part.text : '')).join(' ')}
      </div>
    );
  }
  const who = message.role === 'user' ? 'You' : 'Assistant';
  return (
    <article
      class={`message message-${message.role}`}
      aria-label={`${who} said`}
      aria-busy={message.streaming}
      data-message-id={message.id}
    >
      <header class="message-author">{who}</header>
      {message.parts.map((part) => {
        switch (part.kind) {
          case 'reasoning':
            return (
              <details key={part.id} class="reasoning">
                <summary>Thinking</summary>
                <p>{part.text}</p>
              </details>
            );
          case 'text':
            return message.role === 'user' ? (
              <p key={part.id} class="user-text">
                {part.text}
              </p>
            ) : (
              <Markdown key={part.id} text={part.text} />
            );
          case 'tool':
            return <ToolCall key={part.id} tool={part.tool} />;
          default:
            return part satisfies never;
        }
      })}
      {message.streaming ? <span class="cursor" aria-hidden="true" /> : null}
    </article>
  );
}
