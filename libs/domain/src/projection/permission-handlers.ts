import type { PendingPermission, SessionProjection } from '@agentwire/contracts';
import type { ProjectionHandlers } from './handler-table.ts';
import { upsertToolCall } from './tool-handlers.ts';

function settle(
  p: SessionProjection,
  remaining: PendingPermission[],
  toolCallId: string,
  status: 'denied' | 'completed',
): SessionProjection {
  return {
    ...p,
    pendingPermissions: remaining,
    status: p.status === 'waiting' && remaining.length === 0 ? 'running' : p.status,
    activeToolCalls: upsertToolCall(p.activeToolCalls, toolCallId, (c) => ({ ...c, status })),
  };
}

/** The requests left once the one `settled` names is gone: by request id when given. */
function without(
  pending: readonly PendingPermission[],
  settled: { readonly requestId?: string | undefined; readonly toolCallId: string },
): PendingPermission[] {
  const { requestId, toolCallId } = settled;
  return pending.filter((r) =>
    requestId === undefined ? r.toolCallId !== toolCallId : r.requestId !== requestId,
  );
}

/**
 * Permission handlers (R16.3). A request joins `pendingPermissions` and a running session
 * waits; `permission_resolved` removes it and marks the tool call denied on deny and
 * completed otherwise; `permission_denied` removes it and marks the call denied. Both find
 * the request by its request id when the event carries one, else by tool call id. The last
 * answer returns a waiting session to running (ours: R16.3 names `waiting` without saying
 * who sets it).
 */
export const permissionHandlers: ProjectionHandlers<
  'permission_requested' | 'permission_resolved' | 'permission_denied'
> = {
  permission_requested: (p, e) => {
    const r = e.payload;
    const request: PendingPermission = {
      toolCallId: r.toolCallId,
      toolName: r.toolName,
      reason: r.reason,
      riskLevel: r.riskLevel,
      input: r.input,
      requestedAt: e.timestamp,
      ...(r.requestId === undefined ? {} : { requestId: r.requestId }),
    };
    return {
      ...p,
      status: p.status === 'running' ? 'waiting' : p.status,
      pendingPermissions: [...p.pendingPermissions, request],
    };
  },
  permission_resolved: (p, e) => {
    const { toolCallId, decision } = e.payload;
    const remaining = without(p.pendingPermissions, e.payload);
    return settle(p, remaining, toolCallId, decision === 'deny' ? 'denied' : 'completed');
  },
  permission_denied: (p, e) => {
    const remaining = without(p.pendingPermissions, e.payload);
    return settle(p, remaining, e.payload.toolCallId, 'denied');
  },
};
