/** A model selection as the divider records it (R16.2 `model_selected`). */
export interface ModelChoice {
  readonly providerId: string;
  readonly modelId: string;
  readonly reasoningLevel?: string;
}

/** A model switch noted in memory and not written yet (R7.9). */
export interface PendingModelSwitch {
  readonly from: ModelChoice;
  readonly to: ModelChoice;
}

/** Same provider and model; the reasoning level alone is not a model switch. */
export function sameModel(a: ModelChoice, b: ModelChoice): boolean {
  return a.providerId === b.providerId && a.modelId === b.modelId;
}

/**
 * Notes a model switch (R7.9): consecutive switches merge into one from the first `from` to
 * the latest `to`; switching back to the original model cancels the pending divider
 * (`null`). A switch to the same model notes nothing.
 */
export function noteModelSwitch(
  pending: PendingModelSwitch | null,
  from: ModelChoice,
  to: ModelChoice,
): PendingModelSwitch | null {
  const origin = pending?.from ?? from;
  if (sameModel(origin, to)) return null;
  return { from: origin, to };
}

/** The `model_change` timeline divider written when the next turn starts (R7.7, R7.9). */
export interface ModelChangeDivider {
  readonly kind: 'model_change';
  readonly from: ModelChoice;
  readonly to: ModelChoice;
}

/**
 * At the next turn start (R7.9): the divider to write as a timeline part, or `null` when
 * nothing is pending; the caller then resets its pending switch to `null`.
 */
export function modelChangeDivider(pending: PendingModelSwitch | null): ModelChangeDivider | null {
  return pending === null ? null : { kind: 'model_change', from: pending.from, to: pending.to };
}
