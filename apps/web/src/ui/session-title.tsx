import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * The session's title as the page's heading, with Rename: the heading becomes a labelled
 * field, Enter saves and Escape cancels. The heading shows the new title when the runtime's
 * `session_title_updated` arrives, as in every other tab.
 */
export function SessionTitle(props: {
  readonly sessionId: string;
  readonly title: string;
  readonly onRename: (title: string) => Promise<void>;
}) {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(props.title);
  const [error, setError] = useState<string | undefined>();
  const heading = useRef<HTMLHeadingElement>(null);
  const field = useRef<HTMLInputElement>(null);
  const renameButton = useRef<HTMLButtonElement>(null);
  // Opening a session moves focus to its title, so a keyboard or screen-reader user lands in it.
  useEffect(() => heading.current?.focus(), [props.sessionId]);
  useEffect(() => {
    if (editing) field.current?.select();
  }, [editing]);
  const close = () => {
    setEditing(false);
    setError(undefined);
    queueMicrotask(() => renameButton.current?.focus());
  };
  if (!editing) {
    return (
      <div class="session-title-row">
        <h1 id="session-title" tabIndex={-1} ref={heading}>
          {props.title}
        </h1>
        <button
          type="button"
          class="small"
          ref={renameButton}
          onClick={() => {
            setDraft(props.title);
            setEditing(true);
          }}
        >
          Rename
        </button>
      </div>
    );
  }
  return (
    <form
      class="session-title-row"
      onSubmit={(e) => {
        e.preventDefault();
        const title = draft.trim();
        if (title === '') return;
        props
          .onRename(title)
          .then(close, (err: unknown) =>
            setError(err instanceof Error ? err.message : String(err)),
          );
      }}
    >
      <h1 id="session-title" class="visually-hidden">
        {props.title}
      </h1>
      <label for="rename" class="visually-hidden">
        Session title
      </label>
      <input
        id="rename"
        ref={field}
        value={draft}
        maxLength={200}
        onInput={(e) => setDraft(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') close();
        }}
      />
      <button type="submit" class="small primary">
        Save
      </button>
      <button type="button" class="small" onClick={close}>
        Cancel
      </button>
      {error === undefined ? null : (
        <span class="error" role="alert">
          {error}
        </span>
      )}
    </form>
  );
}
