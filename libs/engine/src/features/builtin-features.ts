// The engine's features (docs/decisions/0220): one line each; the kernel names none of them.
import type { SessionFeature } from '../kernel/feature.ts';
import { checkpoints } from './checkpoints/checkpoints.ts';
import { compactionFeature } from './compaction/compaction.ts';
import { fileReferences } from './file-references/file-references.ts';
import { forkFeature } from './fork/fork.ts';
import { goals } from './goals/goals.ts';
import { models } from './models/models.ts';
import { modes } from './modes/modes.ts';
import { promptTemplates } from './prompt-templates/prompt-templates.ts';
import { queueModes } from './queue-modes/queue-modes.ts';
import { sessionCommands } from './session-commands/session-commands.ts';
import { tickets } from './tickets/tickets.ts';

/** The host's settings of the features that take any. */
export interface FeatureSettings {
  /** Share of the context window past which a turn compacts first (`AW_COMPACT_AT`). */
  readonly compactAt?: number;
}

/** Every feature a production session runs with, in the order their expansions apply. */
export function builtinFeatures(settings: FeatureSettings = {}): readonly SessionFeature[] {
  return [
    sessionCommands,
    modes,
    models,
    checkpoints,
    forkFeature,
    compactionFeature(settings.compactAt === undefined ? {} : { autoShare: settings.compactAt }),
    goals,
    queueModes,
    tickets,
    promptTemplates,
    fileReferences,
  ];
}
