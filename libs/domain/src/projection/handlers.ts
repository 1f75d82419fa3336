import { backgroundHandlers } from './background-handlers.ts';
import type { ProjectionHandlerTable } from './handler-table.ts';
import { permissionHandlers } from './permission-handlers.ts';
import { sessionHandlers } from './session-handlers.ts';
import { steerHandlers } from './steer-handlers.ts';
import { targetHandlers } from './target-handlers.ts';
import { titleHandlers } from './title-handlers.ts';
import { toolHandlers } from './tool-handlers.ts';
import { turnHandlers } from './turn-handlers.ts';

/** The reducer's table of handlers (R10.1, R16.3, and 0132's title), one slice per file. */
export const projectionHandlers: ProjectionHandlerTable = {
  ...sessionHandlers,
  ...turnHandlers,
  ...steerHandlers,
  ...toolHandlers,
  ...backgroundHandlers,
  ...permissionHandlers,
  ...targetHandlers,
  ...titleHandlers,
};
