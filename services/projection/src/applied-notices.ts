/**
 * Subject on which a projection instance announces each commit: `<prefix>.projection.applied.<sid>`
 * with the new last sequence number as the body. Competing instances use it to wake a
 * session they hold events for; benchmarks and tests use it to see progress without polling.
 */
export function appliedSubject(prefix: string, sessionId: string): string {
  return `${prefix}.projection.applied.${sessionId}`;
}

/** Filter matching every session's commit notices. */
export function allAppliedFilter(prefix: string): string {
  return `${prefix}.projection.applied.*`;
}
