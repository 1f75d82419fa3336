import type { TitleSource } from '@agentwire/contracts';

/**
 * Sources an automatic title may overwrite (R9.3, R9.9): every source of R9.1 but
 * `custom`. Also the compare-and-set condition of the store's title update (R16.4).
 */
export const OVERWRITABLE_TITLE_SOURCES = [
  'default',
  'first_input',
  'generated',
] as const satisfies readonly TitleSource[];
