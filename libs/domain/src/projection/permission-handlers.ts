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

/**
 * Permission handlers (R16.3). A request joins `pendingPermissions` and a running session
 * waits; `permission_resolved` removes it (by request id when given, else by tool call id)
 * and marks the tool call denied on deny and completed otherwise; `permission_denied`
 * removes it and marks the call denied. The last answer returns a waiting session to
 * running (ours: R16.3 names `waiting` without saying who sets it).
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
    const { requestId, toolCallId, decision } = e.payload;
    const remaining = p.pendingPermissions.filter((r) =>
      requestId === undefined ? r.toolCallId !== toolCallId : r.requestId !== requestId,
    );
    return settle(p, remaining, toolCallId, decision === 'deny' ? 'denied' : 'completed');
  },
  permission_denied: (p, e) => {
    const { toolCallId } = e.payload;
    const remaining = p.pendingPermissions.filter((r) => r.toolCallId !== toolCallId);
    return settle(p, remaining, toolCallId, 'denied');
  },
};
