// The engine's features (docs/decisions/0220): one line each; the kernel names none of them.
import type { SessionFeature } from '../kernel/feature.ts';
import { checkpoints } from './checkpoints/checkpoints.ts';
import { fileReferences } from './file-references/file-references.ts';
import { models } from './models/models.ts';
import { modes } from './modes/modes.ts';
import { promptTemplates } from './prompt-templates/prompt-templates.ts';
import { sessionCommands } from './session-commands/session-commands.ts';
import { tickets } from './tickets/tickets.ts';

/** Every feature a production session runs with, in the order their expansions apply. */
export const builtinFeatures: readonly SessionFeature[] = [
  sessionCommands,
  modes,
  models,
  checkpoints,
  tickets,
  promptTemplates,
  fileReferences,
];
