/** One measured number of a benchmark group. */
export interface Figure {
  /** `<group>.<what>_<unit>`, e.g. `domain.reducer_events_per_s`. */
  readonly name: string;
  readonly value: number;
  /** Human unit, e.g. `events/s`, `ms`, `ratio`. */
  readonly unit: string;
  /** A raw baseline measured in the same run; the harness adds `ratio` = value / baseline. */
  readonly baseline?: number;
}

/** A figure as stored in `bench/results/latest.json`. */
export interface StoredFigure {
  readonly value: number;
  readonly unit: string;
  readonly baseline?: number;
  readonly ratio?: number;
}

/** Converts a figure to its stored form, computing the ratio against its baseline. */
export function storedFigure(figure: Figure): StoredFigure {
  if (figure.baseline === undefined) return { value: figure.value, unit: figure.unit };
  const ratio = figure.baseline === 0 ? Number.NaN : figure.value / figure.baseline;
  return { value: figure.value, unit: figure.unit, baseline: figure.baseline, ratio };
}
