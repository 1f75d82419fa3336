import type { BenchGroup } from '../group.ts';
import { admissionGroup } from './admission.ts';
import { clusterGroup } from './cluster.ts';
import { compactionGroup } from './compaction.ts';
import { domainGroup } from './domain.ts';
import { faultsGroup } from './faults.ts';
import { gatewayGroup } from './gateway.ts';
import { growthGroup } from './growth.ts';
import { persistenceGroup } from './persistence.ts';
import { projectionGroup } from './projection.ts';
import { residencyGroup } from './residency.ts';
import { runtimeGroup } from './runtime.ts';
import { undoGroup } from './undo.ts';

/** Every benchmark group, in the order `pnpm bench` runs them. Add new groups here. */
export const groups: readonly BenchGroup[] = [
  domainGroup,
  persistenceGroup,
  projectionGroup,
  runtimeGroup,
  faultsGroup,
  residencyGroup,
  clusterGroup,
  growthGroup,
  gatewayGroup,
  compactionGroup,
  undoGroup,
  admissionGroup,
];
