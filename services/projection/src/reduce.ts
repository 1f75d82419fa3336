import type { SessionEvent } from '@agentwire/contracts';

/** The domain reducer as the applier sees it (R10.1): `undefined` is "no event yet". */
export type Reduce<P> = (projection: P | undefined, event: SessionEvent) => P;
