import { parsePersistenceCommand } from '../persistence/parse-persistence-command.ts';
import type { PersistenceCommand } from '../persistence/persistence-command.ts';

/** Like {@link parsePersistenceCommand}, but throws the error. */
export function parsePersistenceCommandOrThrow(input: unknown): PersistenceCommand {
  const result = parsePersistenceCommand(input);
  if (!result.ok) throw result.error;
  return result.command;
}
