import type { SessionSummary } from '@agentwire/contracts';

type Status = NonNullable<SessionSummary['status']>;

const TEXT: Readonly<Record<Status, string>> = {
  idle: 'Idle',
  running: 'Working',
  waiting: 'Needs you',
  paused: 'Paused',
  completed: 'Completed',
  error: 'Error',
};

/** A session's status as a small labelled badge. */
export function StatusBadge({ status }: { readonly status: Status | null }) {
  if (status === null) return <span class="badge badge-new">New</span>;
  return (
    <span class={`badge badge-status-${status}`} data-status={status}>
      {TEXT[status]}
    </span>
  );
}
