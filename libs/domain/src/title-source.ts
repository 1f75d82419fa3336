/** The four title sources of R9.1. */
export const TITLE_SOURCES = ['default', 'first_input', 'generated', 'custom'] as const;

/** Where a session's title came from (R9.1). */
export type TitleSource = (typeof TITLE_SOURCES)[number];

/**
 * Sources an automatic title may overwrite (R9.3, R9.9); used as the compare-and-set
 * condition of the store's title update (R16.4).
 */
export const OVERWRITABLE_TITLE_SOURCES = [
  'default',
  'first_input',
  'generated',
] as const satisfies readonly TitleSource[];
