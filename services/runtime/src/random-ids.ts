import { randomBytes } from 'node:crypto';
import type { IdSource } from './core/ports.ts';

/**
 * Production ids: `<kind>_<time base36><random hex>`, roughly time-ordered and valid as
 * one NATS subject token (turn ids name `tx` subjects); W3C trace ids are 16 random bytes.
 */
export const randomIds: IdSource = {
  newId: (kind) => `${kind}_${Date.now().toString(36)}${randomBytes(8).toString('hex')}`,
  newTraceId: () => {
    for (;;) {
      const id = randomBytes(16).toString('hex');
      if (!/^0+$/.test(id)) return id;
    }
  },
};
