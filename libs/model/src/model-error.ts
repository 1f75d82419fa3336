/**
 * Thrown for misuse of this library (a bad configuration, an unknown scenario), never
 * for provider failures, which are stream parts (see `ModelStreamPart`).
 */
export class ModelConfigError extends Error {
  override readonly name = 'ModelConfigError';
  /** Stable code for programmatic handling. */
  readonly code = 'AW_ERR_MODEL_CONFIG';
}
