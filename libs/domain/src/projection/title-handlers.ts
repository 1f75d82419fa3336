import type { ProjectionHandlers } from './handler-table.ts';

/**
 * The title handler (ours, docs/decisions/0132): the projection carries the title and
 * source of the last `session_title_updated`, the same order of effect as the stream and
 * Postgres (0130).
 */
export const titleHandlers: ProjectionHandlers<'session_title_updated'> = {
  session_title_updated: (p, e) => ({
    ...p,
    title: e.payload.title,
    titleSource: e.payload.source,
  }),
};
