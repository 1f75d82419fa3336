import type { BenchGroup } from '../group.ts';
import { domainGroup } from './domain.ts';

/** Every benchmark group, in the order `pnpm bench` runs them. Add new groups here. */
export const groups: readonly BenchGroup[] = [domainGroup];
