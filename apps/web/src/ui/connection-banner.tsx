import type { FeedStatus } from '../feed/session-feed.ts';

const TEXT: Readonly<Record<FeedStatus, string>> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Connection lost — reconnecting…',
  gone: 'This session no longer exists',
};

/** The feed's status, announced politely; loud (a banner) when the page is not live. */
export function ConnectionBanner({ status }: { readonly status: FeedStatus }) {
  return (
    <div class={`connection connection-${status}`} role="status" data-connection={status}>
      <span class="dot" aria-hidden="true" />
      {TEXT[status]}
    </div>
  );
}
